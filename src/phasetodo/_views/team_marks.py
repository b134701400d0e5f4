"""How the views show a team plan's fields: who is on a task, why it is blocked, what it waits for."""

from __future__ import annotations

from .._core.model import Task

__all__ = ["team_marks"]


def team_marks(task: Task) -> list[str]:
    """The pieces shown after a task's content: ``@owner``, ``blocked: why``, ``after: a, b``.

    Empty for a task without team fields, so the reference's lists look as they always did.
    """
    out: list[str] = []
    if task.owner is not None:
        out.append(f"@{task.owner}")
    if task.reason is not None:
        out.append(f"blocked: {task.reason}")
    if task.after:
        out.append(f"after: {', '.join(task.after)}")
    return out
