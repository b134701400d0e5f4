// Pieces every page shows: status words and icons, progress bars, task rows, agent chips.
import { h } from "./dom.js";
import { icon } from "./icons.js";
import { leaseState } from "./team.js";

const STATUS = {
  pending: { label: "pending" },
  in_progress: { label: "in progress" },
  completed: { label: "done" },
  abandoned: { label: "dropped" },
  blocked: { label: "blocked" },
};
const KINDS = { write: "agent write", user_edit: "person's edit", clear: "auto-clear" };

export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
export const kindName = (kind) => KINDS[kind] || kind;
export const statusLabel = (status) => (STATUS[status] ? STATUS[status].label : status);
// " by ann" for a change an agent made, else nothing.
export const byAgent = (change) => (change.agent ? " by " + change.agent : "");
export const isClosed = (status) => status === "completed" || status === "abandoned";

export function counts(phase) {
  const c = { tasks: 0, completed: 0, abandoned: 0, in_progress: 0, open: 0 };
  for (const task of phase.tasks || []) {
    c.tasks += 1;
    c[task.status] = (c[task.status] || 0) + 1;
    if (!isClosed(task.status)) c.open += 1;
  }
  return c;
}

// Finished tasks (done or dropped) of these counts.
export const finished = (c) => c.completed + c.abandoned;

function barAria(label, total, done, dropped) {
  return {
    class: "bar",
    role: "progressbar",
    "aria-label": label,
    "aria-valuemin": 0,
    "aria-valuemax": total,
    "aria-valuenow": done + dropped,
    "aria-valuetext": `${done} done, ${dropped} dropped, ${total - done - dropped} open of ${total}`,
  };
}

export function bar(c, label) {
  const total = c.tasks || 0;
  const done = c.completed || 0;
  const dropped = c.abandoned || 0;
  const pct = (n) => (total ? (100 * n) / total : 0) + "%";
  const doneSeg = h("span", { class: "bar-done" });
  const dropSeg = h("span", { class: "bar-dropped" });
  doneSeg.style.width = pct(done); // CSSOM, which the style policy allows
  dropSeg.style.width = pct(dropped);
  return h("div", barAria(label, total, done, dropped), doneSeg, dropSeg);
}

// A phase's "finished / all" count and its bar, for the phase's head.
export function phaseProgress(phase, c) {
  return [h("span", { class: "phase-count" }, `${finished(c)} / ${c.tasks}`), bar(c, `Progress of ${phase.name}`)];
}

// A status's icon (SVG, so no font is needed) and, for screen readers, its word.
export function statusBadge(status) {
  const label = STATUS[status] ? STATUS[status].label : String(status);
  return [h("span", { class: "st-icon", "aria-hidden": "true" }, icon(STATUS[status] ? status : "unknown")), h("span", { class: "sr-only" }, label + ": ")];
}

const LEASE_WORDS = {
  held: (l) => `lease held (claim ${l.epoch})`,
  soon: () => "lease about to lapse",
  lapsed: () => "lease lapsed: another agent may take it over",
  taken: (l) => `taken over from ${l.lapsed}`,
};

// A claim's lease as a chip (held, about to lapse, lapsed and reclaimable), or nothing
// when the task has no lease: plans whose agents use no leases show none.
export function leaseChip(task, now = Date.now() / 1000) {
  const lease = leaseState(task, now);
  if (!lease) return null;
  const title = lease.until !== null ? "until " + new Date(lease.until * 1000).toLocaleString() : "no time limit";
  return h("span", { class: "chip lease lease-" + lease.state, "data-lease": lease.state, title }, icon("lease"), " ", LEASE_WORDS[lease.state](lease));
}

function teamFields(task) {
  const out = [];
  if (typeof task.id === "string" && task.id) out.push(h("span", { class: "chip task-id", title: "task id" }, task.id));
  if (typeof task.owner === "string" && task.owner) out.push(h("span", { class: "chip owner", title: "owner" }, "@" + task.owner));
  out.push(leaseChip(task));
  if (task.reason !== undefined && task.reason !== null && task.reason !== "")
    out.push(h("span", { class: "reason" }, "Blocked: ", String(task.reason)));
  const after = Array.isArray(task.after) ? task.after : task.after ? [task.after] : [];
  if (after.length) out.push(h("span", { class: "after" }, "After: ", after.map(String).join(", ")));
  return out;
}

function notesList(task) {
  return task.notes && task.notes.length ? h("ul", { class: "notes" }, task.notes.map((n) => h("li", {}, n))) : null;
}

// A task's <li>: its status, then `main` (its text, or a field renaming it), then `actions`.
export function taskItem(task, main, actions) {
  return h(
    "li",
    { class: "task st-" + task.status, "data-status": task.status },
    statusBadge(task.status),
    h("div", { class: "task-main" }, main, teamFields(task), notesList(task)),
    actions,
  );
}

export const readOnlyRow = (task) => taskItem(task, h("span", { class: "content" }, task.content), null);

export function agentChip(agent, owner) {
  const own = agent === owner;
  return h("span", { class: "chip" + (own ? " owner" : ""), title: own ? "owner" : "agent" }, agent);
}
