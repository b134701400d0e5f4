"""Stores under faults: forked writers, planted symlinks, failed commits, bad version runs."""

from __future__ import annotations

import json
import os
import sqlite3
import warnings
from pathlib import Path

import pytest

import phasetodo
from phasetodo.errors import CorruptLog, StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

CHILDREN = 4
WRITES = 25


def _store(kind: str, tmp_path: Path) -> phasetodo.Store:
    if kind == "jsonl":
        return phasetodo.JsonlStore(tmp_path / "logs")
    return phasetodo.SqliteStore(tmp_path / "s.db")


def _append(session: phasetodo.Session, item: str) -> None:
    session.todo_write({"ops": [{"op": "append", "phase": "P", "items": [item]}]})


def _contents(phases: tuple[phasetodo.Phase, ...]) -> list[str]:
    return [t.content for p in phases for t in p.tasks]


@pytest.mark.parametrize("kind", ["jsonl", "sqlite", "postgres"])
@pytest.mark.slow
class TestForkedWriters:
    def test_a_session_used_from_forked_children_loses_no_acknowledged_write(
        self, kind: str, tmp_path: Path, request: pytest.FixtureRequest
    ) -> None:
        """Children forked from a process holding an open session exclude each other and the parent."""
        if kind == "postgres":
            store: phasetodo.Store = request.getfixturevalue("postgres_store")
        else:
            store = _store(kind, tmp_path)
        session = phasetodo.Session.open("s", store, resume="keep", clear_delay=-1)
        _append(session, "seed")
        pids = []
        for child in range(CHILDREN):
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child
                code = 0
                try:
                    for k in range(WRITES):
                        _append(session, f"c{child}-{k}")
                except BaseException:
                    code = 1
                os._exit(code)
            pids.append(pid)
        for k in range(WRITES):
            _append(session, f"parent-{k}")
        codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
        assert codes == [0] * CHILDREN
        versions = [event.version for event in session.events()]
        total = 1 + (CHILDREN + 1) * WRITES
        assert versions == list(range(1, total + 1))
        contents = _contents(session.refresh())
        assert len(contents) == total
        assert len(set(contents)) == total
        session.close()
        store.close()


class TestSymlinksAreNeverFollowed:
    def _plant(self, tmp_path: Path, name: str, target: Path) -> Path:
        logs = tmp_path / "logs"
        logs.mkdir()
        (logs / name).symlink_to(target)
        return logs

    def test_a_planted_log_symlink_is_refused_and_its_target_untouched(self, tmp_path: Path) -> None:
        """A `<id>.jsonl` symlink raises StoreError; the file it points to keeps every byte."""
        target = tmp_path / "bashrc"
        target.write_bytes(b"export A=1\nexport B=2")  # no final newline: looks like a torn tail
        logs = self._plant(tmp_path, "s.jsonl", target)
        with pytest.raises(StoreError, match="symbolic link"):
            phasetodo.JsonlStore(logs).open("s")
        assert target.read_bytes() == b"export A=1\nexport B=2"

    def test_a_dangling_log_symlink_creates_nothing_outside(self, tmp_path: Path) -> None:
        """A dangling `<id>.jsonl` symlink is refused instead of creating the file it names."""
        target = tmp_path / "outside.txt"
        logs = self._plant(tmp_path, "s.jsonl", target)
        with pytest.raises(StoreError, match="symbolic link"):
            phasetodo.JsonlStore(logs).open("s")
        assert not target.exists()

    def test_a_planted_torn_file_symlink_is_never_appended_to(self, tmp_path: Path) -> None:
        """Moving a torn tail aside refuses a `<id>.jsonl.torn` symlink and changes nothing."""
        store = phasetodo.JsonlStore(tmp_path / "logs")
        log = store.open("s")
        with log.lock():  # creates the file
            pass
        log.close()
        path = tmp_path / "logs" / "s.jsonl"
        with path.open("ab") as handle:
            handle.write(b'{"version": 1, "ki')
        target = tmp_path / "victim"
        target.write_bytes(b"keep")
        (tmp_path / "logs" / "s.jsonl.torn").symlink_to(target)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(StoreError, match="symbolic link"):
                store.open("s")
        assert target.read_bytes() == b"keep"
        assert path.read_bytes().endswith(b'{"version": 1, "ki')

    def test_a_store_folder_that_is_a_symlink_is_refused(self, tmp_path: Path) -> None:
        """A `.phasetodo` folder planted as a symlink to elsewhere is refused at open."""
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        (tmp_path / "logs").symlink_to(elsewhere, target_is_directory=True)
        with pytest.raises(StoreError, match="symbolic link"):
            phasetodo.JsonlStore(tmp_path / "logs").open("s")
        assert list(elsewhere.iterdir()) == []

    @pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal", ".writers"])
    def test_a_sqlite_file_that_is_a_symlink_is_refused(self, tmp_path: Path, suffix: str) -> None:
        """The database file and its journal files are never symlinks we follow."""
        target = tmp_path / "victim"
        target.write_bytes(b"keep")
        (tmp_path / f"s.db{suffix}").symlink_to(target)
        with pytest.raises(StoreError, match="symbolic link"):
            phasetodo.SqliteStore(tmp_path / "s.db")
        assert target.read_bytes() == b"keep"


@pytest.mark.skipif(fcntl is None, reason="the writers' queue is an flock (POSIX)")
class TestSqliteWritersQueue:
    def test_a_write_holds_the_queue_and_leaves_it_after(self, tmp_path: Path) -> None:
        """A transaction holds the flock of PATH.writers, so other processes' writers queue on
        it in turn; it is free again after the commit, and after a rolled-back write."""
        store = phasetodo.SqliteStore(tmp_path / "s.db")
        session = phasetodo.Session.open("s", store, resume="keep", clear_delay=-1)
        _append(session, "seed")
        queue = tmp_path / "s.db.writers"
        assert queue.is_file()
        probe = os.open(queue, os.O_RDONLY)
        try:
            with store.transaction(), pytest.raises(BlockingIOError):
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free after the commit
            fcntl.flock(probe, fcntl.LOCK_UN)
            with pytest.raises(RuntimeError), store.transaction():
                raise RuntimeError("rolled back")
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # and after a rollback
            fcntl.flock(probe, fcntl.LOCK_UN)
        finally:
            os.close(probe)
        session.close()
        store.close()


class _FailingCommit:
    """A sqlite3 connection stand-in whose COMMIT fails, as on a full disk."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self._conn, name)


class TestSqliteFailedCommit:
    def test_a_write_whose_commit_fails_leaves_the_session_where_it_was(self, tmp_path: Path) -> None:
        """The session neither shows nor keeps a task whose event never reached the disk."""
        store = phasetodo.SqliteStore(tmp_path / "s.db")
        session = phasetodo.Session.open("s", store, resume="keep", clear_delay=-1)
        _append(session, "saved")
        real = store._conn
        store._conn = _FailingCommit(real)  # type: ignore[assignment]
        with pytest.raises(StoreError, match="disk is full"):
            _append(session, "lost")
        store._conn = real
        assert session.version == 1
        assert _contents(session.phases) == ["saved"]
        _append(session, "next")
        assert _contents(session.refresh()) == ["saved", "next"]
        assert [e.version for e in session.events()] == [1, 2]

    def test_a_real_file_size_limit_is_a_store_error(self, tmp_path: Path) -> None:
        """A database that cannot grow raises StoreError naming the cause; state stays saved state."""
        db = tmp_path / "s.db"
        store = phasetodo.SqliteStore(db)
        session = phasetodo.Session.open("s", store, resume="keep", clear_delay=-1)
        _append(session, "saved")
        (pages,) = store._conn.execute("PRAGMA page_count").fetchone()
        store._conn.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(StoreError, match="full"):
            _append(session, "x" * 9000)
        assert session.version == 1
        assert _contents(session.phases) == ["saved"]


def _log_with_versions(tmp_path: Path, versions: list[int], header: dict[str, object] | None = None) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    lines = [header or {"format": 1, "session": "s", "owner": None}]
    phases = [{"name": "P", "tasks": [{"content": "a", "status": "pending"}]}]
    lines += [{"version": v, "kind": "write", "time": 1.0, "phases": phases} for v in versions]
    (logs / "s.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return logs


class TestVersionRuns:
    @pytest.mark.parametrize("versions", [[1, 2, 2], [1, 5], [1, 2, 1], [2], [2, 3]])
    def test_a_log_whose_versions_do_not_count_up_is_corrupt(
        self, tmp_path: Path, versions: list[int]
    ) -> None:
        """Opening a log whose versions repeat, skip or go back raises CorruptLog."""
        logs = _log_with_versions(tmp_path, versions)
        with pytest.raises(CorruptLog, match="version"):
            phasetodo.Session.open("s", phasetodo.JsonlStore(logs))

    def test_a_gap_in_the_middle_is_found_by_replay(self, tmp_path: Path) -> None:
        """events() checks every step, so a gap before the last two events is caught too."""
        logs = _log_with_versions(tmp_path, [1, 2, 4, 5, 6])
        with pytest.warns(phasetodo.errors.TamperedLogWarning, match="version 3"):
            log = phasetodo.JsonlStore(logs).open("s")
        with pytest.raises(CorruptLog, match="version"):
            list(log.events())
        log.close()

    @pytest.mark.parametrize(
        "header",
        [
            {"format": 1, "session": "other", "owner": None},
            {"format": -3, "session": "s", "owner": None},
            {"format": 0, "session": "s", "owner": None},
            {"format": True, "session": "s", "owner": None},
            {"format": 1, "owner": None},
        ],
    )
    def test_a_header_for_another_session_or_format_is_corrupt(
        self, tmp_path: Path, header: dict[str, object]
    ) -> None:
        """The header must name this session and a format we know."""
        logs = _log_with_versions(tmp_path, [1], header)
        with pytest.raises(CorruptLog, match="header"):
            phasetodo.JsonlStore(logs).open("s")

    def test_a_consecutive_log_opens(self, tmp_path: Path) -> None:
        """The checks pass an ordinary log."""
        logs = _log_with_versions(tmp_path, [1, 2, 3])
        session = phasetodo.Session.open("s", phasetodo.JsonlStore(logs), resume="keep")
        assert session.version == 3
        assert [e.version for e in session.events()] == [1, 2, 3]
