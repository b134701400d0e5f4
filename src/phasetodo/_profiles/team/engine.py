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

The rules run on the core's working copy (:class:`~phasetodo._core.columns.Columns`):
:class:`TeamWork` subclasses it and :class:`TeamColumn` adds the owners, reasons
and ``after`` columns, so a team call loads, looks up, changes and freezes the
plan as a parity call does, and pays what its ops touch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, count, repeat
from operator import attrgetter, is_not

import attrs

from ..._core import texts
from ..._core.engine import Outcome
from ..._core.jsstring import trim_end
from ..._core.model import Phase, Renewal, Task
from ..._core.ops import Done, Drop, Note, Rm, Start
from ..hints import Hints, id_number
from ..strict import not_found_hint
from .changes import changes_since
from .claims import format_time
from .columns import ABANDONED, ACTIVE, BLOCKED, COMPLETED, PENDING, Place, TeamColumn, live, quote, unique
from .ops import After, Block, TeamAppend, TeamInit, TeamItem, TeamOp, Unblock
from .readiness import Readiness, find_cycle

__all__ = [
    "Place",
    "TeamColumn",
    "TeamOutcome",
    "TeamWork",
    "apply_team",
    "find_cycle",
    "format_time",
    "missing_scope",
    "normalize_team",
    "ready_tasks",
    "team_problems",
]

_name, _tasks = attrgetter("name"), attrgetter("tasks")


@attrs.frozen
class TeamOutcome(Outcome):
    """An outcome with the notices a team call adds (what ``rm`` took out of ``after``),
    the task the caller holds afterwards, who called on what scope (for the report), and
    what changed since the caller's last look."""

    notices: tuple[str, ...] = ()
    claimed: str | None = None
    agent: str | None = None
    scope: str | None = None
    changes: tuple[str, ...] = ()


class TeamWork(Readiness):
    """The working copy of one team call: the team's ops on the shared columns.

    Its parts, one concern each, are its bases: :class:`~.places.TeamPlaces` (the
    caller's view and lookups), :class:`~.ids.TaskIds`, :class:`~.claims.Claims` (leases
    and fencing) and :class:`~.readiness.Readiness`; this class adds the op handlers and
    the invariants every batch ends with.
    """

    def find(self, content: str | None, verb: str) -> Place | None:
        """The task named by ``content`` (its content, else its id); adds the error when none."""
        if not content:
            self.errors.append(f"Missing task content for {verb} operation")
            return None
        found = self.place(content)
        if found is None:
            named = self.content_of(content)
            if named is not None:
                found = self.place(named)
        if found is not None and self.fenced(*found):
            return None
        if found is None:
            names = [col.contents[i] for col, i in self.in_scope()]
            self.errors.append(texts.task_not_found(content, _miss_hint(content, names)))
        elif self.scope is not None and found[0].name != self.scope:
            self.errors.append(f'Task "{content}" is not in phase "{self.scope}", the one you work on')
            return None
        return found

    def find_phase(self, name: str) -> TeamColumn | None:
        if self.scope is not None and name != self.scope:
            self.errors.append(f'Phase "{name}" is not "{self.scope}", the phase you work on')
            return None
        col: TeamColumn | None = self.by_name.get(name)
        if col is None:
            names = [c.name for c in self.cols]
            self.errors.append(texts.phase_not_found(name, not_found_hint(name, Hints(names), "phase")))
        return col

    # -- changes ---------------------------------------------------------------------


    def _reindex(self) -> None:
        """The lookups again, after tasks left (a content used twice is found at its next place)."""
        self.compact()
        self._index(self.cols)  # type: ignore[arg-type]
        self._by_id = None
        self.find_lapsed()

    # -- ops -----------------------------------------------------------------------

    def run(self, op: TeamOp) -> None:  # type: ignore[override]
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

    def start(self, op: Start) -> None:
        if self.agent is None:
            self.errors.append("start: a person does not claim tasks; an agent starts its own")
            return
        if not op.task:
            if self.active_of(self.agent) is not None:
                return  # start {} keeps the task the caller is on
            ready = self.next_ready()
            if ready is not None:
                self.claim(*ready)
            return
        found = self.find(op.task, "start")
        if found is None:
            return
        col, index = found
        status, owner, content = col.statuses[index], col.owners[index], col.contents[index]
        if status is ACTIVE:
            if (col, index) in self.lapsed:
                self.claim(col, index)  # the holder's lease lapsed: the task is ready again
            elif owner != self.agent:
                self.errors.append(f'Task "{content}" is in progress for agent "{owner}"')
            return
        if status is BLOCKED:
            reason = col.reasons[index]
            why = f": {reason}" if reason else ""
            self.errors.append(f'Task "{content}" is blocked{why}')
            return
        if status is COMPLETED or status is ABANDONED:
            self.errors.append(f'Task "{content}" is {status.value}; it cannot be started')
            return
        waits = self.waits_for(col.afters[index])
        if waits:
            self.errors.append(f'Task "{content}" is not ready: it waits for {quote(waits)}')
            return
        self.claim(col, index)

    def targets(self, op: Done | Drop | Rm, verb: str) -> list[Place]:
        if op.task == "" or op.phase == "":
            field = "task" if op.task == "" else "phase"
            self.errors.append(f"{verb}: {field} is empty; leave it out to mean every task")
            return []
        if op.task:
            found = self.find(op.task, verb)
            return [found] if found is not None else []
        if op.phase:
            col = self.find_phase(op.phase)
            return [(col, i) for i in live(col)] if col is not None else []
        return list(self.in_scope())

    def close(self, op: Done | Drop) -> None:
        verb = op.name
        status = COMPLETED if isinstance(op, Done) else ABANDONED
        agent = self.agent
        for col, index in self.targets(op, verb):
            if not self.may_change(col, index, verb):
                continue
            now, owner = col.statuses[index], col.owners[index]
            if now is ACTIVE and owner == agent and agent is not None:
                self.released = True
            if now is not status:
                self._set(col, index, status)
                col.reasons[index] = None
                if owner is None and agent is not None:
                    col.owners[index] = agent  # who closed it, for the record
                col.touch(index)

    def block(self, op: Block) -> None:
        found = self.find(op.task, "block")
        if found is None:
            return
        col, index = found
        content, status = col.contents[index], col.statuses[index]
        reason = trim_end(op.reason or "").strip()
        if not reason:
            self.errors.append(f'Missing reason for block operation on "{content}"')
            return
        if status is COMPLETED or status is ABANDONED:
            self.errors.append(f'Task "{content}" is {status.value}; it cannot be blocked')
            return
        if not self.may_change(col, index, "block"):
            return
        if status is ACTIVE and col.owners[index] == self.agent and self.agent is not None:
            self.released = True
        if status is PENDING:
            col.owners[index] = None
        self._set(col, index, BLOCKED)
        col.reasons[index] = reason
        col.touch(index)

    def unblock(self, op: Unblock) -> None:
        found = self.find(op.task, "unblock")
        if found is None:
            return
        col, index = found
        if col.statuses[index] is not BLOCKED:
            self.errors.append(f'Task "{col.contents[index]}" is not blocked')
            return
        if not self.may_change(col, index, "unblock"):
            return
        self._set(col, index, PENDING)
        col.reasons[index], col.owners[index] = None, None
        col.touch(index)

    def wait(self, op: After) -> None:
        found = self.find(op.task, "after")
        if found is None:
            return
        col, index = found
        content, status = col.contents[index], col.statuses[index]
        assert status is not None  # found tasks are live
        if not op.after:
            self.errors.append(f'Missing tasks for after operation on "{content}"')
            return
        if status is not PENDING and status is not BLOCKED:
            self.errors.append(
                f'Task "{content}" is {status.value}; only a pending or blocked task can wait'
            )
            return
        if not self.may_change(col, index, "after"):
            return
        old = col.afters[index]
        col.afters[index] = unique((*old, *self.resolve(op.after)))
        if self.check_after([(col, index)], {}):
            col.touch(index)
        else:
            col.afters[index] = old

    def note_target(self, content: str | None) -> Place | None:
        return self.find(content, "note")

    def rm(self, op: Rm) -> None:
        gone = [p for p in self.targets(op, "rm") if self.may_change(p[0], p[1], "rm")]
        if not gone:
            return
        if any(c.statuses[i] is ACTIVE and c.owners[i] == self.agent for c, i in gone):
            self.released = self.agent is not None
        contents = {c.contents[i] for c, i in gone}
        for col, index in gone:
            col.statuses[index] = None
            col.holes += 1
            col.dirty = True
            col.touched = None
        self._reindex()
        self.expect(len(contents))
        removed = {c for c in contents if not self.holds(c)}
        if not removed:
            return
        for col in self.cols:
            if not any(col.afters):
                continue
            for index in compress(count(), col.afters):
                after = col.afters[index]
                dropped = [c for c in after if c in removed]
                if dropped:
                    col.afters[index] = tuple(c for c in after if c not in removed)
                    col.touch(index)
                    self.notices.append(
                        f'Removed {quote(dropped)} from what "{col.contents[index]}" comes after'
                    )

    def add_items(self, col: TeamColumn, items: Sequence[TeamItem], new: list[Place]) -> None:
        """New tasks for ``items`` (duplicates are errors), not yet checked for ``after``."""
        self.expect(len(items))
        for item in items:
            if self.holds(item.content):
                self.errors.append(texts.already_exists(item.content))
                continue
            index = col.add(item.content, self.resolve(item.after))
            col.ids[index] = self.new_id()
            new.append((col, index))
            if self._by_content is not None:
                self._by_content[item.content] = col
            self.count += 1


    def init(self, op: TeamInit) -> None:  # type: ignore[override]
        if op.list is None:
            self.errors.append(texts.MISSING_LIST)
            return
        if self.scope is not None:
            self.errors.append(f'init: you work on phase "{self.scope}" only; append to it instead')
            return
        held = [p for p in self.held() if self.held_by_other(*p)]
        if held and not self.privileged:
            owners = sorted({o for c, i in held if (o := c.owners[i]) is not None})
            self.errors.append(
                f"init would replace tasks held by {quote(owners)}: only the lead may replace the plan"
            )
            return
        self.cols = []
        self.by_name, self.by_content, self.active, self.count = {}, {}, {}, 0
        self._by_id = None
        new: list[Place] = []
        for entry in op.list:
            col = self._new_col(entry.phase)
            self.add_items(col, entry.items, new)
        self.check_after(new, {})
        self.lapsed = {}
        if self.agent is not None and self.active_of(self.agent) is None:
            self.released = False


    def append(self, op: TeamAppend) -> None:  # type: ignore[override]
        if self.refuse_append(op.phase, op.items):
            return
        assert op.phase is not None
        assert op.items is not None
        if self.scope is not None and op.phase != self.scope:
            self.errors.append(f'Phase "{op.phase}" is not "{self.scope}", the phase you work on')
            return
        col = self.by_name.get(op.phase) or self._new_col(op.phase)
        new: list[Place] = []
        self.add_items(col, op.items, new)
        self.check_after(new, {})

    # -- the end of a batch ----------------------------------------------------------

    def normalize(self) -> None:
        """Restore the invariants, then let a caller that freed itself pick up work."""
        self.repair()
        agent = self.agent
        if agent is not None and self.released and self.active_of(agent) is None:
            ready = self.next_ready()
            if ready is not None:
                self.claim(*ready)
        self.renew()

    def repair(self) -> None:
        """The invariants every team plan keeps, whoever wrote it.

        An ``in_progress`` task has an owner (else it is pending); an agent has at
        most one (the first keeps it); a pending task has no owner; only a blocked
        task has a reason; ``after`` names other existing tasks, each once (an id
        there becomes its task's content); every task has an id.
        """
        seen: set[str] = set()
        for col, index in self.order(self.active):
            owner = col.owners[index]
            if owner is None or owner in seen:
                self._set(col, index, PENDING)
                col.owners[index] = None
                col.touch(index)
            else:
                seen.add(owner)
        self.give_ids()
        for col in self.cols:
            if col.plain:
                continue
            size = len(col.contents)
            statuses = col.statuses
            if col.owners.count(None) != size:
                for index in compress(count(), map(is_not, col.owners, repeat(None))):
                    if statuses[index] is PENDING:
                        col.owners[index] = None
                        col.touch(index)
            if col.reasons.count(None) != size:
                for index in compress(count(), map(is_not, col.reasons, repeat(None))):
                    if statuses[index] is not BLOCKED:
                        col.reasons[index] = None
                        col.touch(index)
            if col.leases.count(None) != size:
                for index in compress(count(), map(is_not, col.leases, repeat(None))):
                    held = col.leases[index]
                    if statuses[index] is not ACTIVE and held is not None and held.until is not None:
                        col.leases[index] = attrs.evolve(held, until=None)  # no claim, no deadline
                        col.touch(index)
            if any(col.afters):
                by_content = self.by_content  # built only for a plan where tasks wait
                for index in compress(count(), col.afters):
                    after, content = col.afters[index], col.contents[index]
                    named = after if all(c in by_content for c in after) else self.resolve(after)
                    kept = tuple(c for c in dict.fromkeys(named) if c != content and c in by_content)
                    if kept != after:
                        col.afters[index] = kept
                        col.touch(index)


def _miss_hint(query: str, names: Sequence[str]) -> str:
    """What a team call's "not found" error adds: about ids when ``query`` looks like one (a
    team plan's tasks have ids, ``t1``, ``t2``, ...), else the closest content."""
    if id_number(query) is None:
        return not_found_hint(query, Hints(names), "task")
    if query[:1] == "t" and query[1:].isdigit():
        return f' — no task of the plan has the id "{query}" now (a removed task\'s id is never given again)'
    return ' — name a task by its content or by its id ("t1", "t2", …)'


#: How many of the plan's phases the error of a missing scope phase names.
_NAMED_PHASES = 10


def missing_scope(scope: str, phases: Sequence[Phase]) -> str:
    """The error of a call scoped to ``scope`` on a plan without that phase (naming at
    most ten of the plan's phases: what a model reads back stays bounded)."""
    names = ", ".join(f'"{phase.name}"' for phase in phases[:_NAMED_PHASES])
    more = len(phases) - _NAMED_PHASES
    have = f"its phases: {names}{f' and {more} more' if more > 0 else ''}"
    if not phases:
        have = "it has no phases yet"
    return (
        f'Phase "{scope}", the one you work on, is not in the plan ({have}); '
        "the plan's lead adds it (init or append), or your host gives you one of the plan's phases"
    )


def apply_team(
    phases: Iterable[Phase],
    ops: Iterable[TeamOp],
    *,
    agent: str | None = None,
    lead: str | None = None,
    scope: str | None = None,
    now: float | None = None,
    lease: float | None = None,
    seen: Sequence[Phase] | None = None,
    renewals: Mapping[str, Renewal] | None = None,
) -> TeamOutcome:
    """Apply ``ops`` for ``agent`` (``None``: a person) to a copy of ``phases``.

    All or nothing: with any error the outcome holds the input phases
    (normalized) and every error. ``lead`` names the agent that may change
    tasks other agents hold. With ``scope`` (a phase name) the caller sees
    and changes only that phase: ops on other tasks or phases are errors,
    ``start {}`` and pickups look only there, and ``init`` is refused.
    ``now`` is the call's time: another agent's claim whose lease ended by then
    is ready again, and with ``lease`` (seconds) the caller's claim lasts that
    long after the call; ``renewals`` (by task id) are heartbeats' later deadlines for
    claims, kept beside the log (:meth:`~.places.TeamPlaces.until_of`). With ``seen``
    (the plan as the caller last saw it) the outcome tells what changed since
    (:func:`~.changes.changes_since`).
    ``phases`` is never modified.
    A call scoped to a phase the plan does not have applies nothing and fails
    (:func:`missing_scope`): the lead adds the phase (``init`` or ``append``).
    """
    before = tuple(phases)
    changes = tuple(changes_since(seen, before)) if seen is not None else ()
    work = TeamWork(before, agent, lead, scope, now, lease, renewals)
    if scope is not None and not any(phase.name == scope for phase in before):
        work.errors.append(missing_scope(scope, before))  # nothing applies, whatever the ops
    else:
        ops = tuple(ops)
        work.expect(sum(1 for op in ops if getattr(op, "task", None)))  # many: index, don't scan
        for op in ops:
            work.run(op)
    if work.errors:
        errors = tuple(work.errors)
        work = TeamWork(before, agent, lead, scope, now, renewals=renewals)
        work.repair()
        return TeamOutcome(work.phases(), errors, (), work.claimed(), agent, scope, changes, columns=work)
    work.normalize()
    return TeamOutcome(
        work.phases(), (), tuple(work.notices), work.claimed(), agent, scope, changes, columns=work
    )


def normalize_team(phases: Iterable[Phase]) -> tuple[Phase, ...]:
    """The team invariants on their own (for a person's edit): see :func:`apply_team`."""
    work = TeamWork(tuple(phases))
    work.unique_ids()
    work.repair()
    return work.phases()


def ready_tasks(
    phases: Iterable[Phase], *, now: float | None = None, renewals: Mapping[str, Renewal] | None = None
) -> list[tuple[str, Task]]:
    """The ready tasks in plan order, as ``(phase name, task)``; with ``now``, the claims
    whose lease lapsed by then too (heartbeats' ``renewals`` counted)."""
    work = TeamWork(tuple(phases), now=now, renewals=renewals)
    return [
        (col.name, col.tasks[index])  # type: ignore[index,misc]
        for col in work.cols
        for index in work.ready_in(col)
    ]


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
        found.append(f'phases: "after" makes a cycle: {" -> ".join(quote([c]) for c in cycle)}')
    return found
