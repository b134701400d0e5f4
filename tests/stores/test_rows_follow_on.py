"""A database log catches up in one query while the row it read last is still stored with its
hash (the common case: other writers appended), and reads anew when a restore replaced it."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import phasetodo

from .. import postgres_support

INIT = {"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]}


def _note(text: str) -> dict[str, Any]:
    return {"ops": [{"op": "note", "task": "a", "text": text}]}


@pytest.fixture(params=["sqlite", "postgres"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Any]:
    """A new store object on one database each call (a writer or reader of its own)."""
    if request.param == "sqlite":
        return lambda: phasetodo.SqliteStore(tmp_path / "s.db")
    dsn = request.getfixturevalue("postgres_dsn")
    postgres_support.reset(dsn)
    return lambda: phasetodo.PostgresStore(dsn)


class TestFollowOn:
    def test_a_reader_decodes_only_the_rows_appended_since(self, make: Callable[[], Any]) -> None:
        """Each row another writer appended is read once, and the reader's next write chains on."""
        writer = phasetodo.Session.open("s", make())
        writer.todo_write(INIT)
        reader = phasetodo.Session.open("s", make())
        read = reader._log.records_read
        for n in range(3):
            writer.todo_write(_note(f"n{n}"))
        assert reader.refresh() == writer.refresh()
        assert reader._log.records_read - read == 3
        reader.todo_write(_note("from the reader"))
        assert writer.refresh() == reader.phases
        assert make().verify("s").ok

    def test_a_look_reads_the_new_rows_in_one_query(self, make: Callable[[], Any]) -> None:
        """A reader's look at a plan others moved on (its head and newest list) is one query."""
        writer = phasetodo.Session.open("s", make())
        writer.todo_write(INIT)
        store = make()
        reader = phasetodo.Session.open("s", store)
        for n in range(2):
            writer.todo_write(_note(f"n{n}"))
        queries = _queries(store, reader.refresh)
        assert len(queries) == 1, queries
        assert reader.phases == writer.refresh()

    def test_rows_compacted_under_a_reader_are_read_anew(self, make: Callable[[], Any]) -> None:
        """A compaction seals every row again: the reader's last row has another hash now, so it
        reads the log anew, and its next write chains to the rows as stored."""
        writer = phasetodo.Session.open("s", make())
        writer.todo_write(INIT)
        writer.todo_write(_note("n0"))
        reader = phasetodo.Session.open("s", make())
        writer._log.compact()
        writer.todo_write(_note("n1"))
        assert reader.refresh() == writer.refresh()
        reader.todo_write(_note("from the reader"))
        assert make().verify("s").ok


def _queries(store: Any, action: Callable[[], object]) -> list[str]:
    """The statements the database was sent while ``action()`` ran."""
    if isinstance(store, phasetodo.SqliteStore):
        got: list[str] = []
        store._conn.set_trace_callback(got.append)
        try:
            action()
        finally:
            store._conn.set_trace_callback(None)
        return got
    sent = postgres_support.sent_by(store, action)
    return [line for line in sent if "\tParse\t" in line or "\tQuery\t" in line]


def _history(db: Path, texts: list[str]) -> tuple[Any, ...]:
    with phasetodo.Session.open("s", phasetodo.SqliteStore(db)) as session:
        session.todo_write(INIT)
        for text in texts:
            session.todo_write(_note(text))
        return session.phases


def test_another_history_restored_under_a_reader_is_read_whole(tmp_path: Path) -> None:
    """A backup with as many rows but another history, restored in place under a reader: the
    reader's last row is not the stored one, so it reads the restored history, not a mix."""
    db, other = tmp_path / "s.db", tmp_path / "other.db"
    _history(db, ["one", "two"])
    restored = _history(other, ["three", "four"])
    reader = phasetodo.Session.open("s", phasetodo.SqliteStore(db))
    with sqlite3.connect(other) as source, sqlite3.connect(db) as target:
        source.backup(target)
    source.close()
    target.close()
    assert reader.refresh() == restored
    reader.todo_write(_note("five"))
    assert phasetodo.SqliteStore(db).verify("s").ok


def test_postgres_rows_landed_while_waiting_come_with_the_lock(
    postgres_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows other writers appended before this writer got the plan's lock come back with
    the lock (one round trip), not from a query of their own, and the write builds on them."""
    from phasetodo.stores import postgres

    postgres_support.reset(postgres_dsn)
    writer = phasetodo.Session.open("s", phasetodo.PostgresStore(postgres_dsn))
    writer.todo_write(INIT)
    store = phasetodo.PostgresStore(postgres_dsn)
    reader = phasetodo.Session.open("s", store)
    monkeypatch.setattr(reader._log, "read_ahead", lambda: None)  # all of them land "while it waits"
    for n in range(3):
        writer.todo_write(_note(f"n{n}"))
    queries: list[str] = []
    real = store.read
    monkeypatch.setattr(store, "read", lambda sql, args: queries.append(sql) or real(sql, args))
    read = reader._log.records_read
    reader.todo_write(_note("from the reader"))
    assert postgres._SINCE not in queries
    assert reader._log.records_read - read == 3
    assert writer.refresh()[0].tasks[0].notes == ("n0", "n1", "n2", "from the reader")
    assert phasetodo.PostgresStore(postgres_dsn).verify("s").ok
