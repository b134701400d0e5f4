"""A team plan's phases as the working copy's columns, and the small helpers every part of
the team engine shares.

:class:`TeamColumn` adds owners, reasons, ``after``, ids and leases to the core's
:class:`~phasetodo._core.columns.Column`; :func:`team_columns` reads ``Phase`` values into
them, each phase value once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress, count, repeat
from operator import attrgetter, is_not
from typing import Any

from ..._core.columns import Column, id_rows
from ..._core.model import Lease, Phase, Status, Task

__all__ = ["Place", "TeamColumn", "live", "quote", "team_columns", "unique"]

PENDING = Status.PENDING
ACTIVE = Status.IN_PROGRESS
BLOCKED = Status.BLOCKED
COMPLETED = Status.COMPLETED
ABANDONED = Status.ABANDONED
#: The statuses a task keeps its owner in.
HELD = frozenset((ACTIVE, BLOCKED))
_fields = attrgetter("content", "status", "notes", "owner", "reason", "after", "id", "lease")

#: A task of the working copy: its column and its position there.
Place = tuple["TeamColumn", int]

#: The value of each task in a team field's list before it is set (see ``TeamColumn``).
_EMPTY: dict[str, object] = {"owners": None, "reasons": None, "afters": (), "leases": None}


class TeamColumn(Column):
    """A phase of a team plan as columns: the core's three, and owners, reasons, ``after``
    and ids.

    A content used twice (not a valid team plan, but a list may arrive so) is found
    at its first place, as everywhere in the team rules.
    """

    EXTRA = ("owners", "reasons", "afters", "ids", "leases")
    __slots__ = ("afters", "full_ids", "ids", "leases", "owners", "plain", "reasons")
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
        #: Known to give every task an id (read so, and no task added since). ``False``: look.
        self.full_ids = False

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

    # ``team_columns`` lends a phase's kept tuples as ``contents`` and ``ids`` (typed as the
    # lists they become): the two places that change them copy them first.

    def writable_ids(self) -> list[str | None]:
        """The ids as a list that may be changed (a copy of the lent tuple, the first time)."""
        if isinstance(self.ids, tuple):
            self.ids = list(self.ids)
        return self.ids

    def add(self, content: str, after: tuple[str, ...] = ()) -> int:
        """A new pending, unowned task at the end; its position."""
        if isinstance(self.contents, tuple):
            self.contents = list(self.contents)
        self.writable_ids()
        self.owners.append(None)
        self.reasons.append(None)
        self.afters.append(after)
        self.ids.append(None)
        self.full_ids = False
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
#: phase, so that no other object takes its id): whether it is plain, its fields, and whether
#: every task has an id. A session's next call gets most phases of the last result back as
#: they were and reads each once. Emptied past ``_READ_MOST`` phases.
_READ: dict[int, tuple[Phase, bool, tuple[tuple[object, ...], ...], bool]] = {}
_READ_MOST = 4096


def _read_fields(phase: Phase) -> tuple[bool, tuple[tuple[object, ...], ...], bool]:
    """A phase's team fields as tuples, whether only ids are set among them (plain), and
    whether every task has an id."""
    found = _READ.get(id(phase))
    if found is not None and found[0] is phase:
        return found[1], found[2], found[3]
    tasks = phase.tasks
    size = len(tasks)
    fields = tuple(zip(*map(_fields, tasks), strict=True)) if size else ((),) * 8
    _, statuses, _, owners, reasons, afters, _, leases = fields
    plain = (
        owners.count(None) == size
        and reasons.count(None) == size
        and leases.count(None) == size
        and not any(afters)
        and BLOCKED not in statuses
    )
    full = None not in fields[6]
    if plain:
        fields = (fields[0], statuses, fields[2], fields[6])
    _keep(phase, plain, fields, full)
    return plain, fields, full


def _keep(phase: Phase, plain: bool, fields: tuple[tuple[object, ...], ...], full: bool) -> None:
    """Remember what was read from ``phase`` (see ``_READ``)."""
    if len(_READ) >= _READ_MOST:
        _READ.clear()
    _READ[id(phase)] = (phase, plain, fields, full)


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
            full = None not in ids
            _keep(phase, True, (tuple(contents), tuple(statuses), tuple(notes), tuple(ids)), full)
        except TypeError:  # an owner, a reason, an ``after``, an id, a lease or a blocked task
            plain, fields, full = _read_fields(phase)
            # contents and ids stay the kept tuples until a task is added (``add``, ``writable_ids``)
            if plain:
                contents_, statuses_, notes_, ids_ = fields
                col = TeamColumn(
                    phase.name, contents_, list(statuses_), list(notes_),  # type: ignore[arg-type]
                    source=phase, ids=ids_,  # type: ignore[arg-type]
                )
                col.plain = True
            else:
                contents_, statuses_, notes_, owners, reasons, afters, ids_, leases = fields
                col = TeamColumn(
                    phase.name, contents_, list(statuses_), list(notes_),  # type: ignore[arg-type]
                    list(owners), list(reasons), list(afters), phase, ids_,  # type: ignore[arg-type]
                    list(leases),  # type: ignore[arg-type]
                )
            col.full_ids = full
            out.append(col)
            continue
        col = TeamColumn(name, contents, statuses, notes, source=phase, ids=ids)
        col.plain = True
        col.full_ids = full
        out.append(col)
    return out


def live(col: TeamColumn) -> Iterable[int]:
    """The positions of ``col``'s tasks (removed ones skipped)."""
    if not col.holes:
        return range(len(col.contents))
    return compress(count(), map(is_not, col.statuses, repeat(None)))


def quote(contents: Iterable[str]) -> str:
    return ", ".join(f'"{c}"' for c in contents)


def unique(contents: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(contents))
