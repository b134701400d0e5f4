"""What a newcomer tripped on at the command (issue 35, item 6): a lease on a plan that is not
a team plan, team ops on such a plan, and ``show`` before there is any plan.

The command runs in this process (``phasetodo.cli.main``) on JSONL stores in scratch folders.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import phasetodo
from phasetodo.cli import main

#: Runs the command and returns (exit status, stdout, stderr).
Run = Callable[..., tuple[int, str, str]]

PLAN = {"ops": [{"op": "init", "list": [{"phase": "Build", "items": ["Parser", "Lexer"]}]}]}


@pytest.fixture
def solo(tmp_path: Path) -> Path:
    """A store whose default session is a parity plan of two tasks."""
    store = phasetodo.JsonlStore(tmp_path / "solo")
    try:
        with phasetodo.Session.open("default", store) as session:
            session.todo_write(PLAN)
    finally:
        store.close()
    return tmp_path / "solo"


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*words: str) -> tuple[int, str, str]:
        status = main(["--plain", *words])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def _log(folder: Path) -> str:
    return (folder / "default.jsonl").read_text(encoding="utf-8")


class TestLeaseNeedsATeamPlan:
    def test_apply_with_a_lease_on_a_parity_plan(self, solo: Path, run: Run) -> None:
        """apply --lease on a parity plan exits 2 naming the plan's profile and the team profile."""
        before = _log(solo)
        start = '{"ops":[{"op":"start","task":"Lexer"}]}'
        status, out, err = run("--store", str(solo), "apply", "--lease", "60", start)
        assert (status, out) == (2, "")
        assert "lease: session 'default' is a parity plan" in err
        assert "--profile team" in err
        assert _log(solo) == before

    def test_mcp_with_a_lease_on_a_parity_plan(self, solo: Path, run: Run) -> None:
        """mcp --lease on a parity plan is refused before the server starts, naming the profile."""
        status, _, err = run("--store", str(solo), "mcp", "--lease", "60")
        assert status == 2
        assert "is a parity plan" in err


class TestTeamOpsOnAParityPlan:
    def test_block_through_apply(self, solo: Path, run: Run) -> None:
        """A block op applied to a parity plan says block is a team op and how to start a team plan."""
        block = '{"ops":[{"op":"block","task":"Lexer","reason":"x"}]}'
        status, _, err = run("--store", str(solo), "apply", block)
        assert status == 2
        assert "block: an op of team plans, and session 'default' is a parity plan" in err
        assert "apply --profile team" in err

    def test_no_hint_for_a_plain_bad_op(self, solo: Path, run: Run) -> None:
        """An op no profile has gets the schema's error alone, no team hint."""
        status, _, err = run("--store", str(solo), "apply", '{"ops":[{"op":"finish","task":"Lexer"}]}')
        assert status == 2
        assert "ops[0].op: must be one of" in err
        assert "team" not in err

    def test_the_block_verb(self, solo: Path, run: Run) -> None:
        """The block verb on a parity plan names the plans that have it and how they are made."""
        status, _, err = run("--store", str(solo), "block", "Lexer")
        assert status == 2
        assert "has no blocked status" in err
        assert "--profile team" in err


class TestBeforeAnyPlan:
    def test_show_in_a_fresh_folder(self, tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
        """show where no plan was ever made says there is none and how to start one (exit 1)."""
        monkeypatch.delenv("PHASETODO_HOME", raising=False)
        monkeypatch.chdir(tmp_path)
        status, out, err = run("show")
        assert (status, out) == (1, "")
        assert "nothing to read; start a plan with `phasetodo append PHASE TASK" in err

    def test_show_in_an_empty_store(self, tmp_path: Path, run: Run) -> None:
        """show on a store without sessions (a fresh `git init`) says how to start a plan."""
        (tmp_path / "empty").mkdir()
        status, _, err = run("--store", str(tmp_path / "empty"), "show")
        assert status == 1
        assert "the store has no sessions yet; start a plan with `phasetodo append PHASE TASK" in err

    def test_the_hint_works(self, tmp_path: Path, run: Run) -> None:
        """The command the hint gives starts a plan that show then shows."""
        store = str(tmp_path / "new")
        assert run("--store", store, "append", "Build", "Parser")[0] == 0
        status, out, _ = run("--store", store, "show")
        assert status == 0
        assert "Parser" in out
