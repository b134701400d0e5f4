"""The SQLite writers' queue (the ``flock`` of ``PATH.writers``): it honours ``timeout=``, reads
never wait on it, readers-only cannot open it, and without ``flock`` writers fall back to
SQLite's busy wait with one warning."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import time
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from phasetodo import Session, SqliteStore, StoreError
from phasetodo.stores import sqlite as sqlite_module

pytestmark = pytest.mark.slow

_HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


def append(item: str) -> dict[str, Any]:
    return {"ops": [{"op": "append", "phase": "P", "items": [item]}]}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database with one session ``q`` at version 1."""
    path = tmp_path / "plan.db"
    with Session.open("q", store=SqliteStore(path)) as session:
        session.todo_write(append("a"))
    return path


@pytest.fixture
def held(db: Path) -> Iterator[None]:
    """Another process holds the writers' queue (a hung writer, or a reader who opened it)."""
    writers = str(db) + ".writers"
    os.chmod(writers, 0o644)  # as files made before: others could open it to read
    process = subprocess.Popen([sys.executable, "-c", _HOLD, writers], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "held"
        yield
    finally:
        process.kill()
        process.wait()


class TestQueue:
    def test_a_write_gives_up_after_timeout(self, db: Path, held: None) -> None:
        """A write waits for the queue at most ``timeout`` seconds, then a StoreError names PATH.writers."""
        began = time.monotonic()
        session = Session.open("q", store=SqliteStore(db, timeout=0.5))
        with session, pytest.raises(StoreError, match=r"plan\.db\.writers"):
            session.todo_write(append("b"))
        assert time.monotonic() - began < 5

    def test_reads_do_not_wait_on_the_queue(self, db: Path, held: None) -> None:
        """Opening a store and reading a plan while the queue is held does not wait."""
        began = time.monotonic()
        with Session.open("q", store=SqliteStore(db, timeout=30)) as session:
            assert session.version == 1
        assert time.monotonic() - began < 5

    def test_only_writers_may_open_the_queue(self, db: Path) -> None:
        """The queue file grants read and write to exactly who may write the database."""
        writers = Path(str(db) + ".writers")
        assert stat.S_IMODE(writers.stat().st_mode) & 0o077 == 0  # a 0644 database: only its owner
        os.chmod(writers, 0o644)
        with Session.open("q", store=SqliteStore(db)) as session:
            session.todo_write(append("b"))
        assert stat.S_IMODE(writers.stat().st_mode) & 0o077 == 0

    def test_without_flock_the_busy_wait_serves(self, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Where ``flock`` fails (ENOLCK), writes still apply, with one WritersQueueWarning."""
        from phasetodo.errors import WritersQueueWarning  # new in this change

        def flock(fd: int, operation: int) -> None:
            raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

        fake = types.SimpleNamespace(flock=flock, LOCK_EX=2, LOCK_NB=4, LOCK_UN=8)
        monkeypatch.setattr(sqlite_module, "fcntl", fake)
        with Session.open("q", store=SqliteStore(db)) as session:
            with pytest.warns(WritersQueueWarning) as caught:
                session.todo_write(append("b"))
            with warnings.catch_warnings(record=True) as later:
                warnings.simplefilter("always")
                session.todo_write(append("c"))
            assert later == []  # one warning per store, not one per write
            assert session.version == 3
        assert len(caught) == 1
