// The plan page's live side: the first load, the feed of newer versions, pausing it,
// and redraws at most once per frame.
import { apiPath, getJSON } from "./api.js";
import { feed } from "./feed.js";
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

// The plan's feed (not opened yet): a newer version replaces the plan shown.
export function followPlan(ctx) {
  return feed(apiPath(ctx.sid, "/stream"), "plan", (plan) => {
    if (ctx.ui.plan && plan.version <= ctx.ui.plan.version) return; // versions only grow
    ctx.ui.plan = plan;
    ctx.drawSoon();
  });
}

// The first load, which the feed may have overtaken.
export function loadPlan(ctx) {
  fetchPlan(ctx.sid).then(
    (plan) => {
      if (!ctx.ui.plan || plan.version > ctx.ui.plan.version) ctx.ui.plan = plan;
      ctx.draw();
    },
    (e) => showFailure(ctx.sid, e),
  );
}

export function toggleLive(ctx, on) {
  ctx.ui.liveOn = on;
  if (on) ctx.live.open();
  else ctx.live.close();
}
