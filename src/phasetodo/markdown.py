"""Markdown export and import of the list, in the reference's checklist format.

A phase is a ``# heading``, a task a ``- [ ]`` item (``[/]`` in progress,
``[x]`` completed, ``[-]`` abandoned) and notes are ``>`` quotes under their
task, one ``>`` line between notes. Parsing follows JavaScript's string rules
(see :mod:`phasetodo._jsstring`) so that it matches the reference exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ._jsstring import DOT, DOT_UNIT, WS, split_lines, trim
from .codec import _as_phases
from .engine import normalize
from .model import Phase, Status, Task

__all__ = ["markdown_to_phases", "phases_to_markdown"]

_MARKERS = {
    Status.PENDING: " ",
    Status.IN_PROGRESS: "/",
    Status.COMPLETED: "x",
    Status.ABANDONED: "-",
}
_STATUS_OF = {
    " ": Status.PENDING,
    "": Status.PENDING,
    "x": Status.COMPLETED,
    "X": Status.COMPLETED,
    "/": Status.IN_PROGRESS,
    ">": Status.IN_PROGRESS,
    "-": Status.ABANDONED,
    "~": Status.ABANDONED,
}

_NOTE = re.compile(f"{WS}*>{WS}?({DOT}*)")
_HEADING = re.compile(f"#{{1,6}}{WS}+({DOT}+?){WS}*")
_TASK = re.compile(rf"[-*+]{WS}*\[({DOT_UNIT}?)\]{WS}+({DOT}+?){WS}*")


def phases_to_markdown(phases: Iterable[Phase | Mapping[str, Any]]) -> str:
    """Render phases (values or JSON dicts) as a Markdown checklist."""
    items = _as_phases(phases)
    if not items:
        return "# Todos\n"
    out: list[str] = []
    for phase in items:
        if out:
            out.append("")
        out.append(f"# {phase.name}")
        for task in phase.tasks:
            out.append(f"- [{_MARKERS[task.status]}] {task.content}")
            for index, note in enumerate(task.notes):
                if index:
                    out.append("  >")
                out.extend(f"  > {line}" if line else "  >" for line in note.split("\n"))
    return "\n".join(out) + "\n"


@attrs.define
class _Reader:
    """Parser state: the phases so far and where notes currently go."""

    phases: list[tuple[str, list[Task]]] = attrs.Factory(list)
    errors: list[str] = attrs.Factory(list)
    tasks: list[Task] | None = None
    task_at: int = -1
    notes: list[str] = attrs.Factory(list)

    def flush(self) -> None:
        lines, self.notes = self.notes, []
        if self.tasks is None or self.task_at < 0 or not lines:
            return
        task = self.tasks[self.task_at]
        self.tasks[self.task_at] = attrs.evolve(task, notes=(*task.notes, "\n".join(lines)))

    def note(self, raw: str) -> bool:
        match = _NOTE.fullmatch(raw)
        if match is None or self.task_at < 0:
            return False
        if match[1]:
            self.notes.append(match[1])
        else:
            self.flush()
        return True

    def heading(self, line: str) -> bool:
        match = _HEADING.fullmatch(line)
        if match is None:
            return False
        self.flush()
        self.task_at = -1
        self.tasks = []
        self.phases.append((trim(match[1]), self.tasks))
        return True

    def task(self, line: str, number: int) -> bool:
        match = _TASK.fullmatch(line)
        if match is None:
            return False
        self.flush()
        if self.tasks is None:
            self.tasks = []
            self.phases.append(("Todos", self.tasks))
        status = _STATUS_OF.get(match[1])
        if status is None:
            self.errors.append(
                f'Line {number}: unknown status marker "[{match[1]}]" (use [ ], [x], [/], [-])'
            )
            self.task_at = -1
            return True
        self.tasks.append(Task(trim(match[2]), status))
        self.task_at = len(self.tasks) - 1
        return True

    def other(self, line: str, number: int) -> None:
        self.flush()
        self.task_at = -1
        self.errors.append(f'Line {number}: unrecognized syntax "{line}"')


def markdown_to_phases(text: str) -> tuple[list[Phase], list[str]]:
    """Parse a Markdown checklist back into phases, with line-numbered errors.

    Tasks before any heading go into a ``Todos`` phase; ``[>]`` also means in
    progress and ``[~]`` abandoned. The result is normalized like a tool call.
    """
    reader = _Reader()
    for number, raw in enumerate(split_lines(text), start=1):
        if reader.note(raw):
            continue
        line = trim(raw)
        if not line or reader.heading(line) or reader.task(line, number):
            continue
        reader.other(line, number)
    reader.flush()
    phases = [Phase(name, tuple(tasks)) for name, tasks in reader.phases]
    return list(normalize(phases)), reader.errors
