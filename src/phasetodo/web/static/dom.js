// Small DOM helpers. Text reaches the page only as text nodes or textContent, never as markup.

const absent = (value) => value === null || value === undefined || value === false;

function setAttr(node, key, value) {
  if (key === "class") node.className = value;
  else if (key === "text") node.textContent = value;
  else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
  else node.setAttribute(key, value === true ? "" : String(value));
}

// An element with attributes (on* keys are listeners) and children; null, undefined and
// false are left out, strings become text nodes, arrays are flattened.
export function h(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) if (!absent(value)) setAttr(node, key, value);
  for (const kid of kids.flat(Infinity)) if (!absent(kid)) node.append(kid instanceof Node ? kid : String(kid));
  return node;
}

// Set DOM properties (value, checked) that attributes do not hold once a field is edited.
export function withProps(node, props) {
  Object.assign(node, props);
  return node;
}

export const $ = (selector) => document.querySelector(selector);

// Replace the page's content; null and false children are left out.
export function show(...kids) {
  const main = $("#main");
  main.replaceChildren();
  for (const kid of kids.flat(Infinity)) if (kid !== null && kid !== undefined && kid !== false) main.append(kid);
}

// The element carrying data-key="key", if any (keys hold any text, so no selector is built).
export function byKey(key) {
  for (const node of document.querySelectorAll("[data-key]")) if (node.dataset.key === key) return node;
  return undefined;
}

function focused() {
  const active = document.activeElement;
  const key = active && active.dataset ? active.dataset.key : undefined;
  const caret = active && "selectionStart" in active ? [active.selectionStart, active.selectionEnd] : null;
  return { key, caret };
}

function refocus(node, caret) {
  node.focus({ preventScroll: true });
  if (!caret || !("setSelectionRange" in node)) return;
  try {
    node.setSelectionRange(caret[0], caret[1]);
  } catch (_) {
    /* not a text field */
  }
}

// Focus and caret survive a re-render: elements carry data-key, and the one
// that had focus is focused again if it is still there.
export function keepFocus(render) {
  const { key, caret } = focused();
  render();
  if (key === undefined) return;
  const node = byKey(key);
  if (node) refocus(node, caret);
}
