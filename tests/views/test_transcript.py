"""Rebuilding the list from a host's transcript entries."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import phasetodo
from phasetodo import testing
from phasetodo.transcript import (
    USER_TODO_EDIT,
    conversation_entries,
    is_todo_state_entry,
    latest_phases,
    user_edit_entry,
)

A = [{"name": "A", "tasks": [{"content": "one", "status": "in_progress"}]}]
B = [{"name": "B", "tasks": [{"content": "two", "status": "completed", "notes": ["n"]}]}]


def _result(phases: list[dict[str, Any]], *, error: bool = False, tool: str = "todo_write") -> dict[str, Any]:
    return {
        "type": "message",
        "message": {"role": "toolResult", "toolName": tool, "isError": error,
                    "details": {"phases": phases, "storage": "session"}},
    }


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "message": {"role": "user", "content": text}}


class TestLatestPhases:
    def test_the_newest_successful_result_wins(self) -> None:
        """The last todo_write result's details.phases is the list."""
        entries = [_result(A), _user("go on"), _result(B), _user("thanks")]
        assert phasetodo.dump_phases(latest_phases(entries)) == B

    def test_a_newer_user_edit_wins_over_an_older_result(self) -> None:
        """A user_todo_edit custom entry counts like a result, newest first."""
        entries = [_result(A), user_edit_entry(B)]
        assert phasetodo.dump_phases(latest_phases(entries)) == B
        assert phasetodo.dump_phases(latest_phases([*entries, _result(A)])) == A

    def test_error_results_are_skipped(self) -> None:
        """A failed call's result never counts."""
        assert phasetodo.dump_phases(latest_phases([_result(A), _result(B, error=True)])) == A

    def test_other_tools_and_custom_types_are_ignored(self) -> None:
        """Only todo_write results and user-edit entries carry the list."""
        entries = [
            _result(A),
            _result(B, tool="bash"),
            {"type": "custom", "customType": "something-else", "data": {"phases": B}},
        ]
        assert phasetodo.dump_phases(latest_phases(entries)) == A

    def test_malformed_entries_are_tolerated(self) -> None:
        """Broken entries are passed over; the newest good one still counts."""
        entries = [
            _result(A),
            None,
            "text",
            {"type": "message"},
            {"type": "message", "message": {"role": "toolResult", "toolName": "todo_write"}},
            {"type": "custom", "customType": USER_TODO_EDIT, "data": {"phases": "nope"}},
            {"type": "custom", "customType": USER_TODO_EDIT, "data": None},
            _result([{"name": "X", "tasks": [{"content": "t", "status": "weird"}]}]),
        ]
        assert phasetodo.dump_phases(latest_phases(entries)) == A

    def test_no_todo_entry_gives_an_empty_list(self) -> None:
        """Without any todo entry the list is empty, as in the reference."""
        assert latest_phases([_user("hi")]) == ()

    @given(lists=st.lists(testing.phases(max_size=3, max_tasks=3), min_size=1, max_size=5),
           kinds=st.lists(st.booleans(), min_size=5, max_size=5))
    def test_the_last_recorded_list_comes_back(
        self, lists: list[tuple[phasetodo.Phase, ...]], kinds: list[bool]
    ) -> None:
        """Whatever mix of results and edits, the last one recorded is rebuilt exactly."""
        entries = [
            _result(phasetodo.dump_phases(p)) if edit else user_edit_entry(p)
            for p, edit in zip(lists, kinds, strict=False)
        ]
        assert latest_phases(entries) == lists[-1]


class TestConversation:
    def test_todo_state_never_becomes_a_message(self) -> None:
        """conversation_entries drops user-edit entries and keeps everything else."""
        entries = [_user("hi"), user_edit_entry(A), _result(A)]
        assert is_todo_state_entry(entries[1])
        assert conversation_entries(entries) == [entries[0], entries[2]]

    def test_a_session_edit_rebuilds_from_a_transcript(self) -> None:
        """A host migrating a transcript into a session gets the same list."""
        session = phasetodo.Session.open("s", phasetodo.MemoryStore())
        session.user_edit(latest_phases([_result(A), user_edit_entry(B)]), source="transcript")
        assert phasetodo.dump_phases(session.phases) == B
