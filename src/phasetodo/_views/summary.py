"""The text part of a ``todo_write`` result: what the model reads back.

The summary is written from the working copy's columns (:func:`summary_parts`)
in one pass, together with the JSON-ready ``details.phases``; :func:`format_summary`
is the same text for a list of values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby
from typing import Any

from .._core import texts
from .._core.codec import dump_phases
from .._core.columns import Column, Columns
from .._core.model import REFERENCE_STATUSES, Phase, Status
from .status import LOOKS

__all__ = ["PREFIXES", "SYMBOLS", "format_summary", "summary_parts"]

#: The mark the summary puts before a task of each status.
SYMBOLS = {status: look.symbol for status, look in LOOKS.items()}
_PREFIX = {status: f"    {symbol} " for status, symbol in SYMBOLS.items()}
#: The summary's line prefixes in ``REFERENCE_STATUSES`` order, as ``_parts`` takes them.
PREFIXES: tuple[str, str, str, str] = tuple(_PREFIX[s] for s in REFERENCE_STATUSES)  # type: ignore[assignment]
#: The prefixes with ``blocked``'s after them, for a team plan's list (``_parts``).
_WITH_BLOCKED = (*PREFIXES, _PREFIX[Status.BLOCKED])
_PENDING, _ACTIVE = Status.PENDING, Status.IN_PROGRESS
_COMPLETED, _ABANDONED = Status.COMPLETED, Status.ABANDONED


def format_summary(phases: Iterable[Phase], errors: Sequence[str] = ()) -> str:
    """Render the summary exactly as the reference does.

    Errors first, then the open tasks, the current phase's progress and the
    whole tree; the active task's notes are spelled out under it.
    """
    work = Columns(phases if isinstance(phases, (list, tuple)) else tuple(phases))
    work.errors = list(errors)
    return summary_parts(work)[0]


def summary_parts(work: Columns, storage: str = "memory") -> tuple[str, dict[str, Any]]:
    """The summary of ``work`` and its JSON-ready details, in one pass over the columns."""
    work.compact()
    cols = work.cols
    if cols and cols[0].keep:  # tasks with more fields than the columns (a team plan's)
        tree, remaining, opened, _, current = _parts(cols, _WITH_BLOCKED)
        dumped = dump_phases(work.phases())
    else:
        tree, remaining, opened, dumped, current = _parts(cols, PREFIXES)
    details = {"phases": dumped, "storage": storage}
    return _summary(work, tree, remaining, opened, current), details


def _summary(work: Columns, tree: str, remaining: str, opened: int, current: int) -> str:
    head = [texts.errors_line(work.errors)] if work.errors else []
    if not work.count:
        return head[0] if head else texts.CLEARED
    if opened:
        head.append(texts.remaining_head(opened))
        head.append(remaining)
    else:
        head.append(texts.NO_REMAINING)
    cols = work.cols
    col = cols[current]
    statuses = col.statuses
    closed = statuses.count(_COMPLETED) + statuses.count(_ABANDONED)
    head.append(texts.phase_line(current % len(cols) + 1, len(cols), col.name, closed, len(statuses)))
    head.append(tree)
    return "\n".join(head)


_PENDING, _ACTIVE = Status.PENDING, Status.IN_PROGRESS
_ALL_STATUSES = (*REFERENCE_STATUSES, Status.BLOCKED)
_WIRE = {s: s.value for s in Status}


class _NoteCounts(dict[int, str]):
    """What a noted task's summary line ends with, by its number of notes: the common
    counts written once, any other when asked."""

    def __missing__(self, size: int) -> str:
        return f" (+{size} note{'' if size == 1 else 's'})"


_NOTE_COUNTS = _NoteCounts()
_NOTE_COUNTS.update((size, _NOTE_COUNTS[size]) for size in range(1, 33))


def _noted(tree: list[str], prefix: str, content: str, status: Status, notes: Sequence[str]) -> None:
    """A noted task's summary line, and under the active task its notes."""
    tree.append(f"{prefix}{content}{_NOTE_COUNTS[len(notes)]}")
    if status is _ACTIVE:
        _spelled(tree, notes)


def _spelled(tree: list[str], notes: Sequence[str]) -> None:
    """The active task's notes under its line, a ``---`` between two."""
    for index, note in enumerate(notes):
        if index:
            tree.append("        ---")
        tree.extend(f"        {line}" for line in note.split("\n"))


#: What :func:`_parts` gives: the summary's tree and its open tasks as texts (lines joined by
#: newlines), the number of open tasks, ``details.phases`` and the current phase's index.
Parts = tuple[str, str, int, list[dict[str, Any]], int]


def _parts(cols: Sequence[Column], prefixes: tuple[str, ...]) -> Parts:
    """The summary's parts and ``details.phases``, in one pass over the columns.

    ``prefixes`` are the reference's four statuses' line prefixes, and a fifth for
    ``blocked`` where a team plan's list is written. A big column is written run by
    run (:func:`_runs`), a small one task by task, here.
    """
    prefix, wires, counts = dict(zip(_ALL_STATUSES, prefixes, strict=False)), _WIRE, _NOTE_COUNTS
    tree: list[str] = []
    remaining: list[str] = []
    dumped: list[dict[str, Any]] = []
    total = 0
    current = -1
    for number, col in enumerate(cols):
        name = col.name
        tree.append(f"  {name}:")
        before = len(remaining)
        if len(col.contents) >= _RUN_SIZE:
            tasks, opened = _runs(col.contents, col.statuses, col.notes, name, prefix, tree, remaining)
        else:
            tasks = []
            for c, s, n in zip(col.contents, col.statuses, col.notes, strict=True):
                wire = wires[s]  # type: ignore[index]
                if s is _PENDING or s is _ACTIVE:
                    remaining.append(f"  - {c} [{wire}] ({name})")
                if n:
                    tree.append(f"{prefix[s]}{c}{counts[len(n)]}")  # type: ignore[index]
                    if s is _ACTIVE:
                        _spelled(tree, n)
                    tasks.append({"content": c, "status": wire, "notes": list(n)})
                else:
                    tree.append(f"{prefix[s]}{c}")  # type: ignore[index]
                    tasks.append({"content": c, "status": wire})
            opened = len(remaining) - before
        dumped.append({"name": name, "tasks": tasks})
        total += opened
        if current < 0 and opened:
            current = number
    return "\n".join(tree), "\n".join(remaining), total, dumped, current


#: The size from which a column is written run by run: below it, the task-by-task loop is faster.
_RUN_SIZE = 16


def _runs(
    contents: list[str],
    statuses: list[Any],
    notes: list[Any],
    name: str,
    prefix: dict[Status, str],
    tree: list[str],
    remaining: list[str],
) -> tuple[list[dict[str, Any]], int]:
    """A big column's ``details`` tasks (and how many are open), its tree lines and its open
    tasks' lines: each run of tasks of one status and no notes is one joined text per kind."""
    wires = list(map(_WIRE.__getitem__, statuses))
    tasks: list[dict[str, Any]] = [{"content": c, "status": w} for c, w in zip(contents, wires, strict=True)]
    start = opened = 0
    for (status, noted), run in groupby(zip(statuses, map(bool, notes), strict=True)):
        end = start + len(list(run))
        lead = prefix[status]
        is_open = status is _PENDING or status is _ACTIVE
        if noted:
            for index in range(start, end):
                tasks[index]["notes"] = list(notes[index])
                _noted(tree, lead, contents[index], status, notes[index])
                if is_open:
                    remaining.append(f"  - {contents[index]} [{wires[index]}] ({name})")
        else:
            part = contents[start:end]
            tree.append(lead + f"\n{lead}".join(part))
            if is_open:
                ending = f" [{wires[start]}] ({name})"
                remaining.append("  - " + f"{ending}\n  - ".join(part) + ending)
        if is_open:
            opened += end - start
        start = end
    return tasks, opened


def phase_dicts(cols: Sequence[Any]) -> list[dict[str, Any]]:
    """``details.phases`` of the columns alone: :func:`_parts`' fourth part, without the text.

    A column with an ``ids`` list (a team plan's) gives each task that has an id its
    ``"id"``, last, as ``dump_task`` puts it.
    """
    wires = _WIRE
    out = []
    for col in cols:
        tasks: list[dict[str, Any]] = []
        ids = getattr(col, "ids", None)
        if ids is not None and (not isinstance(ids, (list, tuple)) or len(ids) != len(col.contents)):
            raise TypeError("a column's ids are a sequence of its length")
        for i, (c, s, n) in enumerate(zip(col.contents, col.statuses, col.notes, strict=True)):
            wire = wires[s]
            task: dict[str, Any] = {"content": c, "status": wire}
            if n:
                task["notes"] = list(n)
            if ids is not None and ids[i] is not None:
                task["id"] = ids[i]
            tasks.append(task)
        out.append({"name": col.name, "tasks": tasks})
    return out
