// The plan page's forms: renaming a task or phase, adding a task or a phase, and the
// whole list as Markdown. Each keeps its text in the page's state, so a redraw keeps it.
import { h, withProps } from "./dom.js";
import { addPhase, addTask, closeMarkdown, openMarkdown, saveMarkdown, stopRename } from "./plan-edit.js";

// A text field whose typing goes to `keep`, showing `value`.
const textField = (attrs, value, keep) => withProps(h("input", { type: "text", ...attrs, oninput: (e) => keep(e.target.value) }), { value });

const submitted = (act) => (e) => {
  e.preventDefault();
  act();
};

export function renameField(ctx, key, label, onSave) {
  const { ui } = ctx;
  const input = textField({ class: "rename", "aria-label": label, "data-key": key + ":input" }, ui.editing.draft, (text) => (ui.editing.draft = text));
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") onSave();
    if (e.key === "Escape") stopRename(ctx);
  });
  return h(
    "span",
    { class: "rename-box" },
    input,
    h("button", { type: "button", "data-key": key + ":save", onclick: onSave }, "Save"),
    h("button", { type: "button", class: "link", "data-key": key + ":cancel", onclick: () => stopRename(ctx) }, "Cancel"),
  );
}

export function addForm(ctx, phase, p) {
  const { drafts } = ctx.ui;
  const key = `add:${phase.name}`;
  const keep = (text) => (drafts[phase.name] = text);
  const input = textField({ id: `add-${p}`, placeholder: "Add a task…", "data-key": key }, drafts[phase.name] || "", keep);
  return h(
    "form",
    { class: "add-task", onsubmit: submitted(() => addTask(ctx, phase)) },
    h("label", { class: "sr-only", for: `add-${p}` }, `New task in ${phase.name}`),
    input,
    h("button", { type: "submit", "data-key": key + ":submit" }, "Add"),
  );
}

export function newPhaseForm(ctx) {
  const { ui } = ctx;
  const field = (name, label) => {
    const input = textField({ id: "new-phase-" + name, "data-key": "newphase:" + name }, ui.newPhase[name], (text) => (ui.newPhase[name] = text));
    return h("label", {}, label, " ", input);
  };
  return h(
    "form",
    { class: "new-phase", onsubmit: submitted(() => addPhase(ctx)) },
    h("h2", { class: "small-title" }, "New phase"),
    field("name", "Phase"),
    field("task", "First task"),
    h("button", { type: "submit", "data-key": "newphase:submit" }, "Add phase"),
  );
}

// -- the whole list as Markdown ------------------------------------------------------------------

const MD_HINT = "# Phase starts a phase; - [ ] pending, - [/] in progress, - [x] done, - [-] dropped; “  > ” lines are notes.";

function staleWarning(ctx) {
  const { md, plan } = ctx.ui;
  return h(
    "p",
    { class: "warn" },
    `The plan changed since you opened the editor (you edit version ${md.version}, it is now at ${plan.version}); saving will be refused. `,
    h("button", { type: "button", class: "link", "data-key": "md:reload", onclick: () => openMarkdown(ctx) }, "Load the newest text"),
  );
}

function markdownArea(ctx) {
  const attrs = { id: "md-text", rows: 18, spellcheck: "false", "data-key": "md:text", "aria-describedby": "md-hint" };
  return withProps(h("textarea", { ...attrs, oninput: (e) => (ctx.ui.md.text = e.target.value) }), { value: ctx.ui.md.text });
}

export function markdownEditor(ctx) {
  const stale = ctx.ui.md.version !== ctx.ui.plan.version;
  return h(
    "section",
    { class: "md-editor", "aria-labelledby": "md-title" },
    h("h2", { id: "md-title" }, "Edit the whole list as Markdown"),
    h("p", { id: "md-hint", class: "muted" }, MD_HINT),
    stale ? staleWarning(ctx) : null,
    h("label", { class: "sr-only", for: "md-text" }, "The list as Markdown"),
    markdownArea(ctx),
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", "data-key": "md:save", onclick: () => saveMarkdown(ctx) }, "Save list"),
      h("button", { type: "button", class: "link", "data-key": "md:cancel", onclick: () => closeMarkdown(ctx) }, "Cancel"),
    ),
  );
}
