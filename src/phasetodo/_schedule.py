"""When a session's closed tasks fall due for auto-clear, kept phase by phase.

A write changes a few phases and hands the rest on as the same values, so the schedule
reuses what it knew of every phase it has seen before: a write on a big plan costs a look
per phase, not per task.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from math import inf

from ._core.model import Phase, Task
from .session_changes import TaskKey

__all__ = ["ClearSchedule"]

#: One phase value, its closed tasks' deadlines by content, and the earliest of them.
_Entry = tuple[Phase, dict[str, float], float]


class ClearSchedule:
    """The auto-clear deadline of each completed or abandoned task, by ``(phase, content)``.

    A task keeps its deadline while it stays closed in a phase of the same name; one
    that is reopened, or closed anew, gets ``now + delay``.
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: list[_Entry] = []

    def update(
        self, phases: Sequence[Phase], now: float, delay: float, settled: Callable[[Task], bool] | None = None
    ) -> None:
        """Adopt ``phases``: unchanged phase values keep their entries, the others are read.

        ``settled`` says which tasks auto-clear removes (``None``: completed and abandoned ones).
        """
        known = {id(entry[0]): entry for entry in self._entries}
        before: dict[str, dict[str, float]] | None = None
        entries: list[_Entry] = []
        for phase in phases:
            entry = known.get(id(phase))
            if entry is None or entry[0] is not phase:
                if before is None:
                    before = _by_name(self._entries)
                entry = _read(phase, before.get(phase.name, {}), now + delay, settled)
            entries.append(entry)
        self._entries = entries

    def clear(self) -> None:
        """Forget every deadline (no closed tasks, or auto-clear is off)."""
        self._entries = []

    def due(self, now: float) -> frozenset[TaskKey]:
        """The tasks whose deadline is ``now`` or earlier."""
        return frozenset(
            (phase.name, content)
            for phase, deadlines, first in self._entries
            if first <= now
            for content, deadline in deadlines.items()
            if deadline <= now
        )

    def any_due(self, now: float) -> bool:
        """Whether some task's deadline is ``now`` or earlier."""
        return any(first <= now for _, _, first in self._entries)

    def next(self) -> float | None:
        """The earliest deadline, or ``None`` when no closed task waits."""
        first = min((entry[2] for entry in self._entries), default=inf)
        return None if first == inf else first


def _by_name(entries: Iterable[_Entry]) -> dict[str, dict[str, float]]:
    """The known deadlines by phase name (phases of one name share them, as keys do)."""
    out: dict[str, dict[str, float]] = {}
    for phase, deadlines, _ in entries:
        if deadlines:
            out.setdefault(phase.name, {}).update(deadlines)
    return out


def _read(
    phase: Phase, before: dict[str, float], fresh: float, settled: Callable[[Task], bool] | None
) -> _Entry:
    """A phase's entry: its settled tasks (``None``: closed ones) keep the deadlines ``before``
    had, the rest get ``fresh``."""
    if settled is None:
        deadlines = {t.content: before.get(t.content, fresh) for t in phase.tasks if t.status.is_closed}
    else:
        deadlines = {t.content: before.get(t.content, fresh) for t in phase.tasks if settled(t)}
    return phase, deadlines, min(deadlines.values(), default=inf)
