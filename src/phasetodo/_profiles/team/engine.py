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

import time
from collections.abc import Iterable, Sequence
from itertools import compress, count, repeat
from operator import attrgetter, is_, is_not
from typing import Any

import attrs

from ..._core import texts
from ..._core.columns import Column, Columns, id_rows
from ..._core.engine import Outcome
from ..._core.jsstring import trim_end
from ..._core.model import Lease, Phase, Status, Task
from ..._core.ops import Done, Drop, Note, Rm, Start
from ..hints import Hints
from ..strict import not_found_hint
from .changes import changes_since
from .ops import After, Block, TeamAppend, TeamInit, TeamItem, TeamOp, Unblock

__all__ = [
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

_PENDING = Status.PENDING
_ACTIVE = Status.IN_PROGRESS
_BLOCKED = Status.BLOCKED
_COMPLETED = Status.COMPLETED
_ABANDONED = Status.ABANDONED
_HELD = frozenset((_ACTIVE, _BLOCKED))
_name, _tasks = attrgetter("name"), attrgetter("tasks")
_content, _status, _notes = attrgetter("content"), attrgetter("status"), attrgetter("notes")
_owner, _reason, _after = attrgetter("owner"), attrgetter("reason"), attrgetter("after")
_last_id = attrgetter("last_id")
_fields = attrgetter("content", "status", "notes", "owner", "reason", "after", "id", "lease")

#: A task of the working copy: its column and its position there.
Place = tuple["TeamColumn", int]


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


#: The value of each task in a team field's list before it is set (see ``TeamColumn``).
_EMPTY: dict[str, object] = {"owners": None, "reasons": None, "afters": (), "leases": None}


class TeamColumn(Column):
    """A phase of a team plan as columns: the core's three, and owners, reasons, ``after``
    and ids.

    A content used twice (not a valid team plan, but a list may arrive so) is found
    at its first place, as everywhere in the team rules.
    """

    EXTRA = ("owners", "reasons", "afters", "ids", "leases")
    __slots__ = ("afters", "ids", "leases", "owners", "plain", "reasons")
    owners: list[str | None]
    reasons: list[str | None]
    afters: list[tuple[str, ...]]
    leases: list[Lease | None]

    def __init__(
        self,
        name: str,
        contents: list[str],
        statuses: list[Status | None],
        notes: list[object],
        owners: list[str | None] | None = None,
        reasons: list[str | None] | None = None,
        afters: list[tuple[str, ...]] | None = None,
        source: Phase | None = None,
        ids: list[str | None] | None = None,
        leases: list[Lease | None] | None = None,
    ) -> None:
        super().__init__(name, contents, statuses, notes, source)
        # a field not given is made on its first read (``__getattr__``): most phases of a
        # big plan are plain, and their owners, reasons, ``after`` and leases never read
        if owners is not None:
            self.owners = owners
        if reasons is not None:
            self.reasons = reasons
        if afters is not None:
            self.afters = afters
        self.ids: list[str | None] = ids if ids is not None else [None] * len(contents)
        if leases is not None:
            self.leases = leases
        #: Known to hold no owner, reason, ``after`` or blocked task (read so, and untouched
        #: since): the team's checks skip it. ``False`` means "look".
        self.plain = False

    def __getattr__(self, field: str) -> Any:
        """An owners, reasons, afters or leases list not made yet: made now, empty of them."""
        if field not in _EMPTY:
            raise AttributeError(field)
        made = [_EMPTY[field]] * len(self.contents)
        setattr(self, field, made)
        return made

    def position(self, content: str) -> int:
        place = self.place
        if place is None:
            size = len(self.contents)
            place = self.place = dict(zip(reversed(self.contents), range(size - 1, -1, -1), strict=True))
        return place[content]

    def add(self, content: str, after: tuple[str, ...] = ()) -> int:
        """A new pending, unowned task at the end; its position."""
        self.owners.append(None)
        self.reasons.append(None)
        self.afters.append(after)
        self.ids.append(None)
        self.leases.append(None)
        if after:
            self.plain = False
        return super().add(content)

    def touch(self, index: int) -> None:
        """Say that the task at ``index`` changed (an owner, a reason, an ``after``, notes)."""
        self.plain = False
        super().touch(index)

    def frozen(self) -> list[Task]:
        """The column's tasks: the input's where unchanged, the others built anew."""
        old = self.tasks
        size = len(self.contents)
        tasks: list[Task | None] = [None] * size if old is None else list(old)
        check: Iterable[int] = (
            self.touched if old is not None and self.touched is not None else range(size)
        )
        statuses, notes, owners, reasons, afters, ids, leases = (
            self.statuses, self.notes, self.owners, self.reasons, self.afters, self.ids, self.leases
        )
        for i in check:
            task = tasks[i]
            if (
                task is None
                or task.status is not statuses[i]
                or task.notes is not notes[i]
                or task.owner != owners[i]
                or task.reason != reasons[i]
                or task.after is not afters[i]
                or task.id != ids[i]
                or task.lease != leases[i]
            ):
                note = notes[i]
                status: Status = statuses[i]  # type: ignore[assignment]  # no holes once compacted
                tasks[i] = Task(
                    self.contents[i], status, tuple(note) if note else (), owners[i], reasons[i], afters[i],
                    ids[i], leases[i],
                )
        return tasks  # type: ignore[return-value]


#: What :func:`team_columns` read from a phase, by the phase's identity (the entry keeps the
#: phase, so that no other object takes its id): a session's next call gets most phases of
#: the last result back as they were and reads each once. Emptied past ``_READ_MOST`` phases.
_READ: dict[int, tuple[Phase, bool, tuple[tuple[object, ...], ...]]] = {}
_READ_MOST = 4096


def _read_fields(phase: Phase) -> tuple[bool, tuple[tuple[object, ...], ...]]:
    """A phase's team fields as tuples, and whether only ids are set among them (plain)."""
    found = _READ.get(id(phase))
    if found is not None and found[0] is phase:
        return found[1], found[2]
    tasks = phase.tasks
    size = len(tasks)
    fields = tuple(zip(*map(_fields, tasks), strict=True)) if size else ((),) * 8
    _, statuses, _, owners, reasons, afters, _, leases = fields
    plain = (
        owners.count(None) == size
        and reasons.count(None) == size
        and leases.count(None) == size
        and not any(afters)
        and _BLOCKED not in statuses
    )
    if plain:
        fields = (fields[0], statuses, fields[2], fields[6])
    _keep(phase, plain, fields)
    return plain, fields


def _keep(phase: Phase, plain: bool, fields: tuple[tuple[object, ...], ...]) -> None:
    """Remember what was read from ``phase`` (see ``_READ``)."""
    if len(_READ) >= _READ_MOST:
        _READ.clear()
    _READ[id(phase)] = (phase, plain, fields)


def team_columns(phases: Sequence[Phase]) -> list[TeamColumn]:
    """``Phase`` values as team columns.

    A phase whose tasks carry ids and nothing else of a team's (most, in a plan with few
    owners) is read by ``id_rows``, as a parity list is read by ``value_rows``,
    and is plain: the checks that skip plain columns need no ids. The others are read
    field by field, once per phase value (see ``_READ``).
    """
    out = []
    read = _READ
    for phase in phases:
        try:
            known = read.get(id(phase))
            if known is not None and known[0] is phase:
                raise TypeError  # read before: its fields are kept
            ((name, contents, statuses, notes, ids),) = id_rows((phase,))
            _keep(phase, True, (tuple(contents), tuple(statuses), tuple(notes), tuple(ids)))
        except TypeError:  # an owner, a reason, an ``after``, an id, a lease or a blocked task
            plain, fields = _read_fields(phase)
            if plain:
                contents_, statuses_, notes_, ids_ = map(list, fields)
                col = TeamColumn(
                    phase.name, contents_, statuses_, notes_, source=phase, ids=ids_  # type: ignore[arg-type]
                )
                col.plain = True
            else:
                contents_, statuses_, notes_, owners, reasons, afters, ids_, leases = map(list, fields)
                col = TeamColumn(
                    phase.name, contents_, statuses_, notes_,  # type: ignore[arg-type]
                    owners, reasons, afters, phase, ids_, leases,  # type: ignore[arg-type]
                )
            out.append(col)
            continue
        col = TeamColumn(name, contents, statuses, notes, source=phase, ids=ids)
        col.plain = True
        out.append(col)
    return out


def _voided(held: Lease | None) -> tuple[str, ...]:
    """The agents whose claims on a task were voided by takeovers (a log written before
    ``voided`` was kept names only the last, as ``lapsed``)."""
    if held is None:
        return ()
    if held.lapsed is not None and held.lapsed not in held.voided:
        return (*held.voided, held.lapsed)
    return held.voided


def format_time(moment: float | None) -> str:
    """A time of the session clock as the summaries show it: UTC, to the second."""
    if moment is None:
        return "an unknown time"
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


def _id_number(ident: str) -> int:
    """The number of a ``t<N>`` id (0 for an id of another form, which is kept as it is)."""
    digits = ident[1:]
    return int(digits) if ident[:1] == "t" and digits.isdigit() and digits.isascii() else 0


def _quote(contents: Iterable[str]) -> str:
    return ", ".join(f'"{c}"' for c in contents)


def _unique(contents: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(contents))


def _live(col: TeamColumn) -> Iterable[int]:
    """The positions of ``col``'s tasks (removed ones skipped)."""
    if not col.holes:
        return range(len(col.contents))
    return compress(count(), map(is_not, col.statuses, repeat(None)))


class TeamWork(Columns):
    """The working copy of one team call, on the shared columns, for one caller.

    ``agent`` is the caller (``None``: a person), ``lead`` the agent that may change
    tasks other agents hold, ``scope`` the one phase the caller sees (``None``: all),
    ``now`` the call's time and ``lease`` the seconds the caller's claim lasts after it.
    """

    cols: list[TeamColumn]  # type: ignore[assignment]
    column = TeamColumn

    def __init__(
        self,
        phases: Sequence[Phase],
        agent: str | None = None,
        lead: str | None = None,
        scope: str | None = None,
        now: float | None = None,
        lease: float | None = None,
    ) -> None:
        super().__init__(phases, team_columns(phases))  # type: ignore[arg-type]
        self.now = now
        self.lease = lease
        #: Claims of other agents whose lease lapsed by ``now``: ready to be taken over.
        self.lapsed: dict[Place, None] = {}
        self.agent = agent
        self.find_lapsed()
        self.agent = agent
        self.scope = scope
        self.privileged = agent is None or (lead is not None and agent == lead)
        self.lead = lead
        self.notices: list[str] = []
        self.released = False  # the caller closed or blocked its active task
        #: The plan's id high-water mark: the number of the last ``t<N>`` issued (``None``
        #: until first needed; then read from the phases' ``last_id``, else the ids).
        self.last_read = max(map(_last_id, phases), default=0)
        self.last_issued: int | None = None
        self._by_id: dict[str, str] | None = None  # id -> content, built on the first id lookup

    # -- ids -------------------------------------------------------------------------

    def new_id(self) -> str:
        """A task id never issued in this plan: ``t`` and one more than the high-water mark."""
        mark = self.last_issued
        if mark is None:
            mark = self.last_read
            if not mark:  # a plan whose mark was lost (or never kept): the ids tell it
                mark = max((_id_number(i) for c in self.cols for i in c.ids if i is not None), default=0)
        mark += 1
        self.last_issued = mark
        self._by_id = None
        return f"t{mark}"

    def find_lapsed(self) -> None:
        """The claims of other agents whose lease ended by ``now`` (:attr:`lapsed`)."""
        now, agent = self.now, self.agent
        self.lapsed = {}
        if now is None:
            return
        for col, index in self.active:
            held = col.leases[index]
            if held is None or held.until is None or held.until > now:
                continue
            if col.owners[index] != agent:
                self.lapsed[(col, index)] = None

    def id_mark(self) -> int:
        """The plan's id high-water mark now (what its first phase keeps as ``last_id``)."""
        return self.last_issued if self.last_issued is not None else self.last_read

    def content_of(self, name: str) -> str | None:
        """The content of the live task named ``name``: by content first, else by id."""
        if name in self.by_content:
            return name
        by_id = self._by_id
        if by_id is None:
            by_id = self._by_id = {}
            for col in self.cols:
                if None in col.ids and col.ids.count(None) == len(col.ids):
                    continue
                for ident, content, status in zip(col.ids, col.contents, col.statuses, strict=True):
                    if ident is not None and status is not None:
                        by_id.setdefault(ident, content)
        return by_id.get(name)

    def resolve(self, names: Iterable[str]) -> tuple[str, ...]:
        """``after`` names as contents (an id becomes its task's content), each once."""
        return _unique(self.content_of(n) or n for n in names)

    def give_ids(self) -> None:
        """An id for every live task that has none (new tasks, and plans from before ids)."""
        for col in self.cols:
            ids = col.ids
            if None not in ids:
                continue
            for index in compress(count(), map(is_, ids, repeat(None))):
                if col.statuses[index] is not None:
                    ids[index] = self.new_id()
                    col.touch(index)

    def phases(self) -> tuple[Phase, ...]:
        """The plan as frozen values, the id high-water mark kept on its first phase."""
        out = super().phases()
        mark = self.id_mark()
        if out and mark and out[0].last_id != mark:
            out = (attrs.evolve(out[0], last_id=mark), *out[1:])
        return out

    # -- places ----------------------------------------------------------------------

    def place(self, content: str) -> Place | None:
        col = self.by_content.get(content)
        return None if col is None else (col, col.position(content))

    def status_of(self, content: str) -> Status | None:
        col = self.by_content.get(content)
        return None if col is None else col.statuses[col.position(content)]

    def order(self, places: Iterable[Place]) -> list[Place]:
        """``places`` in plan order."""
        number = {id(col): n for n, col in enumerate(self.cols)}
        return sorted(places, key=lambda p: (number[id(p[0])], p[1]))

    def shown(self) -> list[TeamColumn]:
        """The phases the caller sees."""
        scope = self.scope
        return self.cols if scope is None else [c for c in self.cols if c.name == scope]

    def in_scope(self) -> Iterable[Place]:
        """The tasks the caller may see and change, in plan order."""
        for col in self.shown():
            for index in _live(col):
                yield col, index

    # -- questions ---------------------------------------------------------------

    def waits_for(self, after: tuple[str, ...]) -> list[str]:
        """The contents in ``after`` that are not closed yet."""
        out = []
        for content in after:
            status = self.status_of(content)
            if status is not None and status is not _COMPLETED and status is not _ABANDONED:
                out.append(content)
        return out

    def is_ready(self, col: TeamColumn, index: int) -> bool:
        """Pending, unowned and waiting for nothing open; or a claim whose lease lapsed."""
        return (
            col.statuses[index] is _PENDING
            and col.owners[index] is None
            and not self.waits_for(col.afters[index])
        ) or (col, index) in self.lapsed

    def ready_mask(self, col: TeamColumn) -> Iterable[bool] | None:
        """Which tasks of ``col`` are ready (pending, unowned, waiting for nothing open), in
        order; ``None`` when none is pending."""
        if col.plain:
            return map(is_, col.statuses, repeat(_PENDING))
        lapsed = [i for c, i in self.lapsed if c is col] if self.lapsed else []
        if _PENDING not in col.statuses and not lapsed:
            return None
        mask = list(map(is_, col.statuses, repeat(_PENDING)))
        if col.owners.count(None) != len(mask):
            for index in compress(count(), map(is_not, col.owners, repeat(None))):
                mask[index] = False
        if any(col.afters):
            for index in compress(count(), col.afters):
                if mask[index] and self.waits_for(col.afters[index]):
                    mask[index] = False
        for index in lapsed:
            mask[index] = True
        return mask

    def ready_in(self, col: TeamColumn) -> list[int]:
        """The ready tasks of ``col``, by position."""
        mask = self.ready_mask(col)
        return [] if mask is None else list(compress(count(), mask))

    def next_ready(self) -> Place | None:
        for col in self.shown():
            ready = self.ready_in(col)
            if ready:
                return col, ready[0]
        return None

    def active_of(self, agent: str) -> Place | None:
        mine = [p for p in self.active if p[0].owners[p[1]] == agent]
        if len(mine) > 1:
            mine = self.order(mine)
        return mine[0] if mine else None

    def held_by_other(self, col: TeamColumn, index: int) -> bool:
        owner = col.owners[index]
        return owner is not None and owner != self.agent and col.statuses[index] in _HELD

    def fenced(self, col: TeamColumn, index: int) -> bool:
        """Whether the caller lost this task when its lease lapsed (another agent took it
        over since); adds the error, which names the new holder, when so."""
        held = col.leases[index]
        agent = self.agent
        if held is None or agent is None or col.owners[index] == agent or not held.is_void_for(agent):
            return False
        owner = col.owners[index]
        holder = f'agent "{owner}"' if owner is not None else "another agent"
        if held.lapsed == agent:
            why = f"after your lease lapsed at {format_time(held.lapsed_at)}"
        else:  # voided by an earlier takeover: the task changed hands again since
            why = "after your lease lapsed (and has changed hands since)"
        self.errors.append(
            f'Task "{col.contents[index]}" was taken over by {holder} (claim {held.epoch}) {why}: '
            "your claim on it is void"
        )
        return True

    def may_change(self, col: TeamColumn, index: int, verb: str) -> bool:
        """Whether the caller may ``verb`` the task; adds the error when not."""
        if self.fenced(col, index):
            return False
        if (col, index) in self.lapsed and verb != "note":
            return True  # a lapsed claim is anyone's again
        if self.privileged or not self.held_by_other(col, index):
            return True
        lead = f' ("{self.lead}")' if self.lead is not None else ""
        self.errors.append(
            f'Task "{col.contents[index]}" belongs to agent "{col.owners[index]}": '
            f"only it or the lead{lead} may {verb} it"
        )
        return False

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
            self.errors.append(texts.task_not_found(content, not_found_hint(content, Hints(names), "task")))
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

    def claim(self, col: TeamColumn, index: int) -> None:
        """The task becomes the caller's: in progress, owned, with a new claim (epoch) and,
        with leases, a deadline; a lapsed holder's claim is taken over (and recorded)."""
        assert self.agent is not None
        previous = self.active_of(self.agent)
        if previous is not None and previous != (col, index):
            self._set(previous[0], previous[1], _PENDING)
            previous[0].owners[previous[1]] = None
        held = col.leases[index]
        if self.lease is not None or held is not None:
            epoch = held.epoch + 1 if held is not None else 1
            # Every claim a takeover voided stays void, whoever claims the task next; the
            # caller's own claim is made anew.
            voided = tuple(a for a in _voided(held) if a != self.agent)
            if (col, index) in self.lapsed:
                del self.lapsed[(col, index)]
                assert held is not None
                former = col.owners[index]  # kept as ``lapsed``; the ones before it in ``voided``
                voided = tuple(a for a in voided if a != former)
                col.leases[index] = Lease(epoch, self.deadline(), former, held.until, voided)
            else:
                col.leases[index] = Lease(epoch, self.deadline(), voided=voided)
        self._set(col, index, _ACTIVE)
        col.owners[index], col.reasons[index] = self.agent, None
        col.touch(index)

    def deadline(self) -> float | None:
        """When a claim the caller holds lapses if it neither writes nor beats again."""
        if self.lease is None or self.now is None:
            return None
        return self.now + self.lease

    def renew(self) -> None:
        """Push the caller's claim's deadline to ``now + lease`` (every write and heartbeat)."""
        if self.agent is None or self.lease is None or self.now is None:
            return
        mine = self.active_of(self.agent)
        if mine is None:
            return
        col, index = mine
        held = col.leases[index]
        until = self.deadline()
        if held is None:
            col.leases[index] = Lease(1, until)
        elif held.until != until:
            col.leases[index] = attrs.evolve(held, until=until)
        else:
            return
        col.touch(index)

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
        if status is _ACTIVE:
            if (col, index) in self.lapsed:
                self.claim(col, index)  # the holder's lease lapsed: the task is ready again
            elif owner != self.agent:
                self.errors.append(f'Task "{content}" is in progress for agent "{owner}"')
            return
        if status is _BLOCKED:
            reason = col.reasons[index]
            why = f": {reason}" if reason else ""
            self.errors.append(f'Task "{content}" is blocked{why}')
            return
        if status is _COMPLETED or status is _ABANDONED:
            self.errors.append(f'Task "{content}" is {status.value}; it cannot be started')
            return
        waits = self.waits_for(col.afters[index])
        if waits:
            self.errors.append(f'Task "{content}" is not ready: it waits for {_quote(waits)}')
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
            return [(col, i) for i in _live(col)] if col is not None else []
        return list(self.in_scope())

    def close(self, op: Done | Drop) -> None:
        verb = op.name
        status = _COMPLETED if isinstance(op, Done) else _ABANDONED
        agent = self.agent
        for col, index in self.targets(op, verb):
            if not self.may_change(col, index, verb):
                continue
            now, owner = col.statuses[index], col.owners[index]
            if now is _ACTIVE and owner == agent and agent is not None:
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
        if status is _COMPLETED or status is _ABANDONED:
            self.errors.append(f'Task "{content}" is {status.value}; it cannot be blocked')
            return
        if not self.may_change(col, index, "block"):
            return
        if status is _ACTIVE and col.owners[index] == self.agent and self.agent is not None:
            self.released = True
        if status is _PENDING:
            col.owners[index] = None
        self._set(col, index, _BLOCKED)
        col.reasons[index] = reason
        col.touch(index)

    def unblock(self, op: Unblock) -> None:
        found = self.find(op.task, "unblock")
        if found is None:
            return
        col, index = found
        if col.statuses[index] is not _BLOCKED:
            self.errors.append(f'Task "{col.contents[index]}" is not blocked')
            return
        if not self.may_change(col, index, "unblock"):
            return
        self._set(col, index, _PENDING)
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
        if status is not _PENDING and status is not _BLOCKED:
            self.errors.append(
                f'Task "{content}" is {status.value}; only a pending or blocked task can wait'
            )
            return
        if not self.may_change(col, index, "after"):
            return
        old = col.afters[index]
        col.afters[index] = _unique((*old, *self.resolve(op.after)))
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
        if any(c.statuses[i] is _ACTIVE and c.owners[i] == self.agent for c, i in gone):
            self.released = self.agent is not None
        contents = {c.contents[i] for c, i in gone}
        for col, index in gone:
            col.statuses[index] = None
            col.holes += 1
            col.dirty = True
            col.touched = None
        self._reindex()
        removed = contents - set(self.by_content)
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
                        f'Removed {_quote(dropped)} from what "{col.contents[index]}" comes after'
                    )

    def add_items(self, col: TeamColumn, items: Sequence[TeamItem], new: list[Place]) -> None:
        """New tasks for ``items`` (duplicates are errors), not yet checked for ``after``."""
        by_content = self.by_content
        for item in items:
            if item.content in by_content:
                self.errors.append(texts.already_exists(item.content))
                continue
            index = col.add(item.content, self.resolve(item.after))
            col.ids[index] = self.new_id()
            new.append((col, index))
            by_content[item.content] = col
            self.count += 1

    def check_after(self, new: Sequence[Place], graph: dict[str, tuple[str, ...]]) -> bool:
        """Every ``after`` of the new tasks names a task, and no cycle forms."""
        ok = True
        for col, index in new:
            missing = [c for c in col.afters[index] if c not in self.by_content]
            if missing:
                self.errors.append(
                    f'Task "{col.contents[index]}" comes after {_quote(missing)}, which '
                    f"{'is not a task' if len(missing) == 1 else 'are not tasks'}"
                )
                ok = False
        if ok and any(col.afters[index] for col, index in new):
            cycle = find_cycle(self.graph(), [col.contents[index] for col, index in new])
            if cycle:
                self.errors.append(f'"after" makes a cycle: {" -> ".join(_quote([c]) for c in cycle)}')
                ok = False
        return ok

    def graph(self) -> dict[str, tuple[str, ...]]:
        """Content -> what it comes after, for the tasks that wait (the first of a content)."""
        out: dict[str, tuple[str, ...]] = {}
        for col in self.cols:
            if any(col.afters):
                for index in compress(count(), col.afters):
                    if col.statuses[index] is not None:
                        out.setdefault(col.contents[index], col.afters[index])
        for content in list(out):
            first: TeamColumn | None = self.by_content.get(content)
            if first is not None:
                out[content] = first.afters[first.position(content)]
        return out

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
                f"init would replace tasks held by {_quote(owners)}: only the lead may replace the plan"
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

    def _new_col(self, name: str) -> TeamColumn:
        col = super()._new_col(name)
        assert isinstance(col, TeamColumn)
        return col

    def held(self) -> list[Place]:
        """The tasks in progress or blocked, in plan order."""
        out = list(self.active)
        for col in self.cols:
            if _BLOCKED in col.statuses:
                out += [(col, i) for i, s in enumerate(col.statuses) if s is _BLOCKED]
        return self.order(out)

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
                self._set(col, index, _PENDING)
                col.owners[index] = None
                col.touch(index)
            else:
                seen.add(owner)
        self.give_ids()
        by_content = self.by_content
        for col in self.cols:
            if col.plain:
                continue
            size = len(col.contents)
            statuses = col.statuses
            if col.owners.count(None) != size:
                for index in compress(count(), map(is_not, col.owners, repeat(None))):
                    if statuses[index] is _PENDING:
                        col.owners[index] = None
                        col.touch(index)
            if col.reasons.count(None) != size:
                for index in compress(count(), map(is_not, col.reasons, repeat(None))):
                    if statuses[index] is not _BLOCKED:
                        col.reasons[index] = None
                        col.touch(index)
            if col.leases.count(None) != size:
                for index in compress(count(), map(is_not, col.leases, repeat(None))):
                    held = col.leases[index]
                    if statuses[index] is not _ACTIVE and held is not None and held.until is not None:
                        col.leases[index] = attrs.evolve(held, until=None)  # no claim, no deadline
                        col.touch(index)
            if any(col.afters):
                for index in compress(count(), col.afters):
                    after, content = col.afters[index], col.contents[index]
                    named = after if all(c in by_content for c in after) else self.resolve(after)
                    kept = tuple(c for c in dict.fromkeys(named) if c != content and c in by_content)
                    if kept != after:
                        col.afters[index] = kept
                        col.touch(index)

    def unique_ids(self) -> None:
        """A new id for every task whose id an earlier task already has (a person's edit
        may copy one); the first keeps it."""
        seen: set[str] = set()
        for col in self.cols:
            for index, ident in enumerate(col.ids):
                if ident is None or col.statuses[index] is None:
                    continue
                if ident in seen:
                    col.ids[index] = self.new_id()
                    col.touch(index)
                else:
                    seen.add(ident)
        self._by_id = None

    def claimed(self) -> str | None:
        """The task the caller holds, if it holds one."""
        if self.agent is None:
            return None
        found = self.active_of(self.agent)
        return found[0].contents[found[1]] if found is not None else None



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
) -> TeamOutcome:
    """Apply ``ops`` for ``agent`` (``None``: a person) to a copy of ``phases``.

    All or nothing: with any error the outcome holds the input phases
    (normalized) and every error. ``lead`` names the agent that may change
    tasks other agents hold. With ``scope`` (a phase name) the caller sees
    and changes only that phase: ops on other tasks or phases are errors,
    ``start {}`` and pickups look only there, and ``init`` is refused.
    ``now`` is the call's time: another agent's claim whose lease ended by then
    is ready again, and with ``lease`` (seconds) the caller's claim lasts that
    long after the call. With ``seen`` (the plan as the caller last saw it) the
    outcome tells what changed since (:func:`~.changes.changes_since`).
    ``phases`` is never modified.
    A call scoped to a phase the plan does not have applies nothing and fails
    (:func:`missing_scope`): the lead adds the phase (``init`` or ``append``).
    """
    before = tuple(phases)
    changes = tuple(changes_since(seen, before)) if seen is not None else ()
    work = TeamWork(before, agent, lead, scope, now, lease)
    if scope is not None and not any(phase.name == scope for phase in before):
        work.errors.append(missing_scope(scope, before))  # nothing applies, whatever the ops
    else:
        for op in ops:
            work.run(op)
    if work.errors:
        errors = tuple(work.errors)
        work = TeamWork(before, agent, lead, scope, now)
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


def ready_tasks(phases: Iterable[Phase], *, now: float | None = None) -> list[tuple[str, Task]]:
    """The ready tasks in plan order, as ``(phase name, task)``; with ``now``, the claims
    whose lease lapsed by then too."""
    work = TeamWork(tuple(phases), now=now)
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
        found.append(f'phases: "after" makes a cycle: {" -> ".join(_quote([c]) for c in cycle)}')
    return found
