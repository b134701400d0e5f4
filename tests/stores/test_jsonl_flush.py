"""A JSONL writer lets the plan's lock go before it flushes the file, and returns only once
the file is flushed: the next writer never waits for this one's disk."""

from __future__ import annotations

from pathlib import Path

import pytest

import phasetodo
from phasetodo.stores import jsonl

from ..flock_support import lock_is_free

INIT = {"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a", "b"]}]}]}
DONE = {"ops": [{"op": "done", "task": "a"}]}


@pytest.fixture
def flushes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each flush of the log, as whether the lock was free when it ran."""
    seen: list[bool] = []
    real = jsonl._datasync

    def flush(fd: int) -> None:
        seen.append(lock_is_free(tmp_path / "s.jsonl"))
        real(fd)

    monkeypatch.setattr(jsonl, "_datasync", flush)
    return seen


class TestFlush:
    def test_each_write_flushes_once_with_the_lock_free(self, tmp_path: Path, flushes: list[bool]) -> None:
        with phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path)) as session:
            session.todo_write(INIT)
            assert flushes == [True]  # the header and the first event: one flush, before returning
            session.todo_write(DONE)
            assert flushes == [True, True]
        reopened = phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path))
        assert reopened.version == 2

    def test_a_store_without_fsync_never_flushes(self, tmp_path: Path, flushes: list[bool]) -> None:
        with phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path, fsync=False)) as session:
            session.todo_write(INIT)
            session.todo_write(DONE)
        assert flushes == []

    def test_a_refused_write_flushes_nothing(self, tmp_path: Path, flushes: list[bool]) -> None:
        with phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path), profile="strict") as session:
            session.todo_write(INIT)
            result = session.todo_write({"ops": [{"op": "done", "task": "nope"}]})
        assert result["isError"] is True
        assert flushes == [True]
