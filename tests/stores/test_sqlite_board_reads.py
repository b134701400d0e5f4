"""A process reads on SQLite what the board acknowledged after a command's write (issue 32, item 3).

The stale read of item 3, with the real processes: the ``phasetodo`` command writes one session,
a ``phasetodo serve`` board writes another and answers 200, and a fresh ``SqliteStore`` in this
process (which keeps a store open all along, as an MCP server or a lead's handle does) must read
the board's version. On the code of the time the fresh store read the older version; the cause
was the one of item 4 (fixed by the same change): a second store on the file in this process read
the file's header through a descriptor of its own, and closing it dropped every POSIX lock the
process held on the file, SQLite's among them. The command, exiting, then took itself for the
last user: it checkpointed, removed the ``-wal`` and unlinked the ``-shm`` that this process still
had mapped. The board (started after, as a board opened on demand is) made new ones and wrote its
Done there, while every connection of this process, a fresh one too, went on reading the old
``-shm``, which says the WAL is empty: the command and the board then disagreed about the Done.
"""

from __future__ import annotations

import gc
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

import phasetodo

pytestmark = pytest.mark.slow

PLAN = {"ops": [{"op": "init", "list": [{"phase": "A", "items": ["x", "y"]}]}]}


def _plan(db: Path, session_id: str) -> None:
    """Session ``session_id`` at version 1, written through a store closed after."""
    store = phasetodo.SqliteStore(db)
    with phasetodo.Session.open(session_id, store) as session:
        session.todo_write(PLAN)
    store.close()


def _command(db: Path, *args: str) -> None:
    """Run ``phasetodo --store DB ARGS`` in its own process; it must succeed."""
    done = subprocess.run(
        [sys.executable, "-m", "phasetodo", "--store", str(db), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


@contextmanager
def _board(db: Path) -> Iterator[tuple[httpx.Client, str, str]]:
    """``phasetodo serve --port 0`` over ``db`` in its own process: a client, its address, its token."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "phasetodo", "--store", str(db), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        address, _, token = line.strip().split(" ")[-1].partition("?token=")
        url = address.rstrip("/")
        with httpx.Client(base_url=url, timeout=30) as http:
            _wait_for(http)
            yield http, url, token
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def _wait_for(http: httpx.Client) -> None:
    """Return once the board answers (it prints its address just before it listens)."""
    for _ in range(600):
        try:
            http.get("/api/sessions")
            return
        except httpx.ConnectError:
            time.sleep(0.05)
    raise AssertionError("the board never answered")


def _done_on_the_board(http: httpx.Client, url: str, token: str, session_id: str) -> Any:
    """Mark task ``x`` of ``session_id`` done through the board, as its Done button does."""
    body = {"expected_version": 1, "action": "status", "phase": 0, "task": 0, "status": "completed",
            "content": "x"}
    response = http.post(
        f"/api/sessions/{session_id}/edit", json=body, headers={"origin": url, "x-phasetodo-token": token}
    )
    assert response.status_code == 200, response.text
    return response.json()["plan"]


def _read(store: phasetodo.SqliteStore, session_id: str) -> tuple[int, list[str]]:
    """The session's version and its tasks' statuses, as the log holds them (nothing cleared)."""
    with phasetodo.Session.open(session_id, store, resume="keep", clear_delay=-1) as session:
        return session.version, [task.status.value for phase in session.phases for task in phase.tasks]


class TestAfterTheCommandAndTheBoard:
    @pytest.mark.parametrize("ending", ["closed", "dropped"])
    def test_a_fresh_store_reads_the_version_the_board_answered(self, tmp_path: Path, ending: str) -> None:
        """After the command's Done on p, the board's Done on q (200, version 2) is what a fresh
        store here reads, and the store this process kept open too (the glance beside it closed,
        or dropped unclosed as ``Session.open(..., SqliteStore(db))`` leaves it)."""
        db = tmp_path / "plans.db"
        _plan(db, "p")
        _plan(db, "q")
        live = phasetodo.SqliteStore(db)  # this process's long-lived store
        with phasetodo.Session.open("p", live) as session:
            assert session.version == 1
        glance = phasetodo.SqliteStore(db)  # a fresh read beside it, closed at once
        with phasetodo.Session.open("p", glance) as session:
            assert session.version == 1
        if ending == "closed":
            glance.close()
        del glance
        gc.collect()
        _command(db, "--session", "p", "done", "x")
        with phasetodo.Session.open("p", live) as session:
            assert session.version == 2
        with _board(db) as (http, url, token):
            assert _done_on_the_board(http, url, token, "q")["version"] == 2
            fresh = phasetodo.SqliteStore(db)
            assert _read(fresh, "q") == (2, ["completed", "in_progress"])
            fresh.close()
            assert _read(live, "q") == (2, ["completed", "in_progress"])
        live.close()
        again = phasetodo.SqliteStore(db)
        with phasetodo.Session.open("q", again) as session:
            assert session.version == 2
            assert session.verify().ok
        again.close()
