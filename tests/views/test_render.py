"""The terminal tree (rich and plain), notebook display and fuzzy target matching."""

from __future__ import annotations

import html
import io
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import given
from rich.console import Console

import phasetodo
from phasetodo import testing as pt_testing
from phasetodo._core.fuzzy import AmbiguousTarget, Target, TargetNotFound, resolve
from phasetodo._core.model import Phase, Status, Task
from phasetodo._views.render import (
    COLLAPSED_TASKS,
    TodoList,
    render_html,
    render_markdown,
    render_rich,
    render_text,
    roman,
    superscript,
    visible,
)


def _phases() -> list[dict[str, Any]]:
    result = phasetodo.todo_write(
        {
            "ops": [
                {
                    "op": "init",
                    "list": [
                        {"phase": "Explore", "items": ["Read the test", "[x] foo [bold]x[/]"]},
                        {"phase": "Fix", "items": [f"step {i}" for i in range(12)]},
                    ],
                },
                {"op": "note", "task": "Read the test", "text": "line one\nline two"},
                {"op": "note", "task": "Read the test", "text": "second"},
                {"op": "note", "task": "step 3", "text": "hidden note"},
                {"op": "done", "task": "step 1"},
                {"op": "drop", "task": "step 2"},
            ]
        }
    )
    phases: list[dict[str, Any]] = result["details"]["phases"]
    return phases


def _rich_text(renderable: Any, width: int = 100) -> str:
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


class TestNumbers:
    @pytest.mark.parametrize(
        ("number", "numeral"),
        [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (1994, "MCMXCIV")],
    )
    def test_roman(self, number: int, numeral: str) -> None:
        """Phase numbers are roman numerals."""
        assert roman(number) == numeral

    def test_roman_rejects_zero(self) -> None:
        """There is no roman numeral for 0; the error names the number."""
        with pytest.raises(ValueError, match="number"):
            roman(0)

    def test_superscript(self) -> None:
        """Note counts are written in superscript digits."""
        assert superscript(1) == "¹"
        assert superscript(120) == "¹²⁰"


class TestPlainTree:
    def test_layout(self) -> None:
        """Phases get roman numerals and progress, tasks checkboxes, the active task its notes."""
        text = render_text(_phases(), collapsed=True)
        assert text.splitlines()[:6] == [
            "I. Explore  0/2",
            "├── ◐ Read the test²",
            "│   ├── line one",
            "│   │   line two",
            "│   └── second",
            "└── ☐ [x] foo [bold]x[/]",
        ]
        assert "II. Fix  2/12" in text
        assert "├── ☑ step 1\n├── ☒ step 2\n├── ☐ step 3¹\n" in text

    def test_collapsed_caps_each_phase(self) -> None:
        """Collapsed, a phase shows eight tasks and a +N more line."""
        lines = render_text(_phases(), collapsed=True).splitlines()
        fix = lines[lines.index("II. Fix  2/12") + 1 :]
        assert len(fix) == COLLAPSED_TASKS + 1
        assert fix[-1] == "└── +4 more"

    def test_expanded_shows_every_task(self) -> None:
        """Not collapsed, every task is shown."""
        text = render_text(_phases())
        assert "└── ☐ step 11" in text
        assert "more" not in text

    def test_notes_only_for_the_active_task(self) -> None:
        """A pending task shows its note count but not its notes."""
        assert "hidden note" not in render_text(_phases())

    def test_control_characters_are_escaped(self) -> None:
        """Newlines and terminal escape codes in list text print as visible escapes."""
        phases = [Phase("P\x1b[31m", (Task("a\nb\tc\u202e"),))]
        text = render_text(phases)
        assert "\x1b" not in text
        assert "P\\x1b[31m" in text
        assert "a\\nb\\tc\\u202e" in text

    def test_empty_list(self) -> None:
        """An empty list says so; an empty phase says it has no tasks."""
        assert render_text([]) == "No todos.\n"
        assert render_text([Phase("Later")]) == "I. Later  0/0\n└── (no tasks)\n"

    def test_accepts_values_and_json(self) -> None:
        """Phase values and details.phases JSON render the same."""
        data = _phases()
        assert render_text(data) == render_text(phasetodo.load_phases(data))


class TestRichTree:
    def test_same_tree_as_plain(self) -> None:
        """rich draws exactly the rows the plain fallback draws."""
        for collapsed in (True, False):
            rich = _rich_text(render_rich(_phases(), collapsed=collapsed))
            assert rich == render_text(_phases(), collapsed=collapsed)

    def test_markup_prints_literally(self) -> None:
        """Task text that looks like rich markup is printed as typed."""
        text = _rich_text(render_rich([Phase("[red]P[/red]", (Task("[x] foo"),))]))
        assert "I. [red]P[/red]" in text
        assert "☐ [x] foo" in text

    def test_strike_through_for_closed_tasks(self) -> None:
        """Completed and abandoned tasks are struck through; the active task is not."""
        console = Console(
            record=True, width=80, file=io.StringIO(), force_terminal=True, color_system="standard"
        )
        tasks = (Task("a", Status.IN_PROGRESS), Task("b", Status.COMPLETED), Task("c", Status.ABANDONED))
        console.print(render_rich([Phase("P", tasks)]))
        styled = console.export_text(styles=True)
        # SGR parameter 9 is strike-through: "b" and "c" carry it, "a" does not.
        assert re.search(r"\x1b\[(?:\d+;)*9(?:;\d+)*mb\x1b", styled)
        assert re.search(r"\x1b\[(?:\d+;)*9(?:;\d+)*mc\x1b", styled)
        assert re.search(r"\x1b\[1;33ma\x1b", styled)

    def test_todo_list_is_rich_renderable(self) -> None:
        """A TodoList prints through rich as the tree."""
        assert _rich_text(TodoList(_phases())) == render_text(_phases())


class TestNotebookDisplay:
    def test_html_escapes_text(self) -> None:
        """Task and phase text is HTML-escaped, so a <script> stays text."""
        phases = [Phase("<b>P</b>", (Task("<script>alert(1)</script>"), Task('a "q" & b')))]
        out = render_html(phases, title="<i>t</i>")
        assert "<script>" not in out
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
        assert "&lt;b&gt;P&lt;/b&gt;" in out
        assert "a &quot;q&quot; &amp; b" in out
        assert "&lt;i&gt;t&lt;/i&gt;" in out

    def test_html_content(self) -> None:
        """The HTML has roman numerals, progress, note counts, active notes and +N more."""
        out = render_html(_phases())
        assert "I. Explore</strong>" in out
        assert "II. Fix</strong>" in out
        assert '<sup title="2 notes">2</sup>' in out
        assert "line one<br>line two" in out
        assert "hidden note" not in out
        assert "<summary>+4 more</summary>" in out
        assert html.escape("[x] foo [bold]x[/]") in out

    def test_markdown_escapes_text(self) -> None:
        """Display Markdown backslash-escapes punctuation, so nothing becomes markup."""
        out = render_markdown([Phase("P", (Task("<script>*x*</script> [y](z)"),))])
        assert "\\<script\\>\\*x\\*\\<\\/script\\> \\[y\\]\\(z\\)" in out
        assert "<script>" not in out

    def test_markdown_content(self) -> None:
        """Display Markdown strikes closed tasks and shows the active task's notes."""
        out = render_markdown(_phases())
        assert "**I\\. Explore** 0/2" in out
        assert "- ◐ **Read the test**<sup>2</sup>\n  > line one\n  > line two\n  >\n  > second" in out
        assert "- ☑ ~~step 1~~" in out

    def test_mimebundle(self) -> None:
        """The mime bundle carries plain text, HTML and Markdown of the same list."""
        todo = TodoList(_phases(), title="my list")
        bundle = todo._repr_mimebundle_()
        assert set(bundle) == {"text/plain", "text/html", "text/markdown"}
        assert bundle["text/html"] == todo._repr_html_()
        assert bundle["text/markdown"] == todo._repr_markdown_()
        assert bundle["text/plain"] == "my list\n" + str(todo)

    def test_from_result(self) -> None:
        """A TodoList is built from a whole tool result's details.phases."""
        result = phasetodo.todo_write({"ops": [{"op": "append", "phase": "P", "items": ["a"]}]})
        todo = TodoList.from_result(result)
        assert todo.phases == (Phase("P", (Task("a", Status.IN_PROGRESS),)),)
        assert todo.to_json() == result["details"]["phases"]
        assert todo.to_markdown() == "# P\n- [/] a\n"


class TestSessionDisplay:
    def test_session_reprs(self) -> None:
        """A Session shows its list in notebooks, titled with its id and version."""
        with phasetodo.Session.open("nb", store=phasetodo.MemoryStore()) as session:
            session.todo_write({"ops": [{"op": "append", "phase": "P", "items": ["<b>x</b>"]}]})
            title = "session nb · version 1"
            assert session._repr_html_() == render_html(session.phases, title=title)
            assert session._repr_markdown_() == render_markdown(session.phases, title=title)
            bundle = session._repr_mimebundle_()
            assert bundle["text/plain"].startswith(title + "\nI. P  0/1\n")
            assert "&lt;b&gt;x&lt;/b&gt;" in bundle["text/html"]


class TestFuzzy:
    PHASES = (
        Phase("Explore", (Task("Read the failing test"), Task("Find the parser bug"))),
        Phase("Fix", (Task("Patch the tokenizer"), Task("Fix"), Task("Run the test suite"))),
    )

    def test_exact_task_first(self) -> None:
        """An exact task match wins, even over a phase with the same name."""
        assert resolve("Fix", self.PHASES) == Target("task", "Fix", "Fix")

    def test_exact_phase(self) -> None:
        """An exact phase name resolves to the phase."""
        assert resolve("Explore", self.PHASES) == Target("phase", "Explore", "Explore")

    def test_case_insensitive(self) -> None:
        """Case is ignored when nothing matches exactly."""
        assert resolve("explore", self.PHASES).name == "Explore"
        assert resolve("PATCH THE TOKENIZER", self.PHASES).name == "Patch the tokenizer"

    def test_unique_substring(self) -> None:
        """A substring matching one target resolves to it."""
        assert resolve("parser", self.PHASES) == Target("task", "Find the parser bug", "Explore")

    def test_ambiguous_lists_candidates(self) -> None:
        """A substring matching several targets lists every candidate."""
        with pytest.raises(AmbiguousTarget) as caught:
            resolve("test", self.PHASES)
        assert [c.name for c in caught.value.candidates] == [
            "Read the failing test",
            "Run the test suite",
        ]
        assert 'task "Run the test suite" (phase "Fix")' in str(caught.value)

    def test_not_found_names_query(self) -> None:
        """No match raises an error naming the query."""
        with pytest.raises(TargetNotFound, match='no task or phase matches "zzz"'):
            resolve("zzz", self.PHASES)

    def test_kinds_restrict(self) -> None:
        """Restricted to phases, a task of the same name is not considered."""
        assert resolve("fix", self.PHASES, kinds=("phase",)).kind == "phase"
        with pytest.raises(TargetNotFound, match='no phase matches "parser"'):
            resolve("parser", self.PHASES, kinds=("phase",))

    def test_duplicate_contents_count_once(self) -> None:
        """Two tasks with the same content are one target (the ops act on the first)."""
        phases = (Phase("A", (Task("same"),)), Phase("B", (Task("same"),)))
        assert resolve("sam", phases) == Target("task", "same", "A")


class TestVisible:
    def test_printable_text_unchanged(self) -> None:
        """Ordinary text, brackets and non-ASCII included, is left as is."""
        assert visible("[x] café ✓") == "[x] café ✓"


class _Text(HTMLParser):
    """Collects an HTML fragment's text and tag names."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


class TestProperties:
    @given(pt_testing.phases(duplicates=True, max_tasks=10))
    def test_rich_and_plain_agree(self, phases: tuple[Phase, ...]) -> None:
        """For any list, rich and plain text draw the same rows, with no control characters."""
        for collapsed in (False, True):
            text = render_text(phases, collapsed=collapsed)
            assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", text)
            assert _rich_text(render_rich(phases, collapsed=collapsed), width=10_000) == text

    @given(pt_testing.phases(duplicates=True, max_tasks=10))
    def test_html_keeps_text_as_text(self, phases: tuple[Phase, ...]) -> None:
        """For any list, the HTML's text holds every name verbatim and only our own tags."""
        parser = _Text()
        parser.feed(render_html(phases))
        text = "".join(parser.text)
        assert parser.tags <= {"div", "em", "strong", "span", "ul", "li", "sup", "details", "summary", "br"}
        for phase in phases:
            assert visible(phase.name) in text
            for task in phase.tasks:
                assert visible(task.content) in text

    @given(pt_testing.phases(max_tasks=6))
    def test_exact_names_resolve(self, phases: tuple[Phase, ...]) -> None:
        """With unique names, a task's exact content always finds that task."""
        for phase in phases:
            for task in phase.tasks:
                assert resolve(task.content, phases) == Target("task", task.content, phase.name)
