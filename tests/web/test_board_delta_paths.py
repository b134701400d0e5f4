"""What the board sends a page that shows an older list (``Board.plan_delta``): changed tasks by
place, a new or reshaped phase whole, and nothing (the whole plan instead) when it cannot."""

from __future__ import annotations

import json
from typing import Any

import pytest

import phasetodo
from phasetodo.web import Board

LIST = [{"phase": "A", "items": ["a", "b"]}, {"phase": "B", "items": ["c"]}]
PLAN = {"ops": [{"op": "init", "list": LIST}]}
Plan = tuple[phasetodo.Session, Board]


@pytest.fixture
def plan() -> Plan:
    """Session ``p`` (A: a b; B: c) in a memory store, and a board over that store."""
    store = phasetodo.MemoryStore()
    session = phasetodo.Session.open("p", store)
    session.todo_write(PLAN)
    return session, Board(store)


def _changes(board: Board, since: str) -> list[dict[str, Any]]:
    found = board.plan_delta("p", since)
    assert found is not None
    head, text = found
    delta = json.loads(text)
    assert (delta["head"], delta["since"]) == (head, since)
    return delta["changes"]  # type: ignore[no-any-return]


class TestDeltas:
    def test_changed_tasks_are_sent_by_place(self, plan: Plan) -> None:
        """A done changes two tasks of phase 0: only those are sent, by index."""
        session, board = plan
        since = board.plan("p")["head"]
        session.todo_write({"ops": [{"op": "done", "task": "a"}]})
        a, b = {"content": "a", "status": "completed"}, {"content": "b", "status": "in_progress"}
        assert _changes(board, since) == [{"at": 0, "tasks": [[0, a], [1, b]]}]

    def test_a_new_phase_is_sent_whole(self, plan: Plan) -> None:
        """An appended phase comes as the phase at its place."""
        session, board = plan
        since = board.plan("p")["head"]
        session.todo_write({"ops": [{"op": "append", "phase": "C", "items": ["d"]}]})
        phase = {"name": "C", "tasks": [{"content": "d", "status": "pending"}]}
        assert _changes(board, since) == [{"at": 2, "phase": phase}]

    def test_a_phase_that_grew_is_sent_whole(self, plan: Plan) -> None:
        """A phase with another number of tasks is replaced whole."""
        session, board = plan
        since = board.plan("p")["head"]
        session.todo_write({"ops": [{"op": "append", "phase": "B", "items": ["e"]}]})
        (change,) = _changes(board, since)
        assert change["at"] == 1
        assert [t["content"] for t in change["phase"]["tasks"]] == ["c", "e"]

    def test_a_phase_rebuilt_equal_is_not_sent(self, plan: Plan) -> None:
        """A person's whole-list edit that leaves phase A as it was sends only what changed in B."""
        session, board = plan
        since = board.plan("p")["head"]
        edited = phasetodo.dump_phases(session.phases)
        edited[1]["tasks"][0]["content"] = "c2"
        session.user_edit(edited, source="board")
        assert _changes(board, since) == [{"at": 1, "tasks": [[0, {"content": "c2", "status": "pending"}]]}]


class TestTheWholePlanInstead:
    def test_nothing_newer_sends_nothing(self, plan: Plan) -> None:
        """A page already on the newest list gets no delta."""
        _, board = plan
        assert board.plan_delta("p", board.plan("p")["head"]) is None

    def test_a_list_the_board_never_held_gets_the_whole_plan(self, plan: Plan) -> None:
        """A head id the board does not know gets None: the page is sent the whole plan."""
        _, board = plan
        assert board.plan_delta("p", "1-0000000000000000") is None

    def test_a_change_of_most_of_the_list_gets_the_whole_plan(self, plan: Plan) -> None:
        """A new list of a hundred tasks is cheaper sent whole than as changes."""
        session, board = plan
        since = board.plan("p")["head"]
        items = [f"x{i}" for i in range(100)]
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "Z", "items": items}]}]})
        assert board.plan_delta("p", since) is None
