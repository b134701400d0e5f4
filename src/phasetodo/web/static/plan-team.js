// The team view of a plan: a lane per agent (its task and what it did last), the ready
// tasks, the blocked ones with their reasons and an Unblock control, and the waiting ones
// with what they wait for. Long plans show the first LIMIT of each list.
import { timeEl } from "./clock.js";
import { h, keepFocus, show } from "./dom.js";
import { diffLines } from "./history.js";
import { icon } from "./icons.js";
import { kindName, leaseChip, plural, statusBadge, taskItem } from "./pieces.js";
import { ensureEvents } from "./plan-events.js";
import { planHead, statusButton } from "./plan-list.js";
import { liveBox, viewTabs } from "./plan-toolbar.js";
import { isReady, lanes, waitsFor } from "./team.js";

const LIMIT = 200;

// A task's text and, in a lane (where no task row adds them), its id.
function taskLine(task, withId = false) {
  return [
    h("span", { class: "content" }, task.content),
    withId && typeof task.id === "string" && task.id ? h("span", { class: "chip task-id", title: "task id" }, task.id) : null,
  ];
}

// What an agent did last: its newest event's kind, version, time and first change.
function lastDone(ev) {
  if (!ev) return h("p", { class: "muted lane-last" }, "No change of its in the events read.");
  const lines = diffLines(ev.diff);
  return h(
    "p",
    { class: "lane-last" },
    "Last: ",
    h("span", { class: "kind" }, kindName(ev.kind)),
    ` v${ev.version} `,
    timeEl(ev.time),
    lines.length ? h("span", { class: "lane-change " + lines[0][0] }, " " + lines[0][1]) : null,
    lines.length > 1 ? h("span", { class: "muted" }, ` and ${plural(lines.length - 1, "more change")}`) : null,
  );
}

function lane(entry) {
  const { agent, task, last } = entry;
  const doing = task
    ? h("p", { class: "lane-task st-" + task.status }, statusBadge(task.status), taskLine(task, true), leaseChip(task))
    : h("p", { class: "lane-task muted" }, "Not on a task");
  return h("li", { class: "lane", "data-agent": agent }, h("h3", {}, icon("agent"), " ", agent), doing, lastDone(last));
}

function lanesSection(ctx) {
  const events = ctx.ui.events ? ctx.ui.events.list : [];
  const all = lanes(ctx.ui.plan, ctx.index(), events);
  const body = all.length ? h("ol", { class: "lanes" }, all.map(lane)) : h("p", { class: "empty" }, "No agent has written to this plan.");
  return h("section", { class: "team-part", "aria-labelledby": "team-agents" }, h("h2", { id: "team-agents" }, `Agents (${all.length})`), body);
}

// One list of the view: its heading with the count, the first LIMIT rows, "and N more".
function part(id, heading, found, row) {
  const shown = found.slice(0, LIMIT);
  return h(
    "section",
    { class: "team-part", id, "aria-labelledby": id + "-h" },
    h("h2", { id: id + "-h" }, `${heading} (${found.length})`),
    found.length ? h("ol", { class: "tasks" }, shown.map(row)) : h("p", { class: "muted" }, "None."),
    found.length > LIMIT ? h("p", { class: "muted" }, `and ${found.length - LIMIT} more (the list view shows them all)`) : null,
  );
}

function where(found) {
  const { task, phase, p, t } = found;
  return { key: `team:${phase.name}\u0000${task.content}`, p, t, task, phase };
}

function readyRow(found) {
  return taskItem(found.task, [taskLine(found.task), h("span", { class: "muted phase-of" }, " in " + found.phase.name)], null);
}

function blockedRow(ctx, found) {
  const spot = where(found);
  const actions = ctx.writable() ? h("div", { class: "actions" }, statusButton(ctx, spot, ["Unblock", "unblock"])) : null;
  return taskItem(found.task, [taskLine(found.task), h("span", { class: "muted phase-of" }, " in " + found.phase.name)], actions);
}

function waitingRow(ctx, found) {
  const names = waitsFor(found.task, ctx.index());
  return taskItem(
    { ...found.task, after: undefined },
    [taskLine(found.task), h("span", { class: "waits" }, icon("waiting"), " waits for ", names.join(", "))],
    null,
  );
}

export function drawTeam(ctx) {
  const { plan } = ctx.ui;
  if (!plan) return;
  ctx.vlist = null;
  ensureEvents(ctx);
  const index = ctx.index();
  const ready = [];
  const blocked = [];
  const waiting = [];
  for (const found of index.values()) {
    const { task } = found;
    if (task.status === "blocked") blocked.push(found);
    else if (isReady(task, index)) ready.push(found);
    else if (task.status === "pending" && waitsFor(task, index).length) waiting.push(found);
  }
  keepFocus(() =>
    show(
      planHead(ctx),
      viewTabs(ctx),
      h("div", { class: "toolbar" }, liveBox(ctx)),
      plan.team ? null : h("p", { class: "notice" }, "This plan is not a team plan: it has no owners, blocked tasks or dependencies yet."),
      h(
        "div",
        { class: "team" },
        lanesSection(ctx),
        part("team-ready", "Ready", ready, readyRow),
        part("team-blocked", "Blocked", blocked, (found) => blockedRow(ctx, found)),
        part("team-waiting", "Waiting", waiting, (found) => waitingRow(ctx, found)),
      ),
    ),
  );
}
