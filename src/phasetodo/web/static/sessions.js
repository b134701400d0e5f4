// The sessions page: the store's sessions a page at a time (?offset=N), kept live.
import { getJSON, pagePath } from "./api.js";
import { timeEl } from "./clock.js";
import { h, show } from "./dom.js";
import { feed } from "./feed.js";
import { crumbs, say, title } from "./frame.js";
import { agentChip, bar, byAgent, kindName, plural } from "./pieces.js";

function pager(data) {
  if (data.total <= data.limit && data.offset === 0) return null;
  const back = Math.max(0, data.offset - data.limit);
  const next = data.offset + data.limit;
  return h(
    "nav",
    { class: "pager", "aria-label": "Pages of sessions" },
    data.offset > 0 ? h("a", { href: back ? `/?offset=${back}` : "/", rel: "prev" }, "← Previous") : null,
    " ",
    next < data.total ? h("a", { href: `/?offset=${next}`, rel: "next" }, "Next →") : null,
  );
}

function lastChange(s) {
  if (!s.kind) return null;
  const how = s.agent ? byAgent(s) : s.source ? " (" + s.source + ")" : "";
  return h("div", { class: "muted" }, `v${s.version} · ${kindName(s.kind)}${how}`);
}

function sessionRow(s) {
  const agents = s.agents.length ? s.agents.map((a) => agentChip(a, s.owner)) : h("span", { class: "muted" }, "—");
  return h(
    "tr",
    { class: "session-row", "data-session": s.id },
    h(
      "th",
      { scope: "row" },
      h("a", { class: "sid", href: pagePath(s.id) }, s.id),
      s.active.length ? h("div", { class: "active-task" }, "▶ ", s.active.join(", ")) : null,
    ),
    h("td", { class: "progress" }, bar(s, `Progress of ${s.id}`), h("span", { class: "count" }, `${s.completed} of ${s.tasks} done`)),
    h("td", { class: "open" }, h("span", { class: "open-count" }, String(s.open)), h("span", { class: "sr-only" }, " open")),
    h("td", { class: "agents" }, agents),
    h("td", { class: "last" }, timeEl(s.time), lastChange(s)),
  );
}

function summary(data, total) {
  const open = data.sessions.reduce((n, s) => n + s.open, 0);
  const paged = total > data.sessions.length;
  const shown = paged ? ` · ${data.offset + 1}–${data.offset + data.sessions.length} shown` : "";
  return h(
    "p",
    { class: "sub" },
    `${plural(total, "session")}${shown} · ${plural(open, "open task")}${paged ? " on this page" : ""}`,
    data.read_only ? " · read-only board" : "",
  );
}

function table(data, total) {
  if (!data.sessions.length)
    return h("p", { class: "empty" }, total ? "No sessions on this page." : "No sessions in this store yet. An agent's list shows up here as soon as it writes.");
  return h(
    "table",
    { class: "sessions" },
    h("thead", {}, h("tr", {}, ["Session", "Progress", "Open", "Agents", "Last change"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, data.sessions.map(sessionRow)),
  );
}

function render(data) {
  const total = data.total === undefined ? data.sessions.length : data.total;
  show(
    h("h1", {}, "Sessions"),
    summary(data, total),
    table(data, total),
    data.total === undefined ? null : pager(data),
  );
}

export function sessionsPage() {
  title("Sessions");
  crumbs({ text: "Sessions" });
  const offset = Math.max(0, Number(new URLSearchParams(location.search).get("offset")) || 0);
  const query = offset ? `?offset=${offset}` : "";
  getJSON("/api/sessions" + query).then(render, (e) => say(e.message));
  feed("/api/stream" + query, "sessions", render).open();
}
