"""Many sessions in one SQLite file (stdlib ``sqlite3``, WAL journal).

Events are rows keyed by ``(session, version)``, so the latest snapshot is one
index lookup and two writers can never both append the same version. The lock
is a ``BEGIN IMMEDIATE`` transaction (SQLite's single writer, across processes)
plus a thread lock around the store's one connection; leaving the lock commits
with ``synchronous=FULL``, so an event is durable once the write returns.

Errors of the database (a full disk, a read-only file) are raised as
:class:`~phasetodo.errors.StoreError` naming the file and the cause. A store
object used in a forked child opens a connection of its own there, and the
database file and its journals are never symbolic links we follow.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from ..errors import CorruptLog, StoreError, VersionConflict
from ._base import Event, check_session_id, event_from_json, event_to_json

__all__ = ["SqliteLog", "SqliteStore"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, owner TEXT)",
    "CREATE TABLE IF NOT EXISTS events (session TEXT NOT NULL, version INTEGER NOT NULL,"
    " body TEXT NOT NULL, PRIMARY KEY (session, version)) WITHOUT ROWID",
)
_PAGE = 256
#: The database file and the journal files SQLite makes beside it.
_FILES = ("", "-wal", "-shm", "-journal")


class SqliteStore:
    """Session logs in the SQLite database at ``path`` (created, with its folder, if missing).

    ``timeout`` is how long a writer waits for another process's lock, in seconds.
    """

    storage: Literal["session"] = "session"

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 60.0) -> None:
        self.path = os.fspath(path)
        self._timeout = timeout
        if self.path != ":memory:":
            for suffix in _FILES:
                if os.path.islink(self.path + suffix):
                    raise StoreError(
                        f"{self.path + suffix}: is a symbolic link; a phasetodo store never follows "
                        "links, so that no planted link can make it write outside its file"
                    )
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._connect()
        with self.transaction() as conn:
            for statement in _SCHEMA:
                conn.execute(statement)

    def _connect(self) -> None:
        """A connection and thread state for this process (again after a fork)."""
        self._pid = os.getpid()
        self._mutex = threading.RLock()
        self._depth = 0
        with self._errors():
            self._conn = sqlite3.connect(
                self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Raise the database's own errors as StoreError naming the file."""
        try:
            yield
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: {error}") from error

    def _mine(self) -> None:
        if self._pid != os.getpid():
            self._connect()  # never use a connection inherited across fork()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the database's write lock (re-entrant); commit on exit, roll back on error."""
        self._mine()
        with self._mutex, self._errors():
            if self._depth == 0:
                self._conn.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield self._conn
            except BaseException:
                self._depth -= 1
                if self._depth == 0 and self._conn.in_transaction:  # a full disk already rolled back
                    self._conn.execute("ROLLBACK")
                raise
            self._depth -= 1
            if self._depth == 0:
                try:
                    self._conn.execute("COMMIT")
                except BaseException:
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                    raise

    def read(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        """Run one query under the thread lock and return its rows."""
        self._mine()
        with self._mutex, self._errors():
            return self._conn.execute(sql, args).fetchall()

    def open(self, session_id: str, *, owner: str | None = None) -> SqliteLog:
        """Open the session, recording ``owner`` when it is new."""
        check_session_id(session_id)
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO sessions (id, owner) VALUES (?, ?)", (session_id, owner)
            )
            (recorded,) = conn.execute(
                "SELECT owner FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        return SqliteLog(self, session_id, recorded)

    def sessions(self) -> list[str]:
        """The ids of every session in the database."""
        return [row[0] for row in self.read("SELECT id FROM sessions ORDER BY id", ())]

    def close(self) -> None:
        """Close the connection."""
        with self._mutex:
            self._conn.close()

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"


class SqliteLog:
    """One session's rows in a :class:`SqliteStore`."""

    storage: Literal["session"] = "session"

    def __init__(self, store: SqliteStore, session_id: str, owner: str | None) -> None:
        self.store = store
        self.session_id = session_id
        self.owner = owner

    def lock(self) -> Any:
        """A write transaction on the database (re-entrant)."""
        return self.store.transaction()

    def _event(self, version: int, body: str) -> Event:
        try:
            event = event_from_json(json.loads(body))
        except ValueError as error:
            raise CorruptLog(
                self.store.path, version, f"session {self.session_id!r}, event {version}: {error}"
            ) from None
        return event

    def latest(self) -> Event | None:
        """The newest event: one lookup on the primary key."""
        rows = self.store.read(
            "SELECT version, body FROM events WHERE session = ? ORDER BY version DESC LIMIT 1",
            (self.session_id,),
        )
        return self._event(*rows[0]) if rows else None

    def append(self, event: Event) -> None:
        """Insert the event's row; durable when the enclosing lock commits."""
        with self.store.transaction() as conn:
            row = conn.execute(
                "SELECT max(version) FROM events WHERE session = ?", (self.session_id,)
            ).fetchone()
            version = row[0] or 0
            if event.version != version + 1:
                raise VersionConflict(self.session_id, event.version - 1, version)
            conn.execute(
                "INSERT INTO events (session, version, body) VALUES (?, ?, ?)",
                (self.session_id, event.version, json.dumps(event_to_json(event))),
            )

    def events(self) -> Iterator[Event]:
        """Every event in version order, fetched a page at a time."""
        after = 0
        while True:
            rows = self.store.read(
                "SELECT version, body FROM events WHERE session = ? AND version > ? "
                "ORDER BY version LIMIT ?",
                (self.session_id, after, _PAGE),
            )
            for version, body in rows:
                yield self._event(version, body)
            if len(rows) < _PAGE:
                return
            after = rows[-1][0]

    def close(self) -> None:
        """Nothing to release: the store owns the connection."""
