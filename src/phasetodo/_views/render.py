"""The list as people see it: a terminal tree, and HTML and Markdown for notebooks.

The terminal view numbers phases with roman numerals (for display only: the
ops name phases by their text), marks each task with a status checkbox,
strikes finished ones through, shows note counts as superscripts and spells
out the notes of the active task. Collapsed, a phase shows at most eight
tasks and a ``+N more`` line, as the reference's transcript preview does.

rich draws the tree when it is installed (the ``rich`` extra); without it
:func:`render_text` draws the same tree as plain text. Every piece of list text
is escaped for its medium: control characters become visible escapes, rich
never parses markup in it (so ``[x] foo`` prints literally), and HTML and
Markdown escape their special characters (so ``<script>`` stays text).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .._core.codec import as_phases, dump_phases
from .._core.model import Phase, Status, Task
from ..errors import InvalidOption
from .markdown import phases_to_markdown
from .status import LOOKS
from .team_marks import team_marks

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = [
    "COLLAPSED_TASKS",
    "TodoList",
    "mimebundle",
    "render_html",
    "render_markdown",
    "render_rich",
    "render_text",
    "roman",
    "superscript",
    "visible",
]

#: How many tasks a phase shows when the view is collapsed (the reference's cap).
COLLAPSED_TASKS = 8

#: The checkbox each status is drawn with, in every medium.
CHECKBOX: Mapping[Status, str] = {status: look.checkbox for status, look in LOOKS.items()}

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_NUMERALS = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)  # fmt: skip
#: Characters that would act on a terminal rather than print: C0/C1 controls,
#: DEL, the Unicode line and paragraph separators and the bidi overrides.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def roman(number: int) -> str:
    """``number`` (1 or more) as a roman numeral: 4 → ``IV``, 14 → ``XIV``."""
    if number < 1:
        raise InvalidOption(f"number: roman numerals start at 1, got {number}")
    out: list[str] = []
    for value, letters in _NUMERALS:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def superscript(number: int) -> str:
    """``number`` in superscript digits: 12 → ``¹²``."""
    return str(number).translate(_SUPERSCRIPT)


def visible(text: str) -> str:
    """``text`` with every control character shown as an escape (``\\n``, ``\\x1b``)."""

    def escape(match: re.Match[str]) -> str:
        char = match[0]
        named = _NAMED.get(char)
        if named is not None:
            return named
        code = ord(char)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _CONTROL.sub(escape, text)


def _phases(phases: Iterable[Phase | Mapping[str, Any]]) -> tuple[Phase, ...]:
    return tuple(as_phases(phases))


def _closed(phase: Phase) -> int:
    return sum(1 for t in phase.tasks if t.status.is_closed)


def _shown(phase: Phase, collapsed: bool) -> tuple[tuple[Task, ...], int]:
    """The tasks a phase shows and how many it hides."""
    if collapsed and len(phase.tasks) > COLLAPSED_TASKS:
        return phase.tasks[:COLLAPSED_TASKS], len(phase.tasks) - COLLAPSED_TASKS
    return phase.tasks, 0


def _window(phase: Phase, collapsed: bool) -> tuple[int, tuple[Task, ...], int]:
    """The tasks the tree shows: how many it hides before them, them, how many after.

    Collapsed, a phase shows its first tasks, unless its active task is further
    down: then the window slides so the active task (and two before it) shows.
    """
    tasks, hidden = _shown(phase, collapsed)
    if not hidden:
        return 0, tasks, 0
    active = next((i for i, t in enumerate(phase.tasks) if t.status is Status.IN_PROGRESS), None)
    if active is None or active < COLLAPSED_TASKS:
        return 0, tasks, hidden
    start = min(active - 2, len(phase.tasks) - COLLAPSED_TASKS)
    end = start + COLLAPSED_TASKS
    return start, phase.tasks[start:end], len(phase.tasks) - end


# --- the terminal tree -------------------------------------------------------------------------
#
# Both renderers draw the same rows. A row is a list of (text, style) pieces plus
# the lines nested under it; plain text ignores the styles, rich applies them.

_STYLE = {
    "phase": "bold",
    "count": "dim",
    "empty": "dim italic",
    "more": "dim italic",
    "note": "italic",
    "sup": "cyan",
    "team": "dim",
    **{status.value: look.style for status, look in LOOKS.items()},
}
_BOX_STYLE = {status.value: look.box_style for status, look in LOOKS.items()}

#: One styled stretch of a line: (text, style); plain text drops the style.
Piece = tuple[str, str]
#: One line of the tree, left to right.
Line = tuple[Piece, ...]


@attrs.frozen
class _Row:
    """A line under a phase, and the lines nested under it (the notes, one per child)."""

    line: Line
    children: tuple[tuple[Line, ...], ...] = ()


def _task_row(task: Task) -> _Row:
    status = task.status.value
    pieces: list[Piece] = [
        (CHECKBOX[task.status], _BOX_STYLE[status]),
        (" ", ""),
        (visible(task.content), _STYLE[status]),
    ]
    if task.notes:
        pieces.append((superscript(len(task.notes)), _STYLE["sup"]))
    marks = team_marks(task) if task.has_team_fields else []
    if marks:  # an id or a lease alone shows nothing here
        pieces.append((visible(f"  {' · '.join(marks)}"), _STYLE["team"]))
    children: tuple[tuple[Line, ...], ...] = ()
    if task.status is Status.IN_PROGRESS:
        children = tuple(
            tuple(((visible(text), _STYLE["note"]),) for text in note.split("\n")) for note in task.notes
        )
    return _Row(tuple(pieces), children)


def _phase_rows(phases: Sequence[Phase], collapsed: bool) -> list[tuple[Line, list[_Row]]]:
    """Each phase's heading line and its rows, as both renderers draw them."""
    out: list[tuple[Line, list[_Row]]] = []
    for number, phase in enumerate(phases, start=1):
        head = (
            (f"{roman(number)}. ", _STYLE["phase"]),
            (visible(phase.name), _STYLE["phase"]),
            (f"  {_closed(phase)}/{len(phase.tasks)}", _STYLE["count"]),
        )
        earlier, tasks, hidden = _window(phase, collapsed)
        rows = [_Row(((f"+{earlier} earlier", _STYLE["more"]),))] if earlier else []
        rows += [_task_row(t) for t in tasks]
        if hidden:
            rows.append(_Row(((f"+{hidden} more", _STYLE["more"]),)))
        if not phase.tasks:
            rows.append(_Row((("(no tasks)", _STYLE["empty"]),)))
        out.append((head, rows))
    return out


def _plain(line: Line) -> str:
    return "".join(text for text, _ in line)


_EMPTY = "No todos."


def render_text(phases: Iterable[Phase | Mapping[str, Any]], *, collapsed: bool = False) -> str:
    """The terminal tree as plain text (what you get without rich).

    ``phases`` are values or JSON dicts; ``collapsed`` caps each phase at
    :data:`COLLAPSED_TASKS` tasks. Ends with a newline.
    """
    items = _phases(phases)
    if not items:
        return _EMPTY + "\n"
    lines: list[str] = []
    for head, rows in _phase_rows(items, collapsed):
        if lines:
            lines.append("")
        lines.append(_plain(head))
        for index, row in enumerate(rows):
            last = index == len(rows) - 1
            lines.append(("└── " if last else "├── ") + _plain(row.line))
            indent = "    " if last else "│   "
            for n, note in enumerate(row.children):
                note_last = n == len(row.children) - 1
                branch, cont = ("└── ", "    ") if note_last else ("├── ", "│   ")
                for k, line in enumerate(note):
                    lines.append(indent + (branch if k == 0 else cont) + _plain(line))
    return "\n".join(lines) + "\n"


def render_rich(phases: Iterable[Phase | Mapping[str, Any]], *, collapsed: bool = False) -> RenderableType:
    """The terminal tree as a rich renderable (needs the ``rich`` extra).

    Same rows as :func:`render_text`, with colour and strike-through. List
    text goes into :class:`rich.text.Text` pieces, so it is never read as markup.
    """
    from rich.console import Group
    from rich.text import Text
    from rich.tree import Tree

    items = _phases(phases)
    if not items:
        return Text(_EMPTY, style="dim italic")
    parts: list[RenderableType] = []
    for head, rows in _phase_rows(items, collapsed):
        if parts:
            parts.append(Text(""))
        tree = Tree(Text.assemble(*head), guide_style="dim")
        for row in rows:
            branch = tree.add(Text.assemble(*row.line))
            for note in row.children:
                branch.add(Text("\n").join(Text.assemble(*line) for line in note))
        parts.append(tree)
    return Group(*parts)


# --- notebook display --------------------------------------------------------------------------

_HTML_STYLE = {status: look.html_style for status, look in LOOKS.items()}


def _html_text(text: str) -> str:
    return html.escape(visible(text), quote=True)


def _html_task(task: Task) -> str:
    style = _HTML_STYLE[task.status]
    attr = f' style="{style}"' if style else ""
    out = [
        f'<li class="phasetodo-{task.status.value}" data-status="{task.status.value}">',
        f"{CHECKBOX[task.status]} <span{attr}>{_html_text(task.content)}</span>",
    ]
    if task.notes:
        count = len(task.notes)
        out.append(f'<sup title="{count} note{"" if count == 1 else "s"}">{count}</sup>')
    shown = team_marks(task) if task.has_team_fields else []
    if shown:
        marks = " · ".join(_html_text(m) for m in shown)
        out.append(f' <span class="phasetodo-team" style="opacity:.7">{marks}</span>')
    if task.status is Status.IN_PROGRESS and task.notes:
        notes = "".join(
            "<li>" + "<br>".join(_html_text(line) for line in note.split("\n")) + "</li>"
            for note in task.notes
        )
        out.append(
            '<ul class="phasetodo-notes" style="margin:0;padding-left:1.2em;'
            f'font-style:italic;opacity:.8">{notes}</ul>'
        )
    out.append("</li>")
    return "".join(out)


_UL = '<ul style="list-style:none;margin:.1em 0 .6em 0;padding-left:1.4em">'


def render_html(phases: Iterable[Phase | Mapping[str, Any]], *, title: str | None = None) -> str:
    """The list as an HTML fragment for notebooks, every piece of text escaped.

    A phase longer than :data:`COLLAPSED_TASKS` shows the rest behind a
    ``+N more`` disclosure. ``title`` (escaped too) heads the fragment.
    """
    items = _phases(phases)
    out = ['<div class="phasetodo" style="font-family:inherit;line-height:1.4">']
    if title is not None:
        out.append(f'<div class="phasetodo-title" style="opacity:.7">{_html_text(title)}</div>')
    if not items:
        out.append("<em>No todos.</em>")
    for number, phase in enumerate(items, start=1):
        out.append(
            f'<div class="phasetodo-phase"><strong>{roman(number)}. {_html_text(phase.name)}'
            f'</strong> <span style="opacity:.6">{_closed(phase)}/{len(phase.tasks)}</span>'
        )
        shown, hidden = _shown(phase, collapsed=True)
        out.append(_UL + "".join(_html_task(t) for t in shown) + "</ul>")
        if hidden:
            rest = "".join(_html_task(t) for t in phase.tasks[COLLAPSED_TASKS:])
            out.append(
                f'<details style="padding-left:1.4em"><summary>+{hidden} more</summary>'
                f"{_UL}{rest}</ul></details>"
            )
        out.append("</div>")
    out.append("</div>")
    return "".join(out)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>&~\"'=:^$%@;,/?])")


def _md_text(text: str) -> str:
    """Text that Markdown shows as is: every ASCII punctuation mark backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", visible(text))


def render_markdown(phases: Iterable[Phase | Mapping[str, Any]], *, title: str | None = None) -> str:
    """The list as display Markdown (escaped, with roman numerals and note counts).

    This is for showing, not for editing: :func:`phasetodo.phases_to_markdown`
    writes the checklist format that imports back.
    """
    items = _phases(phases)
    out: list[str] = []
    if title is not None:
        out += [f"*{_md_text(title)}*", ""]
    if not items:
        out.append("*No todos.*")
    for number, phase in enumerate(items, start=1):
        out.append(f"**{roman(number)}\\. {_md_text(phase.name)}** {_closed(phase)}/{len(phase.tasks)}")
        out.append("")
        for task in phase.tasks:
            text = _md_text(task.content)
            if task.status.is_closed:
                text = f"~~{text}~~"
            elif task.status is Status.IN_PROGRESS:
                text = f"**{text}**"
            sup = f"<sup>{len(task.notes)}</sup>" if task.notes else ""
            shown = team_marks(task) if task.has_team_fields else []
            if shown:
                sup += " · ".join(["", *(f"*{_md_text(m)}*" for m in shown)])
            out.append(f"- {CHECKBOX[task.status]} {text}{sup}")
            if task.status is Status.IN_PROGRESS:
                for index, note in enumerate(task.notes):
                    if index:
                        out.append("  >")
                    out.extend(f"  > {_md_text(line)}" for line in note.split("\n"))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def mimebundle(phases: Iterable[Phase | Mapping[str, Any]], *, title: str | None = None) -> dict[str, str]:
    """Plain text, HTML and Markdown at once, as IPython's ``_repr_mimebundle_`` returns."""
    items = _phases(phases)
    plain = render_text(items)
    return {
        "text/plain": plain if title is None else f"{title}\n{plain}",
        "text/html": render_html(items, title=title),
        "text/markdown": render_markdown(items, title=title),
    }


def _to_phase_tuple(value: Iterable[Phase | Mapping[str, Any]]) -> tuple[Phase, ...]:
    return _phases(value)


@attrs.frozen
class TodoList:
    """A list to look at: shows itself in terminals (rich or plain) and notebooks.

    Build it from phases (values or the JSON of ``details.phases``) or from a
    whole tool result with :meth:`from_result`.
    """

    phases: tuple[Phase, ...] = attrs.field(default=(), converter=_to_phase_tuple)
    title: str | None = None

    @classmethod
    def from_result(cls, result: Mapping[str, Any], title: str | None = None) -> TodoList:
        """The list a ``todo_write`` tool result carries in ``details.phases``."""
        return cls(result["details"]["phases"], title)

    def render(self, *, collapsed: bool = False) -> str:
        """The plain-text tree (see :func:`render_text`)."""
        return render_text(self.phases, collapsed=collapsed)

    def to_markdown(self) -> str:
        """The editable Markdown checklist (see :func:`phasetodo.phases_to_markdown`)."""
        return phases_to_markdown(self.phases)

    def to_json(self) -> list[dict[str, Any]]:
        """The phases as JSON data, the shape of ``details.phases``."""
        return dump_phases(self.phases)

    def __str__(self) -> str:
        return self.render()

    def __rich__(self) -> RenderableType:
        """The rich tree, for ``rich.print(todo_list)``."""
        return render_rich(self.phases)

    def _repr_html_(self) -> str:
        return render_html(self.phases, title=self.title)

    def _repr_markdown_(self) -> str:
        return render_markdown(self.phases, title=self.title)

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str]:
        return mimebundle(self.phases, title=self.title)
