"""``block`` and ``unblock``: a person's edits of a team plan, meaning what the board's do.

The command runs in this process (``phasetodo.cli.main``) on a JSONL store in a scratch
directory; the board through its HTTP API on a twin store.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo.cli import main

#: Runs the command on one store and returns (exit status, stdout, stderr).
Run = Callable[..., tuple[int, str, str]]

PLAN = {
    "ops": [
        {"op": "init", "list": [{"phase": "Ship", "items": ["Build the wheel", "Upload it", "Announce"]}]}
    ]
}


def _team(folder: Path) -> None:
    """Session ``default`` of the store in ``folder``: a team plan made by its lead."""
    store = phasetodo.JsonlStore(folder)
    try:
        with phasetodo.Session.open("default", store, profile="team", agent="lead") as lead:
            lead.todo_write(PLAN)
    finally:
        store.close()


def _tasks(folder: Path) -> list[dict[str, Any]]:
    store = phasetodo.JsonlStore(folder)
    try:
        with phasetodo.Session.open("default", store, resume="keep") as session:
            return phasetodo.dump_phases(session.phases)[0]["tasks"]
    finally:
        store.close()


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    """A store whose default session is a team plan of three pending tasks."""
    _team(tmp_path / "plan")
    return tmp_path / "plan"


@pytest.fixture
def run(plan: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*words: str, store: Path = plan) -> tuple[int, str, str]:
        status = main(["--store", str(store), "--plain", *words])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


class TestBlock:
    def test_block_with_a_reason(self, plan: Path, run: Run) -> None:
        """block TASK --reason TEXT blocks the matched task with that reason, as one user edit."""
        status, out, _ = run("block", "upload", "--reason", "waiting for the token")
        assert status == 0
        assert '~ "Upload it" pending → blocked (Ship)' in out
        assert "⊘ Upload it  blocked: waiting for the token" in out
        assert _tasks(plan)[1] == {
            "content": "Upload it",
            "status": "blocked",
            "reason": "waiting for the token",
            "id": "t2",
        }
        assert "user_edit (block)" in run("history")[1]

    def test_ready_shows_the_block(self, run: Run) -> None:
        """ready lists the blocked task and why."""
        run("block", "Upload it", "--reason", "no token")
        out = run("ready")[1]
        assert '⊘ t2 "Upload it" (Ship) — no token' in out
        assert "Upload it" not in out.splitlines()[0]  # not ready

    def test_json(self, run: Run) -> None:
        """--json gives the version, the change lines and the phases."""
        status, out, _ = run("--json", "block", "announce")
        assert status == 0
        data = json.loads(out)
        assert data["changes"] == ['~ "Announce" pending → blocked (Ship)']
        assert data["phases"][0]["tasks"][2]["reason"] == "blocked by a person"

    def test_a_blocked_task_can_block_again_with_a_new_reason(self, plan: Path, run: Run) -> None:
        """Blocking a blocked task replaces its reason (the engine's block)."""
        run("block", "upload", "--reason", "first")
        assert run("block", "upload", "--reason", "second")[0] == 0
        assert _tasks(plan)[1]["reason"] == "second"

    def test_a_closed_task_is_refused(self, plan: Path, run: Run) -> None:
        """A completed task cannot be blocked: exit 1, the engine's reason, nothing changed."""
        run("done", "Build the wheel")
        before = _tasks(plan)
        status, _, err = run("block", "Build the wheel")
        assert status == 1
        assert (
            'phasetodo: block: Task "Build the wheel" is completed; it cannot be blocked; nothing changed'
            in err
        )
        assert _tasks(plan) == before

    def test_needs_a_task(self, run: Run) -> None:
        """block with no TASK (or a blank one) is bad usage."""
        for words in ([], [" "]):
            status, _, err = run("block", *words)
            assert status == 2
            assert "block: name the TASK to block" in err

    def test_matches_tasks_only(self, run: Run) -> None:
        """The phase's name is not a task: block Ship finds nothing (exit 1)."""
        status, _, err = run("block", "Ship")
        assert status == 1
        assert 'block: no task matches "Ship"' in err

    def test_not_on_a_plan_without_a_blocked_status(self, tmp_path: Path, run: Run) -> None:
        """On a parity plan block and unblock exit 2, say why and change nothing."""
        solo = tmp_path / "solo"
        store = phasetodo.JsonlStore(solo)
        with phasetodo.Session.open("default", store) as session:
            session.todo_write(PLAN)
        store.close()
        for verb in ("block", "unblock"):
            status, _, err = run(verb, "upload", store=solo)
            assert status == 2
            assert f"{verb}: session 'default' has no blocked status" in err
        assert all("reason" not in task for task in _tasks(solo))

    def test_ready_on_a_plan_that_is_not_a_team_plan(self, tmp_path: Path, run: Run) -> None:
        """ready on a parity plan says it is not a team plan and how to make one (not `? → task`)."""
        solo = tmp_path / "solo"
        store = phasetodo.JsonlStore(solo)
        with phasetodo.Session.open("default", store) as session:
            session.todo_write(PLAN)
        store.close()
        status, out, err = run("ready", store=solo)
        assert (status, out) == (2, "")
        assert "ready: session 'default' is not a team plan" in err
        assert "--profile team" in err


class TestUnblock:
    def test_unblock_leaves_the_task_pending_and_unowned(self, plan: Path, run: Run) -> None:
        """unblock clears the block and its reason: the task is pending, ready again."""
        run("block", "upload", "--reason", "no token")
        status, out, _ = run("unblock", "upload")
        assert status == 0
        assert '~ "Upload it" blocked → pending (Ship)' in out
        assert _tasks(plan)[1] == {"content": "Upload it", "status": "pending", "id": "t2"}
        assert '"Upload it" (Ship)' in run("ready")[1].splitlines()[0]

    def test_unblock_an_agents_task(self, plan: Path, run: Run) -> None:
        """A task an agent held and a person blocked comes back unowned."""
        run("start", "--agent", "w1", "upload")
        run("block", "upload")
        assert _tasks(plan)[1]["owner"] == "w1"
        assert run("unblock", "upload")[0] == 0
        assert _tasks(plan)[1] == {"content": "Upload it", "status": "pending", "id": "t2"}

    def test_a_task_that_is_not_blocked(self, plan: Path, run: Run) -> None:
        """unblock on a task that is not blocked: exit 1, the reason, nothing changed."""
        before = _tasks(plan)
        status, _, err = run("unblock", "announce")
        assert status == 1
        assert 'phasetodo: unblock: Task "Announce" is not blocked; nothing changed' in err
        assert _tasks(plan) == before


BASE = "http://127.0.0.1:8765"
TOKEN = "test-token-0123456789"


def _board(folder: Path, task: int, status: str) -> None:
    """Give task ``task`` of the plan ``status`` through the board's HTTP API."""
    testclient = pytest.importorskip("starlette.testclient")
    from phasetodo.web import Board, create_app

    headers = {"origin": BASE, "x-phasetodo-token": TOKEN, "sec-fetch-site": "same-origin"}
    store = phasetodo.JsonlStore(folder)
    try:
        with testclient.TestClient(create_app(Board(store), token=TOKEN), base_url=BASE) as client:
            version = client.get("/api/sessions/default").json()["version"]
            body = {
                "expected_version": version,
                "action": "status",
                "phase": 0,
                "task": task,
                "status": status,
            }
            response = client.post("/api/sessions/default/edit", json=body, headers=headers)
            assert response.status_code == 200, response.text
    finally:
        store.close()


class TestSameAsTheBoard:
    def test_block_is_the_boards_blocked(self, tmp_path: Path, plan: Path, run: Run) -> None:
        """block with no reason gives the list the board's "blocked" gives."""
        twin = tmp_path / "twin"
        _team(twin)
        assert run("block", "upload")[0] == 0
        _board(twin, 1, "blocked")
        assert _tasks(plan) == _tasks(twin)

    def test_unblock_is_the_boards_pending(self, tmp_path: Path, plan: Path, run: Run) -> None:
        """unblock gives the list the board's "pending" gives on a blocked task an agent held."""
        twin = tmp_path / "twin"
        _team(twin)
        for folder in (plan, twin):
            run("start", "--agent", "w1", "upload", store=folder)
            run("block", "upload", "--reason", "no token", store=folder)
        assert run("unblock", "upload")[0] == 0
        _board(twin, 1, "pending")
        assert _tasks(plan) == _tasks(twin)
