"""What a call changed: the difference between two lists, for dry runs.

Tasks are matched by phase name and content (the names the model uses); when
a list holds the same task twice in a phase, the copies are paired in order.
A task moved to another phase shows as removed there and added here; a change
of order alone is not reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from .._core.codec import as_phases
from .._core.model import Phase, Status, Task

__all__ = [
    "ListDiff",
    "NoteChange",
    "StatusChange",
    "TaskRef",
    "diff_phases",
    "format_diff",
]


@attrs.frozen
class TaskRef:
    """A task that was added or removed, with the status it had."""

    phase: str
    content: str
    status: Status

    def to_json(self) -> dict[str, str]:
        """JSON-ready form: ``{"phase", "content", "status"}``."""
        return {"phase": self.phase, "content": self.content, "status": self.status.value}


@attrs.frozen
class StatusChange:
    """A task whose status went from ``before`` to ``after``."""

    phase: str
    content: str
    before: Status
    after: Status

    def to_json(self) -> dict[str, str]:
        """JSON-ready form: ``{"phase", "content", "from", "to"}``."""
        return {
            "phase": self.phase,
            "content": self.content,
            "from": self.before.value,
            "to": self.after.value,
        }


@attrs.frozen
class NoteChange:
    """One note added to (or removed from) a task."""

    phase: str
    content: str
    text: str

    def to_json(self) -> dict[str, str]:
        """JSON-ready form: ``{"phase", "content", "text"}``."""
        return {"phase": self.phase, "content": self.content, "text": self.text}


@attrs.frozen
class ListDiff:
    """Every difference between two lists, grouped by kind, in list order."""

    phases_added: tuple[str, ...] = ()
    phases_removed: tuple[str, ...] = ()
    added: tuple[TaskRef, ...] = ()
    removed: tuple[TaskRef, ...] = ()
    status_changed: tuple[StatusChange, ...] = ()
    notes_added: tuple[NoteChange, ...] = ()
    notes_removed: tuple[NoteChange, ...] = ()

    @property
    def is_empty(self) -> bool:
        """Whether the two lists are the same."""
        return not any(attrs.astuple(self, recurse=False))

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form, one key per kind (empty kinds included)."""
        return {
            "phases_added": list(self.phases_added),
            "phases_removed": list(self.phases_removed),
            "added": [t.to_json() for t in self.added],
            "removed": [t.to_json() for t in self.removed],
            "status_changed": [c.to_json() for c in self.status_changed],
            "notes_added": [n.to_json() for n in self.notes_added],
            "notes_removed": [n.to_json() for n in self.notes_removed],
        }


def diff_phases(
    before: Iterable[Phase | Mapping[str, Any]], after: Iterable[Phase | Mapping[str, Any]]
) -> ListDiff:
    """The changes that turn ``before`` into ``after`` (values or JSON dicts)."""
    old = as_phases(before)
    new = as_phases(after)
    phases_added = _unmatched(new, old)
    phases_removed = _unmatched(old, new)
    pool: dict[tuple[str, str], list[Task]] = {}
    for phase in old:
        for task in phase.tasks:
            pool.setdefault((phase.name, task.content), []).append(task)
    added: list[TaskRef] = []
    changed: list[StatusChange] = []
    notes_added: list[NoteChange] = []
    notes_removed: list[NoteChange] = []
    for phase in new:
        for task in phase.tasks:
            same = pool.get((phase.name, task.content))
            if not same:
                added.append(TaskRef(phase.name, task.content, task.status))
                continue
            was = same.pop(0)
            if was is task:
                continue
            if was.status is not task.status:
                changed.append(StatusChange(phase.name, task.content, was.status, task.status))
            if was.notes != task.notes:
                kept = _common_prefix(was.notes, task.notes)
                notes_removed += (NoteChange(phase.name, task.content, n) for n in was.notes[kept:])
                notes_added += (NoteChange(phase.name, task.content, n) for n in task.notes[kept:])
    removed = [
        TaskRef(name, content, task.status) for (name, content), tasks in pool.items() for task in tasks
    ]
    return ListDiff(
        tuple(phases_added),
        tuple(phases_removed),
        tuple(added),
        tuple(removed),
        tuple(changed),
        tuple(notes_added),
        tuple(notes_removed),
    )


def _unmatched(these: Sequence[Phase], others: Sequence[Phase]) -> list[str]:
    """Names of phases in ``these`` without a same-named partner in ``others``."""
    left: dict[str, int] = {}
    for phase in others:
        left[phase.name] = left.get(phase.name, 0) + 1
    out: list[str] = []
    for phase in these:
        if left.get(phase.name, 0):
            left[phase.name] -= 1
        else:
            out.append(phase.name)
    return out


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def format_diff(diff: ListDiff) -> str:
    """The diff as text, one change a line: ``+`` added, ``-`` removed, ``~`` status."""
    if diff.is_empty:
        return "No changes."
    lines = [f'+ phase "{name}"' for name in diff.phases_added]
    lines += [f'- phase "{name}"' for name in diff.phases_removed]
    lines += [f'+ "{t.content}" [{t.status.value}] ({t.phase})' for t in diff.added]
    lines += [f'- "{t.content}" [{t.status.value}] ({t.phase})' for t in diff.removed]
    lines += [f'~ "{c.content}" {c.before.value} → {c.after.value} ({c.phase})' for c in diff.status_changed]
    lines += [f'+ note on "{n.content}": {n.text}' for n in diff.notes_added]
    lines += [f'- note on "{n.content}": {n.text}' for n in diff.notes_removed]
    return "\n".join(lines)
