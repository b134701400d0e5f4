"""Helpers over a todo list the ops and the parser share."""

from __future__ import annotations

import attrs

from .._core.model import Status
from .values import TodoPhase

__all__ = ["normalize_in_progress"]


def normalize_in_progress(phases: tuple[TodoPhase, ...]) -> tuple[TodoPhase, ...]:
    """Keep one task in progress: the first; if none, start the first pending task."""
    seen_active = any(task.status is Status.IN_PROGRESS for phase in phases for task in phase.tasks)
    found = False
    promote = not seen_active
    out: list[TodoPhase] = []
    for phase in phases:
        tasks = []
        for task in phase.tasks:
            if task.status is Status.IN_PROGRESS:
                if found:
                    task = attrs.evolve(task, status=Status.PENDING)
                found = True
            elif promote and task.status is Status.PENDING:
                task = attrs.evolve(task, status=Status.IN_PROGRESS)
                promote = False
            tasks.append(task)
        out.append(attrs.evolve(phase, tasks=tuple(tasks)) if tasks != list(phase.tasks) else phase)
    return tuple(out)
