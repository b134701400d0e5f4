"""Many sessions in one SQLite file (stdlib ``sqlite3``, WAL journal).

Events are rows keyed by ``(session, version)``, each one record (a delta or,
now and then, a checkpoint marked in the ``checkpoint`` column, found through a
partial index), so two writers can never both append the same version and
opening decodes one checkpoint plus a bounded tail (and checks every row's
hash link in one statement, decoding none). The lock is a ``BEGIN
IMMEDIATE`` transaction (SQLite's single writer, across processes), taken in
turn through an ``flock`` of ``PATH.writers`` (POSIX), plus a thread lock
around the store's one connection; leaving the lock commits with
``synchronous=FULL``, so an event is durable once the write returns.

Errors of the database (a full disk, a read-only file) are raised as
:class:`~phasetodo.errors.StoreError` naming the file and the cause, and a
damaged file or row as :class:`~phasetodo.errors.CorruptLog` naming the file
and the row. A store object used in a forked child opens a connection of its
own there, and the database file and its journals are never symbolic links we
follow. Nothing is created until the first write, and a database that cannot
be written is opened read-only, so reading needs no write access.

Identify first, write second: before any migration, journal switch or write, an
existing non-empty file must be a phasetodo database, marked by our
``application_id`` (set when phasetodo creates a database) or, from versions
before the mark, holding our ``sessions`` and ``events`` tables. Any other file
(not SQLite, or another program's database) raises
:class:`~phasetodo.errors.CorruptLog` naming it, and is left byte for byte as it
was, with no journal made beside it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import struct
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

try:  # POSIX: writers queue on a lock file beside the database (see SqliteStore.transaction)
    import fcntl
except ImportError:  # pragma: no cover - elsewhere SQLite's own busy wait alone
    fcntl = None  # type: ignore[assignment]

from ..errors import CorruptLog, StoreError, WritersQueueWarning
from . import _checked
from ._base import check_session_id
from ._chain import Verification, unseal
from ._rows import RowLog

__all__ = ["APPLICATION_ID", "SqliteLog", "SqliteStore"]

#: The ``PRAGMA application_id`` of every database phasetodo creates (``b"PTDO"``).
APPLICATION_ID = int.from_bytes(b"PTDO", "big")
#: The first bytes of every SQLite database file; its header is 100 bytes long.
_MAGIC = b"SQLite format 3\x00"
#: The columns that mark a phasetodo database made before it carried ``APPLICATION_ID``.
_TABLES = {"sessions": {"id", "owner"}, "events": {"session", "version", "body"}}
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, owner TEXT)",
    "CREATE TABLE IF NOT EXISTS events (session TEXT NOT NULL, version INTEGER NOT NULL,"
    " body TEXT NOT NULL, checkpoint INTEGER NOT NULL DEFAULT 1, request TEXT, hash TEXT,"
    " PRIMARY KEY (session, version)) WITHOUT ROWID",
    # heartbeats' renewed deadlines, beside the log (see stores/_renewals.py): one row a session
    "CREATE TABLE IF NOT EXISTS renewals (session TEXT PRIMARY KEY, body TEXT NOT NULL)",
)
#: Rows written before checkpoints existed each hold the whole list: default 1.
_MIGRATE = "ALTER TABLE events ADD COLUMN checkpoint INTEGER NOT NULL DEFAULT 1"
_INDEX = (
    "CREATE INDEX IF NOT EXISTS events_checkpoints ON events (session, version) WHERE checkpoint = 1"
)
#: Rows written before request ids existed have none: the column is added, empty.
_MIGRATE_REQUEST = "ALTER TABLE events ADD COLUMN request TEXT"
#: Each row's hash as a column too (what the next write chains to, read without the body).
_MIGRATE_HASH = "ALTER TABLE events ADD COLUMN hash TEXT"
_REQUEST_INDEX = (
    "CREATE INDEX IF NOT EXISTS events_requests ON events (session, request) WHERE request IS NOT NULL"
)
#: The database file, the journal files SQLite makes beside it, and the writers' queue.
_FILES = ("", "-wal", "-shm", "-journal", ".writers")


class SqliteStore:
    """Session logs in the SQLite database at ``path`` (created, with its folder, at the first write).

    ``timeout`` is how long a writer waits for the database's own write lock, in seconds.
    On POSIX, phasetodo's writers first queue on an ``flock`` of ``PATH.writers`` (as the
    JSONL store's do on their log): the kernel hands the lock over in turn, where
    SQLite's busy wait lets a newcomer pass writers that have waited long. The queue
    waits at most ``timeout`` too (then a :class:`~phasetodo.errors.StoreError` naming
    ``PATH.writers``); a writer that dies leaves it at once. Reads never wait on it, and
    only those who may write the database may open (and so lock) the file. Where the file
    system has no ``flock``, writers use SQLite's busy wait alone, with one
    :class:`~phasetodo.errors.WritersQueueWarning`.
    """

    storage: Literal["session"] = "session"

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 60.0) -> None:
        self.path = os.fspath(path)
        #: The database, as errors name it: its path.
        self.where = self.path
        self._timeout = timeout
        if self.path != ":memory:":
            for suffix in _FILES:
                if os.path.islink(self.path + suffix):
                    raise StoreError(
                        f"{self.path + suffix}: is a symbolic link; a phasetodo store never follows "
                        "links, so that no planted link can make it write outside its file"
                    )
        self._conn: sqlite3.Connection | None = None
        self._file: tuple[int, int] | None = None  # the database file, as counted in _OPEN_FILES
        self._readonly = False
        self._marked = True  # whether the events table has the checkpoint column
        self._pid = os.getpid()
        self._mutex = threading.RLock()
        self._depth = 0
        self._setup = threading.Lock()
        self._queue = -1  # the writers' lock file, opened by this process (pid _queue_pid)
        self._queue_pid = 0
        if self.path == ":memory:" or os.path.exists(self.path):
            self._connect(create=False)

    def _connect(self, *, create: bool) -> None:
        """A connection and thread state for this process (again after a fork)."""
        with self._setup:
            if self._conn is not None and self._pid == os.getpid() and not (create and self._readonly):
                return  # another thread connected first
            memory = self.path == ":memory:"
            folder = os.path.dirname(os.path.abspath(self.path))
            writable = memory or create or (os.access(self.path, os.W_OK) and os.access(folder, os.W_OK))
            with self._errors():
                if not memory:
                    self._identify()  # before anything can write to the file
                if create and not memory:
                    Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                if writable:
                    conn = sqlite3.connect(
                        self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
                    )
                    self._wal(conn)
                    conn.execute("PRAGMA synchronous=FULL")
                    if _set_up(conn):  # nothing to migrate: a reader never queues with the writers
                        columns = ["checkpoint"]
                        self._finish(conn, writable, columns)
                        return
                    self._enqueue()  # in turn with the writers, or a busy plan starves the opener
                    try:
                        conn.execute("BEGIN IMMEDIATE")
                        reason = _foreign_reason(conn)  # again, under the write lock
                        if reason is not None:
                            raise self._foreign(reason)
                        if _blank(conn):
                            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                        for statement in _SCHEMA:
                            conn.execute(statement)
                        columns = [row[1] for row in conn.execute("PRAGMA table_info(events)")]
                        if "checkpoint" not in columns:
                            conn.execute(_MIGRATE)
                        if "request" not in columns:
                            conn.execute(_MIGRATE_REQUEST)
                        if "hash" not in columns:
                            conn.execute(_MIGRATE_HASH)
                        conn.execute(_INDEX)
                        conn.execute(_REQUEST_INDEX)
                        conn.execute("COMMIT")
                    except BaseException:
                        if conn.in_transaction:
                            conn.execute("ROLLBACK")
                        conn.close()
                        raise
                    finally:
                        self._dequeue()
                else:
                    conn, columns = self._read_only()
                    self._marked = "checkpoint" in columns or not columns
            self._finish(conn, writable, None)

    def _finish(self, conn: sqlite3.Connection, writable: bool, columns: list[str] | None) -> None:
        """Adopt ``conn`` as this process's connection."""
        if columns is not None:
            self._marked = "checkpoint" in columns
        if self._pid != os.getpid():  # a forked child: the parent's thread state is not its own
            self._pid = os.getpid()
            self._mutex = threading.RLock()
            self._depth = 0
        # In this process the mutex stays the one other threads may hold right now (a
        # first write connects while readers wait on it): a new one would let both in.
        self._readonly = not writable
        self._conn = conn
        self._file = _hold(self.path)

    def _identify(self) -> None:
        """Raise :class:`CorruptLog` unless the file is missing, empty or a phasetodo database.

        Reads the 100-byte file header, then, if that does not carry our mark, the
        schema through a connection that cannot write (immutable while no writer has a
        ``-wal`` file, so that no file is made beside another program's database).
        """
        try:
            if _in_use(os.stat(self.path, follow_symlinks=False)):
                return  # identified by this process's live connection; a second descriptor would
                # drop SQLite's locks on the file when it closes (POSIX locks are per process)
            fd = os.open(self.path, os.O_RDONLY | _NOFOLLOW)
        except FileNotFoundError:
            return
        except OSError as error:
            raise StoreError(f"{self.path}: cannot be read ({error.strerror or error})") from error
        try:
            header = os.pread(fd, 100, 0)
        except OSError as error:
            raise StoreError(f"{self.path}: cannot be read ({error.strerror or error})") from error
        finally:
            os.close(fd)
        if not header:
            return  # SQLite takes an empty file for a new database, and so do we
        if len(header) < 100 or not header.startswith(_MAGIC):
            raise self._foreign("it is not a SQLite database")
        (application,) = struct.unpack(">I", header[68:72])
        if application == APPLICATION_ID:
            return
        if application:
            raise self._foreign(f"its application_id is {application:#010x}, another program's")
        conn = self._peek()
        try:
            reason = _foreign_reason(conn)
        finally:
            conn.close()
        if reason is not None:
            raise self._foreign(reason)

    def _peek(self) -> sqlite3.Connection:
        """A connection that never writes; immutable unless a writer's ``-wal`` file is there."""
        base = "file:" + quote(Path(self.path).absolute().as_posix()) + "?mode=ro"
        frozen = base + "&immutable=1"
        uris = [base, frozen] if os.path.exists(self.path + "-wal") else [frozen]
        for uri in uris:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.OperationalError as error:
                conn.close()
                if "readonly" not in str(error) or uri == uris[-1]:
                    raise
                continue
            return conn
        raise AssertionError("unreachable")  # pragma: no cover

    def _foreign(self, reason: str) -> CorruptLog:
        return CorruptLog(self.path, 0, f"not a phasetodo database ({reason}); the file was left unchanged")

    def _read_only(self) -> tuple[sqlite3.Connection, list[str]]:
        """A connection that never writes, for a file or folder this process may not write to.

        A WAL database needs its ``-shm`` file even to read; where that cannot be made (a
        read-only folder after the last writer closed), the file is read as immutable.
        """
        base = "file:" + quote(Path(self.path).absolute().as_posix()) + "?mode=ro"
        for uri in (base, base + "&immutable=1"):
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            try:
                return conn, [row[1] for row in conn.execute("PRAGMA table_info(events)")]
            except sqlite3.OperationalError as error:
                conn.close()
                if "readonly" not in str(error) or uri != base:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _wal(self, conn: sqlite3.Connection) -> None:
        """Switch to WAL; processes creating the file together may find it locked for a moment."""
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                if conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] in ("wal", "memory"):
                    return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
            time.sleep(0.01)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Raise the database's own errors as ours: a damaged file as CorruptLog, the rest as StoreError."""
        try:
            yield
        except sqlite3.OperationalError as error:
            raise StoreError(f"{self.path}: {error}") from error
        except sqlite3.DatabaseError as error:
            raise CorruptLog(self.path, 0, f"the database is damaged ({error})") from error
        except UnicodeDecodeError as error:
            raise CorruptLog(self.path, 0, f"text that is not UTF-8 ({error.reason})") from None

    def _mine(self, *, write: bool) -> bool:
        """Make sure this process has a connection (a writable one for writes); False if none is needed."""
        if self._conn is not None and self._pid != os.getpid():
            self._conn = None  # never use a connection inherited across fork()
        if self._conn is None:
            if not write and not os.path.exists(self.path):
                return False
            self._connect(create=write)
        if write and self._readonly:
            raise StoreError(f"{self.path}: the database is read-only here, so it cannot be written")
        return True

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the database's write lock (re-entrant); commit on exit, roll back on error."""
        if self._conn is None or self._pid != os.getpid():
            self._mine(write=True)
        if self._readonly:
            raise StoreError(f"{self.path}: the database is read-only here, so it cannot be written")
        conn = self._conn
        assert conn is not None
        with self._mutex, self._errors():
            if self._depth == 0:
                self._enqueue()
                try:
                    conn.execute("BEGIN IMMEDIATE")
                except BaseException:
                    self._dequeue()
                    raise
            self._depth += 1
            try:
                yield conn
            except BaseException:
                self._depth -= 1
                if self._depth == 0:
                    try:
                        if conn.in_transaction:  # a full disk already rolled back
                            conn.execute("ROLLBACK")
                    finally:
                        self._dequeue()
                raise
            self._depth -= 1
            if self._depth == 0:
                try:
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                finally:
                    self._dequeue()

    def _enqueue(self) -> None:
        """Wait for this process's turn among phasetodo's writers (the ``flock`` of ``PATH.writers``).

        Opened once per process (a forked child opens its own: a shared file description
        would share the lock); where it cannot be opened, SQLite's busy wait alone serves.
        """
        if fcntl is None or self.path == ":memory:":
            return
        if self._queue_pid != os.getpid():
            if self._queue >= 0:  # a forked child's copy of its parent's (closing it keeps theirs)
                os.close(self._queue)
            self._queue, self._queue_pid = -1, os.getpid()
            flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | os.O_CLOEXEC
            try:
                self._queue = os.open(self.path + ".writers", flags, self._queue_mode())
                _only_writers(self._queue, self._queue_mode())
            except OSError:
                return  # read-only folder, a planted link: no queue, the busy wait still holds
        if self._queue >= 0:
            self._queue_lock()

    def _queue_mode(self) -> int:
        """The writers' file's mode: read and write for exactly who may write the database.

        Whoever may only read the database may not open the file, so cannot lock it
        and hold up the writers.
        """
        try:
            mode = stat.S_IMODE(os.stat(self.path).st_mode)
        except OSError:
            mode = 0o600
        wanted = 0
        for write, both in ((stat.S_IWUSR, 0o600), (stat.S_IWGRP, 0o060), (stat.S_IWOTH, 0o006)):
            if mode & write:
                wanted |= both
        return wanted | 0o600

    def _queue_lock(self) -> None:
        """Take the writers' ``flock`` within the store's timeout, or raise ``StoreError``.

        Taken at once when free; else waited for blocked in the kernel, which wakes the
        waiters when it is released (a waiter that polled with growing pauses was
        overtaken by newcomers for seconds). A file system without ``flock`` leaves
        SQLite's own busy wait, with one warning.
        """
        try:
            fcntl.flock(self._queue, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            error = self._queue_wait()
        except OSError as failed:
            error = failed
        if error is not None:  # ENOLCK, EOPNOTSUPP, EINVAL: no flock on this file system
            os.close(self._queue)
            self._queue = -1
            warnings.warn(
                f"{self.path}.writers: cannot be locked here ({error.strerror}); writers use "
                "SQLite's own busy wait instead",
                WritersQueueWarning,
                stacklevel=5,
            )

    def _queue_wait(self) -> OSError | None:
        """Wait blocked for the writers' ``flock`` (in a helper thread, so that ``timeout=``
        holds): None once taken, the ``OSError`` of a file system without it.

        Given up after the timeout, the wait's file is left to the helper, which lets the
        lock go and closes the file when it gets it; the next write opens a new one.
        """
        fd, handover, done = self._queue, threading.Lock(), threading.Event()
        outcome: list[OSError | None] = []  # what the helper got, or the writer's giving up

        def take() -> None:
            error: OSError | None = None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError as failed:
                error = failed
            with handover:
                if outcome:  # the writer gave up: let the lock go at once
                    if error is None:
                        fcntl.flock(fd, fcntl.LOCK_UN)
                    os.close(fd)
                    return
                outcome.append(error)
            done.set()

        threading.Thread(target=take, name="phasetodo-sqlite-writers", daemon=True).start()
        done.wait(self._timeout)
        with handover:
            if not outcome:
                outcome.append(None)
                self._queue, self._queue_pid = -1, -1  # the helper closes this file
                raise StoreError(
                    f"{self.path}.writers: another writer held the writers' queue for over "
                    f"{self._timeout:g} s (timeout=)"
                )
        return outcome[0]

    def _dequeue(self) -> None:
        """Leave the writers' queue (the next in line takes the database's lock)."""
        if fcntl is not None and self._queue >= 0 and self._queue_pid == os.getpid():
            fcntl.flock(self._queue, fcntl.LOCK_UN)

    def read(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        """Run one query under the thread lock and return its rows (none before the first write)."""
        if not self._mine(write=False):
            return []
        with self._mutex, self._errors():
            assert self._conn is not None
            try:
                return self._conn.execute(sql, args).fetchall()
            except sqlite3.OperationalError as error:
                if "no such table" in str(error):
                    return []
                raise

    def open(self, session_id: str, *, owner: str | None = None, profile: str | None = None) -> SqliteLog:
        """Open the session; a new one records ``owner`` (and chains it with ``profile`` in its
        first record) at its first write."""
        check_session_id(session_id)
        rows = self.read("SELECT owner FROM sessions WHERE id = ?", (session_id,))
        recorded = rows[0][0] if rows else owner
        if recorded is not None and type(recorded) is not str:
            raise CorruptLog(self.path, 0, f"session {session_id!r}: owner is not text")
        return SqliteLog(self, session_id, recorded, owner, profile)

    def verify(self, session_id: str) -> Verification:
        """Check the hash chain and version order of the session's rows, as stored."""
        return self.open(session_id).verify()

    def sessions(self) -> list[str]:
        """The ids of every session in the database."""
        return [row[0] for row in self.read("SELECT id FROM sessions ORDER BY id", ())]

    def close(self) -> None:
        """Close the connection (and the writers' lock file)."""
        with self._mutex:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
                _release(self._file)
                self._file = None
            if self._queue >= 0 and self._queue_pid == os.getpid():
                os.close(self._queue)
                self._queue, self._queue_pid = -1, 0

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"


#: The database files this process has a SQLite connection on, by (device, inode), and how
#: many. Closing any descriptor of a file drops every POSIX lock the process holds on it,
#: SQLite's among them (another connection may then checkpoint and remove the ``-wal`` under
#: it: "disk image is malformed"), so such a file is never opened beside SQLite.
_OPEN_FILES: Counter[tuple[int, int]] = Counter()
_OPEN_FILES_LOCK = threading.Lock()


def _in_use(st: os.stat_result) -> bool:
    """Whether this process has a SQLite connection on the file ``st`` describes."""
    with _OPEN_FILES_LOCK:
        return _OPEN_FILES[(st.st_dev, st.st_ino)] > 0


def _hold(path: str) -> tuple[int, int] | None:
    """Count a new connection on ``path`` (None for ``:memory:`` or a file that is gone)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_dev, st.st_ino)
    with _OPEN_FILES_LOCK:
        _OPEN_FILES[key] += 1
    return key


def _release(key: tuple[int, int] | None) -> None:
    """Forget one connection counted by :func:`_hold`."""
    if key is None:
        return
    with _OPEN_FILES_LOCK:
        _OPEN_FILES[key] -= 1
        if _OPEN_FILES[key] <= 0:
            del _OPEN_FILES[key]


def _only_writers(fd: int, mode: int) -> None:
    """Narrow the writers' file to ``mode`` where it grants more (a file made before, 0644)."""
    st = os.fstat(fd)
    if stat.S_IMODE(st.st_mode) & ~mode and st.st_uid == os.geteuid():
        os.fchmod(fd, stat.S_IMODE(st.st_mode) & mode)


def _set_up(conn: sqlite3.Connection) -> bool:
    """Whether the database already is a phasetodo store of the newest schema (nothing to set up)."""
    (application,) = conn.execute("PRAGMA application_id").fetchone()
    if application != APPLICATION_ID:
        return False
    columns = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    tables = {row[1] for row in conn.execute("PRAGMA table_info(sessions)")}
    renewals = {row[1] for row in conn.execute("PRAGMA table_info(renewals)")}
    return (
        {"session", "version", "body", "checkpoint", "request", "hash"} <= columns
        and {"id", "owner"} <= tables
        and {"session", "body"} <= renewals
        and {"events_checkpoints", "events_requests"} <= names
    )


def _foreign_reason(conn: sqlite3.Connection) -> str | None:
    """Why the database is not a phasetodo store, or None if it is one or holds nothing yet."""
    (application,) = conn.execute("PRAGMA application_id").fetchone()
    if application == APPLICATION_ID:
        return None
    if application:
        return f"its application_id is {application:#010x}, another program's"
    if _blank(conn):
        return None
    for table, wanted in _TABLES.items():
        columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not wanted <= columns:
            return f"it has no {table} table of phasetodo's"
    return None


def _blank(conn: sqlite3.Connection) -> bool:
    """Whether the database holds no table, index, view or trigger and no application_id."""
    (objects,) = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    (application,) = conn.execute("PRAGMA application_id").fetchone()
    return bool(objects == 0 and application == 0)


class SqliteLog(RowLog[SqliteStore]):
    """One session's rows in a :class:`SqliteStore`."""

    @contextmanager
    def _transaction(self) -> Iterator[object]:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO sessions (id, owner) VALUES (?, ?)", (self.session_id, self._wanted)
            )
            (recorded,) = conn.execute(
                "SELECT owner FROM sessions WHERE id = ?", (self.session_id,)
            ).fetchone()
            if recorded is not None and type(recorded) is not str:
                raise CorruptLog(self.where, 0, f"session {self.session_id!r}: owner is not text")
            self._take_owner(recorded)
            yield conn

    def _stored_owner(self) -> str | None:
        rows = self.store.read("SELECT owner FROM sessions WHERE id = ?", (self.session_id,))
        return rows[0][0] if rows else None

    def _newest(self, *, checkpoint: bool, upto: int | None = None) -> object:
        marked = " AND checkpoint = 1" if checkpoint and self.store._marked else ""
        below = "" if upto is None else " AND version <= ?"
        rows = self.store.read(
            f"SELECT max(version) FROM events WHERE session = ?{marked}{below}",
            (self.session_id,) if upto is None else (self.session_id, upto),
        )
        return rows[0][0] if rows else None

    def _page(self, after: int, limit: int) -> list[tuple[object, object]]:
        return self.store.read(
            "SELECT version, CAST(body AS BLOB) FROM events WHERE session = ? AND version > ? "
            "ORDER BY version LIMIT ?",
            (self.session_id, after, limit),
        )

    def _since(self, version: int, limit: int) -> list[tuple[object, object, object]]:
        return self.store.read(
            "SELECT version, hash, CAST(body AS BLOB) FROM events WHERE session = ? AND version >= ? "
            "ORDER BY version LIMIT ?",
            (self.session_id, version, limit),
        )

    def _insert(self, version: int, body: str, checkpoint: bool, request: str | None) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO events (session, version, body, checkpoint, request, hash)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (self.session_id, version, body, int(checkpoint), request, unseal(body)[1]),
            )

    def _renewals_body(self) -> object:
        rows = self.store.read("SELECT body FROM renewals WHERE session = ?", (self.session_id,))
        return rows[0][0] if rows else None

    def _put_renewals(self, body: str) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO renewals (session, body) VALUES (?, ?)", (self.session_id, body)
            )

    def _replace_all(self, rows: list[tuple[int, str, bool, str | None]]) -> None:
        with self.store.transaction() as conn:
            conn.execute("DELETE FROM events WHERE session = ?", (self.session_id,))
            conn.executemany(
                "INSERT INTO events (session, version, body, checkpoint, request, hash)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(self.session_id, v, body, int(cp), rid, unseal(body)[1]) for v, body, cp, rid in rows],
            )

    def _stored_hash(self, version: int) -> str | None:
        rows = self.store.read(
            "SELECT hash FROM events WHERE session = ? AND version = ?", (self.session_id, version)
        )
        found = rows[0][0] if rows else None
        return found if isinstance(found, str) else None

    def _request_version(self, request_id: str) -> object:
        rows = self.store.read(
            "SELECT max(version) FROM events WHERE session = ? AND request = ?", (self.session_id, request_id)
        )
        return rows[0][0] if rows else None

    def _first_break(self) -> tuple[int, str] | None:
        """Every row's link, read by one statement: one snapshot of the log, even while another
        process compacts it (a read in pages could mix the old chain with the new).

        Rows this user checked before (:mod:`._checked`) are skipped when the newest of them is
        still there with the same hash: that row and the ones after it are read in one statement.
        """
        if not self.store._mine(write=False):
            return None
        key = self._mark_key()
        mark = _checked.load(key) if key is not None else None
        checked = self._rows_break(mark)
        if checked is None:  # the mark no longer holds: every row
            checked = self._rows_break(None)
        assert checked is not None
        found, newest = checked
        if key is not None and found is not None:
            _checked.forget(key)
        elif key is not None and newest is not None and newest != mark:
            _checked.save(key, newest)
        return found

    def _mark_key(self) -> str | None:
        path = self.store.path
        if path == ":memory:":
            return None
        try:
            return _checked.key_of(Path(path), os.stat(path), self.session_id)
        except OSError:
            return None

    def _rows_break(
        self, mark: _checked.Mark | None
    ) -> tuple[tuple[int, str] | None, _checked.Mark | None] | None:
        """The first break from ``mark``'s row on (every row without one) and the mark of the
        newest row read; None when the mark's row is gone or holds another hash."""
        store = self.store
        with store._mutex, store._errors():
            assert store._conn is not None
            try:
                cursor = store._conn.execute(
                    "SELECT version, CAST(body AS BLOB) FROM events WHERE session = ? AND version >= ?"
                    " ORDER BY version",
                    (self.session_id, mark.version if mark is not None else 1),
                )
            except sqlite3.OperationalError as error:
                if "no such table" in str(error):
                    return None, None
                raise
            try:
                return _checked.check_from(mark, ((v, b if isinstance(b, bytes) else b"") for v, b in cursor))
            finally:
                cursor.close()
