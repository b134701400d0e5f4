// The plan page's toolbar: live updates on or off, the filter, hiding finished tasks,
// the Markdown editor; and the links to the plan's views and history.
import { pagePath } from "./api.js";
import { h, withProps } from "./dom.js";
import { openMarkdown } from "./plan-edit.js";
import { toggleLive } from "./plan-live.js";

function checkbox(id, key, checked, onChange) {
  return withProps(h("input", { type: "checkbox", id, "data-key": key, onchange: (e) => onChange(e.target.checked) }), { checked });
}

function filterField(ctx) {
  const onInput = (e) => {
    ctx.ui.filter = e.target.value;
    ctx.drawSoon();
  };
  const attrs = { type: "search", id: "filter", placeholder: "Filter tasks", "data-key": "tool:filter", oninput: onInput };
  return withProps(h("input", attrs), { value: ctx.ui.filter });
}

function hideFinished(ctx, on) {
  ctx.ui.hideClosed = on;
  ctx.draw();
}

// Links to the plan's views (list, team, graph, activity) and its history; the one shown is marked.
export function viewTabs(ctx) {
  const link = (view, name) => {
    const here = ctx.ui.view === view;
    return h("a", { href: pagePath(ctx.sid, view === "list" ? "" : "/" + view), class: "tab" + (here ? " here" : ""), "aria-current": here ? "page" : null }, name);
  };
  return h(
    "nav",
    { class: "tabs", "aria-label": "Views of the plan" },
    link("list", "List"),
    link("team", "Team"),
    link("graph", "Graph"),
    link("activity", "Activity"),
    h("a", { href: pagePath(ctx.sid, "/history"), class: "tab" }, "History"),
  );
}

// The live-updates box alone (the views other than the list have no filter of tasks).
export function liveBox(ctx) {
  const box = checkbox("live-toggle", "tool:live", ctx.ui.liveOn, (on) => toggleLive(ctx, on));
  return h("label", {}, box, " Live updates");
}

export function toolbar(ctx) {
  const { ui } = ctx;
  const liveBox = checkbox("live-toggle", "tool:live", ui.liveOn, (on) => toggleLive(ctx, on));
  const hide = checkbox("hide-closed", "tool:hide", ui.hideClosed, (on) => hideFinished(ctx, on));
  return h(
    "div",
    { class: "toolbar" },
    h("label", {}, liveBox, " Live updates"),
    h("label", { class: "sr-only", for: "filter" }, "Filter tasks"),
    filterField(ctx),
    h("label", {}, hide, " Hide finished"),
    ctx.writable() && !ui.md ? h("button", { type: "button", "data-key": "tool:md", onclick: () => openMarkdown(ctx) }, "Edit as Markdown") : null,
  );
}
