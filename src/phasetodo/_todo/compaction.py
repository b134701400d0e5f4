"""What a host re-injects when the model's context is compacted, so the plan survives the cut.

Two texts, as the reference keeps its plan across compaction: the standing
``## Incomplete Todos`` section it upserts into the compaction summary (its format,
to the character, so a summary written by either reads the same), and a hidden
next-turn reminder listing the work to continue, where a task that was in progress
is marked for the model to reconfirm before it goes on.

Incomplete means pending, in progress, blocked, or abandoned by the model; a
person's drop (``droppedBy: "user"``) is a cancel and is left out. The reminder
leaves blocked tasks out too: they wait on someone else.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from .._core.model import Status
from .values import USER, TodoPhase

__all__ = [
    "SNAPSHOT_CAP", "IncompleteRow", "compaction_section", "encode_title", "incomplete_rows", "reminder",
]

#: How many rows the reminder lists before it counts the rest (``+ N more``).
SNAPSHOT_CAP = 40
_HEADING = "## Incomplete Todos"
_MARKER = "<!-- omp-incomplete-todos-v1 -->"
_LEAD = "These incomplete items remain after compaction; continue them. A text-only stop is not completion."


@attrs.frozen
class IncompleteRow:
    """One incomplete task: its phase, status, content and blocker (blocked tasks only)."""

    phase: str
    status: Status
    content: str
    blocker: str | None = None


def incomplete_rows(phases: Sequence[TodoPhase]) -> list[IncompleteRow]:
    """The incomplete tasks in list order (a person's drop and completed tasks are not)."""
    rows = []
    for phase in phases:
        for task in phase.tasks:
            if task.status is Status.COMPLETED:
                continue
            if task.status is Status.ABANDONED and task.dropped_by == USER:
                continue
            blocker = task.blocker if task.status is Status.BLOCKED and task.blocker else None
            rows.append(IncompleteRow(phase.name, task.status, task.content, blocker))
    return rows


def encode_title(text: str) -> str:
    """A name on one line: backslash, ``<`` and line breaks escaped, so a title cannot pose
    as a phase, a task or a blocker comment."""
    return (
        text.replace("\\", "\\\\")
        .replace("<", "\\<")
        .replace("\r\n", "\\r\\n")
        .replace("\r", "\\r")
        .replace("\n", "\\n")
    )


def _grouped(rows: Sequence[IncompleteRow]) -> list[tuple[str, list[IncompleteRow]]]:
    """Runs of rows of one phase, in order (a phase name may come back after another's run)."""
    out: list[tuple[str, list[IncompleteRow]]] = []
    for row in rows:
        if out and out[-1][0] == row.phase:
            out[-1][1].append(row)
        else:
            out.append((row.phase, [row]))
    return out


def _row_line(row: IncompleteRow, note: str = "") -> str:
    line = f"  - [{row.status.value}] {encode_title(row.content)}{note}"
    if row.blocker is not None:
        line += f" <!-- blocker: {encode_title(row.blocker)} -->"
    return line


def compaction_section(phases: Sequence[TodoPhase]) -> str:
    """The ``## Incomplete Todos`` section for the compaction summary, exactly as the reference
    writes it; ``(none)`` under the heading when nothing is left."""
    rows = incomplete_rows(phases)
    if not rows:
        return f"{_HEADING}\n{_MARKER}\n\n(none)"
    lines = [_HEADING, _MARKER, _LEAD]
    for name, group in _grouped(rows):
        lines.append(f"- {encode_title(name)}")
        lines.extend(_row_line(row) for row in group)
    return "\n".join(lines)


_RECONFIRM = " (in progress before the compaction: reconfirm it with a start or view call before going on)"


def reminder(phases: Sequence[TodoPhase], cap: int = SNAPSHOT_CAP) -> str | None:
    """The hidden next-turn reminder after a compaction, or ``None`` when nothing is left to do.

    It lists the incomplete tasks that are not blocked, by phase, at most ``cap`` of them
    (then ``+ N more``); a task in progress is marked for the model to reconfirm.
    """
    rows = [row for row in incomplete_rows(phases) if row.status is not Status.BLOCKED]
    if not rows:
        return None
    shown, hidden = rows[:cap], len(rows) - min(len(rows), cap)
    lines = [
        "<system-reminder>",
        "The conversation was compacted. These todo items are still incomplete; continue them "
        "(a text-only stop is not completion):",
    ]
    for name, group in _grouped(shown):
        lines.append(f"- {encode_title(name)}")
        lines.extend(
            _row_line(row, _RECONFIRM if row.status is Status.IN_PROGRESS else "") for row in group
        )
    if hidden:
        lines.append(f"+ {hidden} more")
    lines.append("</system-reminder>")
    return "\n".join(lines)
