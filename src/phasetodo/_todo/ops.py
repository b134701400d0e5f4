"""The todo tool's ops over a list: each gives the new list, adding to ``errors``.

Tasks are found by content and phases by name, the first match winning; the
caller discards the result when ``errors`` is not empty.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs

from .._core.jsstring import WS, trim
from .._core.model import Status
from .schema import Params
from .values import USER, TodoPhase, TodoTask

__all__ = ["apply_op"]

Phases = tuple[TodoPhase, ...]
Place = tuple[int, int]
_TASK_ID = re.compile("task-[0-9]+\\Z")
_WS_RUN = re.compile(f"{WS}+")
DEFAULT_INIT_PHASE = "Tasks"


def _find_task(phases: Phases, content: str) -> Place | None:
    for p, phase in enumerate(phases):
        for t, task in enumerate(phase.tasks):
            if task.content == content:
                return p, t
    return None


def _find_phase(phases: Phases, name: str) -> int | None:
    return next((p for p, phase in enumerate(phases) if phase.name == name), None)


def _resolve_task(phases: Phases, content: str | None, errors: list[str]) -> Place | None:
    if not content:
        errors.append("Missing task content")
        return None
    place = _find_task(phases, content)
    if place is None:
        if _TASK_ID.match(content):
            errors.append(
                f'Task "{content}" not found. Tasks are referenced by content, not by IDs'
                " — pass the task's full text from the previous result."
            )
        else:
            empty = not any(phase.tasks for phase in phases)
            hint = " (todo list is empty — was it replaced or not yet created?)" if empty else ""
            errors.append(f'Task "{content}" not found{hint}')
    return place


def _targets(phases: Phases, params: Params, errors: list[str]) -> list[Place]:
    if params.task:
        place = _resolve_task(phases, params.task, errors)
        return [] if place is None else [place]
    if params.phase:
        index = _find_phase(phases, params.phase)
        if index is None:
            errors.append(f'Phase "{params.phase}" not found')
            return []
        return [(index, t) for t in range(len(phases[index].tasks))]
    return [(p, t) for p, phase in enumerate(phases) for t in range(len(phase.tasks))]


def _update(phases: Phases, places: list[Place], change: Callable[[TodoTask], TodoTask]) -> Phases:
    chosen = set(places)
    return tuple(
        attrs.evolve(
            phase,
            tasks=tuple(change(task) if (p, t) in chosen else task for t, task in enumerate(phase.tasks)),
        )
        for p, phase in enumerate(phases)
    )


def _init(phases: Phases, params: Params, errors: list[str]) -> Phases:
    pairs: list[tuple[str, tuple[str, ...]]]
    if params.list is not None:
        pairs = [(entry.phase, entry.items) for entry in params.list]
    elif params.items:
        pairs = [(DEFAULT_INIT_PHASE if params.phase is None else params.phase, params.items)]
    else:
        errors.append("Missing list for init operation")
        return ()
    seen_phases: set[str] = set()
    seen_tasks: set[str] = set()
    for name, items in pairs:
        if name in seen_phases:
            errors.append(f'Duplicate phase "{name}" in init list')
        seen_phases.add(name)
        for content in items:
            if content in seen_tasks:
                errors.append(f'Duplicate task "{content}" in init list')
            seen_tasks.add(content)
    return tuple(TodoPhase(name, tuple(TodoTask(c) for c in items)) for name, items in pairs)


def _start(phases: Phases, params: Params, errors: list[str]) -> Phases:
    place = _resolve_task(phases, params.task, errors)
    if place is None:
        return phases
    others = [
        (p, t)
        for p, phase in enumerate(phases)
        for t, task in enumerate(phase.tasks)
        if task.status is Status.IN_PROGRESS and (p, t) != place
    ]
    phases = _update(phases, others, lambda task: attrs.evolve(task, status=Status.PENDING, dropped_by=None))
    return _update(
        phases, [place], lambda task: attrs.evolve(task, status=Status.IN_PROGRESS, dropped_by=None)
    )


def _done(phases: Phases, params: Params, errors: list[str]) -> Phases:
    places = _targets(phases, params, errors)
    return _update(phases, places, lambda task: attrs.evolve(task, status=Status.COMPLETED, dropped_by=None))


def _abandon(task: TodoTask) -> TodoTask:
    return attrs.evolve(task, status=Status.ABANDONED, blocker=None, dropped_by=None)


def _drop(phases: Phases, params: Params, errors: list[str]) -> Phases:
    def change(task: TodoTask) -> TodoTask:
        if not params.task and task.status in (Status.COMPLETED, Status.BLOCKED):
            return task
        if task.status is Status.ABANDONED and task.dropped_by == USER:
            return task
        return _abandon(task)

    return _update(phases, _targets(phases, params, errors), change)


def _block(phases: Phases, params: Params, errors: list[str]) -> Phases:
    if not params.task and not params.phase:
        errors.append("block requires a task or phase target")
        return phases
    reason = trim(_WS_RUN.sub(" ", params.reason)) if params.reason is not None else ""

    def change(task: TodoTask) -> TodoTask:
        if task.status not in (Status.PENDING, Status.IN_PROGRESS, Status.BLOCKED):
            return task
        return attrs.evolve(task, status=Status.BLOCKED, blocker=reason or None, dropped_by=None)

    return _update(phases, _targets(phases, params, errors), change)


def _unblock(phases: Phases, params: Params, errors: list[str]) -> Phases:
    if not params.task and not params.phase:
        errors.append("unblock requires a task or phase target")
        return phases

    def change(task: TodoTask) -> TodoTask:
        if task.status is not Status.BLOCKED:
            return task
        return attrs.evolve(task, status=Status.PENDING, blocker=None, dropped_by=None)

    return _update(phases, _targets(phases, params, errors), change)


def _rm(phases: Phases, params: Params, errors: list[str]) -> Phases:
    def change(task: TodoTask) -> TodoTask:
        if task.status in (Status.COMPLETED, Status.BLOCKED, Status.ABANDONED):
            return task
        return attrs.evolve(task, status=Status.ABANDONED, dropped_by=None)

    return _update(phases, _targets(phases, params, errors), change)


def _append(phases: Phases, params: Params, errors: list[str]) -> Phases:
    if not params.phase:
        errors.append("Missing phase name for append operation")
        return phases
    if not params.items:
        errors.append("Missing items for append operation")
        return phases
    seen: set[str] = set()
    duplicates = []
    for content in params.items:
        if content in seen or _find_task(phases, content) is not None:
            duplicates.append(content)
        seen.add(content)
    errors.extend(f'Task "{content}" already exists' for content in duplicates)
    if duplicates:
        return phases
    new = tuple(TodoTask(content) for content in params.items)
    index = _find_phase(phases, params.phase)
    if index is None:
        return (*phases, TodoPhase(params.phase, new))
    target = phases[index]
    return (*phases[:index], attrs.evolve(target, tasks=target.tasks + new), *phases[index + 1 :])


def _user_drop(phases: Phases, params: Params, errors: list[str]) -> Phases:
    """A person's drop: a cancel of whatever it targets, stamped ``droppedBy: "user"``."""

    def change(task: TodoTask) -> TodoTask:
        return attrs.evolve(task, status=Status.ABANDONED, blocker=None, dropped_by=USER)

    return _update(phases, _targets(phases, params, errors), change)


def _user_rm(phases: Phases, params: Params, errors: list[str]) -> Phases:
    """A person's rm: the task goes, or every task of the phase (or of the list); phases stay."""
    places = set(_targets(phases, params, errors))
    return tuple(
        attrs.evolve(phase, tasks=tuple(t for i, t in enumerate(phase.tasks) if (p, i) not in places))
        for p, phase in enumerate(phases)
    )


def _view(phases: Phases, params: Params, errors: list[str]) -> Phases:
    return phases


_OPS: dict[str, Callable[[Phases, Params, list[str]], Phases]] = {
    "init": _init,
    "start": _start,
    "done": _done,
    "rm": _rm,
    "drop": _drop,
    "block": _block,
    "unblock": _unblock,
    "append": _append,
    "view": _view,
}


#: A person's ops: ``drop`` is a cancel that settles, ``rm`` removes for real.
_USER_OPS = {**_OPS, "drop": _user_drop, "rm": _user_rm}


def apply_op(phases: Phases, params: Params, errors: list[str], *, by_user: bool = False) -> Phases:
    """The list after ``params``'s op (before the in-progress pointer is settled); ``by_user``:
    the op is a person's (see ``_USER_OPS``)."""
    return (_USER_OPS if by_user else _OPS)[params.op](phases, params, errors)
