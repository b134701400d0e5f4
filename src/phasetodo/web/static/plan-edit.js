// What the plan page's controls do: edits sent to the board, and the state they change.
import { apiPath, getJSON, postEdit, refusal } from "./api.js";
import { $, byKey } from "./dom.js";
import { say, saySaved } from "./frame.js";
import { isClosed } from "./pieces.js";
import { fetchPlan } from "./plan-live.js";
import { mayStart } from "./team.js";

// What a Done on a task that still waited for others adds (the board names them).
function waitedText(reply, body) {
  const waited = reply.body.waited_for || [];
  if (!waited.length || !body.content) return "";
  const names = waited.map((name) => `“${name}”`).join(", ");
  return `“${body.content}” was still waiting for ${names}, not done yet.`;
}

// Send one edit (its body names the version it was made on), one at a time; `done`
// runs once it is saved. A refusal is explained; after a conflict the newest plan shows.
async function submit(ctx, body, done) {
  const { ui } = ctx;
  if (ui.busy) return;
  ui.busy = true;
  const reply = await postEdit(ctx.sid, body);
  ui.busy = false;
  if (reply.status === 200) {
    ui.plan = reply.body.plan;
    if (done) done();
    if (reply.body.changed) saySaved(ui.plan.version, waitedText(reply, body));
    else say("Nothing to change.", "ok");
  } else {
    say(refusal(reply));
    if (reply.status === 409) ui.plan = await fetchPlan(ctx.sid);
  }
  ctx.draw();
}

// An edit of the plan shown.
const edit = (ctx, body, done) => submit(ctx, { ...body, expected_version: ctx.ui.plan.version }, done);

// -- status ------------------------------------------------------------------------------------

// The status buttons a task gets: [label, the status it sets] ("unblock": the team
// profile's unblock). `index` (the plan's tasks by content) tells whether the task still
// waits for others: no Start on a blocked task nor on one that waits. On a team plan
// (`team`) there is no Start at all: a claim needs an agent and the board is none (the
// board refuses a person's start there, so the page offers no control that would fail,
// as the team view offers none).
export function statusChoices(task, index, team = false) {
  const { status } = task;
  const out = [];
  if (!team && mayStart(task, index)) out.push(["Start", "in_progress"]);
  if (status === "blocked") out.push(["Unblock", "unblock"]);
  if (status !== "completed") out.push(["Done", "completed"]);
  if (!isClosed(status)) out.push(["Drop", "abandoned"]);
  if (isClosed(status) || status === "in_progress") out.push([status === "in_progress" ? "Pause" : "Reopen", "pending"]);
  return out;
}

export const setStatus = (ctx, p, t, task, status) =>
  status === "unblock"
    ? edit(ctx, { action: "unblock", phase: p, task: t, content: task.content })
    : edit(ctx, { action: "status", phase: p, task: t, content: task.content, status });

// -- renaming ------------------------------------------------------------------------------------

export function startRename(ctx, key, draft) {
  ctx.ui.editing = { key, draft };
  ctx.draw();
}

export function stopRename(ctx) {
  ctx.ui.editing = null;
  ctx.draw();
}

const renamed = (ctx) => () => (ctx.ui.editing = null);

export const renameTask = (ctx, p, t, task) =>
  edit(ctx, { action: "rename", phase: p, task: t, old: task.content, name: ctx.ui.editing.draft }, renamed(ctx));

export const renamePhase = (ctx, p, phase) =>
  edit(ctx, { action: "rename", phase: p, old: phase.name, name: ctx.ui.editing.draft }, renamed(ctx));

// The task's rename field, focused at once.
export function startTaskRename(ctx, key, task) {
  startRename(ctx, key, task.content);
  const field = byKey(key + ":input");
  if (field) field.focus();
}

// -- adding ------------------------------------------------------------------------------------

export function addTask(ctx, phase) {
  const { drafts } = ctx.ui;
  const text = (drafts[phase.name] || "").trim();
  if (!text) return;
  edit(ctx, { action: "add", phase: phase.name, content: text }, () => (drafts[phase.name] = ""));
}

export function addPhase(ctx) {
  const { name, task } = ctx.ui.newPhase;
  edit(ctx, { action: "add", phase: name.trim(), content: task.trim() }, () => (ctx.ui.newPhase = { name: "", task: "" }));
}

// -- the whole list as Markdown ------------------------------------------------------------------

export async function openMarkdown(ctx) {
  try {
    const md = await getJSON(apiPath(ctx.sid, "/markdown"));
    ctx.ui.md = { version: md.version, text: md.markdown };
    ctx.draw();
    const area = $("#md-text");
    if (area) area.focus();
  } catch (e) {
    say(e.message);
  }
}

// Save the editor's text, made on the version it was opened at; a refused text stays
// in the editor, which then says the plan moved on.
export function saveMarkdown(ctx) {
  const { md } = ctx.ui;
  return submit(ctx, { action: "markdown", markdown: md.text, expected_version: md.version }, () => (ctx.ui.md = null));
}

export function closeMarkdown(ctx) {
  ctx.ui.md = null;
  ctx.draw();
}

// -- folding -------------------------------------------------------------------------------------

export function toggleFold(ctx, name) {
  const { folded } = ctx.ui;
  if (folded.has(name)) folded.delete(name);
  else folded.add(name);
  ctx.draw();
}
