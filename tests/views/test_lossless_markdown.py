"""Lossless Markdown: any list round-trips exactly; the default form stays the reference's."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import Phase, Status, Task, markdown_to_phases, phases_to_markdown
from phasetodo.views import LOSSLESS_MARKER

from ..budget import examples
from ..conftest import read_vectors

RENDER = read_vectors("render.jsonl.gz")

#: Characters that break the reference's format one way or another.
_AWKWARD = "\n\r\u2028\u2029\ufeff\u00a0\u3000\t\v\x85 #>-[]x/\\e{}u"
_TEXT = st.text(alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from(_AWKWARD)), max_size=12)


@st.composite
def _lists(draw: st.DrawFn) -> list[Phase]:
    return [
        Phase(
            draw(_TEXT),
            tuple(
                Task(
                    draw(_TEXT),
                    draw(st.sampled_from(list(Status))),  # blocked too: team plans
                    tuple(draw(st.lists(_TEXT, max_size=3))),
                    draw(st.none() | _TEXT),
                    draw(st.none() | _TEXT),
                    tuple(draw(st.lists(_TEXT, max_size=2))),
                )
                for _ in range(draw(st.integers(0, 3)))
            ),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]


def round_trip(phases: list[Phase]) -> tuple[tuple[Phase, ...], list[str]]:
    """Lossless out, then back in."""
    return markdown_to_phases(phases_to_markdown(phases, lossless=True))


class TestRoundTrip:
    @settings(max_examples=examples(400), deadline=None)
    @given(_lists())
    @example([])
    @example([Phase("")])
    @example([Phase(" a\nb ", (Task("", notes=("", "x\n\ny", "\n")),))])
    @example(
        [Phase("\ufeff# h", (Task("\u2028> q\r", Status.IN_PROGRESS), Task("- [ ] x", Status.IN_PROGRESS)))]
    )
    @example([Phase("P", (Task("\\e"), Task("\\u{20}"), Task("\\")))])
    def test_any_list_round_trips(self, phases: list[Phase]) -> None:
        """Every list over all of Unicode comes back exactly, without errors."""
        assert round_trip(phases) == (tuple(phases), [])

    @settings(max_examples=examples(100), deadline=None)
    @given(_lists())
    def test_crlf_files_round_trip(self, phases: list[Phase]) -> None:
        """A lossless file saved with CRLF line ends reads back the same."""
        text = phases_to_markdown(phases, lossless=True).replace("\n", "\r\n")
        assert markdown_to_phases(text) == (tuple(phases), [])

    def test_not_normalized(self) -> None:
        """The lossless form keeps a list that breaks the single-active rule."""
        phases = [Phase("P", (Task("a"), Task("b", Status.IN_PROGRESS), Task("c", Status.IN_PROGRESS)))]
        assert round_trip(phases) == (tuple(phases), [])

    def test_dicts_accepted(self) -> None:
        """JSON dicts render like values."""
        data = [{"name": "P", "tasks": [{"content": " x", "status": "pending"}]}]
        assert markdown_to_phases(phases_to_markdown(data, lossless=True))[0] == phasetodo.load_phases(data)


class TestFormat:
    def test_plain_list_reads_like_the_default(self) -> None:
        """Without awkward text the lossless form is the default form under the marker."""
        phases = [Phase("Build", (Task("Write tests", Status.IN_PROGRESS, ("a\nb",)),)), Phase("Ship")]
        lossless = phases_to_markdown(phases, lossless=True)
        assert lossless == f"{LOSSLESS_MARKER}\n\n{phases_to_markdown(phases)}"

    def test_escapes(self) -> None:
        """Line breaks, edge whitespace, backslashes and empty texts are escaped."""
        phases = [Phase(" a\nb ", (Task("", notes=("x\n\n\\",)), Task("\u2028\r")))]
        assert phases_to_markdown(phases, lossless=True) == (
            f"{LOSSLESS_MARKER}\n\n# \\u{{20}}a\\nb\\u{{20}}\n- [ ] \\e\n  > x\n  > \\e\n  > \\\\\n"
            "- [ ] \\u{2028}\\r\n"
        )

    def test_empty_list(self) -> None:
        """An empty list is the marker alone and reads back empty."""
        assert phases_to_markdown([], lossless=True) == f"{LOSSLESS_MARKER}\n"
        assert markdown_to_phases(f"{LOSSLESS_MARKER}\n") == ((), [])

    @pytest.mark.parametrize("vector", RENDER[::4], ids=lambda v: str(v["id"]))
    def test_default_output_unchanged(self, vector: dict[str, Any]) -> None:
        """The default output is still the reference's, byte for byte."""
        assert phases_to_markdown(vector["phases"]) == vector["expect"]["markdown"]
        assert phases_to_markdown(vector["phases"], lossless=False) == vector["expect"]["markdown"]


class TestReading:
    def test_marker_after_blank_lines_and_bom(self) -> None:
        """The marker may follow a BOM and blank lines."""
        text = f"\ufeff\n  {LOSSLESS_MARKER}\n# P\n- [x] \\u{{20}}a\n"
        assert markdown_to_phases(text) == ((Phase("P", (Task(" a", Status.COMPLETED),)),), [])

    def test_default_form_escapes_are_literal(self) -> None:
        """Without the marker a backslash is just a character, as in the reference."""
        phases, errors = markdown_to_phases("# P\n- [ ] a\\nb\n")
        assert (phases, errors) == ((Phase("P", (Task("a\\nb", Status.IN_PROGRESS),)),), [])

    def test_marker_not_first_is_the_default_form(self) -> None:
        """A marker after other content is just an unrecognized line."""
        _, errors = markdown_to_phases(f"# P\n{LOSSLESS_MARKER}\n")
        assert errors == [f'Line 2: unrecognized syntax "{LOSSLESS_MARKER}"']

    def test_alternative_markers_and_bullets(self) -> None:
        """Hand edits may use [X], [>], [~] and * or + bullets."""
        text = f"{LOSSLESS_MARKER}\n* [X] a\n+ [>] b\n- [~] c\n"
        assert markdown_to_phases(text)[0] == (
            Phase(
                "Todos",
                (Task("a", Status.COMPLETED), Task("b", Status.IN_PROGRESS), Task("c", Status.ABANDONED)),
            ),
        )

    def test_errors_have_line_numbers(self) -> None:
        """Bad lines, markers and escapes are reported with their line."""
        text = f"{LOSSLESS_MARKER}\n# P\n- [?] a\nhello\n- [ ] bad \\q\n> note\n"
        phases, errors = markdown_to_phases(text)
        assert errors == [
            'Line 3: unknown status marker "[?]" (use [ ], [x], [/], [-], [!])',
            'Line 4: unrecognized syntax "hello"',
            'Line 5: invalid escape "\\q"',
        ]
        assert phases == (Phase("P", (Task("bad \\q", notes=("note",)),)),)
        text2 = f"{LOSSLESS_MARKER}\n# P\n> stray\n"
        assert markdown_to_phases(text2)[1] == ['Line 3: unrecognized syntax "> stray"']


class TestEscapeBounds:
    @pytest.mark.parametrize(
        ("escape", "content", "errors"),
        [
            (r"\u{41}", "aAb", []),
            (r"\u{10ffff}", "a\U0010ffffb", []),
            (r"\u{110000}", r"a\u{110000}b", ['Line 3: invalid escape "\\u{110000}"']),
        ],
    )
    def test_code_points_up_to_the_unicode_limit(self, escape: str, content: str, errors: list[str]) -> None:
        """\\u{...} reads any code point up to U+10FFFF; past it the escape is kept and reported."""
        text = f"{phasetodo.views.LOSSLESS_MARKER}\n# P\n- [ ] a{escape}b\n"
        phases, found = phasetodo.markdown_to_phases(text)
        assert [t.content for t in phases[0].tasks] == [content]
        assert found == errors
