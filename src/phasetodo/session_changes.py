"""What one session event changed, and the list transforms the policies use.

The task-level difference itself is :func:`phasetodo.diff_phases` (in `phasetodo._views.diff`); a
:class:`Change` pairs it with the lists on either side, which is what UIs
(completion transitions) and the user-edit reminder need.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import attrs

from ._core.model import Phase, Status, Task
from ._views.diff import ListDiff, StatusChange, diff_phases

__all__ = ["Change", "TaskKey", "change", "closed_tasks", "remove_closed", "strip_closed"]

_CLOSED = frozenset((Status.COMPLETED, Status.ABANDONED))

#: A task named by ``(phase name, content)``, as the reference keys transitions.
TaskKey = tuple[str, str]


@attrs.frozen
class Change:
    """The lists before and after one event, and the difference between them."""

    before: tuple[Phase, ...]
    after: tuple[Phase, ...]
    diff: ListDiff

    @property
    def completed(self) -> tuple[StatusChange, ...]:
        """Tasks that just became completed: the completion transitions UIs animate."""
        return tuple(c for c in self.diff.status_changed if c.after is Status.COMPLETED)

    @property
    def changed(self) -> bool:
        """Whether the lists differ at all (a pure reordering included)."""
        return self.before != self.after


def change(before: tuple[Phase, ...], after: tuple[Phase, ...]) -> Change:
    """The :class:`Change` from ``before`` to ``after``."""
    return Change(before, after, diff_phases(before, after))


def strip_closed(phases: Iterable[Phase]) -> tuple[Phase, ...]:
    """Drop completed and abandoned tasks, then every phase left without tasks.

    This is the resume policy's default: a reopened session carries on with
    the open work only, as the reference does.
    """
    out = []
    for phase in phases:
        tasks = tuple(t for t in phase.tasks if t.status not in _CLOSED)
        if tasks:
            out.append(phase if len(tasks) == len(phase.tasks) else Phase(phase.name, tasks))
    return tuple(out)


def remove_closed(
    phases: Iterable[Phase], keys: frozenset[TaskKey], settled: Callable[[Task], bool] | None = None
) -> tuple[Phase, ...]:
    """Remove the closed tasks named by ``keys``; drop the phases this empties.

    Auto-clear uses it: open tasks, and phases that were empty already, stay.
    ``settled`` says which tasks count as closed (``None``: completed and abandoned ones).
    """
    out = []
    for phase in phases:
        tasks = tuple(
            t
            for t in phase.tasks
            if not (t.status in _CLOSED if settled is None else settled(t))
            or (phase.name, t.content) not in keys
        )
        if len(tasks) == len(phase.tasks):
            out.append(phase)
        elif tasks:
            out.append(Phase(phase.name, tasks))
    return tuple(out)


def closed_tasks(phases: Iterable[Phase]) -> list[TaskKey]:
    """The keys of the completed and abandoned tasks, in list order."""
    return [(p.name, t.content) for p in phases for t in p.tasks if t.status in _CLOSED]
