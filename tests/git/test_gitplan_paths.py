"""``phasetodo.gitplan`` on files that are not session logs, and without git: a GitPlanError
naming the file (or git), never another exception."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import phasetodo
from phasetodo import gitplan
from phasetodo.errors import GitPlanError
from phasetodo.stores._chain import seal
from phasetodo.stores._records import dumps


def _log(folder: Path, session_id: str) -> Path:
    """A one-event JSONL log of ``session_id`` in ``folder``."""
    store = phasetodo.JsonlStore(folder)
    with phasetodo.Session.open(session_id, store) as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a"]}]}]})
    store.close()
    return folder / f"{session_id}.jsonl"


class TestReadLog:
    def test_a_missing_file_is_named(self, tmp_path: Path) -> None:
        """A path with no file says it cannot be read."""
        with pytest.raises(GitPlanError, match=r"nope\.jsonl: cannot read it: No such file"):
            gitplan.read_log(tmp_path / "nope.jsonl")

    @pytest.mark.parametrize("first", ["not json", '["format"]', '{"format": 2}'])
    def test_a_file_without_a_session_header_is_refused(self, tmp_path: Path, first: str) -> None:
        """A first line that is not JSON, not an object, or names no session is no session header."""
        path = tmp_path / "x.jsonl"
        path.write_text(first + "\n")
        with pytest.raises(GitPlanError, match=r"not a phasetodo session log \(its first line is no session"):
            gitplan.read_log(path)

    def test_an_empty_file_holds_no_events(self, tmp_path: Path) -> None:
        """An empty file (a log not written yet on one side) reads as no events."""
        path = tmp_path / "x.jsonl"
        path.write_text("\n")
        assert gitplan.read_log(path) == ()

    def test_a_record_that_cannot_be_read_is_named(self, tmp_path: Path) -> None:
        """A record whose chain holds but whose list cannot be built is refused as unreadable."""
        path = tmp_path / "x.jsonl"
        record, _ = seal(dumps({"version": 1, "kind": "write", "time": 1.0, "edit": {}}), None)
        path.write_text(json.dumps({"format": 2, "session": "x", "owner": None}) + "\n" + record + "\n")
        with pytest.raises(GitPlanError, match=r"x\.jsonl: not a readable phasetodo session log"):
            gitplan.read_log(path)


class TestMergeFiles:
    def test_three_empty_versions_are_refused(self, tmp_path: Path) -> None:
        """When no version of the file is a log, the merge says so, naming ours."""
        paths = [tmp_path / name for name in ("base", "ours", "theirs")]
        for path in paths:
            path.write_text("")
        with pytest.raises(GitPlanError, match="ours: none of the three versions is a phasetodo session log"):
            gitplan.merge_files(*paths)

    def test_logs_of_different_sessions_are_refused(self, tmp_path: Path) -> None:
        """Three versions that are logs of different sessions are not merged; both names are given."""
        ours, theirs = _log(tmp_path / "o", "s"), _log(tmp_path / "t", "t")
        before = ours.read_bytes()
        with pytest.raises(GitPlanError, match="the three versions are logs of different sessions: s, t"):
            gitplan.merge_files(ours, ours, theirs)
        assert ours.read_bytes() == before


class TestWithoutGit:
    def test_git_missing_from_path_is_named(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Where ``git`` is not on PATH, the error says so rather than raising FileNotFoundError."""
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
        with pytest.raises(GitPlanError, match="git: the git command is not installed"):
            gitplan.top_level(tmp_path)
