// The plan page: one session's newest plan, live, with a person's edits, in one of four
// views: the list, the team (lanes, ready, blocked, waiting), the dependency graph and the
// activity. Its parts: plan-list.js draws the list (plan-virtual.js when it is long),
// plan-team.js, plan-graph.js and plan-activity.js the other views, plan-toolbar.js and
// plan-forms.js hold the controls, plan-edit.js the edits they make, plan-live.js the live
// feed and the first load, plan-events.js the events the team and activity views read.
import { pagePath, token } from "./api.js";
import { crumbs, followVersion, title } from "./frame.js";
import { drawActivity } from "./plan-activity.js";
import { drawGraph } from "./plan-graph.js";
import { drawPlan } from "./plan-list.js";
import { followPlan, frameScheduler, loadPlan } from "./plan-live.js";
import { drawTeam } from "./plan-team.js";
import { indexTasks } from "./team.js";

// The views by the last part of their address ("" is the list).
export const VIEWS = {
  list: { name: "List", draw: drawPlan },
  team: { name: "Team", draw: drawTeam },
  graph: { name: "Graph", draw: drawGraph },
  activity: { name: "Activity", draw: drawActivity },
};

// What the page shows and what a person is doing on it.
function initialState(view) {
  return {
    view,
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
    events: null, // {version, list, omitted}: the events the team and activity views read
    selected: null, // the graph's chosen task (its content)
    agentFilter: "", // the activity's agent filter ("" all, "\u0000" people)
    statusFilter: "", // the activity's status filter
  };
}

// The plan's tasks by content, worked out once per plan shown.
function indexer(ui) {
  let seen = null;
  let index = new Map();
  return () => {
    if (ui.plan !== seen) {
      seen = ui.plan;
      index = seen ? indexTasks(seen.phases) : new Map();
    }
    return index;
  };
}

// The page's context, which its parts share: the session id, the state, the live
// feed, `draw` (now), `drawSoon` (once per frame at most), `writable` and `index`.
function planContext(sid, view) {
  const ctx = { sid, ui: initialState(view) };
  ctx.draw = () => {
    VIEWS[ctx.ui.view].draw(ctx);
    if (ctx.ui.plan) followVersion(ctx.ui.plan.version);
  };
  ctx.drawSoon = frameScheduler(ctx.draw);
  ctx.writable = () => ctx.ui.plan && !ctx.ui.plan.read_only && token;
  ctx.index = indexer(ctx.ui);
  ctx.live = followPlan(ctx);
  return ctx;
}

// Whether a task of the plan has a lease: its chip changes with time (held, about to lapse,
// lapsed), so the page is drawn again every LEASE_TICK milliseconds while one does.
const LEASE_TICK = 15000;
const hasLeases = (plan) => Boolean(plan) && plan.phases.some((phase) => (phase.tasks || []).some((task) => task.lease));

export function planPage(sid, view = "list") {
  title(view === "list" ? sid : `${sid} · ${VIEWS[view].name}`);
  const home = { text: "Sessions", href: "/" };
  if (view === "list") crumbs(home, { text: sid });
  else crumbs(home, { text: sid, href: pagePath(sid) }, { text: VIEWS[view].name });
  const ctx = planContext(sid, view);
  loadPlan(ctx); // opens the live feed once the plan is shown
  setInterval(() => {
    if (hasLeases(ctx.ui.plan)) ctx.drawSoon();
  }, LEASE_TICK);
}
