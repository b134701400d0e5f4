"""The working copy every profile applies its batch to: phases as lists of columns.

A phase is held as three parallel lists (contents, statuses, notes), read from
``Phase`` values or straight from JSON dicts, so loading 10,000 tasks builds no
per-task object. The first few tasks a batch names are found by scanning the
columns; past those, one dict, content -> phase, finds any task (built once,
when it pays), and each touched phase builds its own content -> position map
on first use. Contents are unique
in a well-made list; the few that are not (a list written so, or an ``init``
that repeats an item) are counted in ``shared`` and found by a scan, first in
list order, as the reference finds them. Tasks that carry more than the
columns hold (a team plan's ``owner``, ``reason``, ``after``, or a subclass)
keep those fields when a batch changes their status or notes.

The list is frozen back into ``Phase`` values that reuse every unchanged input
value (:meth:`Columns.phases`); the summary and ``details.phases`` are written
from the columns in one pass (``phasetodo._views.summary``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain, count, repeat
from operator import attrgetter
from typing import Any, ClassVar

import attrs

from ..errors import InvalidOptionType
from . import texts
from .jsstring import trim_end
from .model import Phase, Status, Task, make_phase, make_task
from .model import make_tasks as _bulk_tasks
from .ops import Append, Done, Drop, Init, Note, Op, Rm, Start, View

__all__ = [
    "Column",
    "Columns",
    "IdRow",
    "Row",
    "id_rows",
    "make_tasks",
    "plain_columns",
    "read_columns",
    "value_rows",
]

_PENDING = Status.PENDING
_ACTIVE = Status.IN_PROGRESS
_COMPLETED = Status.COMPLETED
_ABANDONED = Status.ABANDONED
_ONLY_PHASE = frozenset((Phase,))
#: ``touched`` of a column nothing has changed yet: shared, replaced by a dict on the first change.
_UNTOUCHED: frozenset[int] = frozenset()
#: What the JSON reader (``_from_dicts``) may raise on input the fast path does not take.
_REFUSED = (TypeError, KeyError, AttributeError, ValueError)


class _Col:
    """One phase as columns; ``tasks`` keeps the input ``Task`` values for reuse."""

    #: Further per-task lists a profile's column carries (each as long as ``contents``).
    EXTRA: ClassVar[tuple[str, ...]] = ()

    __slots__ = (
        "contents",
        "dirty",
        "finds",
        "holes",
        "keep",
        "name",
        "notes",
        "place",
        "source",
        "statuses",
        "tasks",
        "touched",
        "uniform",
    )

    def __init__(
        self,
        name: str,
        contents: list[str],
        statuses: list[Status | None],
        notes: list[Any],
        source: Phase | None = None,
    ) -> None:
        self.name = name
        self.contents = contents
        self.statuses = statuses
        self.notes = notes
        self.source = source
        self.tasks: Sequence[Task | None] | None = source.tasks if source is not None else None
        self.dirty = source is None
        #: The input tasks carry fields the columns do not (team fields, a subclass):
        #: a changed task is the input's with its new status and notes.
        self.keep = False
        self.holes = 0  # removed tasks still in the lists, with status None
        self.place: dict[str, int] | None = None  # content -> position, built once it pays
        self.finds = 0  # positions looked up without ``place``
        self.uniform: Status | None = None  # every live task has this status
        #: Positions changed or added since loading, as the keys of a dict (which the
        #: collector does not track, as it would a set; an empty frozenset until the
        #: first); ``None`` once that is not known (a whole-phase op, a removal): then
        #: every task is compared with the input's.
        self.touched: dict[int, None] | frozenset[int] | None = _UNTOUCHED

    def position(self, content: str) -> int:
        """Where the live task with ``content`` is (the column holds exactly one).

        The first few lookups scan the list (in C, no allocation); after that a
        content -> position map is built, as many lookups in one phase pay for it.
        """
        place = self.place
        if place is not None:
            return place[content]
        self.finds += 1
        if self.finds > _SCANS:
            place = self.place = dict(zip(self.contents, count()))
            return place[content]
        contents, statuses = self.contents, self.statuses
        index = contents.index(content)
        while statuses[index] is None:  # a removed task's place: the live one comes later
            index = contents.index(content, index + 1)
        return index

    def compact(self) -> None:
        """Drop removed tasks from the lists (their status is ``None``)."""
        if not self.holes:
            return
        keep = [i for i, s in enumerate(self.statuses) if s is not None]
        extra = [getattr(self, field) for field in self.EXTRA]  # read while the lists agree
        self.contents = [self.contents[i] for i in keep]
        self.statuses = [self.statuses[i] for i in keep]
        self.notes = [self.notes[i] for i in keep]
        for field, values in zip(self.EXTRA, extra, strict=True):
            setattr(self, field, [values[i] for i in keep])
        if self.tasks is not None:
            self.tasks = [self.tasks[i] for i in keep]
        self.holes = 0
        self.place = None

    def add(self, content: str) -> int:
        """A new pending task without notes at the end (a profile's column fills its
        ``EXTRA`` lists); its position."""
        index = len(self.contents)
        if self.place is not None:  # a removed task of this content may still hold it
            self.place[content] = index
        self.contents.append(content)
        self.statuses.append(_PENDING)
        self.notes.append(None)
        if self.tasks is not None:
            if not isinstance(self.tasks, list):
                self.tasks = list(self.tasks)
            self.tasks.append(None)
        self.touch(index)
        if self.uniform is not _PENDING:
            self.uniform = None
        return index

    def frozen(self) -> list[Task]:
        """The column's tasks as values: the input's where unchanged (a profile's column
        that carries more fields builds its own)."""
        return _tasks_of(self)

    def touch(self, index: int) -> None:
        """Say that the task at ``index`` changed or is new."""
        self.dirty = True
        touched = self.touched
        if touched is _UNTOUCHED:
            self.touched = {index: None}
        elif touched is not None:
            touched[index] = None  # type: ignore[index]


# -- reading phases into columns ---------------------------------------------

#: A phase as columns: its name, contents, statuses and notes (``None``, a list or a tuple).
Row = tuple[str, list[str], list[Status | None], list[Any]]
#: A team plan's phase as columns: a :data:`Row` and its tasks' ids.
IdRow = tuple[str, list[str], list[Status | None], list[Any], list[str | None]]


#: The reference's four statuses by wire name: ``blocked`` (team plans) is not among them.
_PLAIN_LOOKUP = {s.value: s for s in Status if s is not Status.BLOCKED}
_TEAM_KEYS = frozenset(("owner", "reason", "after", "id", "lease"))
_ONLY_STR = frozenset((str,))
_ONLY_DICT = frozenset((dict,))
_ONLY_TUPLE = frozenset((tuple,))
_ONLY_TASK = frozenset((Task,))
_ONLY_NONE = frozenset((None,))
_content, _status, _notes = attrgetter("content"), attrgetter("status"), attrgetter("notes")
_name, _tasks = attrgetter("name"), attrgetter("tasks")
_owner, _reason, _after = attrgetter("owner"), attrgetter("reason"), attrgetter("after")
_id, _lease, _team = attrgetter("id"), attrgetter("lease"), attrgetter("team")


def _from_dicts(phases: Sequence[Mapping[str, Any]]) -> list[_Col]:
    """JSON phases as columns, in one plain loop per task; anything unusual raises for the
    careful loader, which names the place."""
    lookup, team = _PLAIN_LOOKUP, _TEAM_KEYS
    out: list[_Col] = []
    for phase in phases:
        if type(phase) is not dict:
            raise TypeError
        name, tasks = phase["name"], phase["tasks"]
        if type(name) is not str or (type(tasks) is not list and type(tasks) is not tuple):
            raise TypeError
        if not _ONLY_DICT.issuperset(map(type, tasks)):
            raise TypeError
        contents: list[str] = []
        statuses: list[Status | None] = []
        notes: list[Any] = []
        for task in tasks:
            content = task["content"]
            if type(content) is not str:
                raise TypeError
            status = lookup[task["status"]]  # "blocked" (a team plan): KeyError, careful loader
            contents.append(content)
            statuses.append(status)
            if len(task) == 2:  # content and status: no notes
                notes.append(None)
                continue
            noted = task.get("notes")
            if noted is None or len(task) != 3:  # keys besides notes: not a team plan's?
                if not team.isdisjoint(task):
                    raise TypeError
                if noted is None:
                    notes.append(None)
                    continue
            if type(noted) is not list:
                raise TypeError  # notes must be a list of strings, [] or absent
            for text in noted:  # a task has a few notes: a loop costs less than a set check
                if type(text) is not str:
                    raise TypeError
            notes.append(noted)
        out.append(_Col(name, contents, statuses, notes))
    return out


def value_rows(phases: Sequence[Phase]) -> list[Row]:
    """``Phase`` values as columns; raises ``TypeError`` for a team plan's fields or a field
    of the wrong type (what :func:`~phasetodo._core.model.value_problems` names).

    Each check runs once over every task of the list (one ``map``), not once per task.
    """
    return _plain_rows(phases, with_ids=False)  # type: ignore[return-value]


def id_rows(phases: Sequence[Phase]) -> list[IdRow]:
    """:func:`value_rows` with each phase's ids as a fifth list: a team plan's phases
    whose tasks carry an id (a string) and nothing else of a team's."""
    return _plain_rows(phases, with_ids=True)  # type: ignore[return-value]


def _team_ok(tasks: list[Task], with_ids: bool) -> bool:
    """Whether no task has team fields, or with ``with_ids`` whether the only one set is a string id."""
    teams = list(map(_team, tasks))
    if _ONLY_NONE.issuperset(teams):
        return True
    named = [team for team in teams if team is not None]
    return (
        with_ids
        and _ONLY_STR.issuperset(map(type, map(_id, named)))
        and _ONLY_NONE.issuperset(map(_owner, named))
        and _ONLY_NONE.issuperset(map(_reason, named))
        and not any(map(_after, named))
        and _ONLY_NONE.issuperset(map(_lease, named))
    )


def _plain_rows(phases: Sequence[Phase], *, with_ids: bool) -> list[Row] | list[IdRow]:
    """The rows of both: one check over every task per field, then the lists cut per phase."""
    if not _ONLY_PHASE.issuperset(map(type, phases)):
        raise TypeError
    names = list(map(_name, phases))
    groups = list(map(_tasks, phases))
    if not _ONLY_STR.issuperset(map(type, names)) or not _ONLY_TUPLE.issuperset(map(type, groups)):
        raise TypeError
    tasks = list(chain.from_iterable(groups))
    if not _ONLY_TASK.issuperset(map(type, tasks)):
        raise TypeError
    if not tasks:
        return [(name, [], [], [], []) if with_ids else (name, [], [], []) for name in names]  # type: ignore[return-value]
    contents = list(map(_content, tasks))
    statuses = list(map(_status, tasks))
    notes = list(map(_notes, tasks))
    if (
        not _ONLY_STR.issuperset(map(type, contents))
        or not _ONLY_TUPLE.issuperset(map(type, notes))
        or not _ONLY_STR.issuperset(map(type, chain.from_iterable(notes)))
        or Status.BLOCKED in statuses
        or not _team_ok(tasks, with_ids)
    ):
        raise TypeError  # a team plan's fields (the general engine carries them), or a bad type
    ids = list(map(_id, tasks)) if with_ids else None
    out: list[Any] = []
    start = 0
    for name, group in zip(names, groups, strict=True):
        end = start + len(group)
        row = (name, contents[start:end], statuses[start:end], notes[start:end])
        out.append(row if ids is None else (*row, ids[start:end]))
        start = end
    return out


#: What :func:`_lookups` gives: phase name -> column (the first of each name wins), the
#: in-progress tasks as ``{(column, position): None}`` in list order, and the number of tasks.
Index = tuple[dict[str, Any], dict[tuple[Any, int], None], int]


def _lookups(cols: list[_Col]) -> Index:
    """The lookups every batch needs; content -> column is built only when it pays
    (:attr:`Columns.by_content`)."""
    by_name: dict[str, Any] = {}
    total = 0
    for col in reversed(cols):  # backwards, so that the first phase of a name wins
        by_name[col.name] = col
        total += len(col.contents)
    active = {
        (col, position): None
        for col in cols
        if _ACTIVE in col.statuses
        for position, status in enumerate(col.statuses)
        if status is _ACTIVE
    }
    return by_name, active, total


def _content_index(cols: list[_Col]) -> dict[str, Any]:
    """content -> the column of the first live task with it, one bulk update per column."""
    by_content: dict[str, Any] = {}
    for col in reversed(cols):  # backwards, so that the first phase of a content wins
        by_content.update(zip(_live_contents(col), repeat(col)))
    return by_content


def _live_contents(col: _Col) -> list[str]:
    """The contents of the column's tasks that are still in the list."""
    if not col.holes:
        return col.contents
    return [c for c, s in zip(col.contents, col.statuses, strict=True) if s is not None]


def make_tasks(
    contents: list[str], statuses: list[Status], notes: list[tuple[str, ...]] | None = None
) -> list[Task]:
    """Tasks from columns: one ``make_task`` each for a few, the bulk ``map`` form for many."""
    if len(contents) > 8:
        return _bulk_tasks(contents, statuses, notes)
    if notes is None:
        return [make_task(c, s) for c, s in zip(contents, statuses, strict=True)]
    return [make_task(c, s, n) for c, s, n in zip(contents, statuses, notes, strict=True)]


def read_columns(phases: Iterable[Phase | Mapping[str, Any]]) -> list[_Col] | None:
    """Phases (values or JSON dicts) as columns, or ``None`` when a dict is malformed."""
    items: Sequence[Any] = phases if type(phases) in (list, tuple) else list(phases)  # type: ignore[assignment]
    try:
        if items and type(items[0]) is dict:  # JSON, as hosts pass it: the reader checks every phase
            return _from_dicts(items)
        kinds = set(map(type, items))
        if all(issubclass(kind, Phase) for kind in kinds):
            return _from_values(items)
        if any(issubclass(kind, Phase) for kind in kinds):
            return None
        return _from_dicts(items)
    except _REFUSED:
        return None


def plain_columns(phases: Iterable[Phase | Mapping[str, Any]]) -> list[_Col] | None:
    """:func:`read_columns` for the reference's lists only: ``None`` for tasks that carry
    more than the columns hold (a team plan's), which the bulk kernels do not write."""
    cols = read_columns(phases)
    return None if cols is None or (cols and cols[0].keep) else cols


#: Positions a column looks up by scanning before it builds its content -> position map.
_SCANS = 8


def _from_values(items: Sequence[Phase]) -> list[_Col]:
    """Columns from ``Phase`` values: in bulk, or phase by phase when tasks carry more."""
    if _ONLY_PHASE.issuperset(map(type, items)):
        try:
            return [_Col(*row, p) for row, p in zip(value_rows(items), items, strict=True)]
        except TypeError:
            pass  # team fields, a subclass or a field of an odd type: the loop below keeps them
    cols = []
    for phase in items:
        tasks = phase.tasks
        col = _Col(
            phase.name,
            [t.content for t in tasks],
            [t.status for t in tasks],
            [t.notes for t in tasks],
            phase,
        )
        col.keep = True
        cols.append(col)
    return cols


class Columns:
    """The mutable working copy one parity batch is applied to."""

    def __init__(
        self,
        phases: Iterable[Phase | Mapping[str, Any]],
        cols: list[_Col] | None = None,
    ) -> None:
        """``cols``: the list read already, if it was."""
        self.errors: list[str] = []
        #: Bumped whenever a task or a phase is added or removed: what a profile caches
        #: about the list's shape (strict's hint index) is stale once it changes.
        self.shape = 0
        if cols is None:
            cols = read_columns(phases)
        if cols is None:
            raise TypeError  # JSON that is not plain: the careful loader names the bad places
        self._index(cols)
        self.before_tasks = self.count
        self.before_phases = len(cols)

    def _index(self, cols: list[_Col]) -> None:
        self.cols = cols
        self.by_name, self.active, self.count = _lookups(cols)
        self.uniform: Status | None = None
        self.shape += 1
        self._by_content: dict[str, Any] | None = None
        #: Contents more than one task has (content -> how many are left): found by a scan.
        #: Known once :attr:`by_content` is built.
        self.shared: dict[str, int] = {}
        #: Tasks looked up by scanning the columns, before :attr:`by_content` is built.
        self.scans = 0

    @property
    def by_content(self) -> dict[str, Any]:
        """content -> the column of the first live task with it.

        Built on first use: a batch of a few ops finds its tasks by scanning the
        columns (:meth:`locate`), which costs less than indexing every task.
        """
        found = self._by_content
        return self.index_contents() if found is None else found

    @by_content.setter
    def by_content(self, value: dict[str, Any]) -> None:
        """A working copy that rebuilds its lists sets their index (no content held twice)."""
        self._by_content = value
        self.shared = {}

    def index_contents(self) -> dict[str, Any]:
        """Build :attr:`by_content` (and ``shared``) from the live tasks, now."""
        found = self._by_content = _content_index(self.cols)
        self.shared = {} if len(found) == self.count else _repeated(self.cols)
        return found

    # -- lookups ---------------------------------------------------------------

    def locate(self, content: str) -> tuple[_Col, int] | None:
        """The first live task with ``content``, in list order, or ``None``; adds no error."""
        if self._scanning():
            return self._scan(content)
        col = self.by_content.get(content)
        if col is None:
            return None
        if content not in self.shared:
            return col, col.position(content)
        for col in self.cols:
            index = _live_index(col, content)
            if index is not None:
                return col, index
        raise AssertionError(content)  # pragma: no cover - ``shared`` counts live tasks

    def _scanning(self) -> bool:
        """Whether this lookup scans the columns: one of the first few, before any index."""
        if self._by_content is None and self.scans < _SCANS:
            self.scans += 1
            return True
        return False

    def _scan(self, content: str) -> tuple[_Col, int] | None:
        """:meth:`locate` without the index: the columns searched in list order."""
        for col in self.cols:
            if content in col.contents:
                index = _live_index(col, content)
                if index is not None:
                    return col, index
        return None

    def expect(self, lookups: int) -> None:
        """Say that ``lookups`` tasks are about to be looked up: past a few, indexing every
        task once costs less than scanning the columns for each."""
        if self._by_content is None and self.scans + lookups > _SCANS:
            self.index_contents()

    def holds(self, content: str) -> bool:
        """Whether a live task has ``content``."""
        if self._scanning():
            return self._scan(content) is not None
        return content in self.by_content

    def find_task(self, content: str | None) -> tuple[_Col, int] | None:
        if not content:
            self.errors.append(texts.MISSING_CONTENT)
            return None
        found = self.locate(content)
        if found is None:
            hint = texts.EMPTY_HINT if self.count == 0 else self.miss_hint(content, "task")
            self.errors.append(texts.task_not_found(content, hint))
        return found

    def find_phase(self, name: str) -> _Col | None:
        col = self.by_name.get(name)
        if col is None:
            self.errors.append(texts.phase_not_found(name, self.miss_hint(name, "phase")))
        return col

    def miss_hint(self, query: str, kind: str) -> str:
        """Text added to a "not found" error (``kind``: task or phase); the reference adds none."""
        return ""

    def live(self) -> Iterable[tuple[_Col, int]]:
        """Every task still in the list, as (column, position), in list order."""
        for col in self.cols:
            for index, status in enumerate(col.statuses):
                if status is not None:
                    yield col, index

    def _forget(self, content: str) -> None:
        """One live task with ``content`` left the list."""
        if self._by_content is None:
            return
        left = self.shared.get(content, 1) - 1
        if left:
            self.shared[content] = left
            return
        self.shared.pop(content, None)
        del self.by_content[content]

    # -- changes ---------------------------------------------------------------

    def _set(self, col: _Col, index: int, status: Status) -> None:
        old = col.statuses[index]
        if old is status:
            return
        if old is _ACTIVE:
            del self.active[(col, index)]
        elif status is _ACTIVE:
            self.active[(col, index)] = None
        col.statuses[index] = status
        col.dirty = True
        touched = col.touched
        if touched is _UNTOUCHED:
            col.touched = {index: None}
        elif touched is not None:
            touched[index] = None  # type: ignore[index]
        col.uniform = None
        self.uniform = None

    def _mark_col(self, col: _Col, status: Status) -> None:
        """Give every live task of ``col`` ``status``; free when it already has."""
        if col.uniform is status or len(col.contents) == col.holes:
            return
        if self.active:
            for key in [a for a in self.active if a[0] is col]:
                del self.active[key]
        if col.holes:
            col.statuses = [None if s is None else status for s in col.statuses]
        else:
            col.statuses = [status] * len(col.statuses)
        col.dirty = True
        col.touched = None
        col.uniform = status
        self.uniform = None
        if status is _ACTIVE:
            for index, now in enumerate(col.statuses):
                if now is not None:
                    self.active[(col, index)] = None

    def _empty(self, col: _Col) -> None:
        live = len(col.contents) - col.holes
        if not live:
            return
        by_content = self._by_content
        if by_content is not None:
            for content, status in zip(col.contents, col.statuses, strict=True):
                if status is None:
                    continue
                if self.shared:
                    self._forget(content)
                else:
                    del by_content[content]
        if self.active:
            for key in [a for a in self.active if a[0] is col]:
                del self.active[key]
        col.contents, col.statuses, col.notes = [], [], []
        col.tasks, col.place, col.holes = None, None, 0
        col.dirty = True
        self.count -= live
        self.shape += 1

    # -- ops ---------------------------------------------------------------------

    def mark(self, op: Done | Drop, status: Status) -> None:
        if op.task:
            found = self.find_task(op.task)
            if found is not None:
                self._set(found[0], found[1], status)
        elif op.phase:
            col = self.find_phase(op.phase)
            if col is not None:
                self._mark_col(col, status)
        elif self.uniform is not status:
            for col in self.cols:
                self._mark_col(col, status)
            self.uniform = status

    def start(self, op: Start) -> None:
        found = self.find_task(op.task)
        if found is None:
            return
        for other in list(self.active):
            if other != found:
                self._set(other[0], other[1], _PENDING)
        self._set(found[0], found[1], _ACTIVE)

    def rm(self, op: Rm) -> None:
        if op.task:
            found = self.find_task(op.task)
            if found is None:
                return
            col, index = found
            self.active.pop(found, None)
            self._forget(col.contents[index])
            col.statuses[index] = None
            col.holes += 1
            col.dirty = True
            col.touched = None
            self.count -= 1
            self.shape += 1
        elif op.phase:
            col = self.find_phase(op.phase)  # type: ignore[assignment]
            if col is not None:
                self._empty(col)
        elif self.count:
            for col in self.cols:
                self._empty(col)

    def refuse_append(self, phase: str | None, items: Sequence[object] | None) -> bool:
        """Whether an ``append`` lacks its phase or items (the reference's error added)."""
        if not phase:
            self.errors.append(texts.MISSING_PHASE_NAME)
            return True
        if not items:
            self.errors.append(texts.MISSING_ITEMS)
            return True
        return False

    def append(self, op: Append) -> None:
        if self.refuse_append(op.phase, op.items):
            return
        assert op.phase is not None
        assert op.items is not None
        col = self.by_name.get(op.phase) or self._new_col(op.phase)
        self.expect(len(op.items))
        for content in op.items:
            if self.holds(content):
                self.errors.append(texts.already_exists(content))
                continue
            col.add(content)
            if self._by_content is not None:
                self._by_content[content] = col
            self.count += 1
            self.shape += 1
            self.uniform = None

    #: The column type of a new phase.
    column: ClassVar[type[_Col]] = _Col

    def _new_col(self, name: str) -> _Col:
        col = self.column(name, [], [], [])
        self.shape += 1
        self.cols.append(col)
        self.by_name.setdefault(name, col)
        return col

    def note_target(self, content: str | None) -> tuple[_Col, int] | None:
        """The task a ``note`` names (a profile's lookup may say more on a miss)."""
        return self.find_task(content)

    def note(self, op: Note) -> None:
        found = self.note_target(op.task)
        if found is None:
            return
        text = trim_end(op.text or "")
        if not text:
            self.errors.append(texts.MISSING_TEXT)
            return
        col, index = found
        col.notes[index] = (*(col.notes[index] or ()), text)
        col.touch(index)

    def init(self, op: Init) -> None:
        if op.list is None:
            self.errors.append(texts.MISSING_LIST)
            self._index([])
            return
        cols = []
        for entry in op.list:
            items = list(entry.items)
            cols.append(_Col(entry.phase, items, [_PENDING] * len(items), [None] * len(items)))
        self._index(cols)

    def run(self, op: Op | View) -> None:
        step = _STEPS.get(type(op))
        if step is None:
            raise InvalidOptionType(f"op: {op!r} is not a todo_write op")
        step(self, op)

    def view(self, op: View) -> None:
        """A read-only op: changes nothing; a profile that shows views overrides it."""

    def apply(self, ops: Iterable[Op | View]) -> None:
        """Run ``ops`` in order, then keep exactly one task active."""
        if not isinstance(ops, (list, tuple)):
            ops = tuple(ops)
        if len(ops) > _SCANS and self._by_content is None:
            self.expect(_targeted(ops))
        run = self.run
        for op in ops:
            run(op)
        self.normalize()

    def normalize(self) -> None:
        """Keep exactly one task active: the first one, else the first pending."""
        if len(self.active) == 1 or self.count == 0:
            return
        if self.active:
            order = {col: n for n, col in enumerate(self.cols)}
            _first, *rest = sorted(self.active, key=lambda a: (order[a[0]], a[1]))
            for col, index in rest:
                self._set(col, index, _PENDING)
            return
        for col in self.cols:
            if _PENDING in col.statuses:
                self._set(col, col.statuses.index(_PENDING), _ACTIVE)
                return

    # -- results -----------------------------------------------------------------

    def phases(self) -> tuple[Phase, ...]:
        """The list as frozen values; unchanged phases and tasks are the input's."""
        out = []
        for col in self.cols:
            if not col.dirty and col.source is not None:
                out.append(col.source)
                continue
            col.compact()
            out.append(make_phase(col.name, tuple(col.frozen())))
        return tuple(out)

    def compact(self) -> None:
        """Drop removed tasks from every column (positions change: only at the end)."""
        for col in self.cols:
            if col.holes:
                col.compact()


#: What each op runs (through the working copy's methods, so a profile's override applies).
_STEPS: dict[type, Callable[[Columns, Any], None]] = {
    Done: lambda work, op: work.mark(op, _COMPLETED),
    Drop: lambda work, op: work.mark(op, _ABANDONED),
    Start: lambda work, op: work.start(op),
    Note: lambda work, op: work.note(op),
    Rm: lambda work, op: work.rm(op),
    Append: lambda work, op: work.append(op),
    Init: lambda work, op: work.init(op),
    View: lambda work, op: work.view(op),
}


def _targeted(ops: Sequence[Op | View]) -> int:
    """How many of ``ops`` name a task."""
    return sum(1 for op in ops if getattr(op, "task", None))


def _repeated(cols: list[_Col]) -> dict[str, int]:
    """The contents more than one live task has, with how many have each."""
    counts = Counter(chain.from_iterable(_live_contents(col) for col in cols))
    return {content: n for content, n in counts.items() if n > 1}


def _live_index(col: _Col, content: str) -> int | None:
    """The first position in ``col`` of a live task with ``content``."""
    contents, statuses = col.contents, col.statuses
    index = -1
    while True:
        try:
            index = contents.index(content, index + 1)
        except ValueError:
            return None
        if statuses[index] is not None:
            return index


def _tasks_of(col: _Col) -> list[Task]:
    """A column's tasks: the input's where unchanged, the others built in one batch."""
    size = len(col.contents)
    old = col.tasks
    tasks: list[Task | None] = [None] * size if old is None else list(old)
    check: Iterable[int] = col.touched if old is not None and col.touched is not None else range(size)
    statuses, notes = col.statuses, col.notes
    stale = [
        i
        for i in check
        if (task := tasks[i]) is None or task.status is not statuses[i] or task.notes is not notes[i]
    ]
    if stale and col.keep:
        for i in stale:
            note = tuple(notes[i]) if notes[i] else ()
            task = tasks[i]
            if task is None:
                tasks[i] = make_task(col.contents[i], statuses[i], note)  # type: ignore[arg-type]
            else:
                tasks[i] = attrs.evolve(task, status=statuses[i], notes=note)  # type: ignore[arg-type]
    elif stale:
        built = make_tasks(
            [col.contents[i] for i in stale],
            [statuses[i] for i in stale],  # type: ignore[misc]
            [tuple(notes[i]) if notes[i] else () for i in stale],
        )
        for i, task in zip(stale, built, strict=True):
            tasks[i] = task
    return tasks  # type: ignore[return-value]


# -- hooks for profiles ------------------------------------------------------------
#
# A profile with its own rules subclasses :class:`Columns` (and :class:`Column` when
# a phase carries more columns, as a team plan's owners, reasons and dependencies),
# hands its own columns to ``Columns.__init__(phases, cols)``, runs its ops with the
# shared helpers (``find_phase``, ``_set`` for a status, which keeps ``active``),
# and freezes through ``phases()``; ``miss_hint`` and ``view`` are the hooks the
# strict profile overrides. The team profile is the example of a column subclass.

#: A phase of the working copy as parallel lists (a profile's extension point).
Column = _Col
