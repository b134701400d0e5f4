"""What a PostgreSQL write sends, seen in libpq's own trace of the protocol: the event's insert
goes with the COMMIT in one query, so the plan's lock is let go a round trip sooner; and a
fleet's first writes do not queue on the schema lock when the schema is already made."""

from __future__ import annotations

from typing import Any

import pytest

import phasetodo
from phasetodo.errors import StoreError
from phasetodo.stores import postgres

from .. import postgres_support

INIT = {"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]}
NOTE = {"ops": [{"op": "note", "task": "a", "text": "x"}]}


@pytest.fixture
def store(postgres_store: phasetodo.PostgresStore) -> phasetodo.PostgresStore:
    """conftest's store on an empty database, closed after the test."""
    return postgres_store


def test_the_insert_goes_with_the_commit(store: phasetodo.PostgresStore) -> None:
    session = phasetodo.Session.open("s", store)
    session.todo_write(INIT)
    sent = postgres_support.sent_by(store, lambda: session.todo_write(NOTE))
    inserts = [line for line in sent if "INSERT INTO phasetodo_events" in line]
    assert len(inserts) == 1
    assert "\tQuery\t" in inserts[0]
    assert inserts[0].endswith('; COMMIT"')
    assert not [line for line in sent if line.endswith('"COMMIT"')]  # no COMMIT of its own
    assert phasetodo.Session.open("s", store).phases[0].tasks[0].notes == ("x",)
    assert store.verify("s").ok


_INSERT = "INSERT INTO phasetodo_events (session, version, checkpoint, body) VALUES (%s, 1, true, '{}')"


def _held_insert(store: phasetodo.PostgresStore, then: BaseException | None = None) -> None:
    """One transaction: a change, then event 1's insert held for the COMMIT (then ``then`` raised)."""
    with store.transaction():
        store.execute("UPDATE phasetodo_sessions SET owner = 'x' WHERE id = %s", ("s",))
        store.execute(_INSERT, ("s",), event=("s", 1, "{}", None), with_commit=True)
        if then is not None:
            raise then


@pytest.fixture
def made(store: phasetodo.PostgresStore) -> phasetodo.PostgresStore:
    """The store with its tables and a session row."""
    store.init_schema()
    with store.transaction():
        store.execute("INSERT INTO phasetodo_sessions (id) VALUES (%s)", ("s",))
    return store


def test_a_statement_after_the_held_insert_sends_it_first(made: phasetodo.PostgresStore) -> None:
    with made.transaction():
        made.execute(_INSERT, ("s",), event=("s", 1, "{}", None), with_commit=True)
        assert made.read("SELECT version FROM phasetodo_events WHERE session = %s", ("s",)) == [(1,)]
    assert made.read("SELECT count(*) FROM phasetodo_events", ()) == [(1,)]


def test_a_held_insert_alone_is_committed(made: phasetodo.PostgresStore) -> None:
    with made.transaction():
        made.execute(_INSERT, ("s",), event=("s", 1, "{}", None), with_commit=True)
    assert made.read("SELECT version FROM phasetodo_events WHERE session = %s", ("s",)) == [(1,)]


def test_a_held_insert_that_fails_fails_the_commit_and_leaves_nothing(made: phasetodo.PostgresStore) -> None:
    with made.transaction():
        made.execute(_INSERT, ("s",))
    with pytest.raises(StoreError, match="duplicate key"):
        _held_insert(made)
    assert made.read("SELECT owner FROM phasetodo_sessions", ()) == [(None,)]  # rolled back
    with made.transaction():  # and the connection is ready for the next one
        made.execute("UPDATE phasetodo_sessions SET owner = 'y' WHERE id = %s", ("s",))
    assert made.read("SELECT owner FROM phasetodo_sessions", ()) == [("y",)]


def test_an_exception_drops_the_held_insert(made: phasetodo.PostgresStore) -> None:
    with pytest.raises(RuntimeError):
        _held_insert(made, RuntimeError())
    assert made.read("SELECT count(*) FROM phasetodo_events", ()) == [(0,)]
    assert made.read("SELECT owner FROM phasetodo_sessions", ()) == [(None,)]


def _holding_schema_lock(dsn: str) -> Any:
    """Another client holding the lock that serializes making the schema."""
    import psycopg

    conn = psycopg.connect(dsn, autocommit=True)
    conn.execute("SELECT pg_advisory_lock(%s)", (postgres._SCHEMA_LOCK,))
    return conn


def test_a_made_schema_is_not_made_again_under_its_lock(postgres_dsn: str) -> None:
    """A fleet's agents each check the schema at their first write: where it is complete,
    none of them waits for the lock another one holds while it makes the schema."""
    postgres_support.reset(postgres_dsn)
    phasetodo.Session.open("s", phasetodo.PostgresStore(postgres_dsn)).todo_write(INIT)
    holder = _holding_schema_lock(postgres_dsn)
    try:
        session = phasetodo.Session.open("s", phasetodo.PostgresStore(postgres_dsn, timeout=1))
        assert not session.write(NOTE).is_error  # waiting would fail after 1 s
    finally:
        holder.close()


def test_a_schema_missing_a_table_is_made_whole(postgres_dsn: str) -> None:
    postgres_support.reset(postgres_dsn)
    phasetodo.Session.open("s", phasetodo.PostgresStore(postgres_dsn)).todo_write(INIT)
    import psycopg

    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE phasetodo_renewals")
    holder = _holding_schema_lock(postgres_dsn)
    try:
        with pytest.raises(StoreError, match="lock timeout"):  # it is made under the lock
            phasetodo.PostgresStore(postgres_dsn, timeout=0.5).init_schema()
    finally:
        holder.close()
    phasetodo.PostgresStore(postgres_dsn).init_schema()
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('phasetodo_renewals') IS NOT NULL").fetchone() == (True,)
