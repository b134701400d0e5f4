"""SQLite's own locks survive a second store on the same file in one process.

POSIX locks belong to the process: closing *any* descriptor of a file drops every lock the
process holds on it. A second ``SqliteStore`` that read the file's header through its own
descriptor dropped the locks of the first one's live connection; another process then took
itself for the last user, checkpointed and removed the ``-wal`` under it ("database disk
image is malformed", "disk I/O error"). The probe is a real second process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import phasetodo

pytestmark = pytest.mark.slow

#: Tries SQLite's shared-lock range of the database file (from another process).
PROBE = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 510, 0x40000002)
    print("free")
except OSError:
    print("held")
"""

PLAN = {"ops": [{"op": "init", "list": [{"phase": "A", "items": ["x", "y"]}]}]}


def _probe(db: Path) -> str:
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(db)], capture_output=True, text=True, check=True
    ).stdout.strip()


class TestTwoStoresOneProcess:
    def test_a_second_store_keeps_the_first_ones_locks(self, tmp_path: Path) -> None:
        """A live session's lock is still held after another store on its file opened and closed."""
        db = tmp_path / "plans.db"
        with phasetodo.Session.open("p", phasetodo.SqliteStore(db)) as first:
            first.todo_write(PLAN)
        live_store = phasetodo.SqliteStore(db)
        with phasetodo.Session.open("p", live_store) as live:
            assert live.version == 1
            assert _probe(db) == "held"
            other = phasetodo.SqliteStore(db)
            with phasetodo.Session.open("p", other) as reader:
                assert reader.version == 1
            other.close()
            assert _probe(db) == "held"
            live.todo_write({"ops": [{"op": "done", "task": "x"}]})
        live_store.close()
        again = phasetodo.SqliteStore(db)
        with phasetodo.Session.open("p", again) as check:
            assert check.version == 2
            assert check.verify().ok
        again.close()


WRITE_DONE = """
import sys, phasetodo
store = phasetodo.SqliteStore(sys.argv[1])
with phasetodo.Session.open(sys.argv[2], store) as session:
    session.todo_write({"ops": [{"op": "done", "task": "x"}]})
store.close()
"""


def _done_in_another_process(db: Path, session_id: str) -> None:
    subprocess.run([sys.executable, "-c", WRITE_DONE, str(db), session_id], check=True, timeout=120)


class TestReadsAfterOtherProcesses:
    def test_a_fresh_open_reads_what_another_process_acknowledged(self, tmp_path: Path) -> None:
        """After this process read one session, another process's acknowledged write to a second
        session is what a fresh store (and the first store) read here. (Issue 32 item 3's own
        sequence, with the command and a live board, is test_sqlite_board_reads.py.)"""
        db = tmp_path / "plans.db"
        for sid in ("p", "q"):
            setup = phasetodo.SqliteStore(db)
            with phasetodo.Session.open(sid, setup) as session:
                session.todo_write(PLAN)
            setup.close()
        _done_in_another_process(db, "p")
        first = phasetodo.SqliteStore(db)
        with phasetodo.Session.open("p", first) as session:
            assert session.version == 2
        _done_in_another_process(db, "q")
        fresh = phasetodo.SqliteStore(db)
        with phasetodo.Session.open("q", fresh) as session:
            assert session.version == 2
        with phasetodo.Session.open("q", first) as session:
            assert session.version == 2
        fresh.close()
        first.close()
