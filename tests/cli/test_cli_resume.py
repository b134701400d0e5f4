"""A stripped resume as people see it: ``phasetodo history`` and the board (issue 23, item 4).

The trial's case: a plan of three tasks, two done ("2 of 3 done" on the board), reopened by
the agent with the default policy (``resume="strip"``), which then adds a note. The removal
is the resume's own ``clear`` event, so neither the history nor the board's counts blame the
agent's write for it. Each test runs the real command (``phasetodo.cli.main``) and the real
board on a JSONL store in a scratch directory.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import phasetodo
from phasetodo.cli import main

_INIT = {
    "ops": [
        {"op": "init", "list": [{"phase": "Fix", "items": ["Read", "Find", "Patch"]}]},
        {"op": "done", "task": "Read"},
        {"op": "done", "task": "Find"},
    ]
}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store whose session ``default`` went through the trial's resume."""
    path = tmp_path / "store"
    opened = phasetodo.JsonlStore(path)
    try:
        with phasetodo.Session.open("default", store=opened) as session:
            session.todo_write(_INIT)
        with phasetodo.Session.open("default", store=opened) as session:  # the default policy
            session.todo_write({"ops": [{"op": "note", "task": "Patch", "text": "tabs"}]})
    finally:
        opened.close()
    return path


class TestHistory:
    def test_the_strip_is_the_resumes_line(self, store: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """history shows the removal as clear (resume) [-2 tasks] and the agent's write as its note."""
        assert main(["--store", str(store), "--plain", "history"]) == 0
        lines = [re.sub(r"\S+T\S+\+00:00", "TIME", line) for line in capsys.readouterr().out.splitlines()]
        assert lines == [
            "   1  TIME  write               3 tasks, 1 open  [+1 phase, +3 tasks]",
            "   2  TIME  clear (resume)      1 task, 1 open  [-2 tasks]",
            "   3  TIME  write               1 task, 1 open  [+1 note]",
        ]

    def test_json_names_the_source(self, store: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """history --json gives the clear event with source "resume", between the agent's writes."""
        assert main(["--store", str(store), "history", "--json"]) == 0
        events = json.loads(capsys.readouterr().out)
        kinds = [(e["kind"], e["source"]) for e in events]
        assert kinds == [("write", None), ("clear", "resume"), ("write", None)]


class TestBoard:
    def test_the_counts_change_at_the_resume_not_at_the_write(self, store: Path) -> None:
        """The board's history: 2 of 3 completed, then the resume's clear removes the two, then
        the agent's write changes no count and only adds a note."""
        from phasetodo.web import Board

        opened = phasetodo.JsonlStore(store)
        board = Board(opened)
        try:
            events = board.history("default")["events"]
        finally:
            board.close()
            opened.close()
        counts = [(e["kind"], e["source"], e["completed"], e["tasks"]) for e in events]
        assert counts == [("write", None, 2, 3), ("clear", "resume", 0, 1), ("write", None, 0, 1)]
        clear, write = events[1]["diff"], events[2]["diff"]
        assert [t["content"] for t in clear["removed"]] == ["Read", "Find"]
        assert (write["removed"], write["added"], write["status_changed"]) == ([], [], [])
        assert [n["text"] for n in write["notes_added"]] == ["tabs"]
