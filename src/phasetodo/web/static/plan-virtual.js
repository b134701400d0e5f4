// A long plan's list, virtualized: one row per phase head and per task, each ROW pixels
// high, and only the rows on screen (and a few either side) in the page. The rows follow
// the filter, the folded phases and "hide finished"; scrolling the window redraws them
// once a frame at most. A plan of more than BIG_PLAN tasks is shown this way.
import { h } from "./dom.js";

export const BIG_PLAN = 5000;
export const ROW = 36; // pixels, the height of every row
const OVERSCAN = 12; // rows drawn beyond each edge of the screen

// The rows of the list: {phase, p} for a phase head, {phase, p, task, t} for a task.
function rowsOf(ui, matches) {
  const rows = [];
  ui.plan.phases.forEach((phase, p) => {
    rows.push({ phase, p });
    if (ui.folded.has(phase.name)) return;
    (phase.tasks || []).forEach((task, t) => {
      if (matches(ui, task)) rows.push({ phase, p, task, t });
    });
  });
  return rows;
}

// The rows, worked out again only when the plan or what filters it changes.
function cachedRows(ctx, matches) {
  const { ui } = ctx;
  const key = [ui.plan.head, ui.filter, ui.hideClosed, [...ui.folded].join("\u0000")].join("\u0001");
  if (!ctx.vrows || ctx.vrows.key !== key || ctx.vrows.plan !== ui.plan) ctx.vrows = { key, plan: ui.plan, rows: rowsOf(ui, matches) };
  return ctx.vrows.rows;
}

class VirtualList {
  constructor(rows, drawRow) {
    this.rows = rows;
    this.drawRow = drawRow;
    this.win = h("ol", { class: "tasks vwin" });
    this.space = h("div", { class: "vlist", "data-rows": rows.length }, this.win);
    this.space.style.height = rows.length * ROW + "px";
    this.shown = null;
    this.made = new Map(); // row number -> its element, for the rows in the page
  }

  // Draw the rows now on screen (after the list is in the page, and on each scroll).
  update() {
    if (!this.space.isConnected) return;
    const top = -this.space.getBoundingClientRect().top;
    const start = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const end = Math.min(this.rows.length, Math.ceil((top + window.innerHeight) / ROW) + OVERSCAN);
    if (this.shown && this.shown[0] === start && this.shown[1] === end) return;
    this.shown = [start, end];
    // Rows still on screen keep their elements, in place (moving them would lay them out
    // again); only the ones scrolled out are removed and the ones scrolled in made.
    const made = new Map();
    for (const [i, node] of this.made) if (i < start || i >= end) node.remove();
    const before = []; // new rows above the first kept one
    const after = []; // new rows below the kept ones (or all of them, when none is kept)
    let kept = false;
    for (let i = start; i < end; i += 1) {
      let node = this.made.get(i);
      if (node) kept = true;
      else {
        node = this.drawRow(this.rows[i]);
        (kept ? after : before).push(node);
      }
      made.set(i, node);
    }
    if (before.length) this.win.prepend(...before);
    if (after.length) this.win.append(...after);
    this.made = made;
    this.win.style.transform = `translateY(${start * ROW}px)`;
  }
}

// Follow the window's scrolling and size, once per page.
function listen(ctx) {
  if (ctx.vlistListening) return;
  ctx.vlistListening = true;
  let pending = false;
  const soon = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (ctx.vlist) ctx.vlist.update();
    });
  };
  window.addEventListener("scroll", soon, { passive: true });
  window.addEventListener("resize", soon);
}

// The long list's element; `drawTask(row)` and `drawHead(row)` make one row's <li>.
export function virtualList(ctx, matches, drawTask, drawHead) {
  const rows = cachedRows(ctx, matches);
  ctx.vlist = new VirtualList(rows, (row) => (row.task ? drawTask(row) : drawHead(row)));
  listen(ctx);
  return [h("p", { class: "muted vlist-note" }, `${rows.length} rows; only those on screen are drawn.`), ctx.vlist.space];
}
