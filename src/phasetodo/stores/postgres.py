"""Many sessions in one PostgreSQL database, for agents on many machines (psycopg 3).

Schema (made by :meth:`PostgresStore.init_schema`, by ``phasetodo db init DSN``
or at the first write)::

    phasetodo_sessions (id text PRIMARY KEY, owner text)
    phasetodo_events   (session text REFERENCES phasetodo_sessions, version bigint,
                        checkpoint boolean, body text, PRIMARY KEY (session, version))
    phasetodo_checkpoints: an index on (session, version) WHERE checkpoint

A write is one transaction: it locks the session's row in ``phasetodo_sessions``
(``SELECT ... FOR UPDATE``: one writer per session across machines, held only
for that transaction; the rows appended since this writer last read come back in the
same round trip), inserts the next row and sends ``NOTIFY phasetodo_events`` with the
session id, in one query with the ``COMMIT``. A crash before ``COMMIT``
leaves nothing behind; after it, the event is durable. Watchers ``LISTEN`` on
that channel instead of polling; a notification only wakes a watcher, which then
reads the log from the last version it saw, so none is missed or given twice.
Reading never writes and creates nothing.

Behind a pooler in transaction mode (PgBouncer's ``pool_mode=transaction``),
LISTEN does not work: the listening server connection goes back to the pool.
The store notices at the first wait (it sends itself a notification and waits
:data:`PROBE` seconds for it) and then polls the newest version every
:data:`POLL` seconds, so a watcher still wakes within a second. Statements are
never prepared on the server, which such poolers cannot keep either.

A lost connection (a server restart, a failover, an idle timeout, a terminated
backend) is made again with bounded backoff, for up to ``reconnect`` seconds.
A read is run again. A write's transaction keeps the statements it ran: lost
before ``COMMIT``, they run again on the new connection, each event only if its
version is still the next one; lost during ``COMMIT``, the log says whether the
events are there with the bodies we wrote, and only if not are they written
again. So a write is never applied twice, nor reported lost when it committed.
A watcher listens again, then looks at the newest version: no event is missed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal, TypeVar

import attrs

from ..errors import CorruptLog, InvalidOptionType, StoreError, install_hint
from . import _checked
from ._base import check_session_id
from ._chain import Verification, first_break, unseal
from ._dsn import redact
from ._rows import _PAGE, RowLog

__all__ = ["CHANNEL", "POLL", "PROBE", "SCHEMA", "PostgresLog", "PostgresStore"]

#: The LISTEN/NOTIFY channel; the payload is the session id.
CHANNEL = "phasetodo_events"
#: How long the first wait listens for its own notification before it takes LISTEN for broken.
PROBE = 0.5
#: How often a watcher looks at the newest version where LISTEN does not work, in seconds.
POLL = 0.2

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS phasetodo_sessions (id text PRIMARY KEY, owner text)",
    "CREATE TABLE IF NOT EXISTS phasetodo_events (session text NOT NULL REFERENCES phasetodo_sessions (id),"
    " version bigint NOT NULL, checkpoint boolean NOT NULL, body text NOT NULL,"
    " PRIMARY KEY (session, version))",
    "CREATE INDEX IF NOT EXISTS phasetodo_checkpoints ON phasetodo_events (session, version)"
    " WHERE checkpoint",
    # heartbeats' renewed deadlines, beside the log (see stores/_renewals.py): one row a session
    "CREATE TABLE IF NOT EXISTS phasetodo_renewals (session text PRIMARY KEY, body text NOT NULL)",
)
#: Tables made before request ids existed gain the column (empty) and its index.
_REQUEST_COLUMN = "ALTER TABLE phasetodo_events ADD COLUMN request text"
#: Takes a plan's writer lock (its sessions row) and then reads the server's clock.
_LOCK_PLAN = (
    "SELECT owner, extract(epoch FROM clock_timestamp())::float8 FROM"
    " (SELECT owner FROM phasetodo_sessions WHERE id = %s FOR UPDATE) AS locked"
)
#: The rows from a version on, with their hashes (what a writer catches up with).
_SINCE = (
    "SELECT version, hash, body FROM phasetodo_events WHERE session = %s AND version >= %s"
    " ORDER BY version LIMIT %s"
)
#: Each row's hash as a column too (what the next write chains to, read without the body).
_HASH_COLUMN = "ALTER TABLE phasetodo_events ADD COLUMN hash text"
_REQUEST_INDEX = (
    "CREATE INDEX IF NOT EXISTS phasetodo_requests ON phasetodo_events (session, request)"
    " WHERE request IS NOT NULL"
)
#: The first row of a session (its number in version order) whose link in the hash chain or
#: place in the version order looks broken, found in the server: only that number crosses the
#: network. The body is text holding compact ASCII JSON, so its UTF-8 bytes are the bytes the
#: hash covers and its last 75 bytes the sealed hash (see ``_chain``). Each body is made bytes
#: once (``OFFSET 0`` keeps that step apart) and cut by byte: text functions would detoast a
#: big checkpoint again, and count its characters, at every use (four times slower).
_FIRST_BREAK = r"""
WITH b AS (
  SELECT version, row_number() OVER (ORDER BY version) + %(start)s - 1 AS n,
         convert_to(body, 'UTF8') AS raw
  FROM phasetodo_events WHERE session = %(session)s AND version >= %(start)s OFFSET 0
), r AS (
  SELECT version, n, raw, length(raw) AS size,
         CASE WHEN substr(raw, length(raw) - 74, 9) = '\x2c2268617368223a22'::bytea
                   AND substr(raw, length(raw) - 1) = '\x227d'::bytea
              THEN encode(substr(raw, length(raw) - 65, 64), 'escape') END AS digest
  FROM b
), c AS (
  SELECT n, version, raw, size, digest,
         CASE WHEN n = %(start)s THEN %(previous)s ELSE lag(digest) OVER (ORDER BY version) END AS previous
  FROM r
), bad AS (
  SELECT n FROM c
  WHERE version <> n
     OR substring(encode(substr(raw, 1, 32), 'escape') from '^\{"version":([0-9]+)[,}]')
        IS DISTINCT FROM n::text
     OR digest IS NULL
     OR digest <> encode(sha256(convert_to(coalesce(previous, '') || chr(10), 'UTF8')
                                || substr(raw, 1, greatest(size - 75, 0)) || '\x7d'::bytea), 'hex')
  ORDER BY (digest IS NULL AND previous IS NULL), n LIMIT 1
), top AS (
  SELECT version, digest, previous FROM c ORDER BY version DESC LIMIT 1
)
SELECT (SELECT n FROM bad), (SELECT digest FROM c WHERE n = %(start)s),
       (SELECT version FROM top), (SELECT digest FROM top), (SELECT previous FROM top)
"""
#: Serializes schema creation between processes that start together.
_SCHEMA_LOCK = 7_046_051_600
#: The tables and indexes :data:`SCHEMA` makes, and the columns added since.
_SCHEMA_NAMES = (
    "phasetodo_sessions", "phasetodo_events", "phasetodo_checkpoints", "phasetodo_renewals",
    "phasetodo_requests",
)
#: How many of ``_SCHEMA_NAMES`` the schema the tables are made in holds, and how many of the
#: later columns the events table has (``(5, 2)``: nothing to make).
_SCHEMA_READY = (  # the catalogs themselves: information_schema's views take milliseconds
    "SELECT (SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relname = ANY(%s)"
    " AND c.relnamespace = current_schema()::regnamespace),"
    " (SELECT count(*) FROM pg_catalog.pg_attribute a WHERE a.attrelid ="
    " to_regclass(quote_ident(current_schema()) || '.phasetodo_events')"
    " AND a.attname IN ('request', 'hash') AND NOT a.attisdropped)"
)
_INHERITED: list[Any] = []
#: Backoff between connection attempts after a loss: doubling from the first delay up to the last.
_FIRST_DELAY, _LAST_DELAY = 0.05, 2.0
#: How many times one call may lose a connection it had just made before it gives up.
_LOSSES = 8
_T = TypeVar("_T")


@attrs.frozen
class _Step:
    """One statement of the open transaction, to run again on a new connection.

    An event insert names its ``session``, ``version`` and ``body``: it runs
    again only while ``version - 1`` is still the session's newest version.
    """

    sql: str
    args: tuple[Any, ...]
    session: str | None = None
    version: int = 0
    body: str | None = None
    request: str | None = None


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as error:  # pragma: no cover - the extra is installed in tests
        raise StoreError(
            f"PostgresStore needs psycopg 3: {install_hint('postgres')}"
        ) from error
    return psycopg


class PostgresStore:
    """Session logs in the PostgreSQL database at ``dsn`` (``postgresql://user@host/db``).

    Needs the ``phasetodo[postgres]`` extra. ``timeout`` is how long a writer
    waits for another writer of the same session, in seconds; ``reconnect`` is
    how long a call tries to make a lost connection again before it fails. A
    password may stay out of ``dsn``: libpq reads ``PGPASSWORD``, the passfile
    (``~/.pgpass`` or ``PGPASSFILE``) and service files (``PGSERVICE``).
    ``listen`` says whether watchers wait on LISTEN/NOTIFY (``True``) or poll
    (``False``); ``None`` (the default) finds out at the first wait, so that a
    pooler in transaction mode (where LISTEN does not work) is polled.
    ``server_clock`` (the default) stamps every write with the server's clock, so
    that writers whose clocks disagree share one time line; ``False`` takes each
    session's own clock instead (a host or test that drives time itself).
    """

    storage: Literal["session"] = "session"

    def __init__(
        self,
        dsn: str,
        *,
        timeout: float = 60.0,
        reconnect: float = 30.0,
        listen: bool | None = None,
        server_clock: bool = True,
    ) -> None:
        if listen is not None and not isinstance(listen, bool):
            raise InvalidOptionType(f"listen: must be True, False or None, not {listen!r}")
        if not isinstance(server_clock, bool):
            raise InvalidOptionType(f"server_clock: must be True or False, not {server_clock!r}")
        self.server_clock = server_clock
        self._listens: bool | None = listen
        self.dsn = dsn
        self.where = redact(dsn)
        self._timeout = timeout
        self._reconnect = reconnect
        self._psycopg = _psycopg()
        self._conn: Any = None
        self._pid = os.getpid()
        self._mutex = threading.RLock()
        self._depth = 0
        self._journal: list[_Step] = []
        self._replayable = True
        self._reopen = False  # the open transaction lost its connection: begin it again first
        #: An event insert held back to go with the COMMIT, in one round trip (see :meth:`execute`).
        self._deferred: _Step | None = None
        self._schema = False
        with self._errors():
            self._conn = self._connect()  # the first connection fails at once, with its reason

    def _connect(self, first: str | None = None) -> Any:
        """A new connection with our lock timeout; ``first`` is run on it too."""
        # Nothing is prepared on the server: a pooler in transaction mode could not keep it.
        conn = self._psycopg.connect(self.dsn, autocommit=True, prepare_threshold=None)
        try:
            conn.execute(f"SET lock_timeout = {int(self._timeout * 1000)}")
            if first is not None:
                conn.execute(first)
        except BaseException:
            conn.close()
            raise
        return conn

    def _connect_again(self, connect: Callable[[], _T]) -> _T:
        """``connect()``, tried with bounded backoff for up to ``reconnect`` seconds."""
        deadline = time.monotonic() + self._reconnect
        delay = _FIRST_DELAY
        while True:
            try:
                return connect()
            except self._psycopg.OperationalError as error:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StoreError(
                        f"{self.where}: the connection was lost and could not be made again "
                        f"within {self._reconnect:g} s: {self._message(error)}"
                    ) from error
                time.sleep(min(delay, left))
                delay = min(delay * 2, _LAST_DELAY)

    def _connection(self) -> Any:
        """This process's connection, made again when it was lost."""
        if self._pid != os.getpid():
            if self._conn is not None:
                # Inherited across fork(): never used here, and never closed either (closing
                # would end the parent's session on the shared socket), so keep it referenced.
                _INHERITED.append(self._conn)
            self._conn = None
            self._pid = os.getpid()
            self._mutex = threading.RLock()
            self._depth, self._journal, self._reopen, self._deferred = 0, [], False, None
        if self._conn is None or self._conn.closed:
            self._conn = None
            self._conn = self._connect_again(self._connect)
        return self._conn

    def _lost(self, error: Exception) -> bool:
        """Whether ``error`` means the connection is gone (then it is dropped, to be made again)."""
        conn = self._conn
        if not isinstance(error, self._psycopg.OperationalError) or (conn is not None and not conn.closed):
            return False
        self._conn = None
        if conn is not None:
            conn.close()
        self._reopen = self._depth > 0
        return True

    def _message(self, error: BaseException) -> str:
        """The driver's message on one line (libpq indents its hints with tabs), password redacted."""
        lines = (line.strip() for line in str(error).splitlines())
        return redact("; ".join(line for line in lines if line), self.dsn)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """The database's errors as ours, naming the database (never its password)."""
        psycopg = self._psycopg
        try:
            yield
        except psycopg.errors.DataError as error:
            raise CorruptLog(self.where, 0, f"damaged data ({self._message(error)})") from error
        except psycopg.Error as error:
            raise StoreError(f"{self.where}: {self._message(error)}") from error

    def _run(self, work: Callable[[Any, bool], _T]) -> _T:
        """``work(conn, again)`` on a live connection; after a loss, again on a new one.

        Inside a transaction the new connection first begins it again and runs
        its statements so far (``again`` is then True).
        """
        again = False
        for _ in range(_LOSSES):
            try:
                if self._reopen:
                    self._begin_again()
                    again = True
                return work(self._connection(), again)
            except self._psycopg.OperationalError as error:
                if not self._lost(error):
                    raise
                if self._reopen and not self._replayable:
                    raise StoreError(
                        f"{self.where}: the connection was lost during a compaction; nothing changed "
                        f"({self._message(error)})"
                    ) from error
                last = error
        raise StoreError(f"{self.where}: the connection was lost {_LOSSES} times: {self._message(last)}")

    def _begin_again(self) -> None:
        """Begin the lost transaction on a new connection and run its statements so far."""
        conn = self._connection()
        conn.execute("BEGIN")
        for step in self._journal:
            self._check_base(conn, step)
            conn.execute(step.sql, step.args)
        self._reopen = False

    def _check_base(self, conn: Any, step: _Step) -> None:
        """An event insert runs again only onto the version it was made after."""
        if step.session is None:
            return
        (newest,) = conn.execute(
            "SELECT coalesce(max(version), 0) FROM phasetodo_events WHERE session = %s", (step.session,)
        ).fetchone()
        if newest != step.version - 1:
            raise StoreError(
                f"{self.where}: the connection was lost before session {step.session!r} version "
                f"{step.version} was committed, and another writer has taken that version since "
                f"(the session is at {newest}); nothing was applied"
            )

    def _committed(self, journal: list[_Step]) -> bool:
        """Whether every event of ``journal`` is in the log with the body we wrote."""
        events = [step for step in journal if step.session is not None]

        def bodies(conn: Any, _: bool) -> list[tuple[Any, ...]]:
            return [  # a write with a request id is looked up by it: that id is the write's identity
                conn.execute(
                    "SELECT body FROM phasetodo_events WHERE session = %s AND request = %s",
                    (step.session, step.request),
                ).fetchone()
                if step.request is not None
                else conn.execute(
                    "SELECT body FROM phasetodo_events WHERE session = %s AND version = %s",
                    (step.session, step.version),
                ).fetchone()
                for step in events
            ]

        return bool(events) and self._run(bodies) == [(step.body,) for step in events]

    def _commit(self) -> None:
        """COMMIT (with the held-back insert, if any, in the same round trip); when the
        connection is lost on the way, the log says whether it was committed."""
        deferred, self._deferred = self._deferred, None
        if deferred is not None:  # from here on it is a statement of the transaction like any other
            self._journal.append(deferred)
        journal = self._journal
        for _ in range(_LOSSES):
            try:
                if self._reopen:  # it was not: begin again, run the statements, commit
                    self._begin_again()
                    deferred = None  # run again with the others
                if deferred is not None:  # one query, so the simple protocol: the values bound here
                    self._psycopg.ClientCursor(self._connection()).execute(
                        f"{deferred.sql}; COMMIT", deferred.args
                    )
                else:
                    self._connection().execute("COMMIT")
                return
            except self._psycopg.OperationalError as error:
                if not self._lost(error):
                    raise
                last = error
            self._depth, self._reopen = 0, False  # learn the outcome outside the transaction
            try:
                committed = self._committed(journal)
            except StoreError as error:
                raise StoreError(
                    f"{error}; the write may have been committed: read the session before writing again"
                ) from error
            finally:
                self._depth = 1
            if committed:
                return
            if not self._replayable:
                raise StoreError(
                    f"{self.where}: the connection was lost while committing a compaction; every event "
                    f"is kept either way, compact again to be sure ({self._message(last)})"
                )
            self._reopen = True
        raise StoreError(f"{self.where}: the connection was lost {_LOSSES} times: {self._message(last)}")

    def _rollback(self) -> None:
        """ROLLBACK (also of a transaction begun again); a lost connection has rolled back already."""
        if self._conn is None:
            return
        try:
            self._conn.execute("ROLLBACK")
        except self._psycopg.OperationalError as error:
            if not self._lost(error):
                raise

    def init_schema(self) -> None:
        """Create the tables and index if missing (also done at the first write).

        A schema found complete is left alone without the lock that serializes its making:
        a fleet's processes, each at its first write, would otherwise wait for one another.
        """

        def create(conn: Any, _: bool) -> None:
            if conn.execute(_SCHEMA_READY, (list(_SCHEMA_NAMES),)).fetchone() == (len(_SCHEMA_NAMES), 2):
                return
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                for statement in SCHEMA:
                    conn.execute(statement)
                has = {
                    row[0]
                    for row in conn.execute(
                        "SELECT column_name FROM information_schema.columns WHERE table_schema ="
                        " current_schema() AND table_name = 'phasetodo_events'"
                    ).fetchall()
                }
                if "request" not in has:  # checked first: ALTER TABLE would lock the table anyway
                    conn.execute(_REQUEST_COLUMN)
                    conn.execute(_REQUEST_INDEX)
                if "hash" not in has:
                    conn.execute(_HASH_COLUMN)

        with self._mutex, self._errors():
            self._run(create)
            self._schema = True

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction on this process's connection (re-entrant); commit on exit.

        Statements go through :meth:`execute`, which keeps them to run again
        should the connection be lost before the commit.
        """
        if not self._schema:
            self.init_schema()
        with self._mutex, self._errors():
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._run(lambda conn, _: conn.execute("BEGIN"))
            self._depth, self._journal, self._replayable, self._reopen = 1, [], True, False
            try:
                yield
                self._commit()
            except BaseException:
                self._rollback()
                raise
            finally:
                self._depth, self._journal, self._reopen, self._deferred = 0, [], False, None

    def execute(
        self, sql: str, args: tuple[Any, ...] = (), *,
        event: tuple[str, int, str, str | None] | None = None,
        replayable: bool = True,
        with_commit: bool = False,
    ) -> list[Any]:
        """Run one statement inside :meth:`transaction` and return its rows.

        ``event`` (session, version, body, request id) marks the insert of an event;
        ``replayable=False`` a statement that must not run again on a new connection.
        ``with_commit=True`` holds the statement back (returning no rows) to be sent with
        the transaction's COMMIT, in one round trip: a write's last statement, which so
        leaves the plan's lock a round trip sooner. Any statement run in the meantime
        sends it first.
        """
        step = _Step(sql, args) if event is None else _Step(sql, args, *event)
        with self._mutex, self._errors():
            if not self._depth:
                raise RuntimeError("execute() runs inside transaction()")
            self._send_deferred()
            if with_commit:
                self._deferred = step
                return []
            self._replayable = self._replayable and replayable
            return self._run_step(step)

    def _run_step(self, step: _Step) -> list[Any]:
        """Run one statement of the open transaction (keeping it to run again) and return its rows."""

        def run(conn: Any, again: bool) -> list[Any]:
            if again:
                self._check_base(conn, step)
            cursor = conn.execute(step.sql, step.args)
            return list(cursor.fetchall()) if cursor.description is not None else []

        rows = self._run(run)
        self._journal.append(step)
        return rows

    def _send_deferred(self) -> None:
        """Send the statement held back for the COMMIT now, since another one comes first."""
        with self._mutex, self._errors():
            step, self._deferred = self._deferred, None
            if step is not None:
                self._run_step(step)

    def execute_then_read(
        self, sql: str, args: tuple[Any, ...], query: str, query_args: tuple[Any, ...]
    ) -> tuple[list[Any], list[Any]]:
        """:meth:`execute` of ``sql`` with ``query`` sent behind it, both rows back in one round
        trip (a pipeline). The server runs ``query`` once ``sql`` is done, in a snapshot of its
        own, so it sees what was committed while ``sql`` waited for a lock."""
        step = _Step(sql, args)
        self._send_deferred()

        def run(conn: Any, again: bool) -> tuple[list[Any], list[Any]]:
            with conn.pipeline():
                first = conn.execute(sql, args)
                second = conn.execute(query, query_args)
            return list(first.fetchall()), list(second.fetchall())

        with self._mutex, self._errors():
            if not self._depth:
                raise RuntimeError("execute_then_read() runs inside transaction()")
            rows = self._run(run)
            self._journal.append(step)
            return rows

    def execute_many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """Run one statement for each of ``rows`` inside :meth:`transaction` (never run again)."""
        self._send_deferred()

        def run(conn: Any, _: bool) -> None:
            with conn.cursor() as cursor:
                cursor.executemany(sql, rows)

        with self._mutex, self._errors():
            if not self._depth:
                raise RuntimeError("execute_many() runs inside transaction()")
            self._replayable = False
            self._run(run)

    def read(self, sql: str, args: tuple[Any, ...] | Mapping[str, Any]) -> list[Any]:
        """Run one query and return its rows (none while the tables do not exist)."""
        self._send_deferred()  # inside a transaction, the query sees its own writes
        with self._mutex, self._errors():
            try:
                return self._run(lambda conn, _: list(conn.execute(sql, args).fetchall()))
            except self._psycopg.errors.UndefinedTable:
                return []

    def listener(self) -> Any:
        """A new connection listening on :data:`CHANNEL` (the caller closes it), with backoff."""
        with self._errors():
            return self._connect_again(lambda: self._connect(f"LISTEN {CHANNEL}"))

    @property
    def listens(self) -> bool | None:
        """Whether watchers wait on LISTEN/NOTIFY (None until the first wait found out)."""
        return self._listens

    def listen_works(self) -> bool:
        """Whether LISTEN/NOTIFY reaches this store's listeners; probed once, at the first wait.

        A new listener waits :data:`PROBE` seconds for a notification this store sends;
        behind a pooler in transaction mode it never arrives, and watchers poll instead.
        """
        if self._listens is None:
            token = f"phasetodo probe {os.getpid()} {os.urandom(8).hex()}"
            conn = self.listener()
            try:
                self.read("SELECT pg_notify(%s, %s)", (CHANNEL, token))
                deadline = time.monotonic() + PROBE
                heard = False
                while not heard and (left := deadline - time.monotonic()) > 0:
                    with self._errors():
                        heard = any(n.payload == token for n in conn.notifies(timeout=left, stop_after=1))
                self._listens = heard
            finally:
                conn.close()
        return self._listens

    def open(self, session_id: str, *, owner: str | None = None, profile: str | None = None) -> PostgresLog:
        """Open the session; a new one records ``owner`` (and chains it with ``profile`` in its
        first record) at its first write."""
        check_session_id(session_id)
        rows = self.read("SELECT owner FROM phasetodo_sessions WHERE id = %s", (session_id,))
        return PostgresLog(self, session_id, rows[0][0] if rows else owner, owner, profile)

    def verify(self, session_id: str) -> Verification:
        """Check the hash chain and version order of the session's rows, as stored."""
        return self.open(session_id).verify()

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
        return f"PostgresStore({self.where!r})"


class PostgresLog(RowLog[PostgresStore]):
    """One session's rows in a :class:`PostgresStore`."""

    def __init__(
        self, store: PostgresStore, session_id: str, owner: str | None, wanted: str | None,
        profile: str | None = None,
    ) -> None:
        self._listen: Any = None
        self._listen_pid = os.getpid()
        self._server_now: float | None = None
        super().__init__(store, session_id, owner, wanted, profile)

    def now(self) -> float | None:
        """The server's clock when this writer took the session's lock (None outside it): the
        time a write under the lock runs at, whatever the writer's own clock says."""
        return self._server_now

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        store = self.store
        with store.transaction():
            # The row lock first, then the server's clock (read in the outer query, once the
            # lock is held): every writer of the plan stamps its events with the one clock.
            # The rows since the one read last come back with the lock, in the same round trip.
            following = self._following()
            if following is None:
                locked = store.execute(_LOCK_PLAN, (self.session_id,))
            else:
                locked, rows = store.execute_then_read(
                    _LOCK_PLAN, (self.session_id,), _SINCE, (self.session_id, following, _PAGE)
                )
                self._local.since = (following, rows)
            if not locked:  # the plan's first write: its row is made, then locked
                store.execute(
                    "INSERT INTO phasetodo_sessions (id, owner) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING",
                    (self.session_id, self._wanted),
                )
                locked = store.execute(_LOCK_PLAN, (self.session_id,))
            ((recorded, now),) = locked
            self._take_owner(recorded)
            self._server_now = float(now) if store.server_clock else None
            try:
                yield
            finally:
                self._server_now = None
                self._local.since = None

    def _stored_owner(self) -> str | None:
        rows = self.store.read("SELECT owner FROM phasetodo_sessions WHERE id = %s", (self.session_id,))
        return rows[0][0] if rows else None

    def _newest(self, *, checkpoint: bool, upto: int | None = None) -> object:
        marked = " AND checkpoint" if checkpoint else ""
        below = "" if upto is None else " AND version <= %s"
        rows = self.store.read(
            f"SELECT max(version) FROM phasetodo_events WHERE session = %s{marked}{below}",
            (self.session_id,) if upto is None else (self.session_id, upto),
        )
        return rows[0][0] if rows else None

    def _page(self, after: int, limit: int) -> list[tuple[object, object]]:
        return self.store.read(
            "SELECT version, body FROM phasetodo_events WHERE session = %s AND version > %s "
            "ORDER BY version LIMIT %s",
            (self.session_id, after, limit),
        )

    def _since(self, version: int, limit: int) -> list[tuple[object, object, object]]:
        kept, self._local.since = getattr(self._local, "since", None), None  # good for one read
        if kept is not None and kept[0] == version and limit == _PAGE:
            rows: list[tuple[object, object, object]] = kept[1]
            return rows  # read with the lock, and nothing written since
        return self.store.read(_SINCE, (self.session_id, version, limit))

    def _insert(self, version: int, body: str, checkpoint: bool, request: str | None) -> None:
        self._local.since = None  # rows read with the lock no longer are the newest
        store = self.store
        with store.transaction():
            store.execute(  # the row and the wake-up of the plan's watchers, sent with the COMMIT
                "WITH added AS (INSERT INTO phasetodo_events (session, version, checkpoint, body,"
                " request, hash) VALUES (%s, %s, %s, %s, %s, %s) RETURNING version)"
                " SELECT pg_notify(%s, %s) FROM added",
                (
                    self.session_id, version, checkpoint, body, request, unseal(body)[1],
                    CHANNEL, self.session_id,
                ),
                event=(self.session_id, version, body, request), with_commit=True,
            )

    def _renewals_body(self) -> object:
        rows = self.store.read(
            "SELECT body FROM phasetodo_renewals WHERE session = %s", (self.session_id,)
        )
        return rows[0][0] if rows else None

    def _put_renewals(self, body: str) -> None:
        store = self.store
        with store.transaction():
            store.execute(
                "INSERT INTO phasetodo_renewals (session, body) VALUES (%s, %s)"
                " ON CONFLICT (session) DO UPDATE SET body = excluded.body",
                (self.session_id, body),
            )

    def _stored_hash(self, version: int) -> str | None:
        rows = self.store.read(
            "SELECT hash FROM phasetodo_events WHERE session = %s AND version = %s",
            (self.session_id, version),
        )
        found = rows[0][0] if rows else None
        return found if isinstance(found, str) else None

    def _request_version(self, request_id: str) -> object:
        rows = self.store.read(
            "SELECT max(version) FROM phasetodo_events WHERE session = %s AND request = %s",
            (self.session_id, request_id),
        )
        return rows[0][0] if rows else None

    def _first_break(self) -> tuple[int, str] | None:
        """Check every row's link in the server (``sha256`` and ``lag``, PostgreSQL 11 and later);
        then only the row it points at, and the one before it, are read, to say exactly why.
        Where the rows are not laid out as our writers lay them out, the exact check runs here.

        Rows this user checked before (:mod:`._checked`, kept under the server's address and
        the session) are skipped when the newest of them is still there with the same hash;
        when only a page of rows follows it, those are read and checked here (:meth:`_near_break`).
        """
        key = _checked.key_for("postgres", self.store.dsn, self.session_id)
        mark = _checked.load(key)
        near = self._near_break(mark) if mark is not None else None
        if near is not None:
            found, checked = near
            if found is not None:
                _checked.forget(key)
            elif checked is not None and checked != mark:
                _checked.save(key, checked)
            return found
        number, newest = self._rows_break(mark)
        if mark is not None and newest is None:  # the mark's row is gone or holds another hash
            number, newest = self._rows_break(None)
        if number is None:
            if newest is not None and newest != mark:
                _checked.save(key, newest)
            return None
        _checked.forget(key)
        rows = self.store.read(
            "SELECT version, body FROM phasetodo_events WHERE session = %s ORDER BY version"
            " OFFSET %s LIMIT %s",
            (self.session_id, max(number - 2, 0), 2 if number > 1 else 1),
        )
        bodies = [(version, body.encode("utf-8", "surrogatepass")) for version, body in rows]
        previous = unseal(bodies[0][1])[1] if number > 1 else None
        exact = first_break(bodies[-1:], start=number, previous=previous)
        return exact if exact is not None else super()._first_break()

    def _near_break(
        self, mark: _checked.Mark
    ) -> tuple[tuple[int, str] | None, _checked.Mark | None] | None:
        """The first break from ``mark``'s row on and the mark of the newest row, from one short
        read checked here, as SQLite checks (a new server process plans :data:`_FIRST_BREAK`
        slower than this reads a few rows). None when ``mark``'s row no longer holds, or more
        than a page of rows follows it (the server checks those, where they are)."""
        rows = self.store.read(
            "SELECT version, body FROM phasetodo_events WHERE session = %s AND version >= %s"
            " ORDER BY version LIMIT %s",
            (self.session_id, mark.version, _PAGE + 1),
        )
        if len(rows) > _PAGE:
            return None
        return _checked.check_from(mark, ((v, body.encode("utf-8", "surrogatepass")) for v, body in rows))

    def _rows_break(self, mark: _checked.Mark | None) -> tuple[int | None, _checked.Mark | None]:
        """The first broken row from ``mark``'s on (every row without one), by its number, and
        the mark of the newest row checked (None for an empty log). (None, None) when
        ``mark``'s row no longer holds: gone, or its bytes no longer give its hash."""
        start = mark.version if mark is not None else 1
        previous = mark.previous if mark is not None else None
        args = {"session": self.session_id, "start": start, "previous": previous}
        found = self.store.read(_FIRST_BREAK, args)
        if not found:  # no table yet
            return None, None
        ((number, first, version, digest, before),) = found
        if mark is not None and (first != mark.digest or number == start):
            return None, None  # the checked row is gone, or its bytes no longer give its hash
        if version is None or digest is None:
            return number, None
        return number, _checked.Mark(0, int(version), str(digest), before)

    def _replace_all(self, rows: list[tuple[int, str, bool, str | None]]) -> None:
        self._local.since = None
        store = self.store
        with store.transaction():
            store.execute(
                "DELETE FROM phasetodo_events WHERE session = %s", (self.session_id,), replayable=False
            )
            store.execute_many(
                "INSERT INTO phasetodo_events (session, version, checkpoint, body, request, hash)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                [(self.session_id, v, cp, body, rid, unseal(body)[1]) for v, body, cp, rid in rows],
            )

    def wait(self, after: int, timeout: float | None = None) -> bool:
        """Wait on LISTEN/NOTIFY until a version above ``after`` lands (polling where LISTEN
        does not work, as behind a pooler in transaction mode).

        A lost listening connection is made again, and the newest version looked
        at once it listens, so nothing written in between is missed.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        if self._listen is not None and self._listen_pid != os.getpid():
            _INHERITED.append(self._listen)
            self._listen = None
        if not self.store.listen_works():
            return self._poll(after, deadline)
        while True:
            if self._listen is None or self._listen.closed:
                self._listen = self.store.listener()
                self._listen_pid = os.getpid()
            if self.version() > after:
                return True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            try:
                for _ in self._listen.notifies(timeout=min(left, 1.0) if left is not None else 1.0,
                                               stop_after=1):
                    pass
            except self.store._psycopg.OperationalError as error:
                if not self._listen.closed:
                    raise StoreError(f"{self.where}: {self.store._message(error)}") from error
                self._listen.close()
                self._listen = None

    def _poll(self, after: int, deadline: float | None) -> bool:
        """Look at the newest version every :data:`POLL` seconds (where LISTEN does not work)."""
        while self.version() <= after:
            left = POLL if deadline is None else min(POLL, deadline - time.monotonic())
            if left <= 0:
                return False
            time.sleep(left)
        return True

    def close(self) -> None:
        """Close the listening connection, if one was opened."""
        if self._listen is not None and self._listen_pid == os.getpid():
            self._listen.close()
            self._listen = None
