"""How the command finds the target a person names: the reference ``/todo`` command's rules.

Each test runs the real command (``phasetodo.cli.main``) on a JSONL store in a scratch
directory and reads the list back through the library.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo.cli import main

#: Runs the command on the store and returns (exit status, stdout, stderr).
Run = Callable[..., tuple[int, str, str]]


def _write(store: Path, phases: list[dict[str, Any]]) -> None:
    """Put ``phases`` in session ``default`` as one agent call (done tasks marked after)."""
    items = [{"phase": p["name"], "items": [t for t, _ in p["tasks"]]} for p in phases]
    closed = [{"op": "done", "task": t} for p in phases for t, status in p["tasks"] if status == "done"]
    opened = phasetodo.JsonlStore(store)
    try:
        with phasetodo.Session.open("default", store=opened) as session:
            session.todo_write({"ops": [{"op": "init", "list": items}, *closed]})
    finally:
        opened.close()


def _statuses(store: Path) -> dict[str, str]:
    opened = phasetodo.JsonlStore(store)
    try:
        with phasetodo.Session.open("default", store=opened, resume="keep") as session:
            return {t.content: t.status.value for p in session.phases for t in p.tasks}
    finally:
        opened.close()


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def run(store: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*words: str) -> tuple[int, str, str]:
        status = main(["--store", str(store), "--plain", *words])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def _plan(*phases: tuple[str, list[str]], done: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Phases of pending tasks, those in ``done`` completed."""
    return [
        {"name": name, "tasks": [(t, "done" if t in done else "pending") for t in tasks]}
        for name, tasks in phases
    ]


class TestTasksBeforePhases:
    def test_a_task_holding_the_query_beats_a_phase_of_that_name(self, store: Path, run: Run) -> None:
        """done auth, with a phase "Auth" holding "Fix auth bug", completes only that task."""
        _write(store, _plan(("Auth", ["Fix auth bug", "Write the login page"]), ("Ship", ["Tag it"])))
        status, out, _ = run("done", "auth")
        assert status == 0
        assert '~ "Fix auth bug" in_progress → completed (Auth)' in out
        assert _statuses(store) == {
            "Fix auth bug": "completed",
            "Write the login page": "in_progress",
            "Tag it": "pending",
        }

    def test_phase_option_still_reaches_the_phase(self, store: Path, run: Run) -> None:
        """done --phase auth completes the whole phase "Auth"."""
        _write(store, _plan(("Auth", ["Fix auth bug", "Write the login page"]), ("Ship", ["Tag it"])))
        assert run("done", "--phase", "auth")[0] == 0
        statuses = _statuses(store)
        assert statuses["Fix auth bug"] == statuses["Write the login page"] == "completed"

    def test_rm_removes_the_task_not_the_phase(self, store: Path, run: Run) -> None:
        """rm follows the same order: the task goes, the phase and its other task stay."""
        _write(store, _plan(("Auth", ["Fix auth bug", "Write the login page"])))
        assert run("rm", "auth")[0] == 0
        assert _statuses(store) == {"Write the login page": "in_progress"}

    def test_a_phase_is_chosen_when_no_task_holds_the_query(self, store: Path, run: Run) -> None:
        """With no task holding the words, the phase of that name is the target."""
        _write(store, _plan(("Auth", ["Fix the login bug"]), ("Ship", ["Tag it"])))
        assert run("done", "AUTH")[0] == 0
        assert _statuses(store)["Fix the login bug"] == "completed"

    def test_several_tasks_then_a_unique_phase(self, store: Path, run: Run) -> None:
        """Tasks that tie leave the choice to the phases, as in the reference: the phase "Tests" wins."""
        _write(store, _plan(("Tests", ["Run test A", "Run test B"]), ("Ship", ["Tag the test build"])))
        assert run("done", "test")[0] == 0
        statuses = _statuses(store)
        assert statuses["Run test A"] == statuses["Run test B"] == "completed"
        assert statuses["Tag the test build"] != "completed"


class TestOpenWins:
    def test_one_open_match_wins_over_closed_ones(self, store: Path, run: Run) -> None:
        """done "run test" with "Run test A" completed and "Run test B" open completes B."""
        _write(store, _plan(("Check", ["Run test A", "Run test B"]), done=("Run test A",)))
        status, out, _ = run("done", "run test")
        assert status == 0
        assert '~ "Run test B"' in out
        assert _statuses(store) == {"Run test A": "completed", "Run test B": "completed"}

    def test_start_uses_the_same_rule(self, store: Path, run: Run) -> None:
        """start picks the one open task among the matches too."""
        _write(store, _plan(("Check", ["Run test A", "Run test B", "Lint"]), done=("Run test A",)))
        assert run("start", "run", "test")[0] == 0
        assert _statuses(store)["Run test B"] == "in_progress"

    def test_several_open_matches_are_listed(self, store: Path, run: Run) -> None:
        """Two open matches are ambiguous: both listed (the closed one not), nothing changes, exit 1."""
        _write(store, _plan(("Check", ["Run test A", "Run test B", "Run test C"]), done=("Run test A",)))
        before = _statuses(store)
        status, _, err = run("done", "run test")
        assert status == 1
        assert '"run test" matches 2 targets' in err
        assert 'task "Run test B"' in err
        assert 'task "Run test C"' in err
        assert "Run test A" not in err
        assert _statuses(store) == before

    def test_only_closed_matches_are_ambiguous(self, store: Path, run: Run) -> None:
        """When every match is closed no open one can win: all are listed."""
        _write(
            store, _plan(("Check", ["Run test A", "Run test B", "Lint"]), done=("Run test A", "Run test B"))
        )
        status, _, err = run("drop", "run test")
        assert status == 1
        assert '"run test" matches 2 targets' in err

    def test_exact_text_beats_a_longer_open_match(self, store: Path, run: Run) -> None:
        """A task whose text is the query (any case) wins over tasks that merely hold it."""
        _write(store, _plan(("Ship", ["Deploy", "Deploy the docs"]), done=("Deploy",)))
        assert run("drop", "deploy")[0] == 0
        assert _statuses(store) == {"Deploy": "abandoned", "Deploy the docs": "in_progress"}


class TestPhasePrefix:
    def test_a_unique_prefix_wins(self, store: Path, run: Run) -> None:
        """done buil, with phases "Build" and "Rebuild", completes "Build"."""
        _write(store, _plan(("Build", ["Compile"]), ("Rebuild", ["Recompile"])))
        assert run("done", "buil")[0] == 0
        assert _statuses(store) == {"Compile": "completed", "Recompile": "in_progress"}

    def test_two_prefixes_are_ambiguous(self, store: Path, run: Run) -> None:
        """Two phases starting with the words are both listed; nothing changes."""
        _write(store, _plan(("Build", ["Compile"]), ("Builder", ["Assemble"])))
        before = _statuses(store)
        status, _, err = run("done", "buil")
        assert status == 1
        assert 'phase "Build"' in err
        assert 'phase "Builder"' in err
        assert _statuses(store) == before

    def test_a_unique_substring_when_no_prefix(self, store: Path, run: Run) -> None:
        """With no phase starting with the words, the one phase holding them is chosen."""
        _write(store, _plan(("Build", ["Compile"]), ("Ship it", ["Tag"])))
        assert run("done", "hip")[0] == 0
        assert _statuses(store)["Tag"] == "completed"

    def test_a_miss_still_suggests(self, store: Path, run: Run) -> None:
        """Nothing matching exits 1 with the closest task suggested."""
        _write(store, _plan(("Fix", ["Patch the tokenizer"])))
        status, _, err = run("done", "tokenzier")
        assert status == 1
        assert 'no task or phase matches "tokenzier"; did you mean "Patch the tokenizer"?' in err
