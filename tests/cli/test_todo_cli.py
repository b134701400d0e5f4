"""The command on a ``todo`` plan: ``view``, ``block``, ``unblock`` and a person's drop and rm.

The command runs in this process (``phasetodo.cli.main``) on a JSONL store in a scratch directory.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import todo
from phasetodo.cli import main

from ..budget import examples
from ..todo.test_todo_properties import calls

#: Runs the command on one store and returns (exit status, stdout, stderr).
Run = Callable[..., tuple[int, str, str]]

INIT = {"op": "init", "list": [{"phase": "Ship", "items": ["Build the wheel", "Upload it", "Announce"]}]}


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    """A store whose default session is a todo plan of three tasks."""
    store = phasetodo.JsonlStore(tmp_path / "plan")
    with phasetodo.Session.open("default", store, profile="todo") as session:
        session.todo_write(INIT)
    store.close()
    return tmp_path / "plan"


@pytest.fixture
def run(plan: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*words: str) -> tuple[int, str, str]:
        status = main(["--store", str(plan), "--plain", *words])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def _view(run: Run) -> dict[str, Any]:
    status, out, _ = run("--json", "view")
    assert status == 0
    data: dict[str, Any] = json.loads(out)
    return data


class TestView:
    def test_view_is_the_tools_view(self, run: Run) -> None:
        """view prints the todo tool's view text, and --json the list as the tool writes it."""
        expected = todo.apply({"op": "view"}, todo.apply(INIT)["details"]["phases"], storage="session")
        status, out, _ = run("view")
        assert status == 0
        assert out == expected["content"][0]["text"] + "\n"
        data = _view(run)
        assert data["phases"] == expected["details"]["phases"]
        assert data["storage"] == "session"


class TestBlock:
    def test_block_and_unblock(self, run: Run) -> None:
        """block TASK --reason gives the task a blocker (the tool's JSON); unblock makes it pending."""
        status, out, _ = run("block", "upload", "--reason", "waiting for\nthe token")
        assert status == 0
        assert '~ "Upload it" pending → blocked (Ship)' in out
        assert "blocked: waiting for the token" in out
        task = _view(run)["phases"][0]["tasks"][1]
        assert task == {"content": "Upload it", "status": "blocked", "blocker": "waiting for the token"}
        assert "(blocked: waiting for the token)" in run("view")[1]
        assert run("unblock", "upload")[0] == 0
        assert _view(run)["phases"][0]["tasks"][1] == {"content": "Upload it", "status": "pending"}

    def test_blocking_the_active_task_hands_progress_on(self, run: Run) -> None:
        """Blocking the task in progress starts the next one, as the tool's block does."""
        run("block", "Build the wheel")
        tasks = _view(run)["phases"][0]["tasks"]
        assert [t["status"] for t in tasks] == ["blocked", "in_progress", "pending"]

    def test_a_closed_task_is_left_as_it_is(self, run: Run) -> None:
        """Blocking a completed task changes nothing (the tool skips closed work)."""
        run("done", "Announce")
        before = _view(run)
        assert run("block", "Announce")[0] == 0
        assert _view(run) == before


class TestPersonsEdits:
    def test_a_persons_drop_settles(self, run: Run) -> None:
        """drop on a todo plan is a person's cancel: droppedBy "user"."""
        assert run("drop", "announce")[0] == 0
        task = _view(run)["phases"][0]["tasks"][2]
        assert task == {"content": "Announce", "status": "abandoned", "droppedBy": "user"}

    def test_a_persons_rm_removes_the_task(self, run: Run) -> None:
        """rm on a todo plan takes the task out, where the model's rm abandons it."""
        assert run("rm", "announce")[0] == 0
        assert [t["content"] for t in _view(run)["phases"][0]["tasks"]] == ["Build the wheel", "Upload it"]

    def test_edits_are_user_edits_in_the_history_and_undo_restores(self, run: Run) -> None:
        """Each verb is one user edit in the log; undo gives the list before it back."""
        before = _view(run)
        run("block", "upload", "--reason", "token")
        assert "user_edit (block)" in run("history")[1]
        assert run("undo")[0] == 0
        assert _view(run)["phases"] == before["phases"]


class TestMcpFlags:
    def test_tool_todo_with_another_profile_is_refused(self, run: Run) -> None:
        """--tool todo runs the todo profile: another --profile beside it is a usage error."""
        status, _, err = run("mcp", "--tool", "todo", "--profile", "strict")
        assert status == 2
        assert "--tool todo runs the todo profile" in err


def _apply(folder: str, params: Any) -> tuple[int, Any]:
    """``phasetodo --json apply --profile todo PARAMS`` in this process: its status and JSON."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = main(["--store", folder, "--json", "apply", "--profile", "todo", json.dumps(params)])
    return status, json.loads(printed.getvalue())


class TestApplyAgreesWithTodo:
    @settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_each_call_prints_what_apply_gives(self, data: st.DataObject) -> None:
        """Over generated single-op calls, ``apply --json`` prints apply's result; an error exits 1."""
        phases: list[dict[str, Any]] = []
        with tempfile.TemporaryDirectory() as folder:
            for _ in range(data.draw(st.integers(1, 5))):
                params = data.draw(calls(phases))
                expected = todo.apply(params, phases, storage="session")
                status, printed = _apply(folder, params)
                assert printed == expected
                assert status == (1 if expected.get("isError") else 0)
                phases = expected["details"]["phases"]


class TestUnknownKeys:
    def test_a_misspelled_key_is_refused_on_a_todo_plan(self, run: Run) -> None:
        """apply on a todo plan refuses a key the todo tool does not take (done with "taks" would
        finish the whole list), naming it and the keys it takes; nothing is applied."""
        before = _view(run)["phases"]
        status, _, err = run("apply", json.dumps({"op": "done", "taks": "Upload it"}))
        assert status == 2
        assert "taks: the todo tool takes no key 'taks'; it takes items, list, op, phase, reason, task" in err
        assert _view(run)["phases"] == before

    def test_the_flag_keeps_the_references_reading(self, run: Run) -> None:
        """--allow-unknown-keys passes the call on as the reference reads it: a done with no
        target completes the whole list."""
        status, _, _ = run("apply", "--allow-unknown-keys", json.dumps({"op": "done", "taks": "Upload it"}))
        assert status == 0
        assert [t["status"] for t in _view(run)["phases"][0]["tasks"]] == ["completed"] * 3
