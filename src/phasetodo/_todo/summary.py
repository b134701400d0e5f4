"""The todo tool's result text: remaining items, totals, the active phase, the list."""

from __future__ import annotations

from collections.abc import Sequence

from .._core.model import Status
from .values import TodoPhase, TodoTask

__all__ = ["format_summary"]

_WORKED_AHEAD = (
    " — earliest phase with open tasks; the in-progress pointer auto-advances to the earliest"
    " open task on each completion, so it can sit behind out-of-order work (nothing was un-completed)."
)
_REMAINING = (Status.PENDING, Status.IN_PROGRESS, Status.ABANDONED)


def _count(tasks: Sequence[TodoTask], *statuses: Status) -> int:
    return sum(1 for task in tasks if task.status in statuses)


def _tag(task: TodoTask) -> str:
    if task.status is Status.IN_PROGRESS:
        return " (in progress)"
    if task.status is Status.ABANDONED:
        return " (dropped)"
    if task.status is Status.BLOCKED:
        return f" (blocked: {task.blocker})" if task.blocker else " (blocked)"
    return ""


def _remaining_lines(phases: Sequence[TodoPhase]) -> list[str]:
    remaining = [(task, phase.name) for phase in phases for task in phase.tasks if task.status in _REMAINING]
    if not remaining:
        return ["Remaining items: none."]
    dropped = sum(1 for task, _ in remaining if task.status is Status.ABANDONED)
    if dropped:
        head = f"Remaining items ({len(remaining) - dropped} open + {dropped} dropped):"
    else:
        head = f"Remaining items ({len(remaining)}):"
    return [head, *(f"  - {task.content} [{task.status.value}] ({name})" for task, name in remaining)]


def _active_line(phases: Sequence[TodoPhase]) -> str:
    current = next(
        (i for i, phase in enumerate(phases) if any(task.status.is_open for task in phase.tasks)),
        len(phases) - 1,
    )
    phase = phases[current]
    done = _count(phase.tasks, Status.COMPLETED)
    ahead = any(_count(later.tasks, Status.COMPLETED, Status.ABANDONED) for later in phases[current + 1 :])
    tail = _WORKED_AHEAD if ahead else "."
    return f'Active phase {current + 1}/{len(phases)} "{phase.name}" ({done}/{len(phase.tasks)}){tail}'


def format_summary(phases: Sequence[TodoPhase], errors: Sequence[str], read_only: bool = False) -> str:
    """The text the tool returns for ``phases`` (the list as it now stands) and ``errors``."""
    tasks = [task for phase in phases for task in phase.tasks]
    if not tasks:
        if errors:
            return "Errors: " + "; ".join(errors)
        return "Todo list is empty." if read_only else "Todo list cleared."
    lines = ["Errors: " + "; ".join(errors)] if errors else []
    lines += _remaining_lines(phases)
    dropped = _count(tasks, Status.ABANDONED)
    blocked = _count(tasks, Status.BLOCKED)
    lines.append(
        f"Overall: {_count(tasks, Status.COMPLETED)}/{len(tasks)} done"
        + (f", {dropped} dropped" if dropped else "")
        + f", {_count(tasks, Status.PENDING, Status.IN_PROGRESS)} open"
        + (f", {blocked} blocked" if blocked else "")
        + "."
    )
    lines.append(_active_line(phases))
    for phase in phases:
        lines.append(f"  {phase.name}:")
        for task in phase.tasks:
            box = "[X]" if task.status is Status.COMPLETED else "[ ]"
            lines.append(f"    - {box} {task.content}{_tag(task)}")
    return "\n".join(lines)
