"""Many sessions in one PostgreSQL database, for agents on many machines (psycopg 3).

Schema (made by :meth:`PostgresStore.init_schema`, by ``phasetodo db init DSN``
or at the first write)::

    phasetodo_sessions (id text PRIMARY KEY, owner text)
    phasetodo_events   (session text REFERENCES phasetodo_sessions, version bigint,
                        checkpoint boolean, body text, PRIMARY KEY (session, version))
    phasetodo_checkpoints: an index on (session, version) WHERE checkpoint

A write is one transaction: it locks the session's row in ``phasetodo_sessions``
(``SELECT ... FOR UPDATE``: one writer per session across machines, held only
for that transaction), reads the newest version, inserts the next row and sends
``NOTIFY phasetodo_events`` with the session id. A crash before ``COMMIT``
leaves nothing behind; after it, the event is durable. Watchers ``LISTEN`` on
that channel instead of polling. Reading never writes and creates nothing.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

from ..errors import CorruptLog, StoreError
from ._base import check_session_id
from ._rows import RowLog

__all__ = ["CHANNEL", "SCHEMA", "PostgresLog", "PostgresStore"]

#: The LISTEN/NOTIFY channel; the payload is the session id.
CHANNEL = "phasetodo_events"

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS phasetodo_sessions (id text PRIMARY KEY, owner text)",
    "CREATE TABLE IF NOT EXISTS phasetodo_events (session text NOT NULL REFERENCES phasetodo_sessions (id),"
    " version bigint NOT NULL, checkpoint boolean NOT NULL, body text NOT NULL,"
    " PRIMARY KEY (session, version))",
    "CREATE INDEX IF NOT EXISTS phasetodo_checkpoints ON phasetodo_events (session, version)"
    " WHERE checkpoint",
)
#: Serializes schema creation between processes that start together.
_SCHEMA_LOCK = 7_046_051_600
_PAGE = 256
_INHERITED: list[Any] = []


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as error:  # pragma: no cover - the extra is installed in tests
        raise StoreError(
            "PostgresStore needs psycopg 3: pip install 'phasetodo[postgres]'"
        ) from error
    return psycopg


def _redacted(dsn: str) -> str:
    """The DSN without its password, for error messages."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(dsn)
    except Exception:
        return "postgresql://..."
    parts.pop("password", None)
    return " ".join(f"{k}={v}" for k, v in sorted(parts.items()))


class PostgresStore:
    """Session logs in the PostgreSQL database at ``dsn`` (``postgresql://user@host/db``).

    Needs the ``phasetodo[postgres]`` extra. ``timeout`` is how long a writer
    waits for another writer of the same session, in seconds.
    """

    storage: Literal["session"] = "session"

    def __init__(self, dsn: str, *, timeout: float = 60.0) -> None:
        self.dsn = dsn
        self.where = f"postgresql ({_redacted(dsn)})"
        self._timeout = timeout
        self._psycopg = _psycopg()
        self._conn: Any = None
        self._pid = os.getpid()
        self._mutex = threading.RLock()
        self._depth = 0
        self._schema = False
        with self._errors():
            self._connection()

    def _connection(self) -> Any:
        if self._conn is None or self._pid != os.getpid():
            if self._conn is not None:
                # Inherited across fork(): never used here, and never closed either (closing
                # would end the parent's session on the shared socket), so keep it referenced.
                _INHERITED.append(self._conn)
            self._pid = os.getpid()
            self._mutex = threading.RLock()
            self._depth = 0
            self._conn = self._psycopg.connect(self.dsn, autocommit=True)
            self._conn.execute(f"SET lock_timeout = {int(self._timeout * 1000)}")
        return self._conn

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """The database's errors as ours, naming the database (never its password)."""
        psycopg = self._psycopg
        try:
            yield
        except psycopg.errors.DataError as error:
            raise CorruptLog(self.where, 0, f"damaged data ({error})") from error
        except psycopg.Error as error:
            raise StoreError(f"{self.where}: {str(error).strip()}") from error

    def init_schema(self) -> None:
        """Create the tables and index if missing (also done at the first write)."""
        with self._mutex, self._errors():
            conn = self._connection()
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                for statement in SCHEMA:
                    conn.execute(statement)
            self._schema = True

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One transaction on this process's connection (re-entrant); commit on exit."""
        if not self._schema:
            self.init_schema()
        with self._mutex, self._errors():
            conn = self._connection()
            if self._depth == 0:
                conn.execute("BEGIN")
            self._depth += 1
            try:
                yield conn
            except BaseException:
                self._depth -= 1
                if self._depth == 0:
                    conn.execute("ROLLBACK")
                raise
            self._depth -= 1
            if self._depth == 0:
                conn.execute("COMMIT")

    def read(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        """Run one query and return its rows (none while the tables do not exist)."""
        with self._mutex, self._errors():
            conn = self._connection()
            try:
                return list(conn.execute(sql, args).fetchall())
            except self._psycopg.errors.UndefinedTable:
                return []

    def listener(self) -> Any:
        """A new connection listening on :data:`CHANNEL` (the caller closes it)."""
        with self._errors():
            conn = self._psycopg.connect(self.dsn, autocommit=True)
            conn.execute(f"LISTEN {CHANNEL}")
            return conn

    def open(self, session_id: str, *, owner: str | None = None) -> PostgresLog:
        """Open the session; a new one records ``owner`` at its first write."""
        check_session_id(session_id)
        rows = self.read("SELECT owner FROM phasetodo_sessions WHERE id = %s", (session_id,))
        return PostgresLog(self, session_id, rows[0][0] if rows else owner, owner)

    def sessions(self) -> list[str]:
        """The ids of every session in the database."""
        return [row[0] for row in self.read("SELECT id FROM phasetodo_sessions ORDER BY id", ())]

    def close(self) -> None:
        """Close this process's connection."""
        with self._mutex:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __repr__(self) -> str:
        return f"PostgresStore({self.where})"


class PostgresLog(RowLog):
    """One session's rows in a :class:`PostgresStore`."""

    def __init__(self, store: PostgresStore, session_id: str, owner: str | None, wanted: str | None) -> None:
        self.store = store
        self._wanted = wanted
        self._listen: Any = None
        self._listen_pid = os.getpid()
        super().__init__(store.where, session_id, owner)

    @property
    def _state(self) -> threading.RLock:
        return self.store._mutex

    @contextmanager
    def _transaction(self) -> Iterator[object]:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO phasetodo_sessions (id, owner) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING",
                (self.session_id, self._wanted),
            )
            (recorded,) = conn.execute(
                "SELECT owner FROM phasetodo_sessions WHERE id = %s FOR UPDATE", (self.session_id,)
            ).fetchone()
            self.owner = recorded
            yield conn

    def _max_version(self) -> int:
        rows = self.store.read(
            "SELECT max(version) FROM phasetodo_events WHERE session = %s", (self.session_id,)
        )
        return int(rows[0][0] or 0) if rows else 0

    def _last_checkpoint(self) -> int:
        rows = self.store.read(
            "SELECT max(version) FROM phasetodo_events WHERE session = %s AND checkpoint",
            (self.session_id,),
        )
        return int(rows[0][0] or 0) if rows else 0

    def _rows(self, after: int) -> Iterable[tuple[object, object]]:
        while True:
            rows = self.store.read(
                "SELECT version, body FROM phasetodo_events WHERE session = %s AND version > %s "
                "ORDER BY version LIMIT %s",
                (self.session_id, after, _PAGE),
            )
            yield from rows
            if len(rows) < _PAGE:
                return
            after = rows[-1][0]

    def _insert(self, version: int, body: str, checkpoint: bool) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO phasetodo_events (session, version, checkpoint, body) VALUES (%s, %s, %s, %s)",
                (self.session_id, version, checkpoint, body),
            )
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.session_id))

    def _replace_all(self, rows: list[tuple[int, str, bool]]) -> None:
        with self.store.transaction() as conn:
            conn.execute("DELETE FROM phasetodo_events WHERE session = %s", (self.session_id,))
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO phasetodo_events (session, version, checkpoint, body) "
                    "VALUES (%s, %s, %s, %s)",
                    [(self.session_id, v, cp, body) for v, body, cp in rows],
                )

    def wait(self, after: int, timeout: float | None = None) -> bool:
        """Wait on LISTEN/NOTIFY (no polling) until a version above ``after`` lands."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if self._listen is not None and self._listen_pid != os.getpid():
            _INHERITED.append(self._listen)
            self._listen = None
        if self._listen is None or self._listen.closed:
            self._listen = self.store.listener()
            self._listen_pid = os.getpid()
        while self.version() <= after:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            with self.store._errors():
                for _ in self._listen.notifies(timeout=left if left is not None else 1.0, stop_after=1):
                    pass
        return True

    def close(self) -> None:
        """Close the listening connection, if one was opened."""
        if self._listen is not None and self._listen_pid == os.getpid():
            self._listen.close()
            self._listen = None
