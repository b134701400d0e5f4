"""The text part of a ``todo_write`` result: what the model reads back.

The summary is written from the working copy's columns (:func:`summary_parts`)
by the kernel in ``phasetodo._core.native``, together with the JSON-ready
``details.phases``; :func:`format_summary` is the same text for a list of values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._core import native, texts
from .._core.codec import dump_phases
from .._core.columns import Columns
from .._core.model import REFERENCE_STATUSES, Phase, Status
from .status import LOOKS

__all__ = ["PREFIXES", "SYMBOLS", "format_summary", "summary_parts"]

#: The mark the summary puts before a task of each status.
SYMBOLS = {status: look.symbol for status, look in LOOKS.items()}
_PREFIX = {status: f"    {symbol} " for status, symbol in SYMBOLS.items()}
#: The summary's line prefixes in ``REFERENCE_STATUSES`` order, as ``native.parts`` takes them.
PREFIXES: tuple[str, str, str, str] = tuple(_PREFIX[s] for s in REFERENCE_STATUSES)  # type: ignore[assignment]
#: The prefixes with ``blocked``'s after them, for a team plan's list (``native.pure_parts``).
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
        tree, remaining, opened, _, current = native.pure_parts(cols, _WITH_BLOCKED)
        dumped = dump_phases(work.phases())
    else:
        tree, remaining, opened, dumped, current = native.parts(cols, PREFIXES)
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
