"""The todo tool's own frozen values and their JSON form.

The tool's task has a ``blocker`` (why it is blocked) and ``dropped_by``
(``"user"`` when a person dropped it), and nothing else; its statuses are the
core :class:`~phasetodo._core.model.Status`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from .._core.model import Phase, Status, Task
from ..errors import InvalidPhases

__all__ = ["TodoPhase", "TodoTask", "from_todo", "phases_from_json", "phases_to_json", "to_todo"]

USER = "user"


@attrs.frozen
class TodoTask:
    """One task: content (its name), status, the blocker note and who dropped it."""

    content: str
    status: Status = Status.PENDING
    blocker: str | None = None
    dropped_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The task as the reference writes it (``blocker`` and ``droppedBy`` only when set)."""
        out: dict[str, Any] = {"content": self.content, "status": self.status.value}
        if self.blocker is not None:
            out["blocker"] = self.blocker
        if self.dropped_by == USER:
            out["droppedBy"] = USER
        return out


@attrs.frozen
class TodoPhase:
    """A named phase and its tasks, in order."""

    name: str
    tasks: tuple[TodoTask, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The phase as the reference writes it."""
        return {"name": self.name, "tasks": [task.to_json() for task in self.tasks]}


def phases_to_json(phases: Sequence[TodoPhase]) -> list[dict[str, Any]]:
    """The JSON list of ``phases``."""
    return [phase.to_json() for phase in phases]


def _task_from_json(value: object, where: str, problems: list[str]) -> TodoTask | None:
    if not isinstance(value, dict):
        problems.append(f"{where}: must be an object")
        return None
    content = value.get("content")
    status = value.get("status")
    if not isinstance(content, str):
        problems.append(f"{where}.content: must be a string")
        return None
    try:
        parsed = Status(status)
    except ValueError:
        problems.append(f"{where}.status: unknown status {status!r}")
        return None
    blocker = value.get("blocker")
    if blocker is not None and not isinstance(blocker, str):
        problems.append(f"{where}.blocker: must be a string")
        return None
    dropped = USER if value.get("droppedBy") == USER else None
    return TodoTask(content, parsed, blocker, dropped)


def _phase_from_json(value: object, where: str, problems: list[str]) -> TodoPhase | None:
    if isinstance(value, TodoPhase):
        return value
    if isinstance(value, Phase):  # a stored list (a todo session's ``phases``)
        return to_todo((value,))[0]
    if not isinstance(value, dict):
        problems.append(f"{where}: must be an object")
        return None
    name = value.get("name")
    tasks = value.get("tasks")
    if not isinstance(name, str):
        problems.append(f"{where}.name: must be a string")
        return None
    if not isinstance(tasks, list):
        problems.append(f"{where}.tasks: must be a list")
        return None
    parsed = [_task_from_json(task, f"{where}.tasks[{i}]", problems) for i, task in enumerate(tasks)]
    return TodoPhase(name, tuple(task for task in parsed if task is not None))


def phases_from_json(value: object) -> tuple[TodoPhase, ...]:
    """Read a stored list (JSON phases, :class:`TodoPhase` values, or the engine's ``Phase`` values
    of a ``todo`` session); raise :class:`InvalidPhases`.

    Fields other than ``content``, ``status``, ``blocker`` and ``droppedBy``
    are dropped, as the reference's copy drops them.
    """
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise InvalidPhases(["phases: must be a list"])
    problems: list[str] = []
    phases = [_phase_from_json(phase, f"phases[{i}]", problems) for i, phase in enumerate(value)]
    if problems:
        raise InvalidPhases(problems)
    return tuple(phase for phase in phases if phase is not None)


def to_todo(phases: Sequence[Phase]) -> tuple[TodoPhase, ...]:
    """The todo tool's values for a stored list: ``reason`` is the blocker, owner ``"user"``
    a person's drop."""
    return tuple(
        TodoPhase(
            phase.name,
            tuple(
                TodoTask(task.content, task.status, task.reason, USER if task.owner == USER else None)
                for task in phase.tasks
            ),
        )
        for phase in phases
    )


def from_todo(phases: Sequence[TodoPhase]) -> tuple[Phase, ...]:
    """The stored list for the todo tool's values (the inverse of :func:`to_todo`)."""
    return tuple(
        Phase(
            phase.name,
            tuple(
                Task(task.content, task.status, reason=task.blocker, owner=task.dropped_by)
                for task in phase.tasks
            ),
        )
        for phase in phases
    )
