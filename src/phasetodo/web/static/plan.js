// The plan page: one session's newest plan, live, with a person's edits.
// Its parts: plan-list.js draws it, plan-toolbar.js and plan-forms.js hold the controls,
// plan-edit.js the edits they make, plan-live.js the live feed and the first load.
import { token } from "./api.js";
import { crumbs, title } from "./frame.js";
import { drawPlan } from "./plan-list.js";
import { followPlan, frameScheduler, loadPlan } from "./plan-live.js";

// What the page shows and what a person is doing on it.
function initialState() {
  return {
    plan: null,
    folded: new Set(),
    filter: "",
    hideClosed: false,
    editing: null, // {key, draft}: the task or phase being renamed
    drafts: {}, // phase name -> text being added
    newPhase: { name: "", task: "" },
    md: null, // {version, text} while the Markdown editor is open
    busy: false, // an edit is on its way
    liveOn: true,
  };
}

// The page's context, which its parts share: the session id, the state, the live
// feed, `draw` (now), `drawSoon` (once per frame at most) and `writable`.
function planContext(sid) {
  const ctx = { sid, ui: initialState() };
  ctx.draw = () => drawPlan(ctx);
  ctx.drawSoon = frameScheduler(ctx.draw);
  ctx.writable = () => ctx.ui.plan && !ctx.ui.plan.read_only && token;
  ctx.live = followPlan(ctx);
  return ctx;
}

export function planPage(sid) {
  title(sid);
  crumbs({ text: "Sessions", href: "/" }, { text: sid });
  const ctx = planContext(sid);
  loadPlan(ctx);
  ctx.live.open();
}
