// One version of a plan, as it was, with a button to restore it.
import { apiPath, getJSON, pagePath, postEdit, refusal, token } from "./api.js";
import { timeEl } from "./clock.js";
import { h, show } from "./dom.js";
import { crumbs, say, setLive, showFailure, title } from "./frame.js";
import { bar, byAgent, counts, kindName, phaseProgress, readOnlyRow } from "./pieces.js";

function head(sid, data) {
  const c = data.counts;
  return h(
    "div",
    { class: "plan-head" },
    h("h1", {}, sid, h("span", { class: "muted" }, ` at version ${data.version}`)),
    h("p", { class: "meta" }, `Version ${data.version} of ${data.latest} · `, timeEl(data.time), ` · ${kindName(data.kind)}${byAgent(data)}`),
    h("div", { class: "overall" }, bar(c, "Progress at this version"), h("span", { class: "count" }, `${c.completed} of ${c.tasks} done · ${c.open} open`)),
  );
}

function toolbar(sid, data) {
  const canRestore = !data.read_only && token && data.version < data.latest;
  const restore = async () => {
    const reply = await postEdit(sid, { action: "restore", version: data.version, expected_version: data.latest });
    if (reply.status === 200) location.href = pagePath(sid);
    else say(refusal(reply));
  };
  return h(
    "div",
    { class: "toolbar" },
    canRestore ? h("button", { type: "button", onclick: restore }, `Restore this version (undo to v${data.version})`) : null,
    h("a", { class: "button-link", href: pagePath(sid) }, "Back to the live plan"),
  );
}

function phaseSection(phase, p) {
  return h(
    "section",
    { class: "phase", "aria-labelledby": `phase-${p}` },
    h("div", { class: "phase-head" }, h("h2", { id: `phase-${p}` }, phase.name), phaseProgress(phase, counts(phase))),
    h("ol", { class: "tasks" }, (phase.tasks || []).map(readOnlyRow)),
  );
}

export async function versionPage(sid, version) {
  title(`${sid} at v${version}`);
  crumbs({ text: "Sessions", href: "/" }, { text: sid, href: pagePath(sid) }, { text: "History", href: pagePath(sid, "/history") }, { text: "v" + version });
  let data;
  try {
    data = await getJSON(apiPath(sid, `/versions/${version}`));
  } catch (e) {
    showFailure(sid, e);
    return;
  }
  setLive("snapshot", "paused");
  show(head(sid, data), toolbar(sid, data), h("div", { class: "phases" }, data.phases.map(phaseSection)));
}
