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

from ._jsstring import DOT, DOT_UNIT, WHITESPACE, WS, trim
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


_NOT_WS = f"[^{re.escape(WHITESPACE)}]"
#: A run of task lines in the exact form ``phases_to_markdown`` writes, each with
#: a known marker and content without edge whitespace or line terminators.
_TASK_RUN = re.compile(
    rf"(?:- \[[ xX/>~-]\] {_NOT_WS}(?:{DOT}*{_NOT_WS})?\n)+"
)


class _Reader:
    """Parser state: the phases so far and where note lines currently go."""

    def __init__(self) -> None:
        self.phases: list[tuple[str, list[Task]]] = []
        self.errors: list[str] = []
        self.tasks: list[Task] | None = None
        self.has_task = False  # whether notes attach to self.tasks[-1]
        self.notes: list[str] = []
        self.lines: list[str] = []

    def flush(self) -> None:
        """Close the note being read onto the current task."""
        if self.lines:
            if self.has_task:
                self.notes.append("\n".join(self.lines))
            self.lines = []

    def close(self) -> None:
        """Finish the current task: attach its notes, and take new notes nowhere."""
        self.flush()
        if self.notes:
            assert self.tasks is not None
            task = self.tasks[-1]
            self.tasks[-1] = Task(task.content, task.status, tuple(self.notes))
            self.notes = []
        self.has_task = False

    def phase_tasks(self) -> list[Task]:
        if self.tasks is None:
            self.tasks = []
            self.phases.append(("Todos", self.tasks))
        return self.tasks

    def run(self, block: str) -> None:
        """Take a run of plain task lines (each ending in a newline)."""
        self.close()
        lines = block[:-1].split("\n")
        contents = [line[6:] for line in lines]
        statuses = [_STATUS_OF[line[3]] for line in lines]
        self.phase_tasks().extend(map(Task, contents, statuses))
        self.has_task = True

    def note(self, raw: str) -> bool:
        match = _NOTE.fullmatch(raw)
        if match is None or not self.has_task:
            return False
        if match[1]:
            self.lines.append(match[1])
        else:
            self.flush()
        return True

    def heading(self, line: str) -> bool:
        match = _HEADING.fullmatch(line)
        if match is None:
            return False
        self.close()
        self.tasks = []
        self.phases.append((trim(match[1]), self.tasks))
        return True

    def task(self, line: str, number: int) -> bool:
        match = _TASK.fullmatch(line)
        if match is None:
            return False
        self.close()
        tasks = self.phase_tasks()
        status = _STATUS_OF.get(match[1])
        if status is None:
            self.errors.append(
                f'Line {number}: unknown status marker "[{match[1]}]" (use [ ], [x], [/], [-])'
            )
        else:
            tasks.append(Task(trim(match[2]), status))
            self.has_task = True
        return True

    def line(self, raw: str, number: int) -> None:
        """Take any one line, by the reference's rules in the reference's order."""
        if self.note(raw):
            return
        line = trim(raw)
        if line and not self.heading(line) and not self.task(line, number):
            self.close()
            self.errors.append(f'Line {number}: unrecognized syntax "{line}"')

    def result(self) -> list[Phase]:
        self.close()
        return list(normalize(Phase(name, tuple(tasks)) for name, tasks in self.phases))


def markdown_to_phases(text: str) -> tuple[list[Phase], list[str]]:
    """Parse a Markdown checklist back into phases, with line-numbered errors.

    Tasks before any heading go into a ``Todos`` phase; ``[>]`` also means in
    progress and ``[~]`` abandoned. The result is normalized like a tool call.
    """
    reader = _Reader()
    number, pos = 1, 0
    while True:
        run = _TASK_RUN.match(text, pos)
        if run is not None:
            block = run[0]
            reader.run(block)
            number += block.count("\n")
            pos = run.end()
            continue
        newline = text.find("\n", pos)
        if newline < 0:
            reader.line(text[pos:], number)
            break
        stop = newline - 1 if newline > pos and text[newline - 1] == "\r" else newline
        reader.line(text[pos:stop], number)
        number += 1
        pos = newline + 1
    return reader.result(), reader.errors
