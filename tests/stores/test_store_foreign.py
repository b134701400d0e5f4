"""Files phasetodo did not write are identified before anything is repaired or written (issue 21, item 3)."""

from __future__ import annotations

import os
import sqlite3
import struct
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

import phasetodo
from phasetodo.stores import Event

PHASES = phasetodo.load_phases([{"name": "P", "tasks": [{"content": "a", "status": "pending"}]}])
#: Another tool's JSON Lines, 88 bytes, its last line unfinished (no newline).
FOREIGN_LINES = (
    b'{"role":"user","content":"hello"}\n'
    b'{"role":"assistant","content":"hi there!"}\n'
    b'{"role":"us'
)
WRITE = {"ops": [{"op": "append", "phase": "P", "items": ["a"]}]}

Snapshot = tuple[bytes, int, int]


def _snapshot(path: Path) -> Snapshot:
    """The bytes, size and modification time of ``path``."""
    st = os.stat(path)
    return path.read_bytes(), st.st_size, st.st_mtime_ns


def _other_program_db(path: Path, *, wal: bool = False, application_id: int = 0) -> None:
    """A SQLite database another program made: a table of its own with some rows."""
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    if application_id:
        conn.execute(f"PRAGMA application_id = {application_id}")
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    conn.executemany("INSERT INTO notes (text) VALUES (?)", [(f"note {k} " * 20,) for k in range(100)])
    conn.commit()
    conn.close()


def _open_jsonl_store(folder: Path, session_id: str) -> None:
    phasetodo.JsonlStore(folder).open(session_id).close()


def _open_jsonl_session(folder: Path, session_id: str) -> None:
    with phasetodo.Session.open(session_id, phasetodo.JsonlStore(folder), resume="keep") as session:
        session.todo_write(WRITE)


JSONL_OPENERS = {"store": _open_jsonl_store, "session": _open_jsonl_session}


def _jsonl_foreign(kind: str, path: Path) -> None:
    if kind == "lines with an unfinished last line":
        path.write_bytes(FOREIGN_LINES)
    elif kind == "a SQLite database":
        _other_program_db(path)
    elif kind == "binary without a newline":
        path.write_bytes(bytes(range(256)).replace(b"\n", b"") * 4)
    elif kind == "a header torn for another session":
        path.write_bytes(b'{"format":2,"session":"other","ow')
    elif kind == "one whole JSON line":
        path.write_bytes(b'{"event":"start","at":1}\n{"event":"st')
    else:  # pragma: no cover - the parameters are listed below
        raise AssertionError(kind)


JSONL_KINDS = [
    "lines with an unfinished last line",
    "a SQLite database",
    "binary without a newline",
    "a header torn for another session",
    "one whole JSON line",
]


class TestForeignJsonl:
    @pytest.mark.parametrize("kind", JSONL_KINDS)
    @pytest.mark.parametrize("opener", sorted(JSONL_OPENERS))
    def test_a_foreign_file_raises_and_keeps_every_byte(self, tmp_path: Path, kind: str, opener: str) -> None:
        """A log file another program wrote raises CorruptLog naming it and keeps every byte."""
        path = tmp_path / "default.jsonl"
        _jsonl_foreign(kind, path)
        before = _snapshot(path)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no TornTailWarning: nothing was repaired
            with pytest.raises(phasetodo.errors.CorruptLog, match="not a phasetodo session log") as caught:
                JSONL_OPENERS[opener](tmp_path, "default")
        assert caught.value.path == str(path)
        assert _snapshot(path) == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["default.jsonl"]

    def test_the_issues_88_byte_file_keeps_its_88_bytes(self, tmp_path: Path) -> None:
        """The reported case: another tool's 88-byte default.jsonl is not cut to 50 bytes."""
        path = tmp_path / "default.jsonl"
        path.write_bytes(FOREIGN_LINES)
        assert path.stat().st_size == 88
        with pytest.raises(phasetodo.errors.CorruptLog):
            phasetodo.Session.open("default", phasetodo.JsonlStore(tmp_path))
        assert path.read_bytes() == FOREIGN_LINES

    def test_a_sqlite_database_named_agent_jsonl_keeps_its_size(self, tmp_path: Path) -> None:
        """The reported case: a SQLite file named agent.jsonl keeps every byte."""
        path = tmp_path / "agent.jsonl"
        _other_program_db(path)
        before = _snapshot(path)
        with pytest.raises(phasetodo.errors.CorruptLog, match=r"agent\.jsonl"):
            phasetodo.Session.open("agent", phasetodo.JsonlStore(tmp_path))
        assert _snapshot(path) == before

    def test_a_file_another_program_makes_after_open_is_not_written(self, tmp_path: Path) -> None:
        """A log opened before its file existed refuses the foreign file at its first append."""
        store = phasetodo.JsonlStore(tmp_path)
        log = store.open("s")
        path = tmp_path / "s.jsonl"
        path.write_bytes(FOREIGN_LINES)
        before = _snapshot(path)
        with pytest.raises(phasetodo.errors.CorruptLog, match="not a phasetodo session log"):
            log.append(Event(1, "write", 1.0, PHASES))
        log.close()
        assert _snapshot(path) == before

    def test_a_log_replaced_by_a_foreign_file_is_not_written(self, tmp_path: Path) -> None:
        """When another program replaces the log file, the next append and compact leave it intact."""
        store = phasetodo.JsonlStore(tmp_path, fsync=False)
        log = store.open("s")
        log.append(Event(1, "write", 1.0, PHASES))
        path = tmp_path / "s.jsonl"
        (tmp_path / "new").write_bytes(FOREIGN_LINES)
        os.replace(tmp_path / "new", path)
        before = _snapshot(path)
        with pytest.raises(phasetodo.errors.CorruptLog, match="not a phasetodo session log"):
            log.append(Event(2, "write", 2.0, PHASES))
        with pytest.raises(phasetodo.errors.CorruptLog, match="not a phasetodo session log"):
            log.compact()
        log.close()
        assert _snapshot(path) == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


class TestSwappedWhileWriting:
    def test_a_log_swapped_during_a_write_does_not_acknowledge_it(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A checkout that swaps the log while a line is written raises: the write went with the old file."""
        store = phasetodo.JsonlStore(tmp_path, fsync=False)
        session = phasetodo.Session.open("s", store)
        session.todo_write(WRITE)
        path = tmp_path / "s.jsonl"
        sibling = path.read_bytes()  # a branch cut here: one event
        log = session._log
        write = log._write

        def checkout_meanwhile(data: bytes) -> None:
            write(data)
            (tmp_path / "sibling").write_bytes(sibling)
            os.replace(tmp_path / "sibling", path)

        monkeypatch.setattr(log, "_write", checkout_meanwhile)
        with pytest.raises(phasetodo.errors.StoreError, match="replaced while version 2 was written"):
            session.todo_write({"ops": [{"op": "done", "task": "a"}]})
        monkeypatch.undo()
        assert session.version == 1
        assert phasetodo.dump_phases(session.phases) == [
            {"name": "P", "tasks": [{"content": "a", "status": "in_progress"}]}
        ]


class TestEmptyJsonl:
    def test_opening_an_empty_file_changes_nothing(self, tmp_path: Path) -> None:
        """An empty file reads as a new, empty log and opening it writes nothing."""
        path = tmp_path / "s.jsonl"
        path.write_bytes(b"")
        before = _snapshot(path)
        log = phasetodo.JsonlStore(tmp_path).open("s")
        assert log.latest() is None
        log.close()
        with phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path)) as session:
            assert session.version == 0
        assert _snapshot(path) == before

    def test_an_empty_file_left_by_a_crash_at_creation_is_adopted_at_the_first_write(
        self, tmp_path: Path
    ) -> None:
        """A write to an empty file (a creation cut short) gives it a header and the event."""
        (tmp_path / "s.jsonl").write_bytes(b"")
        with phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path)) as session:
            session.todo_write(WRITE)
            written = session.phases
        with phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path), resume="keep") as again:
            assert (again.version, again.phases) == (1, written)


class TestOurJsonlIsStillRepaired:
    def test_a_torn_tail_of_a_phasetodo_log_is_moved_aside(self, tmp_path: Path) -> None:
        """A genuine log with a torn last line is repaired as before: complete events kept, tail in .torn."""
        store = phasetodo.JsonlStore(tmp_path, fsync=False)
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(WRITE)
            written = session.phases
        path = tmp_path / "s.jsonl"
        whole = path.read_bytes()
        with path.open("ab") as handle:
            handle.write(b'{"version":2,"ki')
        with pytest.warns(phasetodo.errors.TornTailWarning, match="1 torn line"):
            session = phasetodo.Session.open("s", store, resume="keep")
        assert (session.version, session.phases) == (1, written)
        session.close()
        assert path.read_bytes() == whole
        assert (tmp_path / "s.jsonl.torn").read_bytes() == b'{"version":2,"ki\n'

    @pytest.mark.parametrize("torn", [b"{", b'{"format":2,"sess', b'{"format":2,"session":"s","owner":"age'])
    def test_a_header_torn_at_creation_is_still_recovered(self, tmp_path: Path, torn: bytes) -> None:
        """A file holding a prefix of this session's header opens as a new log after moving it aside."""
        (tmp_path / "s.jsonl").write_bytes(torn)
        with pytest.warns(phasetodo.errors.TornTailWarning):
            log = phasetodo.JsonlStore(tmp_path).open("s")
        assert log.latest() is None
        log.close()
        assert (tmp_path / "s.jsonl.torn").read_bytes() == torn + b"\n"


def _sqlite_foreign(kind: str, path: Path) -> None:
    if kind == "a text file":
        path.write_text("these are my notes\nnot a database\n")
    elif kind == "a phasetodo JSONL log":
        path.write_bytes(b'{"format":2,"session":"s","owner":null}\n')
    elif kind == "another program's database":
        _other_program_db(path)
    elif kind == "another program's WAL database":
        _other_program_db(path, wal=True)
    elif kind == "a database with another application_id":
        _other_program_db(path, application_id=0x12345678)
    elif kind == "a database whose events table is not ours":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, started REAL)")
        conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO events (name) VALUES ('launch')")
        conn.commit()
        conn.close()
    else:  # pragma: no cover - the parameters are listed below
        raise AssertionError(kind)


SQLITE_KINDS = [
    "a text file",
    "a phasetodo JSONL log",
    "another program's database",
    "another program's WAL database",
    "a database with another application_id",
    "a database whose events table is not ours",
]


def _open_sqlite_store(path: Path) -> None:
    store = phasetodo.SqliteStore(path)
    try:
        store.open("s").append(Event(1, "write", 1.0, PHASES))
    finally:
        store.close()


def _open_sqlite_session(path: Path) -> None:
    with phasetodo.Session.open("s", phasetodo.stores.store_from_url(f"sqlite:{path}")) as session:
        session.todo_write(WRITE)


SQLITE_OPENERS: dict[str, Callable[[Path], None]] = {
    "store": _open_sqlite_store,
    "session": _open_sqlite_session,
}


class TestForeignSqlite:
    @pytest.mark.parametrize("kind", SQLITE_KINDS)
    @pytest.mark.parametrize("opener", sorted(SQLITE_OPENERS))
    def test_a_foreign_file_raises_and_keeps_every_byte(self, tmp_path: Path, kind: str, opener: str) -> None:
        """A file that is no phasetodo database raises CorruptLog naming it; no byte or journal changes."""
        path = tmp_path / "x.db"
        _sqlite_foreign(kind, path)
        before = _snapshot(path)
        with pytest.raises(phasetodo.errors.CorruptLog, match="not a phasetodo database") as caught:
            SQLITE_OPENERS[opener](path)
        assert caught.value.path == str(path)
        assert _snapshot(path) == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["x.db"]

    def test_a_foreign_file_is_refused_by_a_store_that_made_nothing_yet(self, tmp_path: Path) -> None:
        """A store opened before its file existed refuses a foreign file that appeared since."""
        path = tmp_path / "x.db"
        store = phasetodo.SqliteStore(path)
        log = store.open("s")
        _other_program_db(path)
        before = _snapshot(path)
        with pytest.raises(phasetodo.errors.CorruptLog, match="not a phasetodo database"):
            log.append(Event(1, "write", 1.0, PHASES))
        store.close()
        assert _snapshot(path) == before


class TestOurSqlite:
    def test_a_new_database_is_marked_with_our_application_id(self, tmp_path: Path) -> None:
        """A database phasetodo creates carries its application_id in the file header."""
        path = tmp_path / "s.db"
        store = phasetodo.SqliteStore(path)
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(WRITE)
            written = session.phases
        store.close()
        header = path.read_bytes()[:100]
        assert header.startswith(b"SQLite format 3\x00")
        assert struct.unpack(">I", header[68:72])[0] != 0
        with phasetodo.Session.open("s", phasetodo.SqliteStore(path), resume="keep") as again:
            assert (again.version, again.phases) == (1, written)

    def test_a_database_of_an_earlier_version_still_opens_and_is_not_marked(self, tmp_path: Path) -> None:
        """A database with our tables but no application_id (earlier versions) works and keeps id 0."""
        path = tmp_path / "s.db"
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, owner TEXT)")
        conn.execute(
            "CREATE TABLE events (session TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,"
            " checkpoint INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (session, version)) WITHOUT ROWID"
        )
        conn.commit()
        conn.close()
        store = phasetodo.SqliteStore(path)
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(WRITE)
        assert store.read("PRAGMA application_id", ()) == [(0,)]
        store.close()

    def test_an_empty_file_becomes_a_new_database(self, tmp_path: Path) -> None:
        """A zero-byte file (as SQLite itself treats it) is a new, empty database."""
        path = tmp_path / "s.db"
        path.write_bytes(b"")
        store = phasetodo.SqliteStore(path)
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(WRITE)
        assert store.sessions() == ["s"]
        store.close()
