"""Status verbs as a team agent (``--agent``), and ``start`` without a target, run in this process
through ``phasetodo.cli.main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import phasetodo

from ._inprocess import run_main as _run


@pytest.fixture
def store(tmp_path: Path) -> str:
    """A JSONL store: the team plan ``team`` (A: a, b) made by ``lead``; the parity plan ``default``."""
    folder = tmp_path / "store"
    store = phasetodo.JsonlStore(folder)
    with phasetodo.Session.open("team", store, profile="team", agent="lead") as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a", "b"]}]}]})
    with phasetodo.Session.open("default", store) as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a"]}]}]})
    store.close()
    return str(folder)


class TestAsAnAgent:
    def test_start_with_json_claims_the_next_ready_task(
        self, capsys: pytest.CaptureFixture[str], store: str
    ) -> None:
        """``--json start --agent w1`` prints the team call's result as JSON: w1 is on t1."""
        team = ["--store", store, "--session", "team"]
        status, out, _ = _run(capsys, *team, "--json", "start", "--agent", "w1")
        assert status == 0
        result = json.loads(out)
        assert result["content"][0]["text"].startswith('You (w1) are on t1 "a" (A).')
        assert result["details"]["phases"][0]["tasks"][0]["owner"] == "w1"

    def test_another_agents_task_is_refused_with_exit_1(
        self, capsys: pytest.CaptureFixture[str], store: str
    ) -> None:
        """w2 closing the task w1 holds: the team error, exit 1, and the plan unchanged."""
        team = ["--store", store, "--session", "team"]
        assert _run(capsys, *team, "start", "--agent", "w1")[0] == 0
        status, out, _ = _run(capsys, *team, "done", "--agent", "w2", "a")
        assert status == 1
        first, second = out.splitlines()[:2]
        assert first == "Errors — nothing was applied, the plan is unchanged:"
        assert second.startswith('- Task "a" belongs to agent "w1": only it or the lead ("lead") may')


class TestStart:
    def test_start_without_a_target_asks_for_one(
        self, capsys: pytest.CaptureFixture[str], store: str
    ) -> None:
        """On a plan of one's own, ``start`` alone is refused: name the TASK (or a PHASE)."""
        assert _run(capsys, "--store", store, "start") == (
            2,
            "",
            "phasetodo: start: name the TASK to start (or a PHASE to start its first open task)\n",
        )
