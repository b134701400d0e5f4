// The plan page's list: the head with the overall progress, the phase index, and each
// phase with its tasks (filtered, folded), their status buttons and rename fields.
import { token } from "./api.js";
import { timeEl } from "./clock.js";
import { h, keepFocus, show } from "./dom.js";
import { agentChip, bar, byAgent, counts, finished, isClosed, kindName, phaseProgress, plural, taskItem } from "./pieces.js";
import { renamePhase, renameTask, setStatus, startRename, startTaskRename, statusChoices, toggleFold } from "./plan-edit.js";
import { addForm, markdownEditor, newPhaseForm, renameField } from "./plan-forms.js";
import { toolbar, viewTabs } from "./plan-toolbar.js";
import { BIG_PLAN, virtualList } from "./plan-virtual.js";

// Whether a task passes the filter and the "hide finished" box.
export function matches(ui, task) {
  if (ui.hideClosed && isClosed(task.status)) return false;
  if (!ui.filter) return true;
  const needle = ui.filter.toLowerCase();
  const hay = [task.content, ...(task.notes || []), task.owner || "", task.reason || ""].join("\n").toLowerCase();
  return hay.includes(needle);
}

// -- one task ------------------------------------------------------------------------------------

export function statusButton(ctx, where, [label, status]) {
  const { key, p, t, task } = where;
  const attrs = { type: "button", class: "act act-" + status, "data-key": key + ":" + status, "aria-label": `${label}: ${task.content}` };
  return h("button", { ...attrs, onclick: () => setStatus(ctx, p, t, task, status) }, label);
}

function renameButton(ctx, key, task) {
  const attrs = { type: "button", class: "act link", "data-key": key + ":rename", "aria-label": `Rename: ${task.content}` };
  return h("button", { ...attrs, onclick: () => startTaskRename(ctx, key, task) }, "Rename");
}

export function taskActions(ctx, where) {
  // Only a task that comes after others needs the plan's index (a long plan's costs a while).
  const index = where.task.after && where.task.after.length ? ctx.index() : null;
  const buttons = statusChoices(where.task, index, Boolean(ctx.ui.plan.team)).map((choice) => statusButton(ctx, where, choice));
  return h("div", { class: "actions" }, buttons, renameButton(ctx, where.key, where.task));
}

export function taskRow(ctx, phase, p, task, t) {
  const key = `t:${phase.name}\u0000${task.content}`;
  const editing = ctx.ui.editing && ctx.ui.editing.key === key;
  const main = editing
    ? renameField(ctx, key, `New name for ${task.content}`, () => renameTask(ctx, p, t, task))
    : h("span", { class: "content" }, task.content);
  return taskItem(task, main, ctx.writable() && !editing ? taskActions(ctx, { key, p, t, task }) : null);
}

// -- one phase -----------------------------------------------------------------------------------

function foldButton(ctx, phase, key, listId) {
  const folded = ctx.ui.folded.has(phase.name);
  const attrs = {
    type: "button",
    class: "fold",
    "aria-expanded": String(!folded),
    "aria-controls": listId,
    "aria-label": (folded ? "Unfold " : "Fold ") + phase.name,
    "data-key": key + ":fold",
  };
  return h("button", { ...attrs, onclick: () => toggleFold(ctx, phase.name) }, folded ? "▸" : "▾");
}

function phaseRenameButton(ctx, phase, key) {
  const attrs = { type: "button", class: "link small", "data-key": key + ":rename", "aria-label": `Rename phase: ${phase.name}` };
  return h("button", { ...attrs, onclick: () => startRename(ctx, key, phase.name) }, "Rename");
}

function phaseHead(ctx, phase, p, c) {
  const key = `p:${phase.name}`;
  const editing = ctx.ui.editing && ctx.ui.editing.key === key;
  const name = editing
    ? renameField(ctx, key, `New name for phase ${phase.name}`, () => renamePhase(ctx, p, phase))
    : h("h2", { id: `phase-${p}` }, phase.name);
  return h(
    "div",
    { class: "phase-head" },
    foldButton(ctx, phase, key, `phase-${p}-tasks`),
    name,
    phaseProgress(phase, c),
    ctx.writable() && !editing ? phaseRenameButton(ctx, phase, key) : null,
  );
}

function phaseBody(ctx, phase, p) {
  const tasks = phase.tasks || [];
  const visible = tasks.map((task, t) => [task, t]).filter(([task]) => matches(ctx.ui, task));
  const hidden = tasks.length - visible.length;
  return [
    h("ol", { class: "tasks", id: `phase-${p}-tasks` }, visible.map(([task, t]) => taskRow(ctx, phase, p, task, t))),
    hidden > 0 ? h("p", { class: "muted hidden-count" }, `${plural(hidden, "task")} hidden by the filter`) : null,
    ctx.writable() ? addForm(ctx, phase, p) : null,
  ];
}

function phaseSection(ctx, phase, p) {
  const c = counts(phase);
  const attrs = { class: "phase" + (c.open === 0 && c.tasks ? " phase-closed" : ""), "aria-labelledby": `phase-${p}` };
  return h("section", attrs, phaseHead(ctx, phase, p, c), ctx.ui.folded.has(phase.name) ? null : phaseBody(ctx, phase, p));
}

// -- the whole plan ------------------------------------------------------------------------------

function lastChange(plan) {
  if (plan.time === null) return null;
  return [" · last change ", timeEl(plan.time), plan.kind ? ` (${kindName(plan.kind)}${byAgent(plan)})` : ""];
}

export function planHead(ctx) {
  const plan = ctx.ui.plan;
  const total = plan.counts;
  const agents = plan.agents || [];
  return h(
    "div",
    { class: "plan-head" },
    h("h1", {}, ctx.sid),
    h(
      "p",
      { class: "meta" },
      agents.map((a) => agentChip(a, plan.owner)),
      agents.length ? " · " : null,
      h("span", { class: "version" }, `version ${plan.version}`),
      lastChange(plan),
    ),
    h(
      "div",
      { class: "overall" },
      bar(total, "Progress of the whole plan"),
      h("span", { class: "count" }, `${total.completed} of ${total.tasks} done · ${total.abandoned} dropped · ${total.open} open`),
    ),
  );
}

function notice(plan) {
  if (plan.read_only) return h("p", { class: "notice" }, "This board is read-only.");
  if (!token) return h("p", { class: "notice" }, "View only: open the address that phasetodo serve printed (it carries the token) to make changes.");
  return null;
}

function phaseIndex(phases) {
  if (phases.length <= 3) return null;
  const link = (phase, p) => {
    const c = counts(phase);
    return h("a", { href: `#phase-${p}` }, phase.name, h("span", { class: "muted" }, ` ${finished(c)}/${c.tasks}`));
  };
  return h("nav", { class: "phase-index", "aria-label": "Phases" }, phases.map(link));
}

// A long plan: a virtual list of phase heads and tasks (only the rows on screen are drawn).
function longList(ctx) {
  const drawTask = (row) => taskRow(ctx, row.phase, row.p, row.task, row.t);
  const drawHead = (row) => {
    const c = counts(row.phase);
    const key = `p:${row.phase.name}`;
    return h("li", { class: "vphase" }, foldButton(ctx, row.phase, key, "phases"), h("h2", { id: `phase-${row.p}` }, row.phase.name), phaseProgress(row.phase, c));
  };
  return virtualList(ctx, matches, drawTask, drawHead);
}

function phaseList(ctx, phases) {
  if (!phases.length) return h("p", { class: "empty" }, "The list is empty.");
  if (ctx.ui.plan.counts.tasks > BIG_PLAN) return longList(ctx);
  return h("div", { class: "phases" }, phases.map((phase, p) => phaseSection(ctx, phase, p)));
}

export function drawPlan(ctx) {
  const { plan, md } = ctx.ui;
  if (!plan) return;
  ctx.vlist = null;
  keepFocus(() =>
    show(
      planHead(ctx),
      viewTabs(ctx),
      toolbar(ctx),
      notice(plan),
      md ? markdownEditor(ctx) : null,
      phaseIndex(plan.phases),
      phaseList(ctx, plan.phases),
      ctx.writable() ? newPhaseForm(ctx) : null,
    ),
  );
  if (ctx.vlist) ctx.vlist.update(); // a long plan's rows on screen, now that the page is laid out
}
