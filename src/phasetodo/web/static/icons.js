// The board's glyphs as inline SVG built with DOM calls, so each one draws the same with
// any fonts (a font without a glyph shows an empty box). Each icon is a 16×16 drawing in
// the current text colour, hidden from screen readers: a text label always goes with it.
const SVG = "http://www.w3.org/2000/svg";

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

// Each icon's shapes: [tag, attributes]; strokes use the current colour.
const SHAPES = {
  pending: [["circle", { cx: 8, cy: 8, r: 5.5 }]],
  in_progress: [["path", { d: "M5 3.5 L12.5 8 L5 12.5 Z", fill: "currentColor" }]],
  completed: [["path", { d: "M3 8.5 L6.5 12 L13 4.5" }]],
  abandoned: [["path", { d: "M4 4 L12 12 M12 4 L4 12" }]],
  blocked: [["circle", { cx: 8, cy: 8, r: 5.5 }], ["path", { d: "M4.2 11.8 L11.8 4.2" }]],
  waiting: [["circle", { cx: 8, cy: 8, r: 5.5 }], ["path", { d: "M8 5 L8 8 L10.5 9.5" }]],
  lease: [["path", { d: "M4.5 2.5 H11.5 M4.5 13.5 H11.5 M5 2.5 C5 6 11 10 11 13.5 M11 2.5 C11 6 5 10 5 13.5" }]],
  agent: [["circle", { cx: 8, cy: 5.5, r: 2.8 }], ["path", { d: "M2.5 14 C3.5 10 12.5 10 13.5 14" }]],
  unknown: [["circle", { cx: 8, cy: 8, r: 1.8, fill: "currentColor" }]],
};

// An <svg> icon named `name` (a status, "waiting", "lease", "agent"); unknown names get a dot.
export function icon(name, extraClass = "") {
  const root = svgEl("svg", {
    class: ("icon icon-" + name + " " + extraClass).trim(),
    viewBox: "0 0 16 16",
    width: 16,
    height: 16,
    fill: "none",
    stroke: "currentColor",
    "stroke-width": 1.8,
    "stroke-linecap": "round",
    "stroke-linejoin": "round",
    "aria-hidden": "true",
    focusable: "false",
  });
  for (const [tag, attrs] of SHAPES[name] || SHAPES.unknown) root.append(svgEl(tag, attrs));
  return root;
}

// An SVG element of another kind (the dependency graph draws with these).
export const svg = svgEl;
