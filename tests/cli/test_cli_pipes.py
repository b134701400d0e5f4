"""The command on a closed pipe: every verb ends quietly, and what it changed stays changed."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import phasetodo
from phasetodo.cli import CLOSED_PIPE

VERBS = [
    ["show"],
    ["show", "--json"],
    ["append", "Later", "c"],
    ["done", "a"],
    ["start", "b"],
    ["drop", "b"],
    ["undo"],
    ["history"],
    ["export"],
    ["demo"],
]


def _closed_pipe_run(cwd: Path, words: list[str]) -> subprocess.CompletedProcess[bytes]:
    """The command with its stdout on a pipe whose reader is already gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        env = {k: v for k, v in os.environ.items() if k != "PHASETODO_HOME"}
        return subprocess.run(
            [sys.executable, "-m", "phasetodo", *words],
            cwd=cwd, stdout=write, stderr=subprocess.PIPE, timeout=120, env=env, check=False,
        )
    finally:
        os.close(write)


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    """A working directory whose default store holds session ``default`` with tasks a and b."""
    store = phasetodo.JsonlStore(tmp_path / ".phasetodo")
    with phasetodo.Session.open("default", store, resume="keep") as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "Now", "items": ["a", "b"]}]}]})
    store.close()
    return tmp_path


class TestClosedPipe:
    @pytest.mark.parametrize("words", VERBS, ids=" ".join)
    def test_every_verb_exits_quietly(self, plan: Path, words: list[str]) -> None:
        """No traceback and no 'Exception ignored': the status says the reader went away."""
        done = _closed_pipe_run(plan, words)
        assert done.stderr.decode() == ""
        assert done.returncode == CLOSED_PIPE

    def test_ready_on_a_team_plan_exits_quietly(self, tmp_path: Path) -> None:
        """ready (a team plan's verb) says nothing either when its reader went away."""
        store = phasetodo.JsonlStore(tmp_path / ".phasetodo")
        with phasetodo.Session.open("default", store, profile="team", agent="lead") as session:
            session.todo_write({"ops": [{"op": "init", "list": [{"phase": "Now", "items": ["a", "b"]}]}]})
        store.close()
        done = _closed_pipe_run(tmp_path, ["ready"])
        assert done.stderr.decode() == ""
        assert done.returncode == CLOSED_PIPE

    def test_a_write_still_lands(self, plan: Path) -> None:
        """done on a closed pipe completes the task all the same."""
        _closed_pipe_run(plan, ["done", "a"])
        store = phasetodo.JsonlStore(plan / ".phasetodo")
        with phasetodo.Session.open("default", store, resume="keep") as session:
            assert session.phases[0].tasks[0].status is phasetodo.Status.COMPLETED
        store.close()


def test_the_escaping_stream_does_not_fail_after_its_stream_closed() -> None:
    """Flushing (as happens when the wrapper is collected) after the stream under it closed is quiet."""
    from phasetodo.cli._context import SafeOut

    under = io.StringIO()
    out = SafeOut(under)
    out.write("a\x1bb\n")
    assert under.getvalue() == "a\\x1bb\n"
    under.close()
    out.flush()
