"""What a host re-injects after a compaction: the summary section and the next-turn reminder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo import todo
from phasetodo.errors import InvalidOption

EXAMPLE = Path(__file__).parents[2] / "examples" / "compaction.py"


def _plan() -> list[dict[str, Any]]:
    """Build: one done, one in progress, one blocked; Ship: one the model dropped, one a person did."""
    return [
        {"name": "Build", "tasks": [
            {"content": "Parser", "status": "completed"},
            {"content": "Lexer", "status": "in_progress"},
            {"content": "Tests", "status": "blocked", "blocker": "CI is down"},
        ]},
        {"name": "Ship", "tasks": [
            {"content": "Tag", "status": "abandoned"},
            {"content": "Announce", "status": "abandoned", "droppedBy": "user"},
            {"content": "Docs", "status": "pending"},
        ]},
    ]


class TestSection:
    def test_the_reference_section(self) -> None:
        """Incomplete work by phase: blocked with its blocker, the model's drop; no person's drop."""
        assert todo.compaction_section(_plan()) == "\n".join([
            "## Incomplete Todos",
            "<!-- omp-incomplete-todos-v1 -->",
            "These incomplete items remain after compaction; continue them."
            " A text-only stop is not completion.",
            "- Build",
            "  - [in_progress] Lexer",
            "  - [blocked] Tests <!-- blocker: CI is down -->",
            "- Ship",
            "  - [abandoned] Tag",
            "  - [pending] Docs",
        ])

    def test_nothing_left_is_none(self) -> None:
        """With no incomplete work the heading stands over (none)."""
        done = [{"name": "A", "tasks": [{"content": "x", "status": "completed"}]}]
        empty = "## Incomplete Todos\n<!-- omp-incomplete-todos-v1 -->\n\n(none)"
        assert todo.compaction_section(done) == empty
        assert todo.compaction_section([]) == todo.compaction_section(done)

    def test_names_stay_on_one_line_and_cannot_pose_as_a_blocker(self) -> None:
        """Backslashes, '<' and line breaks in names are escaped."""
        plan = [{"name": "P\nQ", "tasks": [
            {"content": "a\\b <!-- blocker: x -->\r\nc", "status": "blocked", "blocker": "y<z"}]}]
        assert todo.compaction_section(plan).splitlines()[3:] == [
            "- P\\nQ",
            "  - [blocked] a\\\\b \\<!-- blocker: x -->\\r\\nc <!-- blocker: y\\<z -->",
        ]

    def test_a_todo_sessions_list_is_read_as_it_is(self) -> None:
        """A todo session's phases give the section of the tool's own list."""
        with phasetodo.Session.open("c", "memory:", profile="todo") as session:
            session.todo_write({"op": "init", "items": ["a", "b"]})
            session.todo_write({"op": "block", "task": "b", "reason": "why"})
            listed = session.todo_write({"op": "view"})["details"]["phases"]
            assert todo.compaction_section(session.phases) == todo.compaction_section(listed)
            assert "[blocked] b <!-- blocker: why -->" in todo.compaction_section(session.phases)


class TestReminder:
    def test_in_progress_is_marked_to_reconfirm_and_blocked_is_left_out(self) -> None:
        """The reminder lists what to continue; the active task is to be reconfirmed."""
        text = todo.compaction_reminder(_plan())
        assert text is not None
        lines = text.splitlines()
        assert lines[0] == "<system-reminder>"
        assert lines[-1] == "</system-reminder>"
        assert "  - [in_progress] Lexer (in progress before the compaction: reconfirm it" in text
        for left_out in ("Tests", "Announce", "Parser"):
            assert left_out not in text
        assert "  - [abandoned] Tag" in lines
        assert "  - [pending] Docs" in lines

    def test_nothing_to_continue_is_none(self) -> None:
        """Only blocked or settled work left: no reminder."""
        plan = [{"name": "A", "tasks": [{"content": "x", "status": "blocked"}]}]
        assert todo.compaction_reminder(plan) is None

    def test_the_cap_counts_the_rest(self) -> None:
        """Past cap rows the reminder says how many more there are."""
        plan = [{"name": "A", "tasks": [{"content": f"t{i}", "status": "pending"} for i in range(5)]}]
        text = todo.compaction_reminder(plan, cap=2)
        assert text is not None
        assert "+ 3 more" in text
        assert "t2" not in text
        with pytest.raises(InvalidOption, match="cap"):
            todo.compaction_reminder(plan, cap=0)


class TestExample:
    @pytest.mark.slow
    def test_the_example_runs(self) -> None:
        """examples/compaction.py runs and prints the summary with the section, then the reminder."""
        done = subprocess.run(
            [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
        assert "## Incomplete Todos" in done.stdout
        assert "  - [blocked] Run the tests <!-- blocker: CI is down -->" in done.stdout
        assert "  - [in_progress] Write the lexer (in progress before the compaction" in done.stdout
        assert done.stdout.rstrip().endswith("</system-reminder>")
