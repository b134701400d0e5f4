"""The JavaScript string rules, checked against answers JavaScript itself gave.

``tests/jsrules/jsrules.jsonl`` is written by ``node tests/jsrules/generate.mjs``:
for strings built around every kind of whitespace, line terminator and marker
character, it records ``trim()``, the note op's trailing-space strip, the line
split and the reference's three Markdown patterns. None of these strings come
from the conformance vectors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import phasetodo
from phasetodo._core import jsstring as _jsstring
from phasetodo._views.markdown import _HEADING, _NOTE, _PLAIN_TASK_RUN, _STATUS_OF, _TASK, _TASK_RUN

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "jsrules" / "jsrules.jsonl").read_text("utf-8").split("\n")
    if line
]


def _groups(match: Any) -> list[str] | None:
    return None if match is None else list(match.groups())


class TestStrings:
    def test_enough_cases(self) -> None:
        """The generated file covers hundreds of strings."""
        assert len(CASES) > 700

    @pytest.mark.parametrize("case", CASES)
    def test_trim(self, case: dict[str, Any]) -> None:
        """trim() strips JavaScript's whitespace set, not Python's."""
        assert _jsstring.trim(case["s"]) == case["trim"]

    @pytest.mark.parametrize("case", CASES)
    def test_trim_end(self, case: dict[str, Any]) -> None:
        """The note op drops trailing JavaScript whitespace only."""
        assert _jsstring.trim_end(case["s"]) == case["trim_end"]

    @pytest.mark.parametrize("case", CASES)
    def test_split_lines(self, case: dict[str, Any]) -> None:
        """Lines split on \\r?\\n only, never on a lone \\r or U+2028."""
        assert _jsstring.split_lines(case["s"]) == case["lines"]


class TestPatterns:
    @pytest.mark.parametrize("case", CASES)
    def test_note_heading_task(self, case: dict[str, Any]) -> None:
        """The Markdown patterns match exactly where JavaScript's do, with the same groups."""
        line = _jsstring.trim(case["s"])
        assert _groups(_NOTE.fullmatch(case["s"])) == case["note"]
        assert _groups(_HEADING.fullmatch(line)) == case["heading"]
        assert _groups(_TASK.fullmatch(line)) == case["task"]

    @pytest.mark.parametrize(
        "case", [c for c in CASES if c["lines"] == [c["s"]] and not c["s"].endswith("\r")]
    )
    def test_parser_follows_the_patterns(self, case: dict[str, Any]) -> None:
        """A line after a task is read as JavaScript's patterns say, fast path or not."""
        text = f"# P\n- [/] anchor\n{case['s']}\n"
        phases, errors = phasetodo.markdown_to_phases(text)
        tasks = [(t.content, t.status.value, list(t.notes)) for p in phases for t in p.tasks]
        line = case["trim"]
        if case["note"] is not None:
            notes = [case["note"][0]] if case["note"][0] else []
            assert (tasks, errors) == ([("anchor", "in_progress", notes)], [])
        elif not line:
            assert (tasks, errors) == ([("anchor", "in_progress", [])], [])
        elif case["heading"] is not None:
            assert [p.name for p in phases] == ["P", _jsstring.trim(case["heading"][0])]
        elif case["task"] is not None and case["task"][0] in _STATUS_OF:
            assert tasks[1][0] == _jsstring.trim(case["task"][1])
            assert errors == []
        else:
            assert len(errors) == 1
            assert errors[0].startswith("Line 3: ")


class TestTaskRuns:
    @given(
        st.lists(
            st.builds(
                lambda marker, content: f"- [{marker}] {content}",
                st.sampled_from(" xX/>~-?"),
                st.text(st.sampled_from([*" \t\u00a0\u3000\ufeff\x1c\x85#>ab"]), max_size=5),
            ),
            min_size=1,
            max_size=5,
        )
    )
    def test_plain_run_matches_the_precise_one(self, lines: list[str]) -> None:
        """Without \\r, U+2028 or U+2029 the fast run pattern takes exactly the lines the precise one does."""
        text = "\n".join(lines) + "\n"
        precise, plain = _TASK_RUN.match(text), _PLAIN_TASK_RUN.match(text)
        assert (precise and precise[0]) == (plain and plain[0])
