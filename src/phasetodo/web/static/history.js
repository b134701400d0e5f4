// The history page: every event of one session, newest first, with what it changed.
import { apiPath, getJSON, pagePath } from "./api.js";
import { timeEl } from "./clock.js";
import { h, show } from "./dom.js";
import { feedOf } from "./feed.js";
import { crumbs, say, title } from "./frame.js";
import { kindName, plural, statusLabel } from "./pieces.js";

const FIRST = 200; // the newest events shown at first; the rest on request

// What one event changed, as [class, text] lines (class: add, del or chg).
export function diffLines(diff) {
  const lines = [];
  for (const name of diff.phases_added) lines.push(["add", `+ phase “${name}”`]);
  for (const name of diff.phases_removed) lines.push(["del", `− phase “${name}”`]);
  for (const t of diff.added) lines.push(["add", `+ “${t.content}” (${t.phase}) ${statusLabel(t.status)}`]);
  for (const t of diff.removed) lines.push(["del", `− “${t.content}” (${t.phase})`]);
  for (const c of diff.status_changed) lines.push(["chg", `~ “${c.content}”: ${statusLabel(c.from)} → ${statusLabel(c.to)}`]);
  for (const n of diff.notes_added) lines.push(["add", `+ note on “${n.content}”: ${n.text}`]);
  for (const n of diff.notes_removed) lines.push(["del", `− note on “${n.content}”: ${n.text}`]);
  return lines;
}

function eventHead(sid, ev) {
  const who = ev.agent ? `by ${ev.agent}` : ev.source ? `from ${ev.source}` : "";
  return h(
    "div",
    { class: "ev-head" },
    h("span", { class: "ver" }, "v" + ev.version),
    h("span", { class: "kind" }, kindName(ev.kind)),
    who ? h("span", { class: "who" }, who) : null,
    timeEl(ev.time),
    h("span", { class: "muted" }, `${plural(ev.tasks, "task")}, ${ev.open} open`),
    h("a", { href: pagePath(sid, `/v/${ev.version}`) }, `Plan at v${ev.version}`),
  );
}

function eventItem(sid, ev) {
  const lines = diffLines(ev.diff);
  return h(
    "li",
    { class: "event kind-" + ev.kind, "data-version": ev.version },
    eventHead(sid, ev),
    lines.length
      ? h("ul", { class: "diff" }, lines.map(([cls, text]) => h("li", { class: cls }, text)))
      : h("p", { class: "muted diff-none" }, "No change to the list."),
  );
}

// The events shown so far and how many older ones are left out.
class History {
  constructor(sid) {
    this.sid = sid;
    this.events = [];
    this.omitted = 0;
    this.loading = Promise.resolve();
    this.list = h("ol", { class: "events", reversed: true });
    this.head = h("p", { class: "sub" });
  }

  last() {
    return this.events.length ? this.events[this.events.length - 1].version : 0;
  }

  draw() {
    const older = this.omitted
      ? h("button", { type: "button", class: "link", onclick: () => this.load(true) }, `Show the ${plural(this.omitted, "older event")}`)
      : null;
    this.head.replaceChildren(`${plural(this.events.length + this.omitted, "event")}, newest first. `, older || "");
    this.list.replaceChildren(...this.events.slice().reverse().map((ev) => eventItem(this.sid, ev)));
  }

  // Loads run one after another: the first takes the newest events, later ones
  // what is new since, `all` everything.
  load(all) {
    const run = () => this.fetch(all);
    this.loading = this.loading.then(run, run).catch((e) => say(e.message));
    return this.loading;
  }

  async fetch(all) {
    const query = all ? "" : this.events.length ? `since=${this.last()}` : `limit=${FIRST}`;
    const data = await getJSON(apiPath(this.sid, `/events?${query}`));
    if (all || !this.events.length) {
      this.events = data.events;
      this.omitted = data.omitted;
    } else this.events = this.events.concat(data.events.filter((e) => e.version > this.last()));
    this.draw();
  }
}

export function historyPage(sid) {
  title("History of " + sid);
  crumbs({ text: "Sessions", href: "/" }, { text: sid, href: pagePath(sid) }, { text: "History" });
  const log = new History(sid);
  show(h("h1", {}, "History of ", h("span", {}, sid)), log.head, log.list);
  log.load(false);
  // The whole plan comes first, then what changed (a delta): either way only its version counts here.
  const moved = (plan) => {
    if (plan.version > log.last()) log.load(false);
  };
  feedOf(apiPath(sid, "/stream"), { plan: moved, delta: moved }).open();
}
