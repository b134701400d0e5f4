"""The todo tool's Markdown checklist: render and parse, as the reference does.

Markers are ``[ ] [/] [x] [-] [!]`` (``[]``, ``[X]``, ``[>]`` and ``[~]`` are
read too); a blocker rides in ``<!-- blocker: … -->`` and a person's drop in
``<!-- dropped-by: user -->``; ``&``, ``<!--`` and ``-->`` in text are escaped
so only those comments can carry provenance. Tasks before any heading go to a
``Todos`` phase.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .._core.jsstring import DOT, DOT_UNIT, WS, split_lines, trim
from .._core.model import Status
from .state import normalize_in_progress
from .values import USER, TodoPhase, TodoTask

__all__ = ["from_markdown", "to_markdown"]

_MARKER = {
    Status.PENDING: " ",
    Status.IN_PROGRESS: "/",
    Status.COMPLETED: "x",
    Status.ABANDONED: "-",
    Status.BLOCKED: "!",
}
_STATUS = {
    " ": Status.PENDING,
    "": Status.PENDING,
    "x": Status.COMPLETED,
    "X": Status.COMPLETED,
    "/": Status.IN_PROGRESS,
    ">": Status.IN_PROGRESS,
    "-": Status.ABANDONED,
    "~": Status.ABANDONED,
    "!": Status.BLOCKED,
}
_HEADING = re.compile(f"#{{1,6}}{WS}+({DOT}+?){WS}*\\Z")
_TASK = re.compile(f"[-*+]{WS}*\\\\?\\[({DOT_UNIT}?)\\\\?\\]{WS}+({DOT}+?){WS}*\\Z")
_BLOCKER = re.compile(f"({DOT}*?){WS}*<!--{WS}*blocker:{WS}*({DOT}*?){WS}*-->\\Z")
_DROPPED = re.compile(f"({DOT}*?){WS}*<!--{WS}*dropped-by:{WS}*user{WS}*-->\\Z")
_DEFAULT_PHASE = "Todos"


def escape(text: str) -> str:
    """Escape ``&``, ``<!--`` and ``-->`` so text cannot pose as a comment."""
    return text.replace("&", "&amp;").replace("<!--", "&lt;!--").replace("-->", "--&gt;")


def unescape(text: str) -> str:
    """Undo :func:`escape`."""
    return text.replace("&lt;!--", "<!--").replace("--&gt;", "-->").replace("&amp;", "&")


def _task_line(task: TodoTask) -> str:
    note = ""
    if task.status is Status.BLOCKED and task.blocker:
        note = f" <!-- blocker: {escape(task.blocker)} -->"
    if task.status is Status.ABANDONED and task.dropped_by == USER:
        note += " <!-- dropped-by: user -->"
    return f"- [{_MARKER[task.status]}] {escape(task.content)}{note}"


def to_markdown(phases: Sequence[TodoPhase]) -> str:
    """The checklist of ``phases``: a heading per phase, a line per task."""
    if not phases:
        return "# Todos\n"
    out: list[str] = []
    for index, phase in enumerate(phases):
        if index:
            out.append("")
        out.append(f"# {phase.name}")
        out.extend(_task_line(task) for task in phase.tasks)
    return "\n".join(out) + "\n"


def _parse_task(status: Status, raw: str) -> TodoTask:
    blocker = _BLOCKER.match(raw)
    if status is Status.BLOCKED and blocker:
        return TodoTask(unescape(trim(blocker[1])), status, unescape(trim(blocker[2])))
    dropped = _DROPPED.match(raw)
    if status is Status.ABANDONED and dropped:
        return TodoTask(unescape(trim(dropped[1])), status, dropped_by=USER)
    return TodoTask(unescape(raw), status)


def from_markdown(text: str) -> tuple[tuple[TodoPhase, ...], list[str]]:
    """The phases a checklist describes, and a message per line it could not read."""
    errors: list[str] = []
    phases: list[tuple[str, list[TodoTask]]] = []
    for number, line in enumerate(split_lines(text), start=1):
        trimmed = trim(line)
        if not trimmed:
            continue
        heading = _HEADING.match(trimmed)
        if heading:
            phases.append((trim(heading[1]), []))
            continue
        task = _TASK.match(trimmed)
        if not task:
            errors.append(f'Line {number}: unrecognized syntax "{trimmed}"')
            continue
        if not phases:
            phases.append((_DEFAULT_PHASE, []))
        status = _STATUS.get(task[1])
        if status is None:
            errors.append(f'Line {number}: unknown status marker "[{task[1]}]" (use [ ], [x], [/], [-], [!])')
            continue
        phases[-1][1].append(_parse_task(status, trim(task[2])))
    parsed = tuple(TodoPhase(name, tuple(tasks)) for name, tasks in phases)
    return normalize_in_progress(parsed), errors
