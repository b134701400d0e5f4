"""The todo list values: ``Status``, ``Task`` and ``Phase``.

They are frozen and slotted, so a list can be shared between calls and only
the parts an operation touches are ever copied.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Sequence
from itertools import chain, repeat
from operator import attrgetter
from typing import ClassVar

import attrs

__all__ = [
    "REFERENCE_STATUSES",
    "Lease",
    "Phase",
    "Renewal",
    "Status",
    "Task",
    "TeamFields",
    "keep_id_mark",
    "lapses_at",
    "make_phase",
    "make_task",
    "make_tasks",
]


class Status(str, enum.Enum):
    """The states a task can be in: the reference's four, and ``blocked`` (team plans)."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    ABANDONED = "abandoned"
    BLOCKED = "blocked"

    def __str__(self) -> str:
        return self.value

    @property
    def is_open(self) -> bool:
        """Whether work remains: pending or in progress."""
        return self is Status.PENDING or self is Status.IN_PROGRESS

    @property
    def is_closed(self) -> bool:
        """Whether the task is finished: completed or abandoned (a blocked task is not)."""
        return self is Status.COMPLETED or self is Status.ABANDONED


#: The reference tool's four statuses, in its order; ``blocked`` exists only in team plans.
REFERENCE_STATUSES: tuple[Status, ...] = (
    Status.PENDING,
    Status.IN_PROGRESS,
    Status.COMPLETED,
    Status.ABANDONED,
)


def _to_status(value: Status | str) -> Status:
    return value if isinstance(value, Status) else Status(value)


def _to_tuple(value: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@attrs.frozen
class Lease:
    """A team claim's lease: what lets a claim lapse and fences its former holder.

    ``epoch`` counts the task's claims (the fencing token: each claim has a new
    one); ``until`` is when the holder's claim lapses unless it writes or beats
    again (a time of the session clock, as events record it; ``None``: never);
    ``lapsed`` and ``lapsed_at`` name the agent whose lease on the task lapsed
    and when, once another agent took the task over; ``voided`` names the agents
    whose claims earlier takeovers voided and that have not claimed the task anew:
    none of them (nor ``lapsed``) may write on the task, however many takeovers
    came between.
    """

    epoch: int = 0
    until: float | None = None
    lapsed: str | None = None
    lapsed_at: float | None = None
    voided: tuple[str, ...] = attrs.field(default=(), converter=_to_tuple)

    def is_void_for(self, agent: str) -> bool:
        """Whether ``agent``'s claim on the task was voided by a takeover (and not made anew)."""
        return agent == self.lapsed or agent in self.voided


@attrs.frozen
class Renewal:
    """A heartbeat's new deadline for one claim, kept beside the plan's log, not in it.

    ``task`` is the task's id, ``agent`` its holder and ``epoch`` the claim's
    (:attr:`Lease.epoch`): the renewal counts only while that agent holds that very
    claim, so a takeover or a closed task leaves it void. ``until`` is the new
    deadline, a time of the session clock as :attr:`Lease.until` is.
    """

    task: str
    agent: str
    epoch: int
    until: float

    def extends(self, owner: str | None, held: Lease | None) -> bool:
        """Whether this renewal is of the claim ``owner`` holds with ``held``."""
        return held is not None and owner == self.agent and held.epoch == self.epoch


def lapses_at(held: Lease | None, owner: str | None, renewal: Renewal | None) -> float | None:
    """When the claim ``owner`` holds with ``held`` lapses: its lease's deadline, or the later
    one ``renewal`` gives it when that is a heartbeat of this very claim (None: never)."""
    until = held.until if held is not None else None
    if until is None or renewal is None or not renewal.extends(owner, held):
        return until
    return max(until, renewal.until)


@attrs.frozen
class TeamFields:
    """A team task's ``owner``, ``reason``, ``after``, ``id`` and ``lease``, held as one value.

    A :class:`Task` holds one of these, or ``None`` when none is set (every task of
    the reference's profiles): a plain task is then four slots to build, not eight.
    """

    owner: str | None = None
    reason: str | None = None
    after: tuple[str, ...] = attrs.field(default=(), converter=_to_tuple)
    id: str | None = None
    lease: Lease | None = None


class _Keep(enum.Enum):
    """The default of a team keyword of ``Task()``: keep what ``team`` holds (see ``attrs.evolve``)."""

    KEEP = "keep"


_KEEP = _Keep.KEEP


@attrs.frozen(init=False, repr=False)
class Task:
    """One task: its content (which is also its name), status and notes.

    Team plans add ``owner`` (the agent on it or that closed it), ``reason``
    (why it is blocked), ``after`` (contents of the tasks it waits for) and
    ``id`` (a short name unique in the plan, never reused, kept across renames)
    and ``lease`` (a claim's :class:`Lease`, on plans whose agents use leases);
    the reference's profiles carry them through untouched. They are read as
    attributes and held together as ``team`` (one frozen value of the five, ``None``
    when none is set), so that a plain task is four slots to build, not eight.
    The keyword ``team`` gives the five at once (``attrs.evolve`` passes it); the
    team keywords given beside it replace its fields.
    """

    content: str
    status: Status
    notes: tuple[str, ...]
    team: TeamFields | None
    __signature__: ClassVar[inspect.Signature]

    def __init__(
        self,
        content: str,
        status: Status | str = Status.PENDING,
        notes: tuple[str, ...] | list[str] = (),
        owner: str | _Keep | None = _KEEP,
        reason: str | _Keep | None = _KEEP,
        after: tuple[str, ...] | list[str] | _Keep = _KEEP,
        id: str | _Keep | None = _KEEP,
        lease: Lease | _Keep | None = _KEEP,
        *,
        team: TeamFields | None = None,
    ) -> None:
        """Keywords left out keep what ``team`` holds (``attrs.evolve`` passes it), else their default."""
        _set_content(self, content)
        _set_status(self, _to_status(status))
        _set_notes(self, _to_tuple(notes))
        if owner is reason is after is id is lease is _KEEP:
            _set_team(self, team)
            return
        base = team if team is not None else _NO_TEAM
        fields = TeamFields(
            base.owner if owner is _KEEP else owner,
            base.reason if reason is _KEEP else reason,
            base.after if after is _KEEP else after,
            base.id if id is _KEEP else id,
            base.lease if lease is _KEEP else lease,
        )
        _set_team(self, None if fields == _NO_TEAM else fields)

    def __repr__(self) -> str:
        """The repr of the task's eight fields, team fields spelled out."""
        return (
            f"Task(content={self.content!r}, status={self.status!r}, notes={self.notes!r}, "
            f"owner={self.owner!r}, reason={self.reason!r}, after={self.after!r}, "
            f"id={self.id!r}, lease={self.lease!r})"
        )

    @property
    def owner(self) -> str | None:
        """The agent on the task or that closed it (team plans)."""
        team = self.team
        return None if team is None else team.owner

    @property
    def reason(self) -> str | None:
        """Why the task is blocked (team plans)."""
        team = self.team
        return None if team is None else team.reason

    @property
    def after(self) -> tuple[str, ...]:
        """The contents of the tasks this one waits for (team plans)."""
        team = self.team
        return () if team is None else team.after

    @property
    def id(self) -> str | None:
        """The task's short id, unique in the plan (team plans)."""
        team = self.team
        return None if team is None else team.id

    @property
    def lease(self) -> Lease | None:
        """A claim's lease (team plans whose agents use leases)."""
        team = self.team
        return None if team is None else team.lease

    @property
    def has_team_fields(self) -> bool:
        """Whether ``owner``, ``reason``, ``after``, ``id`` or ``lease`` is set."""
        return self.team is not None


_NO_TEAM = TeamFields()


def _signature() -> inspect.Signature:
    """``Task()`` as users read it (``help``, the API pages): each team keyword at the default it
    has when ``team`` is not given, not at the sentinel that lets ``attrs.evolve`` keep them."""
    shown = {
        "owner": (None, "str | None"),
        "reason": (None, "str | None"),
        "after": ((), "tuple[str, ...] | list[str]"),
        "id": (None, "str | None"),
        "lease": (None, "Lease | None"),
    }
    real = inspect.signature(Task.__init__)
    params = [
        p.replace(default=shown[p.name][0], annotation=shown[p.name][1]) if p.name in shown else p
        for p in list(real.parameters.values())[1:]
    ]
    return real.replace(parameters=params)


Task.__signature__ = _signature()
_set_content = Task.__dict__["content"].__set__
_set_status = Task.__dict__["status"].__set__
_set_notes = Task.__dict__["notes"].__set__
_set_team = Task.__dict__["team"].__set__


def _to_tasks(value: tuple[Task, ...] | list[Task]) -> tuple[Task, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@attrs.frozen
class Phase:
    """A named, ordered group of tasks.

    ``last_id`` is a team plan's high-water mark of task ids (the number of the
    last ``t<N>`` issued, kept on the plan's first phase), so that an id is never
    issued twice, even after its task is removed; 0 elsewhere.
    """

    name: str
    tasks: tuple[Task, ...] = attrs.field(default=(), converter=_to_tasks)
    last_id: int = 0


_new = object.__new__


def make_task(
    content: str, status: Status, notes: tuple[str, ...] = (), team: TeamFields | None = None
) -> Task:
    """A ``Task`` from values of the right types, skipping the converters.

    Equal to ``Task(content, status, notes, team=team)`` and about a third cheaper:
    the codec and the Markdown reader build tens of thousands of tasks per call.
    The caller guarantees the types; nothing is converted or checked.
    """
    task: Task = _new(Task)
    _set_content(task, content)
    _set_status(task, status)
    _set_notes(task, notes)
    _set_team(task, team)
    return task


_set_name = Phase.__dict__["name"].__set__
_set_tasks = Phase.__dict__["tasks"].__set__
_set_last_id = Phase.__dict__["last_id"].__set__


def make_phase(name: str, tasks: tuple[Task, ...]) -> Phase:
    """A ``Phase`` from a name and a tuple of tasks, skipping the converter (as :func:`make_task`)."""
    phase: Phase = _new(Phase)
    _set_name(phase, name)
    _set_tasks(phase, tasks)
    _set_last_id(phase, 0)
    return phase


def keep_id_mark(phases: tuple[Phase, ...], before: Sequence[Phase]) -> tuple[Phase, ...]:
    """``phases`` with the id high-water mark of ``before`` if theirs is lower.

    A person's edit replaces the whole list and may not carry ``last_id``; keeping the
    previous mark means no id is issued twice after it.
    """
    mark = max((p.last_id for p in before), default=0)
    if not phases or mark <= max(p.last_id for p in phases):
        return phases
    return (attrs.evolve(phases[0], last_id=mark), *phases[1:])


def value_problems(phases: tuple[object, ...]) -> list[str]:
    """What is wrong with phases given as values (``Phase`` built with wrong field types).

    The constructors convert but do not check, so a ``Phase(5)`` or a task whose
    content is not a string reaches here; each problem names its place. A list that
    passes the checks in bulk (one ``map`` per field over every task) is not walked.
    """
    if _plainly_right(phases):
        return []
    found: list[str] = []
    for p, phase in enumerate(phases):
        if type(phase) is not Phase:
            found.append(f"phases[{p}]: must be a phase, not {type(phase).__name__}")
            continue
        if type(phase.name) is not str:
            found.append(f"phases[{p}].name: must be a string")
        for t, task in enumerate(phase.tasks):
            place = f"phases[{p}].tasks[{t}]"
            if type(task) is not Task:
                found.append(f"{place}: must be a task, not {type(task).__name__}")
                continue
            if type(task.content) is not str:
                found.append(f"{place}.content: must be a string")
            if type(task.notes) is not tuple or not all(type(n) is str for n in task.notes):
                found.append(f"{place}.notes: must be strings")
    return found


_ONLY_PHASE, _ONLY_TASK = frozenset((Phase,)), frozenset((Task,))
_ONLY_STR, _ONLY_TUPLE = frozenset((str,)), frozenset((tuple,))
_name, _tasks = attrgetter("name"), attrgetter("tasks")
_content, _notes = attrgetter("content"), attrgetter("notes")


def _plainly_right(phases: tuple[object, ...]) -> bool:
    """Whether :func:`value_problems` surely finds nothing: every check, in bulk."""
    if not _ONLY_PHASE.issuperset(map(type, phases)):
        return False
    if not _ONLY_STR.issuperset(map(type, map(_name, phases))):
        return False
    groups = list(map(_tasks, phases))
    if not _ONLY_TUPLE.issuperset(map(type, groups)):
        return False
    tasks = list(chain.from_iterable(groups))
    if not _ONLY_TASK.issuperset(map(type, tasks)):
        return False
    notes = list(map(_notes, tasks))
    return (
        _ONLY_STR.issuperset(map(type, map(_content, tasks)))
        and _ONLY_TUPLE.issuperset(map(type, notes))
        and _ONLY_STR.issuperset(map(type, chain.from_iterable(notes)))
    )


def make_tasks(
    contents: Sequence[str], statuses: Sequence[Status], notes: Sequence[tuple[str, ...]] | None = None
) -> list[Task]:
    """Many ``make_task`` calls at once, with no Python frame per task.

    Each field is set by ``map`` over the slot setters, which runs in C; the
    caller guarantees the types, as for :func:`make_task`.
    """
    size = len(contents)
    tasks: list[Task] = list(map(_new, repeat(Task, size)))
    any(map(_set_content, tasks, contents))
    any(map(_set_status, tasks, statuses))
    any(map(_set_notes, tasks, repeat((), size) if notes is None else notes))
    any(map(_set_team, tasks, repeat(None, size)))
    return tasks
