"""Heartbeats kept beside the log: each store's table of renewals, what a damaged one reads as,
and the fallback for a log of one's own that has no table."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo.errors import StoreError
from phasetodo.stores import Renewal
from phasetodo.stores._renewals import dump_renewals, load_renewals, renewals_from_json, renewals_to_json

PLAN = {"ops": [{"op": "init", "list": [{"phase": "Build", "items": ["Parser", "Lexer"]}]}]}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def holder(store: Any, clock: Clock, name: str = "w1") -> phasetodo.Session:
    session = phasetodo.Session.open("plan", store=store, profile="team", agent=name, clock=clock, lease=10)
    if not session.version:
        session.todo_write(PLAN)
    session.todo_write({"ops": [{"op": "start"}]})
    return session


@pytest.fixture(params=["memory", "jsonl", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    made: Any = {
        "memory": phasetodo.MemoryStore,
        "jsonl": lambda: phasetodo.JsonlStore(tmp_path / "logs"),
        "sqlite": lambda: phasetodo.SqliteStore(tmp_path / "plans.db"),
    }[request.param]()
    yield made
    made.close()


class TestTable:
    def test_one_entry_per_agent_replaced_by_its_next_beat(self, store: Any) -> None:
        """Two agents beating twice leave two entries, each its agent's newest deadline."""
        clock = Clock()
        w1, w2 = holder(store, clock, "w1"), holder(store, clock, "w2")
        for now in (1001.0, 1002.0):
            clock.now = now
            w1.heartbeat()
            w2.heartbeat()
        assert w1.renewals == {
            "t1": Renewal("t1", "w1", 1, 1012.0),
            "t2": Renewal("t2", "w2", 1, 1012.0),
        }

    def test_a_long_lapsed_entry_is_dropped_by_the_next_beat(self, store: Any) -> None:
        """An entry whose deadline passed over an hour ago goes when any agent beats."""
        clock = Clock()
        w1 = holder(store, clock, "w1")
        w1.heartbeat()
        w1.todo_write({"ops": [{"op": "done", "task": "Parser"}]})  # w1 moves on to Lexer (t2)
        clock.now = 1000.0 + 3600 + 11
        assert w1.heartbeat() == clock.now + 10
        assert list(w1.renewals) == ["t2"]

    def test_reopened_the_table_is_still_there(self, store: Any, tmp_path: Path) -> None:
        """A new handle on the plan reads the renewals an earlier one left."""
        clock = Clock()
        holder(store, clock).heartbeat()
        with phasetodo.Session.open("plan", store=store, profile="team") as later:
            assert later.renewals == {"t1": Renewal("t1", "w1", 1, 1010.0)}


class TestJsonlFile:
    def test_the_file_sits_beside_the_log_and_is_not_a_session(self, tmp_path: Path) -> None:
        """``plan.jsonl.beat`` holds the table; the store still lists one session."""
        store = phasetodo.JsonlStore(tmp_path / "logs", fsync=False)
        before = (tmp_path / "logs" / "plan.jsonl")
        holder(store, Clock()).heartbeat()
        size = before.stat().st_size
        beats = tmp_path / "logs" / "plan.jsonl.beat"
        assert beats.read_text() == '[["t1","w1",1,1010.0]]'
        assert store.sessions() == ["plan"]
        assert before.stat().st_size == size

    @pytest.mark.parametrize(
        "damage", [b"", b'[["t1","w1",1,', b"not json", b"{}", b'[["t1","w1","1",5.0]]', b"\xff\xfe"]
    )
    def test_a_damaged_file_reads_as_no_renewals(self, tmp_path: Path, damage: bytes) -> None:
        """A file cut short (a crash while it was rewritten) or altered renews nothing, and the
        claim lapses at its last write's deadline; the next beat rewrites it."""
        store = phasetodo.JsonlStore(tmp_path / "logs", fsync=False)
        clock = Clock()
        w1 = holder(store, clock)
        w1.heartbeat()
        (tmp_path / "logs" / "plan.jsonl.beat").write_bytes(damage)
        assert w1.renewals == {}
        clock.now = 1010.0
        w2 = phasetodo.Session.open("plan", store=store, profile="team", agent="w2", clock=clock, lease=10)
        assert w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is False

    def test_a_planted_link_is_refused(self, tmp_path: Path) -> None:
        """The beats file is opened without following links, as the log is."""
        store = phasetodo.JsonlStore(tmp_path / "logs", fsync=False)
        w1 = holder(store, Clock())
        target = tmp_path / "elsewhere"
        target.write_text("keep")
        os.symlink(target, tmp_path / "logs" / "plan.jsonl.beat")
        with pytest.raises(StoreError, match="symbolic link"):
            w1.heartbeat()
        assert target.read_text() == "keep"


class TestCodec:
    def test_round_trip_and_bad_rows_skipped(self) -> None:
        """The JSON rows read back as the renewals; rows that are not one are left out."""
        table = {"t1": Renewal("t1", "w1", 3, 12.5)}
        assert renewals_from_json(renewals_to_json(table)) == table
        bad = [["t2", "w2", True, 1.0], ["t3", 5, 1, 1.0], ["t4", "w", 1, float("nan")], "x", ["t5"]]
        assert renewals_from_json([*bad, ["t1", "w1", 3, 12.5]]) == table
        assert renewals_from_json({"t1": 1}) == {}


class _PlainLog:
    """A log of one's own, as a host might wrap one: the interface, without renewals."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name in ("renewals", "renew"):
            raise AttributeError(name)
        return getattr(self._inner, name)


class _PlainStore:
    storage = "memory"

    def __init__(self) -> None:
        self._inner = phasetodo.MemoryStore()

    def open(self, session_id: str, **given: Any) -> _PlainLog:
        return _PlainLog(self._inner.open(session_id, **given))

    def sessions(self) -> list[str]:
        return self._inner.sessions()

    def close(self) -> None:
        self._inner.close()


def test_a_log_without_a_table_gets_a_write_per_beat() -> None:
    """Without ``renewals()``/``renew()`` a heartbeat appends the new deadline, as it used to."""
    clock = Clock()
    w1 = holder(_PlainStore(), clock)
    version = w1.version
    clock.now = 1005.0
    assert w1.heartbeat() == 1015.0
    assert w1.version == version + 1
    assert w1.renewals == {}
    assert w1.phases[0].tasks[0].lease == phasetodo.Lease(1, 1015.0)


class _CountingLog(_PlainLog):
    """A memory log that counts how often its renewals are read."""

    reads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def renewals(self) -> dict[str, Renewal]:
        type(self).reads += 1
        found: dict[str, Renewal] = self._inner.renewals()
        return found


class _CountingStore(_PlainStore):
    def open(self, session_id: str, **given: Any) -> _CountingLog:
        return _CountingLog(self._inner.open(session_id, **given))


def test_a_write_reads_the_renewals_only_once_a_deadline_has_passed() -> None:
    """While every claim's last write deadline is ahead, writes never read the table; a
    write after one passed reads it (a heartbeat may have moved it)."""
    clock = Clock()
    store = _CountingStore()
    holder(store, clock, "w1")
    w2 = holder(store, clock, "w2")
    _CountingLog.reads = 0
    w2.todo_write({"ops": [{"op": "note", "task": "Lexer", "text": "on it"}]})
    assert _CountingLog.reads == 0
    clock.now = 1011.0
    w2.todo_write({"ops": [{"op": "note", "task": "Lexer", "text": "still"}]})
    assert _CountingLog.reads == 1


class TestText:
    """The table as the text every store keeps: one encoding, read back or skipped whole."""

    def test_the_text_reads_back(self) -> None:
        table = {"t1": Renewal("t1", "a", 2, 10.5), "t2": Renewal("t2", "b", 1, 11.0)}
        assert load_renewals(dump_renewals(table)) == table
        assert load_renewals(dump_renewals(table).encode("ascii")) == table

    @pytest.mark.parametrize("text", [None, "", "[", b"\xff\xfe", "[" * 5000, '{"t1": 1}'])
    def test_text_that_does_not_read_back_is_no_renewal(self, text: str | bytes | None) -> None:
        """A missing, torn or foreign table holds no renewal (claims lapse at their own deadline)."""
        assert load_renewals(text) == {}
