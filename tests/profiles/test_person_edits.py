"""A person's edits mean the same in the command, on the board and in the library (phasetodo.person)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

import phasetodo
from phasetodo import person
from phasetodo.web import Board, create_app

from ..web_support import TOKEN, init

BASE = "http://127.0.0.1:8765"
WRITE = {"origin": BASE, "x-phasetodo-token": TOKEN, "sec-fetch-site": "same-origin"}

Plan = Callable[[phasetodo.Store], None]


def _solo(store: phasetodo.Store) -> None:
    """Session ``s``: one phase of three tasks, the first one active."""
    with phasetodo.Session.open("s", store, resume="keep") as session:
        session.todo_write(init({"Work": ["one", "two", "three"]}))
        session.todo_write({"ops": [{"op": "start", "task": "one"}]})


def _crew(store: phasetodo.Store) -> None:
    """Session ``s``: a team plan made by its lead; no task has an owner yet."""
    with phasetodo.Session.open("s", store, profile="team", agent="lead") as lead:
        lead.todo_write(init({"Work": ["x", "y", "z"]}))


def _plan(tmp_path: Path, name: str, make: Plan) -> Path:
    folder = tmp_path / name
    store = phasetodo.JsonlStore(folder)
    make(store)
    store.close()
    return folder


def _command(folder: Path, *words: str) -> subprocess.CompletedProcess[str]:
    """The real command, in a child process, on the JSONL store in ``folder``."""
    env = {k: v for k, v in os.environ.items() if k != "PHASETODO_HOME"}
    return subprocess.run(
        [sys.executable, "-m", "phasetodo", "--store", str(folder), "--session", "s", *words],
        capture_output=True, text=True, timeout=120, env=env,
    )


def _board(folder: Path, body: dict[str, Any]) -> int:
    """One edit through the board's HTTP API; its status code."""
    store = phasetodo.JsonlStore(folder)
    try:
        with TestClient(create_app(Board(store), token=TOKEN), base_url=BASE) as client:
            version = client.get("/api/sessions/s").json()["version"]
            response = client.post(
                "/api/sessions/s/edit", json={"expected_version": version, **body}, headers=WRITE
            )
            return response.status_code
    finally:
        store.close()


def _phases(folder: Path) -> list[dict[str, Any]]:
    store = phasetodo.JsonlStore(folder)
    try:
        with phasetodo.Session.open("s", store, resume="keep") as session:
            return phasetodo.dump_phases(session.phases)
    finally:
        store.close()


class TestSameEverywhere:
    def test_done_on_the_active_task_gives_the_same_list(self, tmp_path: Path) -> None:
        """Done on the active task gives one list from the command and the board: the next one starts."""
        by_command, by_board = _plan(tmp_path, "a", _solo), _plan(tmp_path, "b", _solo)
        assert _command(by_command, "done", "one").returncode == 0
        assert _board(by_board, {"action": "status", "phase": 0, "task": 0, "status": "completed"}) == 200
        assert _phases(by_command) == _phases(by_board)
        assert [t["status"] for t in _phases(by_board)[0]["tasks"]] == ["completed", "in_progress", "pending"]

    def test_start_on_a_team_plan_without_an_agent_is_refused_by_both(self, tmp_path: Path) -> None:
        """No owner, no claim: the command and the board both refuse, and nothing changes."""
        by_command, by_board = _plan(tmp_path, "a", _crew), _plan(tmp_path, "b", _crew)
        before = _phases(by_command)
        done = _command(by_command, "start", "y")
        assert done.returncode == 1
        assert "a person does not claim tasks" in done.stderr
        assert _board(by_board, {"action": "status", "phase": 0, "task": 1, "status": "in_progress"}) == 400
        assert _phases(by_command) == _phases(by_board) == before

    def test_start_on_a_team_plan_for_an_agent_gives_the_same_list(self, tmp_path: Path) -> None:
        """A start for a named agent claims the task for it, from either side."""
        by_command, by_board = _plan(tmp_path, "a", _crew), _plan(tmp_path, "b", _crew)
        assert _command(by_command, "start", "--agent", "w2", "y").returncode == 0
        body = {"action": "status", "phase": 0, "task": 1, "status": "in_progress", "agent": "w2"}
        assert _board(by_board, body) == 200
        assert _phases(by_command) == _phases(by_board)
        claimed = {"content": "y", "status": "in_progress", "owner": "w2", "id": "t2"}
        assert _phases(by_board)[0]["tasks"][1] == claimed


class TestLibrary:
    def test_done_starts_the_next_task(self, tmp_path: Path) -> None:
        """apply_edit runs the engine's done: the next pending task becomes active, as one user_edit."""
        store = phasetodo.MemoryStore()
        _solo(store)
        with phasetodo.Session.open("s", store, resume="keep") as session:
            outcome = person.apply_edit(session, person.status_ops("completed", "one"), source="library")
            assert outcome.changed
            statuses = [t.status.value for t in session.phases[0].tasks]
            assert statuses == ["completed", "in_progress", "pending"]
            assert [e.kind for e in session.events()][-1] == "user_edit"

    def test_a_team_start_needs_an_agent(self) -> None:
        """On a team plan with no owner yet, a start without an agent is refused and records nothing."""
        store = phasetodo.MemoryStore()
        _crew(store)
        with phasetodo.Session.open("s", store, resume="keep") as session:
            version = session.version
            outcome = person.apply_edit(session, person.status_ops("in_progress", "y"), source="library")
            assert not outcome.changed
            assert any("a person does not claim tasks" in e for e in outcome.errors)
            assert session.version == version

    def test_pending_is_a_direct_reset(self) -> None:
        """Putting a task back to pending clears its owner and records one user_edit."""
        store = phasetodo.MemoryStore()
        _crew(store)
        with phasetodo.Session.open("s", store, resume="keep") as session:
            person.apply_edit(session, person.status_ops("in_progress", "y"), source="t", agent="w1")
            outcome = person.reset_to_pending(session, "y", source="t")
            assert outcome.changed
            assert session.phases[0].tasks[1].owner is None
            assert session.phases[0].tasks[1].status is phasetodo.Status.PENDING

    def test_a_strict_plan_is_edited_all_or_nothing(self) -> None:
        """A person's edit runs in the plan's own profile: on a strict plan one failing op
        keeps every op from applying, and nothing is recorded."""
        store = phasetodo.MemoryStore()
        with phasetodo.Session.open("s", store, profile="strict") as session:
            session.todo_write(init({"Work": ["one", "two"]}))
        with phasetodo.Session.open("s", store, resume="keep") as session:
            version = session.version
            ops = [*person.status_ops("completed", "one"), *person.status_ops("completed", "nope")]
            outcome = person.apply_edit(session, ops, source="library")
            assert not outcome.changed
            assert outcome.errors
            assert session.version == version
            assert [t.status.value for t in session.phases[0].tasks] == ["in_progress", "pending"]

    def test_a_parity_plan_applies_what_it_can(self) -> None:
        """On a parity plan the same edit applies the op that can and lists the other's error."""
        store = phasetodo.MemoryStore()
        _solo(store)
        with phasetodo.Session.open("s", store, resume="keep") as session:
            ops = [*person.status_ops("completed", "one"), *person.status_ops("completed", "nope")]
            outcome = person.apply_edit(session, ops, source="library")
            assert outcome.changed
            assert outcome.errors == ('Task "nope" not found',)
