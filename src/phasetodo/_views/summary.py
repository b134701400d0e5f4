"""The text part of a ``todo_write`` result: what the model reads back."""

from __future__ import annotations

from collections.abc import Sequence

from .._core import texts
from .._core.model import REFERENCE_STATUSES, Phase, Status, Task
from .status import LOOKS

__all__ = ["PREFIXES", "SYMBOLS", "format_summary"]

#: The mark the summary puts before a task of each status.
SYMBOLS = {status: look.symbol for status, look in LOOKS.items()}
_PREFIX = {status: f"    {symbol} " for status, symbol in SYMBOLS.items()}
#: The summary's line prefixes in ``REFERENCE_STATUSES`` order, as ``native.parts`` takes them.
PREFIXES: tuple[str, str, str, str] = tuple(_PREFIX[s] for s in REFERENCE_STATUSES)  # type: ignore[assignment]
_OPEN = frozenset(status for status in Status if status.is_open)
_WIRE = {status: status.value for status in Status}


def format_summary(phases: Sequence[Phase], errors: Sequence[str] = ()) -> str:
    """Render the summary exactly as the reference does.

    Errors first, then the open tasks, the current phase's progress and the
    whole tree; the active task's notes are spelled out under it.
    """
    head = [texts.errors_line(errors)] if errors else []
    remaining: list[str] = []
    tree: list[str] = []
    current = -1
    for index, phase in enumerate(phases):
        tree.append(f"  {phase.name}:")
        for task in phase.tasks:
            status = task.status
            if status in _OPEN:
                remaining.append(f"  - {task.content} [{_WIRE[status]}] ({phase.name})")
                if current < 0:
                    current = index
            if task.notes:
                _noted_line(tree, task)
            else:
                tree.append(f"{_PREFIX[status]}{task.content}")
    if not any(phase.tasks for phase in phases):
        return head[0] if head else texts.CLEARED
    if remaining:
        head.append(texts.remaining_head(len(remaining)))
        head += remaining
    else:
        head.append(texts.NO_REMAINING)
    phase = phases[current]
    closed = sum(1 for t in phase.tasks if t.status.is_closed)
    number = current % len(phases) + 1
    head.append(texts.phase_line(number, len(phases), phase.name, closed, len(phase.tasks)))
    return "\n".join(head + tree)


def _noted_line(lines: list[str], task: Task) -> None:
    count = len(task.notes)
    lines.append(f"{_PREFIX[task.status]}{task.content} (+{count} note{'' if count == 1 else 's'})")
    if task.status is Status.IN_PROGRESS:
        for index, note in enumerate(task.notes):
            if index:
                lines.append("        ---")
            lines.extend(f"        {line}" for line in note.split("\n"))
