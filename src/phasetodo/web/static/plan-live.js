// The plan page's live side: the first load, the feed of newer versions, pausing it,
// and redraws at most once per frame.
import { apiPath, getJSON } from "./api.js";
import { feedOf } from "./feed.js";
import { showFailure } from "./frame.js";

// Live updates and typing in the filter redraw once per frame at most, so a
// fast-writing agent or a long list never queues up redraws.
export function frameScheduler(draw) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
    });
  };
}

export const fetchPlan = (sid) => getJSON(apiPath(sid));

// The plan shown with a delta from the feed applied: its `changes` replace whole phases
// (`phase`) or tasks by position (`tasks`), the list is cut to `length` phases, and the rest
// of the delta (version, head, counts, agents...) replaces the plan's head. Null when the
// delta does not start from the plan shown (its `since` names another head: another version,
// or another history after a checkout); the page then reads the whole plan again.
export function applyDelta(plan, delta) {
  const { changes, length, since, ...head } = delta;
  if (!plan || plan.head !== since || !Array.isArray(changes)) return null;
  const phases = plan.phases.slice(0, length);
  for (const change of changes) {
    if (change.phase) phases[change.at] = change.phase;
    else {
      const old = phases[change.at];
      if (!old) return null;
      const tasks = (old.tasks || []).slice();
      for (const [t, task] of change.tasks) tasks[t] = task;
      phases[change.at] = { ...old, tasks };
    }
  }
  if (phases.length !== length) return null;
  for (let p = 0; p < length; p += 1) if (!phases[p]) return null; // a hole (`some` would skip it)
  return { ...head, phases };
}

// Read the whole plan again (a page that missed updates), one read at a time.
function catchUp(ctx) {
  if (ctx.catchingUp) return;
  ctx.catchingUp = true;
  fetchPlan(ctx.sid).then(
    (plan) => {
      ctx.catchingUp = false;
      if (newer(plan, ctx.ui.plan)) {
        ctx.ui.plan = plan;
        ctx.drawSoon();
      }
    },
    (e) => {
      ctx.catchingUp = false;
      showFailure(ctx.sid, e);
    },
  );
}

// Whether `plan` should replace the one shown: a newer version, or another history (the
// log was replaced under the board, by a checkout: it may hold fewer events).
export function newer(plan, shown) {
  return !shown || plan.version > shown.version || plan.head !== shown.head;
}

// The plan's feed (not opened yet): the whole plan (`plan`) replaces the one shown when it
// differs; a `delta` is applied to the plan shown when it starts from that head, else the page
// reads the whole plan. The feed is told the head shown (`since`), so it sends only what
// changed after it; the browser tells it again when it reconnects (the event ids).
export function followPlan(ctx) {
  const url = () =>
    apiPath(ctx.sid, "/stream") + (ctx.ui.plan ? `?since=${encodeURIComponent(ctx.ui.plan.head)}` : "");
  return feedOf(url, {
    plan: (plan) => {
      if (!newer(plan, ctx.ui.plan)) return;
      ctx.ui.plan = plan;
      ctx.drawSoon();
    },
    delta: (delta) => {
      if (ctx.ui.plan && delta.head === ctx.ui.plan.head) return;
      const next = applyDelta(ctx.ui.plan, delta);
      if (next === null) catchUp(ctx);
      else {
        ctx.ui.plan = next;
        ctx.drawSoon();
      }
    },
  });
}

// The first load; the feed opens once it is shown, from its version (unless paused).
export function loadPlan(ctx) {
  fetchPlan(ctx.sid).then(
    (plan) => {
      if (newer(plan, ctx.ui.plan)) ctx.ui.plan = plan;
      ctx.draw();
      if (ctx.ui.liveOn) ctx.live.open();
    },
    (e) => {
      showFailure(ctx.sid, e);
      if (ctx.ui.liveOn) ctx.live.open(); // the feed brings the plan once it can be read
    },
  );
}

export function toggleLive(ctx, on) {
  ctx.ui.liveOn = on;
  if (on) ctx.live.open();
  else ctx.live.close();
}
