// The activity of a plan: who did what and when, newest first, each change with its diff;
// a count per agent, and filters by agent and by the status a change gave a task.
import { timeEl } from "./clock.js";
import { h, keepFocus, show, withProps } from "./dom.js";
import { diffLines } from "./history.js";
import { icon } from "./icons.js";
import { kindName, plural, statusLabel } from "./pieces.js";
import { ensureEvents } from "./plan-events.js";
import { planHead } from "./plan-list.js";
import { liveBox, viewTabs } from "./plan-toolbar.js";

const PEOPLE = "\u0000"; // the agent filter's value for changes no agent made
const STATUSES = ["pending", "in_progress", "completed", "abandoned", "blocked"];
const SHOWN = 300; // entries drawn at most; the filters narrow them

const who = (ev) => ev.agent || (ev.source ? `a person (${ev.source})` : "a person");

// Whether the change gave some task `status` (a task added with it, or a status changed to it).
function gives(ev, status) {
  return ev.diff.added.some((t) => t.status === status) || ev.diff.status_changed.some((c) => c.to === status);
}

function passes(ui, ev) {
  if (ui.agentFilter === PEOPLE ? ev.agent : ui.agentFilter && ev.agent !== ui.agentFilter) return false;
  return !ui.statusFilter || gives(ev, ui.statusFilter);
}

function entry(ev) {
  const lines = diffLines(ev.diff);
  return h(
    "li",
    { class: "event activity kind-" + ev.kind, "data-version": ev.version, "data-agent": ev.agent || "" },
    h(
      "div",
      { class: "ev-head" },
      h("span", { class: "who" }, icon(ev.agent ? "agent" : "unknown"), " ", who(ev)),
      h("span", { class: "kind" }, kindName(ev.kind)),
      h("span", { class: "ver" }, "v" + ev.version),
      timeEl(ev.time),
    ),
    lines.length
      ? h("ul", { class: "diff" }, lines.map(([cls, text]) => h("li", { class: cls }, text)))
      : h("p", { class: "muted diff-none" }, "No change to the list."),
  );
}

function choice(id, label, value, options, onPick) {
  const select = h(
    "select",
    { id, "data-key": "act:" + id, onchange: (e) => onPick(e.target.value) },
    options.map(([v, text]) => h("option", { value: v }, text)),
  );
  return [h("label", { for: id }, label), withProps(select, { value })];
}

function filters(ctx, agents) {
  const { ui } = ctx;
  const pick = (field) => (value) => {
    ui[field] = value;
    ctx.draw();
  };
  const agentOptions = [["", "everyone"], ...agents.map((a) => [a, a]), [PEOPLE, "people (no agent)"]];
  const statusOptions = [["", "any status"], ...STATUSES.map((s) => [s, statusLabel(s)])];
  return h(
    "div",
    { class: "toolbar activity-filters" },
    liveBox(ctx),
    choice("act-agent", "Agent", ui.agentFilter, agentOptions, pick("agentFilter")),
    choice("act-status", "Gave a task the status", ui.statusFilter, statusOptions, pick("statusFilter")),
  );
}

// Each agent's number of changes, as buttons that filter to that agent.
function perAgent(ctx, list) {
  const count = new Map();
  for (const ev of list) if (ev.agent) count.set(ev.agent, (count.get(ev.agent) || 0) + 1);
  const pick = (agent) => () => {
    ctx.ui.agentFilter = agent;
    ctx.draw();
  };
  return h(
    "p",
    { class: "per-agent" },
    [...count].map(([agent, n]) =>
      h("button", { type: "button", class: "chip", "data-key": "act:who:" + agent, onclick: pick(agent) }, icon("agent"), ` ${agent}: ${plural(n, "change")}`),
    ),
  );
}

export function drawActivity(ctx) {
  const { plan, events } = ctx.ui;
  if (!plan) return;
  ctx.vlist = null;
  ensureEvents(ctx);
  const list = events ? events.list : [];
  const agents = [...new Set(list.map((ev) => ev.agent).filter(Boolean))].sort();
  const kept = list.filter((ev) => passes(ctx.ui, ev)).reverse();
  const older = events && events.omitted ? ` (${plural(events.omitted, "older event")} not read; the history has them)` : "";
  keepFocus(() =>
    show(
      planHead(ctx),
      viewTabs(ctx),
      filters(ctx, agents),
      perAgent(ctx, list),
      h("p", { class: "sub" }, events ? `${plural(kept.length, "change")} of ${list.length}, newest first${older}.` : "Reading the events…"),
      h("ol", { class: "events" }, kept.slice(0, SHOWN).map(entry)),
    ),
  );
}
