r"""Markdown export and import of the list, in the reference's checklist format.

A phase is a ``# heading``, a task a ``- [ ]`` item (``[/]`` in progress,
``[x]`` completed, ``[-]`` abandoned) and notes are ``>`` quotes under their
task, one ``>`` line between notes. Parsing follows JavaScript's string rules
(see :mod:`phasetodo._core.jsstring`) so that it matches the reference exactly.

That format cannot carry everything: line breaks in names, edge whitespace,
empty texts or empty note lines come back changed. The lossless form
(``phases_to_markdown(phases, lossless=True)``) is the same layout under a
first line ``<!-- phasetodo:lossless -->``, with backslash escapes where they
are needed: ``\\`` a backslash, ``\n`` and ``\r`` line feed and carriage
return, ``\u{2028}`` any code point by hex (used for U+2028, U+2029 and for
whitespace at either edge of a text), and ``\e`` for an empty text or note line.
Any list comes back exactly, without normalization.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from itertools import groupby
from typing import Any

import attrs

from .._core.codec import as_phases
from .._core.columns import Column, make_tasks, plain_columns
from .._core.engine import normalize
from .._core.jsstring import WHITESPACE, trim
from .._core.limits import DEFAULT_LIMITS, Limits
from .._core.model import REFERENCE_STATUSES, Phase, Status, Task, make_phase, make_task
from .status import LOOKS

__all__ = ["LOSSLESS_MARKER", "markdown_to_phases", "phases_to_markdown"]

_MARKERS = {status: look.marker for status, look in LOOKS.items()}
_MARKER_ROW = (
    _MARKERS[Status.PENDING],
    _MARKERS[Status.IN_PROGRESS],
    _MARKERS[Status.COMPLETED],
    _MARKERS[Status.ABANDONED],
)
#: The reference reader's markers: ``[!]`` (blocked, team plans) stays unknown to it.
_STATUS_OF = {
    marker: status
    for status, look in LOOKS.items()
    for marker in look.markers
    if status is not Status.BLOCKED
}
#: The one-character markers the reader knows: those a run of plain task lines may have.
_PLAIN_MARKERS = "".join(marker for marker in _STATUS_OF if len(marker) == 1)

_LINE_ENDS = "\n\r\u2028\u2029"  # what JavaScript's "." does not match
_BULLETS = "-*+"


def _note(raw: str) -> str | None:
    """The text of a ``>`` note line, as ``/^\\s*>\\s?(.*)$/`` gives it; ``None`` if not one."""
    rest = raw.lstrip(WHITESPACE)
    if rest[:1] != ">":
        return None
    body = rest[2:] if rest[1:2] and rest[1] in WHITESPACE else rest[1:]
    if any(end in body for end in _LINE_ENDS):
        return None
    return body


def _tail(line: str, start: int) -> str | None:
    """What ``\\s+(.+?)\\s*$`` captures from ``start`` of a trimmed line, or ``None``.

    The line ends in a non-space, so the capture is everything after the
    space run, provided there is one and it holds no line terminator.
    """
    if start >= len(line) or line[start] not in WHITESPACE:
        return None
    body = line[start:].lstrip(WHITESPACE)
    if not body or any(end in body for end in _LINE_ENDS):
        return None
    return body


def _heading(line: str) -> str | None:
    """The name in a trimmed ``# heading`` line (``/^#{1,6}\\s+(.+?)\\s*$/``), or ``None``."""
    level = len(line) - len(line.lstrip("#"))
    if not 1 <= level <= 6:
        return None
    return _tail(line, level)


def _is_unit(char: str) -> bool:
    """Whether JavaScript's ``.`` matches ``char`` as one UTF-16 code unit."""
    return char not in _LINE_ENDS and ord(char) < 0x10000


def _task(line: str) -> tuple[str, str] | None:
    """Marker and content of a trimmed task line, as ``/^[-*+]\\s*\\[(.?)\\]\\s+(.+?)\\s*$/`` gives them.

    Linear: the pattern's only choice is whether the marker is one character
    or none, and both are tried, the longer first as the regular expression does.
    """
    if not line or line[0] not in _BULLETS:
        return None
    open_at = len(line) - len(line[1:].lstrip(WHITESPACE))
    if line[open_at : open_at + 1] != "[":
        return None
    marker = line[open_at + 1 : open_at + 2]
    if marker and _is_unit(marker) and line[open_at + 2 : open_at + 3] == "]":
        content = _tail(line, open_at + 3)
        if content is not None:
            return marker, content
    if marker == "]":
        content = _tail(line, open_at + 2)
        if content is not None:
            return "", content
    return None


def phases_to_markdown(
    phases: Iterable[Phase | Mapping[str, Any]], *, lossless: bool = False
) -> str:
    """Render phases (values or JSON dicts) as a Markdown checklist.

    The default output is the reference's, byte for byte. ``lossless=True``
    adds the lossless marker and escapes what the reference's format would
    lose, so that :func:`markdown_to_phases` gives back exactly ``phases``.
    """
    if lossless:
        return _lossless_markdown(as_phases(phases))
    cols = plain_columns(phases)
    if cols is None:  # malformed (as_phases raises, naming each place), or a team plan
        return _markdown_of_values(as_phases(phases))
    if not cols:
        return "# Todos\n"
    return _render(cols, _MARKER_ROW)


def _markdown_of_values(phases: tuple[Phase, ...]) -> str:
    """The reference's checklist from ``Phase`` values, for lists the columns do not take
    (a team plan's, whose ``blocked`` tasks are written ``[!]``)."""
    if not phases:
        return "# Todos\n"
    out: list[str] = []
    for phase in phases:
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


class _Reader:
    """Parser state: the phases so far and where note lines currently go.

    It counts phases and tasks as they come and stops at ``limits``' bounds.
    """

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits
        self.max_phases = limits.max_phases if limits is not None else -1
        self.max_tasks = limits.max_tasks if limits is not None else -1
        self.phase_count = self.task_count = 0
        self.phases: list[tuple[str, list[Task]]] = []
        self.errors: list[str] = []
        self.tasks: list[Task] | None = None
        self.has_task = False  # whether notes attach to self.tasks[-1]
        self.notes: list[str] = []
        self.lines: list[str] = []
        self.active = 0  # tasks read in progress: exactly one means the list is already normal
        unbounded = float("inf")
        self.max_name = limits.max_name if limits is not None else unbounded
        self.max_content = limits.max_content if limits is not None else unbounded
        self.max_note = limits.max_note if limits is not None else unbounded
        self.too_long = False  # a name, content or note past its limit: the texts are checked

    def flush(self) -> None:
        """Close the note being read onto the current task."""
        if self.lines:
            if self.has_task:
                self.notes.append("\n".join(self.lines))
                self.too_long |= len(self.notes[-1]) > self.max_note
            self.lines = []

    def close(self) -> None:
        """Finish the current task: attach its notes, and take new notes nowhere."""
        self.flush()
        if self.notes:
            assert self.tasks is not None
            task = self.tasks[-1]
            self.tasks[-1] = attrs.evolve(task, notes=tuple(self.notes))
            self.notes = []
        self.has_task = False

    def grow(self, phases: int, tasks: int) -> None:
        """Count what the document adds; past a limit, raise before anything more is built."""
        self.phase_count += phases
        self.task_count += tasks
        if self.limits is not None and (
            self.phase_count > self.max_phases or self.task_count > self.max_tasks
        ):
            self.limits.check_read(self.phase_count, self.task_count)

    def phase_tasks(self) -> list[Task]:
        if self.tasks is None:
            self.grow(1, 0)
            self.tasks = []
            self.phases.append(("Todos", self.tasks))
        return self.tasks

    def run(self, contents: list[str], statuses: list[Status], size: int) -> None:
        """Take a run of plain task lines, already split into contents and statuses;
        ``size``, the run's length in the text, bounds each content's."""
        self.close()
        tasks = self.phase_tasks()
        self.grow(0, len(contents))
        if size > self.max_content:
            self.too_long |= max(map(len, contents)) > self.max_content
        tasks.extend(make_tasks(contents, statuses))
        self.active += statuses.count(Status.IN_PROGRESS)
        self.has_task = True

    def note(self, raw: str) -> bool:
        text = _note(raw) if self.has_task else None
        if text is None:
            return False
        if text:
            self.lines.append(text)
        else:
            self.flush()
        return True

    def heading(self, line: str) -> bool:
        name = _heading(line)
        if name is None:
            return False
        self.close()
        self.grow(1, 0)
        self.too_long |= len(name) > self.max_name
        self.tasks = []
        self.phases.append((name, self.tasks))
        return True

    def task(self, line: str, number: int) -> bool:
        found = _task(line)
        if found is None:
            return False
        self.close()
        tasks = self.phase_tasks()
        marker, content = found
        status = _STATUS_OF.get(marker)
        if status is None:
            self.errors.append(
                f'Line {number}: unknown status marker "[{marker}]" (use [ ], [x], [/], [-])'
            )
        else:
            self.grow(0, 1)
            self.too_long |= len(content) > self.max_content
            tasks.append(make_task(content, status))
            self.active += status is Status.IN_PROGRESS
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
        phases = [make_phase(name, tuple(tasks)) for name, tasks in self.phases]
        if self.limits is not None and self.too_long:
            self.limits.check_texts(phases)
        return phases if self.active == 1 else list(normalize(phases))


def markdown_to_phases(
    text: str, *, limits: Limits | None = DEFAULT_LIMITS
) -> tuple[tuple[Phase, ...], list[str]]:
    """Parse a Markdown checklist back into phases, with line-numbered errors.

    Tasks before any heading go into a ``Todos`` phase; ``[>]`` also means in
    progress and ``[~]`` abandoned. The result is normalized like a tool call,
    except for the lossless form (first line :data:`LOSSLESS_MARKER`), which is
    read back exactly as written. The phases are a tuple, as from
    :func:`~phasetodo.load_phases`; the errors a list, as in the conformance vectors.

    ``limits`` bound the document as they bound one ``todo_write`` call
    (``None``: no limits): a longer text, or one with more phases or tasks,
    raises :class:`~phasetodo.InvalidParams` naming the limit, read no further.
    """
    if limits is not None:
        limits.check_document(len(text))
    if text.lstrip(_EDGE).startswith(LOSSLESS_MARKER):
        lossless = _lossless_phases(text, limits)
        if lossless is not None:
            return tuple(lossless[0]), lossless[1]
    reader = _Reader(limits)
    # Runs of task lines in the form phases_to_markdown writes are taken whole,
    # without the line patterns, when no "\r", U+2028 or U+2029 can change a line.
    runs = "\r" not in text and "\u2028" not in text and "\u2029" not in text
    number, pos = 1, 0
    while True:
        if runs:
            contents, statuses, end = _task_run(text, pos, _STATUS_OF, _PLAIN_MARKERS)
            if contents:
                reader.run(contents, statuses, end - pos)
                number += len(contents)
                pos = end
                continue
        newline = text.find("\n", pos)
        if newline < 0:
            reader.line(text[pos:], number)
            break
        stop = newline - 1 if newline > pos and text[newline - 1] == "\r" else newline
        reader.line(text[pos:stop], number)
        number += 1
        pos = newline + 1
    return tuple(reader.result()), reader.errors


# -- the lossless form -----------------------------------------------------------------

#: The first line of a lossless document: it switches the parser to escapes and exactness.
LOSSLESS_MARKER = "<!-- phasetodo:lossless -->"

#: Whitespace by JavaScript's rules and Python's: escaped at a text's edges, trimmed from lines.
_EDGE = "".join(sorted(set(WHITESPACE) | {c for c in map(chr, range(0x3001)) if c.isspace()}))
_EDGE_CLASS = f"[{re.escape(_EDGE)}]"
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\u2028": "\\u{2028}", "\u2029": "\\u{2029}"}
_SPECIAL = re.compile("[\\\\\n\r\u2028\u2029]")
_UNESCAPE = re.compile(r"\\(?:u\{([0-9A-Fa-f]{1,6})\}|(.)|$)", re.S)
_PLAIN = {"\\": "\\", "n": "\n", "r": "\r", "e": ""}
_LOSSLESS_HEADING = re.compile(f"#{{1,6}}{_EDGE_CLASS}+(.+)", re.S)
_LOSSLESS_TASK = re.compile(rf"[-*+]{_EDGE_CLASS}*\[(.?)\]{_EDGE_CLASS}+(.+)", re.S)


def _escape(text: str) -> str:
    """``text`` as one line that reads back exactly: specials escaped, edges protected."""
    if not text:
        return "\\e"
    body = _SPECIAL.sub(lambda m: _ESCAPES[m[0]], text)
    if body[0] in _EDGE:
        body = f"\\u{{{ord(body[0]):x}}}{body[1:]}"
    if body[-1] in _EDGE:
        body = f"{body[:-1]}\\u{{{ord(body[-1]):x}}}"
    return body


def _lossless_markdown(phases: Iterable[Phase]) -> str:
    out = [LOSSLESS_MARKER]
    for phase in phases:
        out.append("")
        out.append(f"# {_escape(phase.name)}")
        for task in phase.tasks:
            out.append(f"- [{_MARKERS[task.status]}] {_escape(task.content)}")
            if task.has_team_fields:
                out += _team_lines(task)
            for index, note in enumerate(task.notes):
                if index:
                    out.append("  >")
                out.extend(f"  > {_escape(line)}" for line in note.split("\n"))
    return "\n".join(out) + "\n"


def _team_lines(task: Task) -> list[str]:
    """A team task's id, owner, reason and dependencies, one ``@key value`` line each."""
    out = []
    if task.id is not None:
        out.append(f"  @id {_escape(task.id)}")
    if task.owner is not None:
        out.append(f"  @owner {_escape(task.owner)}")
    if task.reason is not None:
        out.append(f"  @reason {_escape(task.reason)}")
    out += [f"  @after {_escape(content)}" for content in task.after]
    return out


_TEAM_LINE = re.compile(f"@(id|owner|reason|after){_EDGE_CLASS}+(.+)", re.S)
_LOSSLESS_STATUS_OF = {**_STATUS_OF, "!": Status.BLOCKED}


class _LosslessReader(_Reader):
    """Parser state for the lossless form: exact texts, no normalization.

    It keeps notes on tasks the way the reference reader does and differs only
    in how a line is read.
    """

    def __init__(self, limits: Limits | None = None) -> None:
        super().__init__(limits)
        self.number = 0

    def unescape(self, text: str) -> str:
        def one(match: re.Match[str]) -> str:
            code, char = match[1], match[2]
            if code is not None and int(code, 16) <= 0x10FFFF:
                return chr(int(code, 16))
            if char is not None and char in _PLAIN:
                return _PLAIN[char]
            self.errors.append(f'Line {self.number}: invalid escape "{match[0]}"')
            return match[0]

        return _UNESCAPE.sub(one, text) if "\\" in text else text

    def team_line(self, line: str) -> bool:
        """Take an ``@id``, ``@owner``, ``@reason`` or ``@after`` line of the task above."""
        match = _TEAM_LINE.fullmatch(line)
        if match is None or not self.has_task or self.notes or self.lines:
            return False
        assert self.tasks is not None
        task, value = self.tasks[-1], self.unescape(match[2])
        if match[1] == "after":
            self.tasks[-1] = attrs.evolve(task, after=(*task.after, value))
        elif match[1] == "owner":
            self.tasks[-1] = attrs.evolve(task, owner=value)
        elif match[1] == "id":
            self.tasks[-1] = attrs.evolve(task, id=value)
        else:
            self.tasks[-1] = attrs.evolve(task, reason=value)
        return True

    def exact_line(self, line: str) -> None:
        """Take one edge-trimmed line of a lossless document."""
        if line.startswith("@") and self.team_line(line):
            return
        if line.startswith(">") and self.has_task:
            rest = line[1:].lstrip(_EDGE)
            if rest:
                self.lines.append(self.unescape(rest))
            else:
                self.flush()
            return
        heading = _LOSSLESS_HEADING.fullmatch(line)
        if heading is not None:
            self.close()
            self.grow(1, 0)
            self.tasks = []
            self.phases.append((self.unescape(heading[1]), self.tasks))
            return
        self.close()
        task = _LOSSLESS_TASK.fullmatch(line)
        if task is None:
            self.errors.append(f'Line {self.number}: unrecognized syntax "{line}"')
            return
        tasks = self.phase_tasks()
        status = _LOSSLESS_STATUS_OF.get(task[1])
        if status is None:
            self.errors.append(
                f'Line {self.number}: unknown status marker "[{task[1]}]" (use [ ], [x], [/], [-], [!])'
            )
            return
        self.grow(0, 1)
        tasks.append(Task(self.unescape(task[2]), status))
        self.has_task = True


def _split_lines(text: str) -> Iterator[str]:
    """``text.split("\\n")`` one line at a time, so a reader stopped at a limit held no list of them."""
    pos = 0
    while True:
        end = text.find("\n", pos)
        if end < 0:
            yield text[pos:]
            return
        yield text[pos:end]
        pos = end + 1


def _lossless_phases(text: str, limits: Limits | None) -> tuple[list[Phase], list[str]] | None:
    """Parse a lossless document; ``None`` when its first line is not the marker."""
    reader = _LosslessReader(limits)
    marked = False
    for number, raw in enumerate(_split_lines(text), 1):
        line = raw.strip(_EDGE)
        if not line:
            continue
        reader.number = number
        if not marked:
            if line != LOSSLESS_MARKER:
                return None
            marked = True
            continue
        reader.exact_line(line)
    reader.close()
    phases = [Phase(name, tuple(tasks)) for name, tasks in reader.phases]
    if limits is not None:
        limits.check_texts(phases)
    return phases, reader.errors


def _render(cols: list[Column], markers: tuple[str, str, str, str]) -> str:
    """The reference's Markdown checklist of phases held as columns (at least one)."""
    marks = {s: f"- [{m}] " for s, m in zip(REFERENCE_STATUSES, markers, strict=True)}
    out: list[str] = []
    for col in cols:
        if out:
            out.append("")
        out.append(f"# {col.name}")
        if not any(col.notes):  # each run of one status is one joined text
            start = 0
            for status, run in groupby(col.statuses):
                end = start + len(list(run))
                mark = marks[status]  # type: ignore[index]
                out.append(mark + f"\n{mark}".join(col.contents[start:end]))
                start = end
            continue
        for content, status, notes in zip(col.contents, col.statuses, col.notes, strict=True):
            out.append(f"{marks[status]}{content}")  # type: ignore[index]
            for index, note in enumerate(notes or ()):
                if index:
                    out.append("  >")
                out.extend(f"  > {line}" if line else "  >" for line in note.split("\n"))
    return "\n".join(out) + "\n"


@lru_cache(maxsize=4)
def _run_pattern(known: str) -> re.Pattern[str]:
    """Lines ``- [m] content`` with ``m`` in ``known`` and no whitespace at the content's edges."""
    ws = f"[{re.escape(WHITESPACE)}]"
    # Not possessive (``*+``, ``++``), though that matched about a fifth faster: Python 3.11.2's
    # sre (Debian 12's) gives wrong matches for it here, and the package supports 3.11.
    return re.compile(rf"(?:- \[[{re.escape(known)}]\] (?!{ws})[^\n]*(?<!{ws})\n)+")


def _task_run(
    text: str, pos: int, status_of: Mapping[str, Status], known: str
) -> tuple[list[str], list[Status], int]:
    """The plain task lines from ``pos`` on, split into contents and statuses, and where they end.

    Only for text without ``\\r``, U+2028 or U+2029 (they would change a line).
    """
    run = _run_pattern(known).match(text, pos)
    if run is None:
        return [], [], pos
    lines = text[pos : run.end() - 1].split("\n")
    return [line[6:] for line in lines], [status_of[line[3]] for line in lines], run.end()
