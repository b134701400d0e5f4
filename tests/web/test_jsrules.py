"""The JavaScript string rules, checked against answers JavaScript itself gave.

``tests/jsrules/jsrules.jsonl`` is written by ``node tests/jsrules/generate.mjs``:
for strings built around every kind of whitespace, line terminator and marker
character, it records ``trim()``, the note op's trailing-space strip, the line
split and the reference's three Markdown patterns. None of these strings come
from the conformance vectors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import phasetodo
from phasetodo._core import jsstring as _jsstring
from phasetodo._core.jsstring import DOT, DOT_UNIT, WS
from phasetodo._views.markdown import _STATUS_OF, _heading, _note, _task

from ..budget import sample

CASES = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "jsrules" / "jsrules.jsonl").read_text("utf-8").split("\n")
    if line
]


def _groups(match: Any) -> list[str] | None:
    return None if match is None else list(match.groups())


#: The reference's three patterns, translated: the oracle the linear readers must agree with.
_NOTE = re.compile(f"{WS}*>{WS}?({DOT}*)")
_HEADING = re.compile(f"#{{1,6}}{WS}+({DOT}+?){WS}*")
_TASK = re.compile(rf"[-*+]{WS}*\[({DOT_UNIT}?)\]{WS}+({DOT}+?){WS}*")


def _linear(line: str, raw: str) -> tuple[list[str] | None, list[str] | None, list[str] | None]:
    note, heading, task = _note(raw), _heading(line), _task(line)
    return (
        None if note is None else [note],
        None if heading is None else [heading],
        None if task is None else list(task),
    )


class TestStrings:
    def test_enough_cases(self) -> None:
        """The generated file covers hundreds of strings."""
        assert len(CASES) > 700

    @pytest.mark.parametrize("case", sample(CASES))
    def test_trim(self, case: dict[str, Any]) -> None:
        """trim() strips JavaScript's whitespace set, not Python's."""
        assert _jsstring.trim(case["s"]) == case["trim"]

    @pytest.mark.parametrize("case", sample(CASES))
    def test_trim_end(self, case: dict[str, Any]) -> None:
        """The note op drops trailing JavaScript whitespace only."""
        assert _jsstring.trim_end(case["s"]) == case["trim_end"]

    @pytest.mark.parametrize("case", sample(CASES))
    def test_split_lines(self, case: dict[str, Any]) -> None:
        """Lines split on \\r?\\n only, never on a lone \\r or U+2028."""
        assert _jsstring.split_lines(case["s"]) == case["lines"]


class TestPatterns:
    @pytest.mark.parametrize("case", sample(CASES))
    def test_note_heading_task(self, case: dict[str, Any]) -> None:
        """The Markdown patterns match exactly where JavaScript's do, with the same groups."""
        line = _jsstring.trim(case["s"])
        assert _groups(_NOTE.fullmatch(case["s"])) == case["note"]
        assert _groups(_HEADING.fullmatch(line)) == case["heading"]
        assert _groups(_TASK.fullmatch(line)) == case["task"]

    @pytest.mark.parametrize("case", sample(CASES))
    def test_linear_readers_give_javascripts_groups(self, case: dict[str, Any]) -> None:
        """The reader's linear line matchers give what JavaScript's patterns gave (names trimmed)."""
        line = _jsstring.trim(case["s"])
        note, heading, task = _linear(line, case["s"])
        assert note == case["note"]
        expect_heading = case["heading"] and [_jsstring.trim(case["heading"][0])]
        assert heading == expect_heading
        expect_task = case["task"] and [case["task"][0], _jsstring.trim(case["task"][1])]
        assert task == expect_task

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


_ALPHABET = [*" \t\r\u2028\u2029\u00a0\u3000\ufeff\x1c\x85#>[]-*+x/~ab\U0001f600"]


class TestLinearReaders:
    @given(st.text(st.sampled_from(_ALPHABET), max_size=12))
    def test_agree_with_the_patterns(self, raw: str) -> None:
        """On any line the linear matchers agree with the translated patterns (names trimmed)."""
        line = _jsstring.trim(raw)
        heading, task = _HEADING.fullmatch(line), _TASK.fullmatch(line)
        expect = (
            _groups(_NOTE.fullmatch(raw)),
            None if heading is None else [_jsstring.trim(heading[1])],
            None if task is None else [task[1], _jsstring.trim(task[2])],
        )
        assert _linear(line, raw) == expect

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
    def test_plain_task_lines_read_as_the_patterns_say(self, lines: list[str]) -> None:
        """Task lines in the written form, taken without patterns, read as the patterns read them."""
        phases, _ = phasetodo.markdown_to_phases("\n".join(lines) + "\n")
        expected: list[tuple[str, str]] = []
        for line in lines:
            match = _TASK.fullmatch(_jsstring.trim(line))
            if match is not None and match[1] in _STATUS_OF:
                expected.append((_jsstring.trim(match[2]), _STATUS_OF[match[1]].value))
        got = [(t.content, t.status.value) for p in phases for t in p.tasks]
        assert [c for c, _ in got] == [c for c, _ in expected]
