// The events the team and activity views read: the newest ones at first, then each
// newer one as the plan moves on (fetched once per new version, never twice at once).
import { apiPath, getJSON } from "./api.js";
import { say } from "./frame.js";

// The newest events read when a view first needs them.
export const FIRST_EVENTS = 500;

// The events, read or brought up to the plan's version; `ctx.drawSoon` once they change.
export function ensureEvents(ctx) {
  const { ui } = ctx;
  const want = ui.plan ? ui.plan.version : 0;
  if (ctx.eventsLoading || (ui.events && ui.events.version >= want)) return;
  const since = ui.events ? ui.events.version : 0;
  const url = apiPath(ctx.sid, ui.events ? `/events?since=${since}` : `/events?limit=${FIRST_EVENTS}`);
  ctx.eventsLoading = true;
  getJSON(url).then(
    (body) => {
      ctx.eventsLoading = false;
      const list = ui.events ? ui.events.list.concat(body.events.filter((e) => e.version > since)) : body.events;
      const omitted = ui.events ? ui.events.omitted : body.omitted;
      ui.events = { version: Math.max(body.version || 0, since), list, omitted };
      ctx.drawSoon();
    },
    (e) => {
      ctx.eventsLoading = false;
      say(e.message);
    },
  );
}
