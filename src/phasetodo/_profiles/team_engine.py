"""The team engine: one plan, many agents, each call from one of them.

A pure function of values: :func:`apply_team` runs a batch of team ops for one
caller (an agent, or a person when ``agent`` is ``None``) on a copy of the
plan. The rules, in short:

* ``start {task}`` claims a *ready* task for the caller (``owner`` and
  ``in_progress``); the caller's previous active task goes back to pending,
  unowned. ``start {}`` claims the first ready task, if any. A task in
  progress for another agent is never taken.
* A task is *ready* when it is pending, unowned and everything in its
  ``after`` is closed (completed or abandoned).
* ``block {task, reason}`` / ``unblock {task}``; blocked tasks are never
  claimed or promoted.
* An agent may change its own tasks and unowned ones; a task another agent
  holds (in progress or blocked) only if the caller is the lead. A person
  may change anything but claims nothing.
* Normalization is per agent: no other agent's task is ever demoted, and an
  agent that closes (or blocks) its active task and has no other picks up the
  next ready one.

The batch is all or nothing: any error and the plan comes back unchanged,
with every error listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from .._core.engine import Outcome
from .._core.jsstring import trim_end
from .._core.model import Phase, Status, Task
from .._core.ops import Done, Drop, Note, Rm, Start
from .hints import Hints
from .strict import not_found_hint
from .team_ops import After, Block, TeamAppend, TeamInit, TeamItem, TeamOp, Unblock

__all__ = [
    "TeamOutcome",
    "apply_team",
    "find_cycle",
    "normalize_team",
    "ready_tasks",
    "team_problems",
]

_PENDING = Status.PENDING
_ACTIVE = Status.IN_PROGRESS
_BLOCKED = Status.BLOCKED
_HELD = frozenset((_ACTIVE, _BLOCKED))


@attrs.frozen
class TeamOutcome(Outcome):
    """An outcome with the notices a team call adds (what ``rm`` took out of ``after``),
    the task the caller holds afterwards, and who called on what scope (for the report)."""

    notices: tuple[str, ...] = ()
    claimed: str | None = None
    agent: str | None = None
    scope: str | None = None


class _Rec:
    """One task of the working copy."""

    __slots__ = ("after", "content", "notes", "owner", "reason", "status", "task")

    def __init__(self, task: Task) -> None:
        self.task = task
        self.content = task.content
        self.status = task.status
        self.notes = task.notes
        self.owner = task.owner
        self.reason = task.reason
        self.after = task.after

    def freeze(self) -> Task:
        task = self.task
        if (
            task.status is self.status
            and task.notes is self.notes
            and task.owner == self.owner
            and task.reason == self.reason
            and task.after is self.after
        ):
            return task
        return Task(self.content, self.status, self.notes, self.owner, self.reason, self.after)


def _quote(contents: Iterable[str]) -> str:
    return ", ".join(f'"{c}"' for c in contents)


class _Plan:
    """The mutable working copy of one team call."""

    def __init__(
        self,
        phases: Iterable[Phase],
        agent: str | None,
        lead: str | None,
        scope: str | None = None,
    ) -> None:
        self.agent = agent
        self.scope = scope
        self.privileged = agent is None or (lead is not None and agent == lead)
        self.lead = lead
        self.phases: list[tuple[str, list[_Rec]]] = [(p.name, [_Rec(t) for t in p.tasks]) for p in phases]
        self.errors: list[str] = []
        self.notices: list[str] = []
        self.released = False  # the caller closed or blocked its active task
        self._index()

    def _index(self) -> None:
        self.by_content: dict[str, _Rec] = {}
        self.phase_of: dict[str, str] = {}
        for name, recs in self.phases:
            for rec in recs:
                if rec.content not in self.by_content:
                    self.by_content[rec.content] = rec
                    self.phase_of[rec.content] = name

    def in_scope(self) -> Iterable[_Rec]:
        """The tasks the caller may see and change, in plan order."""
        for name, rec in self.records():
            if self.scope is None or name == self.scope:
                yield rec

    def next_ready(self) -> _Rec | None:
        return next((r for r in self.in_scope() if self.is_ready(r)), None)

    def records(self) -> Iterable[tuple[str, _Rec]]:
        for name, recs in self.phases:
            for rec in recs:
                yield name, rec

    # -- questions ---------------------------------------------------------------

    def waits_for(self, rec: _Rec) -> list[str]:
        """The contents in ``rec.after`` that are not closed yet."""
        out = []
        for content in rec.after:
            other = self.by_content.get(content)
            if other is not None and not other.status.is_closed:
                out.append(content)
        return out

    def is_ready(self, rec: _Rec) -> bool:
        return rec.status is _PENDING and rec.owner is None and not self.waits_for(rec)

    def active_of(self, agent: str) -> _Rec | None:
        for _, rec in self.records():
            if rec.status is _ACTIVE and rec.owner == agent:
                return rec
        return None

    def held_by_other(self, rec: _Rec) -> bool:
        return rec.owner is not None and rec.owner != self.agent and rec.status in _HELD

    def may_change(self, rec: _Rec, verb: str) -> bool:
        """Whether the caller may ``verb`` ``rec``; adds the error when not."""
        if self.privileged or not self.held_by_other(rec):
            return True
        lead = f' ("{self.lead}")' if self.lead is not None else ""
        self.errors.append(
            f'Task "{rec.content}" belongs to agent "{rec.owner}": only it or the lead{lead} may {verb} it'
        )
        return False

    def find(self, content: str | None, verb: str) -> _Rec | None:
        if not content:
            self.errors.append(f"Missing task content for {verb} operation")
            return None
        rec = self.by_content.get(content)
        if rec is None:
            names = [r.content for r in self.in_scope()]
            self.errors.append(f'Task "{content}" not found{not_found_hint(content, Hints(names), "task")}')
        elif self.scope is not None and self.phase_of[content] != self.scope:
            self.errors.append(f'Task "{content}" is not in phase "{self.scope}", the one you work on')
            return None
        return rec

    def find_phase(self, name: str) -> list[_Rec] | None:
        if self.scope is not None and name != self.scope:
            self.errors.append(f'Phase "{name}" is not "{self.scope}", the phase you work on')
            return None
        for phase, recs in self.phases:
            if phase == name:
                return recs
        names = [phase for phase, _ in self.phases]
        self.errors.append(f'Phase "{name}" not found{not_found_hint(name, Hints(names), "phase")}')
        return None

    # -- ops -----------------------------------------------------------------------

    def run(self, op: TeamOp) -> None:
        if isinstance(op, Start):
            self.start(op)
        elif isinstance(op, (Done, Drop)):
            self.close(op)
        elif isinstance(op, Block):
            self.block(op)
        elif isinstance(op, Unblock):
            self.unblock(op)
        elif isinstance(op, Note):
            self.note(op)
        elif isinstance(op, Rm):
            self.rm(op)
        elif isinstance(op, TeamAppend):
            self.append(op)
        elif isinstance(op, TeamInit):
            self.init(op)
        elif isinstance(op, After):
            self.wait(op)
        else:  # pragma: no cover - the union is closed
            raise AssertionError(op)

    def claim(self, rec: _Rec) -> None:
        assert self.agent is not None
        previous = self.active_of(self.agent)
        if previous is not None and previous is not rec:
            previous.status, previous.owner = _PENDING, None
        rec.status, rec.owner, rec.reason = _ACTIVE, self.agent, None

    def start(self, op: Start) -> None:
        if self.agent is None:
            self.errors.append("start: a person does not claim tasks; an agent starts its own")
            return
        if not op.task:
            if self.active_of(self.agent) is not None:
                return  # start {} keeps the task the caller is on
            ready = self.next_ready()
            if ready is not None:
                self.claim(ready)
            return
        rec = self.find(op.task, "start")
        if rec is None:
            return
        if rec.status is _ACTIVE:
            if rec.owner != self.agent:
                self.errors.append(f'Task "{rec.content}" is in progress for agent "{rec.owner}"')
            return
        if rec.status is _BLOCKED:
            why = f": {rec.reason}" if rec.reason else ""
            self.errors.append(f'Task "{rec.content}" is blocked{why}')
            return
        if rec.status.is_closed:
            self.errors.append(f'Task "{rec.content}" is {rec.status.value}; it cannot be started')
            return
        waits = self.waits_for(rec)
        if waits:
            self.errors.append(f'Task "{rec.content}" is not ready: it waits for {_quote(waits)}')
            return
        self.claim(rec)

    def targets(self, op: Done | Drop | Rm, verb: str) -> list[_Rec]:
        if op.task == "" or op.phase == "":
            field = "task" if op.task == "" else "phase"
            self.errors.append(f"{verb}: {field} is empty; leave it out to mean every task")
            return []
        if op.task:
            rec = self.find(op.task, verb)
            return [rec] if rec is not None else []
        if op.phase:
            recs = self.find_phase(op.phase)
            return list(recs) if recs is not None else []
        return list(self.in_scope())

    def close(self, op: Done | Drop) -> None:
        verb = op.name
        status = Status.COMPLETED if isinstance(op, Done) else Status.ABANDONED
        for rec in self.targets(op, verb):
            if not self.may_change(rec, verb):
                continue
            if rec.status is _ACTIVE and rec.owner == self.agent and self.agent is not None:
                self.released = True
            if rec.status is not status:
                rec.status, rec.reason = status, None
                if rec.owner is None and self.agent is not None:
                    rec.owner = self.agent  # who closed it, for the record

    def block(self, op: Block) -> None:
        rec = self.find(op.task, "block")
        if rec is None:
            return
        reason = trim_end(op.reason or "").strip()
        if not reason:
            self.errors.append(f'Missing reason for block operation on "{rec.content}"')
            return
        if rec.status.is_closed:
            self.errors.append(f'Task "{rec.content}" is {rec.status.value}; it cannot be blocked')
            return
        if not self.may_change(rec, "block"):
            return
        if rec.status is _ACTIVE and rec.owner == self.agent and self.agent is not None:
            self.released = True
        if rec.status is _PENDING:
            rec.owner = None
        rec.status, rec.reason = _BLOCKED, reason

    def unblock(self, op: Unblock) -> None:
        rec = self.find(op.task, "unblock")
        if rec is None:
            return
        if rec.status is not _BLOCKED:
            self.errors.append(f'Task "{rec.content}" is not blocked')
            return
        if not self.may_change(rec, "unblock"):
            return
        rec.status, rec.reason, rec.owner = _PENDING, None, None

    def wait(self, op: After) -> None:
        rec = self.find(op.task, "after")
        if rec is None:
            return
        if not op.after:
            self.errors.append(f'Missing tasks for after operation on "{rec.content}"')
            return
        if rec.status is not _PENDING and rec.status is not _BLOCKED:
            self.errors.append(
                f'Task "{rec.content}" is {rec.status.value}; only a pending or blocked task can wait'
            )
            return
        if not self.may_change(rec, "after"):
            return
        old = rec.after
        rec.after = _unique((*rec.after, *op.after))
        if not self.check_after([rec], dict(self.by_content)):
            rec.after = old

    def note(self, op: Note) -> None:
        rec = self.find(op.task, "note")
        if rec is None:
            return
        text = trim_end(op.text or "")
        if not text:
            self.errors.append("Missing text for note operation")
            return
        rec.notes = (*rec.notes, text)

    def rm(self, op: Rm) -> None:
        gone = [r for r in self.targets(op, "rm") if self.may_change(r, "rm")]
        if not gone:
            return
        if any(r.status is _ACTIVE and r.owner == self.agent for r in gone):
            self.released = self.agent is not None
        ids = {id(r) for r in gone}
        for index, (name, recs) in enumerate(self.phases):
            self.phases[index] = (name, [r for r in recs if id(r) not in ids])
        self._index()
        removed = {r.content for r in gone} - set(self.by_content)
        if not removed:
            return
        for _, rec in self.records():
            dropped = [c for c in rec.after if c in removed]
            if dropped:
                rec.after = tuple(c for c in rec.after if c not in removed)
                self.notices.append(f'Removed {_quote(dropped)} from what "{rec.content}" comes after')

    def add_items(
        self, recs: list[_Rec], items: Sequence[TeamItem], where: str, known: dict[str, _Rec]
    ) -> list[_Rec]:
        """New records for ``items`` (duplicates are errors), not yet checked for ``after``."""
        new = []
        for item in items:
            if item.content in known:
                self.errors.append(f'Task "{item.content}" already exists{where}')
                continue
            rec = _Rec(Task(item.content, _PENDING, (), None, None, _unique(item.after)))
            known[item.content] = rec
            recs.append(rec)
            new.append(rec)
        return new

    def check_after(self, new: Sequence[_Rec], known: dict[str, _Rec]) -> bool:
        """Every ``after`` of the new records names a task, and no cycle forms."""
        ok = True
        for rec in new:
            missing = [c for c in rec.after if c not in known]
            if missing:
                self.errors.append(
                    f'Task "{rec.content}" comes after {_quote(missing)}, which '
                    f"{'is not a task' if len(missing) == 1 else 'are not tasks'}"
                )
                ok = False
        if ok:
            cycle = find_cycle({c: r.after for c, r in known.items()}, [r.content for r in new])
            if cycle:
                self.errors.append(f'"after" makes a cycle: {" -> ".join(_quote([c]) for c in cycle)}')
                ok = False
        return ok

    def init(self, op: TeamInit) -> None:
        if op.list is None:
            self.errors.append("Missing list for init operation")
            return
        if self.scope is not None:
            self.errors.append(f'init: you work on phase "{self.scope}" only; append to it instead')
            return
        held = [r for _, r in self.records() if self.held_by_other(r)]
        if held and not self.privileged:
            owners = sorted({r.owner for r in held if r.owner is not None})
            self.errors.append(
                f"init would replace tasks held by {_quote(owners)}: only the lead may replace the plan"
            )
            return
        self.phases = []
        known: dict[str, _Rec] = {}
        new: list[_Rec] = []
        for entry in op.list:
            recs: list[_Rec] = []
            self.phases.append((entry.phase, recs))
            new += self.add_items(recs, entry.items, "", known)
        self._index()
        self.check_after(new, known)
        if self.agent is not None and self.active_of(self.agent) is None:
            self.released = False

    def append(self, op: TeamAppend) -> None:
        if not op.phase:
            self.errors.append("Missing phase name for append operation")
            return
        if not op.items:
            self.errors.append("Missing items for append operation")
            return
        if self.scope is not None and op.phase != self.scope:
            self.errors.append(f'Phase "{op.phase}" is not "{self.scope}", the phase you work on')
            return
        recs = next((r for name, r in self.phases if name == op.phase), None)
        if recs is None:
            recs = []
            self.phases.append((op.phase, recs))
        known = dict(self.by_content)
        new = self.add_items(recs, op.items, "", known)
        self._index()
        self.check_after(new, known)

    # -- the end of a batch ----------------------------------------------------------

    def normalize(self) -> None:
        """Restore the invariants, then let a caller that freed itself pick up work."""
        _normalize_records(self)
        if self.agent is not None and self.released and self.active_of(self.agent) is None:
            ready = self.next_ready()
            if ready is not None:
                self.claim(ready)

    def freeze(self) -> tuple[Phase, ...]:
        return tuple(Phase(name, tuple(r.freeze() for r in recs)) for name, recs in self.phases)


def _unique(contents: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(contents))


def _normalize_records(plan: _Plan) -> None:
    """The invariants every team plan keeps, whoever wrote it.

    An ``in_progress`` task has an owner (else it is pending); an agent has at
    most one (the first keeps it); a pending task has no owner; only a blocked
    task has a reason; ``after`` names other existing tasks, each once.
    """
    seen: set[str] = set()
    for _, rec in plan.records():
        if rec.status is _ACTIVE:
            if rec.owner is None or rec.owner in seen:
                rec.status, rec.owner = _PENDING, None
            else:
                seen.add(rec.owner)
        if rec.status is _PENDING:
            rec.owner = None
        if rec.status is not _BLOCKED:
            rec.reason = None
        if rec.after:
            kept = tuple(c for c in dict.fromkeys(rec.after) if c != rec.content and c in plan.by_content)
            if kept != rec.after:
                rec.after = kept


def find_cycle(graph: dict[str, tuple[str, ...]], starts: Iterable[str]) -> list[str] | None:
    """A cycle through ``after`` edges reachable from ``starts``, as contents
    (the first repeated at the end), or ``None``."""
    done: set[str] = set()
    for start in starts:
        if start in done:
            continue
        path: list[str] = []
        on_path: dict[str, int] = {}
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            node, index = stack.pop()
            if index == 0:
                if node in on_path:
                    return [*path[on_path[node] :], node]
                if node in done:
                    continue
                on_path[node] = len(path)
                path.append(node)
            edges = graph.get(node, ())
            if index < len(edges):
                stack.append((node, index + 1))
                stack.append((edges[index], 0))
            else:
                path.pop()
                del on_path[node]
                done.add(node)
    return None


def apply_team(
    phases: Iterable[Phase],
    ops: Iterable[TeamOp],
    *,
    agent: str | None = None,
    lead: str | None = None,
    scope: str | None = None,
) -> TeamOutcome:
    """Apply ``ops`` for ``agent`` (``None``: a person) to a copy of ``phases``.

    All or nothing: with any error the outcome holds the input phases
    (normalized) and every error. ``lead`` names the agent that may change
    tasks other agents hold. With ``scope`` (a phase name) the caller sees
    and changes only that phase: ops on other tasks or phases are errors,
    ``start {}`` and pickups look only there, and ``init`` is refused.
    ``phases`` is never modified.
    """
    before = tuple(phases)
    plan = _Plan(before, agent, lead, scope)
    for op in ops:
        plan.run(op)
    if plan.errors:
        errors = tuple(plan.errors)
        plan = _Plan(before, agent, lead, scope)
        _normalize_records(plan)
        return TeamOutcome(plan.freeze(), errors, (), _claimed(plan), agent, scope)
    plan.normalize()
    return TeamOutcome(plan.freeze(), (), tuple(plan.notices), _claimed(plan), agent, scope)


def _claimed(plan: _Plan) -> str | None:
    if plan.agent is None:
        return None
    rec = plan.active_of(plan.agent)
    return rec.content if rec is not None else None


def normalize_team(phases: Iterable[Phase]) -> tuple[Phase, ...]:
    """The team invariants on their own (for a person's edit): see :func:`apply_team`."""
    plan = _Plan(phases, None, None)
    _normalize_records(plan)
    return plan.freeze()


def ready_tasks(phases: Iterable[Phase]) -> list[tuple[str, Task]]:
    """The ready tasks in plan order, as ``(phase name, task)``."""
    items = tuple(phases)
    plan = _Plan(items, None, None)
    out = []
    for phase in items:
        for task in phase.tasks:
            rec = plan.by_content.get(task.content)
            if rec is not None and plan.is_ready(rec) and task.status is _PENDING:
                out.append((phase.name, task))
    return out


def team_problems(phases: Iterable[Phase]) -> list[str]:
    """What keeps ``phases`` from being a team plan: duplicate contents and
    cycles through ``after`` (the rest :func:`normalize_team` repairs)."""
    found: list[str] = []
    seen: set[str] = set()
    graph: dict[str, tuple[str, ...]] = {}
    for p, phase in enumerate(phases):
        for t, task in enumerate(phase.tasks):
            if task.content in seen:
                found.append(f'phases[{p}].tasks[{t}]: task "{task.content}" appears twice')
            seen.add(task.content)
            graph.setdefault(task.content, task.after)
    cycle = find_cycle(graph, list(graph))
    if cycle:
        found.append(f'phases: "after" makes a cycle: {" -> ".join(_quote([c]) for c in cycle)}')
    return found
