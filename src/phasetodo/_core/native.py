"""The per-task loops of the hot paths, in C when ``phasetodo._core._speedups`` is built.

Each function below is the pure-Python loop; when the optional C module was
compiled at install time (and ``PHASETODO_PURE`` is unset or empty) the public
names are bound to its twins instead. Both give equal results and raise one of
``TypeError``, ``KeyError``, ``ValueError``, ``AttributeError`` on input the fast path does not take,
so a caller falls back the same way under either. ``tests/test_native.py``
checks the two side by side.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from itertools import chain, repeat
from operator import attrgetter
from types import ModuleType
from typing import Any, Protocol

import attrs

from ..errors import PhasetodoWarning
from .jsstring import WHITESPACE
from .model import REFERENCE_STATUSES, Phase, Status, Task, make_task
from .model import make_tasks as _bulk_tasks
from .ops import OPS, Append, Done, Drop, Init, Note, Op, PhaseItems, Rm, Start, View

__all__ = [
    "API",
    "COMPILED",
    "IdRow",
    "Index",
    "Loaded",
    "Parts",
    "Row",
    "columns",
    "dumped",
    "id_rows",
    "index",
    "load_compiled",
    "make_tasks",
    "ops",
    "parts",
    "pure_parts",
    "pure_scan",
    "render",
    "rows",
    "scan",
    "task_run",
    "value_rows",
]

#: A phase as columns: its name, contents, statuses and notes (``None``, a list or a tuple).
Row = tuple[str, list[str], list[Status | None], list[Any]]
#: A team plan's phase as columns: a :data:`Row` and its tasks' ids.
IdRow = tuple[str, list[str], list[Status | None], list[Any], list[str | None]]


class ColumnLike(Protocol):
    """What :func:`parts` and :func:`render` read from a phase held as columns."""

    name: str
    contents: list[str]
    statuses: list[Status | None]
    notes: list[Any]


_LOOKUP = {s.value: s for s in Status}
_TEAM_KEYS = frozenset(("owner", "reason", "after", "id", "lease"))
_ONLY_STR = frozenset((str,))
_ONLY_DICT = frozenset((dict,))
_ONLY_TUPLE = frozenset((tuple,))
_ONLY_TASK = frozenset((Task,))
_ONLY_NONE = frozenset((None,))
_ONLY_ID = frozenset((str, type(None)))
_WIRE = {s: s.value for s in Status}
_ONLY_PHASE = frozenset((Phase,))
_content, _status, _notes = attrgetter("content"), attrgetter("status"), attrgetter("notes")
_name, _tasks = attrgetter("name"), attrgetter("tasks")
_owner, _reason, _after = attrgetter("owner"), attrgetter("reason"), attrgetter("after")
_id, _lease = attrgetter("id"), attrgetter("lease")
_PENDING, _ACTIVE = Status.PENDING, Status.IN_PROGRESS
_ALL_STATUSES = (*REFERENCE_STATUSES, Status.BLOCKED)


def _rows(phases: Sequence[Mapping[str, Any]]) -> list[Row]:
    """JSON phases as columns, in one plain loop per task; raises on anything unusual."""
    lookup, team, only_str, blocked = _LOOKUP, _TEAM_KEYS, _ONLY_STR, Status.BLOCKED
    out: list[Row] = []
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
            status = lookup[task["status"]]
            if status is blocked:
                raise TypeError  # a team plan: the general engine carries its fields
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
            if type(noted) is not list or not only_str.issuperset(map(type, noted)):
                raise TypeError  # notes must be a list of strings, [] or absent
            notes.append(noted)
        out.append((name, contents, statuses, notes))
    return out


def _value_rows(phases: Sequence[Phase]) -> list[Row]:
    """``Phase`` values as columns; raises ``TypeError`` for a team plan's fields or a field
    of the wrong type (what :func:`~phasetodo._core.model.value_problems` names).

    Each check runs once over every task of the list (``map`` in C), not once per task.
    """
    return _plain_rows(phases, with_ids=False)  # type: ignore[return-value]


def _id_rows(phases: Sequence[Phase]) -> list[IdRow]:
    """:func:`_value_rows` with each phase's ids as a fifth list: a team plan's phases
    whose tasks carry an id (a string) and nothing else of a team's."""
    return _plain_rows(phases, with_ids=True)  # type: ignore[return-value]


def _ids_ok(tasks: list[Task], with_ids: bool) -> bool:
    """Whether the tasks' ids may be read: each a string or None with ``with_ids``, else all None."""
    if with_ids:
        return _ONLY_ID.issuperset(map(type, map(_id, tasks)))
    return _ONLY_NONE.issuperset(map(_id, tasks))


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
        or not _ONLY_NONE.issuperset(map(_owner, tasks))
        or not _ONLY_NONE.issuperset(map(_reason, tasks))
        or not _ONLY_TUPLE.issuperset(map(type, map(_after, tasks)))
        or any(map(_after, tasks))
        or not _ids_ok(tasks, with_ids)
        or not _ONLY_NONE.issuperset(map(_lease, tasks))
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


#: What :func:`index` gives: phase name -> column, content -> column (the first of each
#: wins), the in-progress tasks as ``{(column, position): None}`` in list order, and the
#: number of tasks.
Index = tuple[dict[str, Any], dict[str, Any], dict[tuple[Any, int], None], int]


def _index(cols: list[ColumnLike]) -> Index:
    """The lookups a working copy needs, one bulk update per column."""
    by_name: dict[str, Any] = {}
    by_content: dict[str, Any] = {}
    total = 0
    for col in reversed(cols):  # backwards, so that the first phase of a name or content wins
        by_name[col.name] = col
        total += len(col.contents)
        by_content.update(zip(col.contents, repeat(col)))
    active = {
        (col, position): None
        for col in cols
        if _ACTIVE in col.statuses
        for position, status in enumerate(col.statuses)
        if status is _ACTIVE
    }
    return by_name, by_content, active, total


#: What :func:`columns` gives: the columns, then what :func:`index` gives for them.
Loaded = tuple[list[Any], dict[str, Any], dict[str, Any], dict[tuple[Any, int], None], int]


def _columns(phases: Sequence[Mapping[str, Any]], proto: Any) -> Loaded:
    """JSON phases as columns of ``type(proto)`` with their lookups: :func:`rows`, then
    :func:`index`. Raises as :func:`rows` does.

    ``proto`` is a column made by ``type(proto)(name, [], [], [])`` whose other fields
    are shared values (no list or set of its own): each new column is made here as
    ``type(proto)(name, contents, statuses, notes)``, and the C twin copies those other
    fields from ``proto`` instead of running ``__init__`` (the class must keep its fields
    in ``__slots__``).
    """
    if hasattr(proto, "__dict__"):
        raise TypeError  # the C twin copies slots only
    make = type(proto)
    cols = [make(*row) for row in _rows(phases)]
    return (cols, *_index(cols))


def _noted(tree: list[str], prefix: str, content: str, status: Status, notes: Sequence[str]) -> None:
    """A noted task's summary line, and under the active task its notes."""
    size = len(notes)
    tree.append(f"{prefix}{content} (+{size} note{'' if size == 1 else 's'})")
    if status is _ACTIVE:
        for index, note in enumerate(notes):
            if index:
                tree.append("        ---")
            tree.extend(f"        {line}" for line in note.split("\n"))


#: What :func:`parts` gives: the summary's tree and its open tasks as texts (lines joined by
#: newlines), the number of open tasks, ``details.phases`` and the current phase's index.
Parts = tuple[str, str, int, list[dict[str, Any]], int]


def _parts(cols: list[ColumnLike], prefixes: tuple[str, ...]) -> Parts:
    """The summary's parts and ``details.phases``, in one pass over the columns.

    ``prefixes`` are the reference's four statuses' line prefixes; a fifth, for
    ``blocked``, is taken here only (the C twin writes the reference's statuses).
    """
    prefix, wires = dict(zip(_ALL_STATUSES, prefixes, strict=False)), _WIRE
    tree: list[str] = []
    remaining: list[str] = []
    dumped: list[dict[str, Any]] = []
    current = -1
    for number, col in enumerate(cols):
        name = col.name
        tree.append(f"  {name}:")
        tasks: list[dict[str, Any]] = []
        opened = len(remaining)
        for c, s, n in zip(col.contents, col.statuses, col.notes, strict=True):
            wire = wires[s]  # type: ignore[index]
            if s is _PENDING or s is _ACTIVE:
                remaining.append(f"  - {c} [{wire}] ({name})")
            if n:
                if s is _ACTIVE:
                    _noted(tree, prefix[s], c, s, n)
                elif len(n) == 1:
                    tree.append(f"{prefix[s]}{c} (+1 note)")  # type: ignore[index]
                else:
                    tree.append(f"{prefix[s]}{c} (+{len(n)} notes)")  # type: ignore[index]
                tasks.append({"content": c, "status": wire, "notes": list(n)})
            else:
                tree.append(f"{prefix[s]}{c}")  # type: ignore[index]
                tasks.append({"content": c, "status": wire})
        dumped.append({"name": name, "tasks": tasks})
        if current < 0 and len(remaining) > opened:
            current = number
    return "\n".join(tree), "\n".join(remaining), len(remaining), dumped, current


def _dumped(cols: list[ColumnLike]) -> list[dict[str, Any]]:
    """``details.phases`` of the columns alone: :func:`_parts`' fourth part, without the text.

    A column with an ``ids`` list (a team plan's) gives each task that has an id its
    ``"id"``, last, as ``dump_task`` puts it.
    """
    wires = _WIRE
    out = []
    for col in cols:
        tasks: list[dict[str, Any]] = []
        ids = getattr(col, "ids", None)
        if ids is not None and (not isinstance(ids, list) or len(ids) != len(col.contents)):
            raise TypeError("a column's ids are a list of its length")
        for i, (c, s, n) in enumerate(zip(col.contents, col.statuses, col.notes, strict=True)):
            wire = wires[s]  # type: ignore[index]
            task: dict[str, Any] = {"content": c, "status": wire}
            if n:
                task["notes"] = list(n)
            if ids is not None and ids[i] is not None:
                task["id"] = ids[i]
            tasks.append(task)
        out.append({"name": col.name, "tasks": tasks})
    return out


def _render(cols: list[ColumnLike], markers: tuple[str, str, str, str]) -> str:
    """The reference's Markdown checklist of phases held as columns (at least one)."""
    marks = {s: f"- [{m}] " for s, m in zip(REFERENCE_STATUSES, markers, strict=True)}
    out: list[str] = []
    for col in cols:
        if out:
            out.append("")
        out.append(f"# {col.name}")
        if not any(col.notes):
            out += [f"{marks[s]}{c}" for c, s in zip(col.contents, col.statuses, strict=True)]  # type: ignore[index]
            continue
        for content, status, notes in zip(col.contents, col.statuses, col.notes, strict=True):
            out.append(f"{marks[status]}{content}")  # type: ignore[index]
            for index, note in enumerate(notes or ()):
                if index:
                    out.append("  >")
                out.extend(f"  > {line}" if line else "  >" for line in note.split("\n"))
    return "\n".join(out) + "\n"


@lru_cache(maxsize=4)
def _run_pattern(known: str) -> re.Pattern[str]:
    """Lines ``- [m] content`` with ``m`` in ``known`` and no whitespace at the content's edges."""
    ws = f"[{re.escape(WHITESPACE)}]"
    return re.compile(rf"(?:- \[[{re.escape(known)}]\] (?!{ws})[^\n]*(?<!{ws})\n)+")


def _task_run(
    text: str, pos: int, status_of: Mapping[str, Status], known: str
) -> tuple[list[str], list[Status], int]:
    """The plain task lines from ``pos`` on, split into contents and statuses, and where they end.

    Only for text without ``\\r``, U+2028 or U+2029 (they would change a line).
    """
    run = _run_pattern(known).match(text, pos)
    if run is None:
        return [], [], pos
    lines = text[pos : run.end() - 1].split("\n")
    return [line[6:] for line in lines], [status_of[line[3]] for line in lines], run.end()


def _make_tasks(
    contents: list[str], statuses: list[Status], notes: list[tuple[str, ...]] | None = None
) -> list[Task]:
    """Tasks from columns: one ``make_task`` each for a few, the bulk ``map`` form for many."""
    if len(contents) > 8:
        return _bulk_tasks(contents, statuses, notes)
    if notes is None:
        return [make_task(c, s) for c, s in zip(contents, statuses, strict=True)]
    return [make_task(c, s, n) for c, s, n in zip(contents, statuses, notes, strict=True)]


#: Each op's wire name, class and fields (each filled from the op's key of that name).
_OP_KINDS = tuple((name, cls, tuple(f.name for f in attrs.fields(cls))) for name, cls in OPS.items())
_KINDS = {name: (cls, fields) for name, cls, fields in _OP_KINDS}
_ARRAYS = (list, tuple)
_SCALARS = ("task", "phase", "text")


def _texts(value: Any) -> tuple[str, ...]:
    """``items``: a non-empty list or tuple of exact strings, as a tuple; raises ``TypeError``."""
    if type(value) not in _ARRAYS or not value or not _ONLY_STR.issuperset(map(type, value)):
        raise TypeError
    return tuple(value)


def _fields(data: Any) -> dict[str, Any]:
    """A dict whose keys are all exact strings (a lookup in it runs no code); raises ``TypeError``."""
    if type(data) is not dict or not _ONLY_STR.issuperset(map(type, data)):
        raise TypeError
    return data


def _ops(params: object) -> tuple[Op, ...]:
    """Tool arguments of the common plain shape as op values; raises ``TypeError`` for any other.

    Plain: exact ``dict``, ``list``/``tuple`` and ``str`` throughout, every dict key an
    exact string, a non-empty list of ops with known names, ``task``, ``phase`` and
    ``text`` strings where given, ``items`` non-empty lists of strings, ``list`` entries
    with a ``phase`` and ``items``. The parameter schema accepts all such arguments, so
    a refusal only sends them to the schema (``codec.parse_params``). Each op is its
    class with every field taken from the key of its name (``None`` where absent),
    ``items`` as a tuple and ``list`` as a tuple of ``PhaseItems``.
    """
    entries = _fields(params).get("ops")
    if type(entries) not in _ARRAYS or not entries:
        raise TypeError
    out = []
    for entry in entries:
        data = _fields(entry)
        name = data.get("op")
        if type(name) is not str or name not in _KINDS:
            raise TypeError
        for key in _SCALARS:
            if key in data and type(data[key]) is not str:
                raise TypeError
        given: dict[str, Any] = {"items": None, "list": None}
        if "items" in data:
            given["items"] = _texts(data["items"])
        if "list" in data:
            listed = data["list"]
            if type(listed) not in _ARRAYS:
                raise TypeError
            given["list"] = tuple(PhaseItems(_phase(e), _texts(e.get("items"))) for e in map(_fields, listed))
        cls, names = _KINDS[name]
        out.append(cls(*[given[f] if f in given else data.get(f) for f in names]))
    return tuple(out)


def _phase(entry: dict[str, Any]) -> str:
    phase = entry.get("phase")
    if type(phase) is not str:
        raise TypeError
    return phase


#: The core's op kinds; any other op (a profile's own) lists its texts itself
#: through ``limit_texts()`` and says with ``grows`` whether it can add tasks.
_CORE_KINDS = frozenset((Append, Done, Drop, Init, Note, Rm, Start, View))


def _scan(
    ops: Sequence[Any],
    max_content: int,
    max_name: int,
    max_note: int,
    max_payload: int,
    texts: Callable[[Any], int],
) -> int:
    """The limits' quick pass: -1 past a limit, else 1 when the ops can grow the list, 0 when not.

    A task reference is bounded like content (``max_content``), a phase name by
    ``max_name``, a note by ``max_note``, the characters of all by ``max_payload``;
    ``texts(op)`` gives a profile op's characters (-1: one of them is over its limit).
    The C twin takes the core's ops only (it raises ``TypeError`` for any other).
    """
    total = grows = 0
    for op in ops:
        kind = type(op)
        if kind not in _CORE_KINDS:
            size = texts(op)
            if size < 0:
                return -1
            total += size
            grows |= bool(getattr(op, "grows", False))
            continue
        if kind is Append or kind is Init:
            grows = 1
            entries: Sequence[Any] = (op,) if kind is Append else (op.list or ())
            for entry in entries:
                items = entry.items or ()
                if items:
                    sizes = list(map(len, items))
                    if max(sizes) > max_content:
                        return -1
                    total += sum(sizes)
                size = len(entry.phase or "")
                if size > max_name:
                    return -1
                total += size
            continue
        size = len(op.task or "")  # a task reference, bounded like content
        if size > max_content:
            return -1
        total += size
        if kind is Note:
            size = len(op.text or "")
            if size > max_note:
                return -1
            total += size
        elif kind is not Start:
            phase = op.phase
            if phase is not None:  # most ops name a task, not a phase: skip the rest for them
                size = len(phase)
                if size > max_name:
                    return -1
                total += size
    return grows if total <= max_payload else -1


#: The interface version of the C module this code calls (its ``API`` constant).
API = 6


def load_compiled() -> ModuleType | None:
    """The C module, set up, or ``None`` when it was not built (whatever ``PHASETODO_PURE`` says).

    A module built from another version of ``_speedups.c`` (a stale editable build) is
    left unused, with a :class:`~phasetodo.PhasetodoWarning`: the Python loops run instead.
    """
    try:
        from . import _speedups  # type: ignore[attr-defined]
    except ImportError:
        return None
    if getattr(_speedups, "API", None) != API:
        warnings.warn(
            f"{_speedups.__name__} was built from another version of _speedups.c; "
            "running the pure-Python loops (reinstall phasetodo to rebuild it)",
            PhasetodoWarning,
            stacklevel=2,
        )
        return None
    _speedups.setup(
        REFERENCE_STATUSES, tuple(s.value for s in REFERENCE_STATUSES), Status.BLOCKED,
        _LOOKUP, tuple(_TEAM_KEYS), WHITESPACE, Task, Phase,
    )
    _speedups.setup_ops(_OP_KINDS, PhaseItems)
    module: ModuleType = _speedups
    return module


_C = None if os.environ.get("PHASETODO_PURE") else load_compiled()
#: Whether the C twins are in use.
COMPILED: bool = _C is not None

rows: Callable[[Sequence[Mapping[str, Any]]], list[Row]] = _C.rows if _C else _rows
value_rows: Callable[[Sequence[Phase]], list[Row]] = _C.value_rows if _C else _value_rows
id_rows: Callable[[Sequence[Phase]], list[IdRow]] = _C.id_rows if _C else _id_rows
parts: Callable[[list[Any], tuple[str, str, str, str]], Parts] = _C.parts if _C else _parts
dumped: Callable[[list[Any]], list[dict[str, Any]]] = _C.dumped if _C else _dumped
index: Callable[[list[Any]], Index] = _C.index if _C else _index
columns: Callable[[Sequence[Mapping[str, Any]], Any], Loaded] = _C.columns if _C else _columns
ops: Callable[[object], tuple[Op, ...]] = _C.ops if _C else _ops
scan: Callable[[Sequence[Any], int, int, int, int, Callable[[Any], int]], int] = _C.scan if _C else _scan
render: Callable[[list[Any], tuple[str, str, str, str]], str] = _C.render if _C else _render
task_run: Callable[
    [str, int, Mapping[str, Status], str], tuple[list[str], list[Status], int]
] = _C.task_run if _C else _task_run
make_tasks: Callable[..., list[Task]] = _C.make_tasks if _C else _make_tasks
#: :func:`parts` in Python whatever the build: the one that takes ``blocked``'s prefix too.
pure_parts: Callable[[list[Any], tuple[str, ...]], Parts] = _parts
#: :func:`scan` in Python whatever the build: the one that reads a profile's ops too.
pure_scan = _scan
