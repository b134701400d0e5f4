// The dependency graph of a plan, drawn as SVG in the page: every task that comes after
// another or that another comes after is a node, every `after` link an edge, laid out in
// columns by how long the chain before it is; the critical path (the longest chain of open
// work) is marked. Choosing a node (click, or Enter on it) shows that task below.
import { h, keepFocus, show } from "./dom.js";
import { svg } from "./icons.js";
import { statusLabel, taskItem } from "./pieces.js";
import { planHead, taskActions } from "./plan-list.js";
import { liveBox, viewTabs } from "./plan-toolbar.js";
import { afterOf, criticalPath, edgesOf, isClosed } from "./team.js";

export const MAX_NODES = 600; // more than this: open tasks only, then the first ones
const COL = 230;
const ROW = 46;
const BOX = { w: 190, h: 32 };
const PAD = 16;

// The nodes to draw (contents) and the edges between them.
function pick(edges, index) {
  let names = new Set(edges.flat());
  let note = null;
  if (names.size > MAX_NODES) {
    names = new Set([...names].filter((n) => !isClosed(index.get(n).task.status)));
    note = "finished tasks left out";
  }
  if (names.size > MAX_NODES) {
    names = new Set([...names].slice(0, MAX_NODES));
    note = `the first ${MAX_NODES} open tasks`;
  }
  return { names, edges: edges.filter(([a, b]) => names.has(a) && names.has(b)), note };
}

// Each node's column: the length of the longest chain of drawn links before it (Kahn's order).
function columns(names, edges) {
  const incoming = new Map([...names].map((n) => [n, 0]));
  const next = new Map([...names].map((n) => [n, []]));
  for (const [a, b] of edges) {
    incoming.set(b, incoming.get(b) + 1);
    next.get(a).push(b);
  }
  const column = new Map([...names].map((n) => [n, 0]));
  const queue = [...names].filter((n) => incoming.get(n) === 0);
  for (let i = 0; i < queue.length; i += 1) {
    const at = queue[i];
    for (const b of next.get(at)) {
      column.set(b, Math.max(column.get(b), column.get(at) + 1));
      incoming.set(b, incoming.get(b) - 1);
      if (incoming.get(b) === 0) queue.push(b);
    }
  }
  return column;
}

function layout(names, edges) {
  const column = columns(names, edges);
  const filled = [];
  const at = new Map();
  for (const name of names) {
    const c = column.get(name);
    const r = filled[c] || 0;
    filled[c] = r + 1;
    at.set(name, { x: PAD + c * COL, y: PAD + r * ROW });
  }
  const width = PAD * 2 + Math.max(1, filled.length) * COL;
  const height = PAD * 2 + Math.max(1, ...filled.map((n) => n || 0)) * ROW;
  return { at, width, height };
}

const short = (text) => (text.length > 26 ? text.slice(0, 25) + "…" : text);

function select(ctx, name) {
  ctx.ui.selected = name;
  ctx.draw();
}

function node(ctx, name, spot, onPath) {
  const { task } = ctx.index().get(name);
  const label = (task.id ? task.id + " " : "") + name;
  const g = svg("g", {
    class: `node st-${task.status}${onPath ? " critical" : ""}${ctx.ui.selected === name ? " chosen" : ""}`,
    transform: `translate(${spot.x} ${spot.y})`,
    tabindex: 0,
    role: "button",
    "aria-label": `${label}, ${statusLabel(task.status)}${onPath ? ", on the critical path" : ""}`,
    "data-key": "g:" + name,
  });
  const title = svg("title", {});
  title.textContent = label;
  const text = svg("text", { x: 10, y: 20 });
  text.textContent = short(label);
  g.append(title, svg("rect", { width: BOX.w, height: BOX.h, rx: 6 }), text);
  g.addEventListener("click", () => select(ctx, name));
  g.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      select(ctx, name);
    }
  });
  return g;
}

function edge(from, to, critical) {
  const x1 = from.x + BOX.w;
  const y1 = from.y + BOX.h / 2;
  const x2 = to.x;
  const y2 = to.y + BOX.h / 2;
  const bend = Math.max(30, (x2 - x1) / 2);
  const d = `M${x1} ${y1} C${x1 + bend} ${y1} ${x2 - bend} ${y2} ${x2} ${y2}`;
  return svg("path", { class: "edge" + (critical ? " critical" : ""), d, "marker-end": critical ? "url(#arrow-critical)" : "url(#arrow)" });
}

function arrows() {
  const defs = svg("defs", {});
  for (const id of ["arrow", "arrow-critical"]) {
    const marker = svg("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerUnits: "userSpaceOnUse", markerWidth: 9, markerHeight: 9, orient: "auto" });
    marker.append(svg("path", { d: "M0 0 L10 5 L0 10 Z", class: id }));
    defs.append(marker);
  }
  return defs;
}

function drawing(ctx, names, edges, path) {
  const { at, width, height } = layout(names, edges);
  const step = new Map(path.map((name, i) => [name, i]));
  const onPath = (a, b) => step.has(a) && step.get(b) === step.get(a) + 1;
  const root = svg("svg", { class: "graph", width, height, viewBox: `0 0 ${width} ${height}`, role: "group", "aria-label": "Dependency graph" });
  root.append(arrows());
  const lines = svg("g", { class: "edges" });
  for (const [a, b] of edges) lines.append(edge(at.get(a), at.get(b), onPath(a, b)));
  const boxes = svg("g", { class: "nodes" });
  for (const name of names) boxes.append(node(ctx, name, at.get(name), step.has(name)));
  root.append(lines, boxes);
  return h("div", { class: "graph-wrap" }, root);
}

// What the graph's marks mean: each swatch is drawn with the classes of what it stands for,
// so it looks as the graph does in either colour scheme.
const KEY = [
  ["in progress", "key-node st-in_progress"],
  ["blocked", "key-node st-blocked"],
  ["on the critical path", "key-node critical"],
  ["selected", "key-node chosen"],
];

function swatch(classes) {
  const box = svg("svg", { class: "key-swatch", width: 30, height: 18, viewBox: "0 0 30 18", "aria-hidden": "true" });
  const g = svg("g", { class: classes });
  g.append(svg("rect", { x: 2, y: 2, width: 26, height: 14, rx: 4 }));
  box.append(g);
  return box;
}

function legend() {
  const item = ([label, classes]) => h("li", { "data-key": "key:" + label }, swatch(classes), h("span", {}, label));
  const arrow = h("li", { "data-key": "key:after" }, h("span", { class: "key-arrow", "aria-hidden": "true" }, "→"), h("span", {}, "points to the task that comes after"));
  return h("ul", { class: "graph-key", "aria-label": "Legend" }, KEY.map(item), arrow);
}

// The chosen task: its row (with its controls), what it comes after and what comes after it.
function chosen(ctx, edges) {
  const found = ctx.ui.selected && ctx.index().get(ctx.ui.selected);
  if (!found) return h("p", { class: "muted graph-hint" }, "Choose a task in the graph to see it here.");
  const { task, phase, p, t } = found;
  const spot = { key: `graph:${phase.name}\u0000${task.content}`, p, t, task };
  const needed = edges.filter(([a]) => a === task.content).map(([, b]) => b);
  return h(
    "section",
    { class: "graph-task", "aria-labelledby": "graph-task-h" },
    h("h2", { id: "graph-task-h" }, "Task in ", phase.name),
    h("ol", { class: "tasks" }, taskItem(task, h("span", { class: "content" }, task.content), ctx.writable() ? taskActions(ctx, spot) : null)),
    h("p", { class: "muted" }, "Comes after: ", afterOf(task).join(", ") || "nothing", " · needed by: ", needed.join(", ") || "nothing"),
  );
}

export function drawGraph(ctx) {
  const { plan } = ctx.ui;
  if (!plan) return;
  ctx.vlist = null;
  const index = ctx.index();
  const all = edgesOf(plan.phases, index);
  const { names, edges, note } = pick(all, index);
  const path = criticalPath(plan.phases, index);
  const summary = all.length
    ? `${names.size} tasks, ${edges.length} links${note ? " (" + note + ")" : ""}. Critical path, ${path.length} open tasks: `
    : "No task of this plan comes after another (team plans say so with after).";
  keepFocus(() =>
    show(
      planHead(ctx),
      viewTabs(ctx),
      h("div", { class: "toolbar" }, liveBox(ctx)),
      h("p", { class: "graph-summary" }, summary, all.length ? h("span", { class: "critical-path" }, path.join(" → ")) : null),
      all.length ? legend() : null,
      all.length ? drawing(ctx, names, edges, path) : null,
      chosen(ctx, all),
    ),
  );
}
