"""The board's list edits (add, rename), as pure functions on JSON-ready phases.

Each takes the newest ``details.phases``-style list and returns a new one; the
board records the result as one ``user_edit`` event. Status changes are not
here: they go through :mod:`phasetodo.person`, as the command's do. They work on dicts, not
on values, so keys they do not know (a team plan's ``owner``, ``reason``,
``after``) pass through untouched. A refused edit raises ``ValueError`` whose
message names the field, and nothing is recorded.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["STATUSES", "add_task", "rename", "task_at"]

#: The statuses a person can give a task from the board.
STATUSES = ("pending", "in_progress", "completed", "abandoned")
#: Characters that would split a name over lines (JavaScript's line terminators).
_BREAKS = ("\n", "\r", "\u2028", "\u2029")

Phases = list[dict[str, Any]]


def _copy(phases: Sequence[Mapping[str, Any]]) -> Phases:
    return [copy.deepcopy(dict(phase)) for phase in phases]


def _index(value: object, size: int, field: str) -> int:
    if type(value) is not int or not 0 <= value < size:
        raise ValueError(f"{field}: must be an index from 0 to {size - 1}")
    return value


def _name(value: object, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{field}: must be a non-empty text")
    if any(c in value for c in _BREAKS):
        raise ValueError(f"{field}: must fit on one line")
    return value.strip()


def task_at(phases: Phases, phase: object, task: object, content: object) -> dict[str, Any]:
    """The task at ``(phase, task)``, checked against the content the page showed."""
    p = _index(phase, len(phases), "phase")
    tasks = phases[p].get("tasks", [])
    t = _index(task, len(tasks), "task")
    found: dict[str, Any] = tasks[t]
    if content is not None and found.get("content") != content:
        raise ValueError("task: the page showed another task at this place; reload and try again")
    return found


def _contents(phases: Phases) -> set[str]:
    return {task.get("content") for phase in phases for task in phase.get("tasks", [])}


def add_task(phases: Sequence[Mapping[str, Any]], phase: object, content: object) -> Phases:
    """Append a pending task to the phase named ``phase`` (a new last phase if none has that name)."""
    name = _name(phase, "phase")
    text = _name(content, "content")
    out = _copy(phases)
    if text in _contents(out):
        raise ValueError(f"content: the list already has a task named {text!r}; tasks are named by content")
    for existing in out:
        if existing.get("name") == name:
            existing.setdefault("tasks", []).append({"content": text, "status": "pending"})
            return out
    out.append({"name": name, "tasks": [{"content": text, "status": "pending"}]})
    return out


def rename(
    phases: Sequence[Mapping[str, Any]],
    phase: object,
    task: object,
    name: object,
    old: object = None,
) -> Phases:
    """Rename a task (``task`` an index) or, with ``task`` None, a phase.

    ``old`` is the name the page showed, checked so a stale page cannot rename
    another item. Names stay unique: tasks across the list, phases among phases.
    """
    text = _name(name, "name")
    out = _copy(phases)
    if task is None:
        p = _index(phase, len(out), "phase")
        if old is not None and out[p].get("name") != old:
            raise ValueError("phase: the page showed another phase at this place; reload and try again")
        if any(other.get("name") == text for i, other in enumerate(out) if i != p):
            raise ValueError(f"name: there is already a phase named {text!r}")
        out[p]["name"] = text
        return out
    target = task_at(out, phase, task, old)
    before = target.get("content")
    if text != before and text in _contents(out):
        raise ValueError(f"name: the list already has a task named {text!r}; tasks are named by content")
    target["content"] = text
    for entry in out:  # a team plan's dependencies follow the rename
        for other in entry.get("tasks", ()):
            after = other.get("after")
            if isinstance(after, list) and before in after:
                other["after"] = [text if name == before else name for name in after]
    return out
