"""A write's result (its summary, its details) is made once the plan's lock is let go, so the
next writer does not wait for it; a write under a request id, whose reply the log keeps, and
a refused all-or-nothing call make it under the lock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

import phasetodo
from phasetodo.profiles import PARITY, STRICT

from ..flock_support import lock_is_free

INIT = {"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a", "b"]}]}]}
DONE = {"ops": [{"op": "done", "task": "a"}]}


def _spying(profile: phasetodo.Profile, log: Path, seen: list[bool]) -> phasetodo.Profile:
    """``profile`` whose report notes whether the log's lock was free when it ran."""
    real = profile.report

    def report(outcome: Any, storage: Any) -> phasetodo.ToolResult:
        seen.append(lock_is_free(log))
        return real(outcome, storage)

    return attrs.evolve(profile, report=report)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "s.jsonl"


def test_a_write_is_reported_with_the_lock_free(tmp_path: Path, log: Path) -> None:
    seen: list[bool] = []
    store = phasetodo.JsonlStore(tmp_path)
    with phasetodo.Session.open("s", store, profile=_spying(PARITY, log, seen)) as me:
        me.todo_write(INIT)
        result = me.todo_write(DONE)
    assert seen == [True, True]
    assert "a" in result["content"][0]["text"]


def test_a_reply_kept_for_a_request_id_is_made_under_the_lock(tmp_path: Path, log: Path) -> None:
    seen: list[bool] = []
    store = phasetodo.JsonlStore(tmp_path)
    with phasetodo.Session.open("s", store, profile=_spying(PARITY, log, seen)) as me:
        first = me.todo_write(INIT, request_id="r1")
        again = me.todo_write(INIT, request_id="r1")
    assert seen == [False]  # the retry is answered from the log, not reported again
    assert again == first


def test_a_refused_call_is_reported_under_the_lock(tmp_path: Path, log: Path) -> None:
    seen: list[bool] = []
    store = phasetodo.JsonlStore(tmp_path)
    with phasetodo.Session.open("s", store, profile=_spying(STRICT, log, seen)) as me:
        me.todo_write(INIT)
        refused = me.todo_write({"ops": [{"op": "done", "task": "nope"}]})
        assert me.version == 1
    assert refused["isError"] is True
    assert seen == [True, False]
