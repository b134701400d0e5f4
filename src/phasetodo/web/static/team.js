// What a team plan means, computed in the page from its phases: each task's place, which
// tasks are ready, blocked or waiting (the team profile's rules), leases, and the
// dependency graph's critical path. Pure functions of the plan; nothing here draws.

export const isClosed = (status) => status === "completed" || status === "abandoned";
const afterOf = (task) => (Array.isArray(task.after) ? task.after.map(String) : task.after ? [String(task.after)] : []);
export { afterOf };

// content -> {task, phase, p, t} for every task (contents are unique in a plan).
export function indexTasks(phases) {
  const index = new Map();
  phases.forEach((phase, p) =>
    (phase.tasks || []).forEach((task, t) => {
      if (!index.has(task.content)) index.set(task.content, { task, phase, p, t });
    }),
  );
  return index;
}

// The tasks of `after` that are still open (a task no longer in the plan waits for nothing).
export function waitsFor(task, index) {
  return afterOf(task).filter((name) => {
    const found = index.get(name);
    return found !== undefined && !isClosed(found.task.status);
  });
}

// Ready: pending, unowned, not blocked, and everything it comes after is closed.
export const isReady = (task, index) => task.status === "pending" && !task.owner && waitsFor(task, index).length === 0;
export const isWaiting = (task, index) => task.status === "pending" && waitsFor(task, index).length > 0;

// Whether the page may offer Start: never on a blocked task or one that still waits.
export const mayStart = (task, index) => task.status === "pending" && (!index || waitsFor(task, index).length === 0);

// A claim's lease, as the team engine writes it ({epoch, until, lapsed, lapsed_at}),
// read tolerantly: null when the task has none. `now` is in Unix seconds.
//   held: the holder's claim runs on; soon: it lapses within SOON seconds;
//   lapsed: its time is up and another agent may take the task over;
//   taken: the task was taken over from `lapsed` (its former holder).
export const SOON = 60;
export function leaseState(task, now) {
  const lease = task.lease;
  if (!lease || typeof lease !== "object") return null;
  const until = typeof lease.until === "number" ? lease.until : typeof lease.deadline === "number" ? lease.deadline : null;
  const out = { epoch: lease.epoch, until, lapsed: typeof lease.lapsed === "string" ? lease.lapsed : null, state: "held" };
  if (task.status !== "in_progress") out.state = out.lapsed ? "taken" : "none";
  else if (until !== null && until <= now) out.state = "lapsed";
  else if (until !== null && until - now <= SOON) out.state = "soon";
  else if (out.lapsed) out.state = "taken";
  return out.state === "none" && !out.lapsed ? null : out;
}

// Every `after` link as [from, to]: `to` comes after `from` (both contents, both in the plan).
export function edgesOf(phases, index) {
  const edges = [];
  for (const phase of phases)
    for (const task of phase.tasks || []) for (const name of afterOf(task)) if (index.has(name)) edges.push([name, task.content]);
  return edges;
}

// The longest chain of open work: open tasks linked by `after`, as contents in order.
// Iterative (no recursion), so a plan of 100,000 tasks does not overflow the stack.
export function criticalPath(phases, index) {
  const depth = new Map(); // content -> [length of the longest open chain ending here, previous]
  const open = (name) => {
    const found = index.get(name);
    return found !== undefined && !isClosed(found.task.status);
  };
  for (const start of index.keys()) {
    if (!open(start) || depth.has(start)) continue;
    const stack = [[start, false]];
    const seen = new Set();
    while (stack.length) {
      const [name, expanded] = stack.pop();
      if (depth.has(name)) continue;
      const deps = afterOf(index.get(name).task).filter(open);
      if (!expanded) {
        if (seen.has(name)) continue; // a cycle (the engine refuses them): cut it here
        seen.add(name);
        stack.push([name, true]);
        for (const dep of deps) if (!depth.has(dep)) stack.push([dep, false]);
        continue;
      }
      let best = [1, null];
      for (const dep of deps) {
        const d = depth.get(dep);
        if (d && d[0] + 1 > best[0]) best = [d[0] + 1, dep];
      }
      depth.set(name, best);
    }
  }
  let end = null;
  for (const [name, [length]] of depth) if (end === null || length > depth.get(end)[0]) end = name;
  const chain = [];
  for (let at = end; at !== null; at = depth.get(at)[1]) chain.push(at);
  return chain.reverse();
}

// Each agent's lane: its current task (in progress, owned by it) and its newest event.
export function lanes(plan, index, events) {
  const names = new Set(plan.agents || []);
  const current = new Map();
  for (const { task } of index.values()) {
    if (task.owner && task.status === "in_progress") {
      names.add(task.owner);
      if (!current.has(task.owner)) current.set(task.owner, task);
    }
  }
  const last = new Map();
  for (const ev of events) if (ev.agent) last.set(ev.agent, ev); // events come oldest first
  return [...names].map((agent) => ({ agent, task: current.get(agent) || null, last: last.get(agent) || null }));
}
