"""The fast working copy: one parity batch over lists of columns, not task objects.

A phase is held as three parallel lists (contents, statuses, notes), read from
``Phase`` values or straight from JSON dicts, so loading 10,000 tasks builds no
per-task object. Task contents must be unique in the list (the normal case):
then one dict, content -> phase, finds any task, and each touched phase builds
its own content -> position map on first use. A list with duplicate contents,
or an ``init`` that makes one, and a team plan's tasks (``blocked``, ``owner``,
``reason``, ``after``) are handed to the general engine instead
(:func:`load_columns` gives ``None``, :func:`apply_columns` ``False``).

The result is built from the columns in one pass per phase: the summary text
and the JSON-ready ``details.phases`` (fresh dicts and lists, never the
caller's), or frozen ``Phase`` values that reuse every unchanged input value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import count
from typing import Any, ClassVar

from . import native, texts
from .jsstring import trim_end
from .model import Phase, Status, Task, make_phase
from .ops import Append, Done, Drop, Init, Note, Op, Rm, Start, View

__all__ = ["Column", "Columns", "apply_columns", "load_columns", "read_columns"]

_PENDING = Status.PENDING
_ACTIVE = Status.IN_PROGRESS
_COMPLETED = Status.COMPLETED
_ABANDONED = Status.ABANDONED
#: The summary's line prefixes, in ``REFERENCE_STATUSES`` order.
_PREFIXES = ("    ○ ", "    → ", "    ✓ ", "    ✗ ")
_ONLY_PHASE = frozenset((Phase,))


class _Col:
    """One phase as columns; ``tasks`` keeps the input ``Task`` values for reuse."""

    #: Further per-task lists a profile's column carries (each as long as ``contents``).
    EXTRA: ClassVar[tuple[str, ...]] = ()

    __slots__ = (
        "contents",
        "dirty",
        "holes",
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
        self.holes = 0  # removed tasks still in the lists, with status None
        self.place: dict[str, int] | None = None  # content -> position, built on first use
        self.uniform: Status | None = None  # every live task has this status
        #: Positions changed or added since loading; ``None`` once that is not known
        #: (a whole-phase op, a removal): then every task is compared with the input's.
        self.touched: set[int] | None = set()

    def position(self, content: str) -> int:
        place = self.place
        if place is None:
            place = self.place = dict(zip(self.contents, count()))
        return place[content]

    def compact(self) -> None:
        """Drop removed tasks from the lists (their status is ``None``)."""
        if not self.holes:
            return
        keep = [i for i, s in enumerate(self.statuses) if s is not None]
        self.contents = [self.contents[i] for i in keep]
        self.statuses = [self.statuses[i] for i in keep]
        self.notes = [self.notes[i] for i in keep]
        for field in self.EXTRA:
            values = getattr(self, field)
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
        if self.touched is not None:
            self.touched.add(index)


def _from_dicts(items: Sequence[Mapping[str, Any]]) -> list[_Col]:
    """Columns from JSON phases; anything unusual raises for the careful loader, which names the place."""
    return [_Col(*row) for row in native.rows(items)]


def read_columns(phases: Iterable[Phase | Mapping[str, Any]]) -> list[_Col] | None:
    """Phases (values or JSON dicts) as columns, or ``None`` when a dict is malformed."""
    items = phases if type(phases) in (list, tuple) else list(phases)
    try:
        kinds = set(map(type, items))
        if _ONLY_PHASE.issuperset(kinds):
            return [_Col(*row, p) for row, p in zip(native.value_rows(items), items, strict=True)]  # type: ignore[arg-type]
        if any(issubclass(kind, Phase) for kind in kinds):
            return None
        return _from_dicts(items)  # type: ignore[arg-type]
    except (TypeError, KeyError, AttributeError, ValueError):
        return None


class Columns:
    """The mutable working copy one parity batch is applied to."""

    def __init__(
        self, phases: Iterable[Phase | Mapping[str, Any]], cols: list[_Col] | None = None
    ) -> None:
        self.errors: list[str] = []
        if cols is None:
            cols = read_columns(phases)
        if cols is None:
            raise TypeError  # the careful loader names the bad places
        self._index(cols)
        self.before_tasks = self.count
        self.before_phases = len(cols)

    def _index(self, cols: list[_Col]) -> None:
        self.cols = cols
        self.by_name, self.by_content, self.active, self.count = native.index(cols)
        self.uniform: Status | None = None
        #: Duplicate contents, or an op it does not know: the general engine must take the batch.
        self.general = len(self.by_content) != self.count

    # -- lookups ---------------------------------------------------------------

    def find_task(self, content: str | None) -> tuple[_Col, int] | None:
        if not content:
            self.errors.append(texts.MISSING_CONTENT)
            return None
        col = self.by_content.get(content)
        if col is not None:
            return col, col.position(content)
        hint = texts.EMPTY_HINT if self.count == 0 else ""
        self.errors.append(texts.task_not_found(content, hint))
        return None

    def find_phase(self, name: str) -> _Col | None:
        col = self.by_name.get(name)
        if col is None:
            self.errors.append(texts.phase_not_found(name))
        return col

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
        if col.touched is not None:
            col.touched.add(index)
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
        by_content = self.by_content
        for content, status in zip(col.contents, col.statuses, strict=True):
            if status is not None:
                del by_content[content]
        if self.active:
            for key in [a for a in self.active if a[0] is col]:
                del self.active[key]
        col.contents, col.statuses, col.notes = [], [], []
        col.tasks, col.place, col.holes = None, None, 0
        col.dirty = True
        self.count -= live

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
            del self.by_content[col.contents[index]]
            col.statuses[index] = None
            col.holes += 1
            col.dirty = True
            col.touched = None
            self.count -= 1
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
        by_content = self.by_content
        for content in op.items:
            if content in by_content:
                self.errors.append(texts.already_exists(content))
                continue
            col.add(content)
            by_content[content] = col
            self.count += 1
            self.uniform = None

    #: The column type of a new phase.
    column: ClassVar[type[_Col]] = _Col

    def _new_col(self, name: str) -> _Col:
        col = self.column(name, [], [], [])
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
        kind = type(op)
        if kind is Done:
            self.mark(op, _COMPLETED)  # type: ignore[arg-type]
        elif kind is Drop:
            self.mark(op, _ABANDONED)  # type: ignore[arg-type]
        elif kind is Start:
            self.start(op)  # type: ignore[arg-type]
        elif kind is Note:
            self.note(op)  # type: ignore[arg-type]
        elif kind is Rm:
            self.rm(op)  # type: ignore[arg-type]
        elif kind is Append:
            self.append(op)  # type: ignore[arg-type]
        elif kind is Init:
            self.init(op)  # type: ignore[arg-type]
        elif kind is not View:  # a view changes nothing; anything else is the general engine's
            self.general = True

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

    def result(self, storage: str = "memory") -> dict[str, Any]:
        """The tool result as JSON-ready data, straight from the columns."""
        text, details = self.parts(storage)
        return {"content": [{"type": "text", "text": text}], "details": details}

    def parts(self, storage: str = "memory") -> tuple[str, dict[str, Any]]:
        """The summary text and the JSON-ready details, in one pass over the columns."""
        for col in self.cols:
            if col.holes:
                col.compact()
        tree, remaining, opened, dumped, current = native.parts(self.cols, _PREFIXES)
        return self._summary(tree, remaining, opened, current), {"phases": dumped, "storage": storage}

    def _summary(self, tree: str, remaining: str, opened: int, current: int) -> str:
        head = [texts.errors_line(self.errors)] if self.errors else []
        if not self.count:
            return head[0] if head else texts.CLEARED
        if opened:
            head.append(texts.remaining_head(opened))
            head.append(remaining)
        else:
            head.append(texts.NO_REMAINING)
        cols = self.cols
        col = cols[current]
        statuses = col.statuses
        closed = len(statuses) - statuses.count(_PENDING) - statuses.count(_ACTIVE)
        head.append(texts.phase_line(current % len(cols) + 1, len(cols), col.name, closed, len(statuses)))
        head.append(tree)
        return "\n".join(head)


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
    if stale:
        built = native.make_tasks(
            [col.contents[i] for i in stale],
            [statuses[i] for i in stale],
            [tuple(notes[i]) if notes[i] else () for i in stale],
        )
        for i, task in zip(stale, built, strict=True):
            tasks[i] = task
    return tasks  # type: ignore[return-value]


def load_columns(phases: Iterable[Phase | Mapping[str, Any]]) -> Columns | None:
    """The working copy of ``phases``, or ``None`` when the general path must take them.

    ``None`` means duplicate contents or malformed dicts; the general path then
    applies the batch or names each malformed place.
    """
    try:
        work = Columns(phases)
    except (TypeError, KeyError, AttributeError, ValueError):
        return None
    return None if work.general else work


def apply_columns(work: Columns, ops: Iterable[Op | View]) -> bool:
    """Apply ``ops`` in order to ``work`` and normalize; ``False`` if the general path must.

    An ``init`` that makes duplicate contents needs the general engine; the
    caller then applies the whole batch again from the input.
    """
    for op in ops:
        work.run(op)
        if work.general:
            return False
    work.normalize()
    return True


# -- hooks for profiles ------------------------------------------------------------
#
# A profile with its own rules subclasses :class:`Columns` (and :class:`Column` when
# a phase carries more columns, as a team plan's owners, reasons and dependencies),
# hands its own columns to ``Columns.__init__(phases, cols)``, runs its ops with the
# shared helpers (``find_phase``, ``_set`` for a status, which keeps ``active``),
# and freezes and reports through ``phases()`` and ``native.parts``. The team
# profile is the example.

#: A phase of the working copy as parallel lists (a profile's extension point).
Column = _Col
