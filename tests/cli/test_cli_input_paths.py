"""The command's refusals of bad input, run in this process through ``phasetodo.cli.main``:
each exits 2 with a line naming what is wrong, and nothing is applied."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import phasetodo
from phasetodo.cli import main

INIT = json.dumps({"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a"]}]}]})


class Command:
    """``phasetodo --store DIR ...`` in this process, its output captured."""

    def __init__(self, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.folder = folder
        self.capsys = capsys

    def run(self, *args: str) -> tuple[int, str]:
        """The exit status and what went to stderr."""
        try:
            status = main(["--store", str(self.folder / "store"), *args])
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
        return status, self.capsys.readouterr().err

    def version(self, session: str = "default") -> int:
        store = phasetodo.JsonlStore(self.folder / "store")
        with phasetodo.Session.open(session, store) as opened:
            version = opened.version
        store.close()
        return version


@pytest.fixture
def command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Command:
    """The command on a JSONL store whose default session holds phase A with task a (version 1)."""
    made = Command(tmp_path, capsys)
    assert made.run("apply", INIT)[0] == 0
    return made


class TestInputThatIsNotText:
    def test_an_import_file_that_is_not_utf8_is_named(self, command: Command, tmp_path: Path) -> None:
        """``import FILE`` of bytes that are not UTF-8 names the file and reads nothing in."""
        (tmp_path / "plan.md").write_bytes(b"\xff\xfe# A\n")
        status, err = command.run("import", str(tmp_path / "plan.md"))
        assert status == 2
        assert f"import: {tmp_path / 'plan.md'} is not UTF-8 text" in err
        assert command.version() == 1

    def test_apply_from_stdin_that_is_not_utf8_is_named(
        self, command: Command, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """``apply -`` reading bytes that are not UTF-8 says so; nothing is applied."""
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff\xfe")))
        status, err = command.run("apply", "-")
        assert status == 2
        assert err.startswith("phasetodo: apply: - is not UTF-8 text: 'utf-8' codec can't decode byte 0xff")
        assert command.version() == 1


class TestAppend:
    def test_a_blank_phase_name_is_refused(self, command: Command) -> None:
        """``append ' ' TASK`` names the blank PHASE."""
        assert command.run("append", " ", "x") == (2, "phasetodo: append: the PHASE name is blank\n")
        assert command.version() == 1

    def test_a_blank_task_is_refused_by_its_number(self, command: Command) -> None:
        """``append PHASE TASK ' '`` names which TASK is blank."""
        assert command.run("append", "A", "x", " ") == (2, "phasetodo: append: TASK 2 is blank\n")
        assert command.version() == 1


class TestRequestIds:
    def test_a_request_id_reused_with_other_params_is_refused(self, command: Command) -> None:
        """A second ``apply --request-id`` with other params is refused, naming the id and version."""
        note = json.dumps({"ops": [{"op": "note", "task": "a", "text": "x"}]})
        done = json.dumps({"ops": [{"op": "done", "task": "a"}]})
        assert command.run("apply", "--request-id", "r1", note)[0] == 0
        status, err = command.run("apply", "--request-id", "r1", done)
        assert status == 2
        assert "request_id 'r1' was already used by version 2 with other params" in err
        assert command.version() == 2


class TestUndo:
    def test_undo_on_a_session_without_events_is_refused(self, command: Command) -> None:
        """``undo`` on a session whose log holds its header only says there is nothing to undo."""
        (command.folder / "store" / "empty.jsonl").write_text('{"format":2,"session":"empty","owner":null}\n')
        assert command.run("--session", "empty", "undo") == (
            2, "phasetodo: undo: the session has no events yet; nothing to undo\n",
        )
