"""Helpers for the board's tests: a real uvicorn server and a real writer process."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

import phasetodo
from phasetodo.web import Board, create_app

TOKEN = "test-token-0123456789"

#: One todo_write call on a JSONL session, made by a separate Python process.
_WRITER = """
import json, sys
import phasetodo
store = phasetodo.JsonlStore(sys.argv[1])
session = phasetodo.Session.open(sys.argv[2], store, resume="keep", clear_delay=-1, profile=sys.argv[5])
session.todo_write(json.loads(sys.argv[3]), agent=sys.argv[4] or None)
print(session.version)
session.close()
store.close()
"""


def write_from_another_process(
    directory: Path,
    session_id: str,
    params: dict[str, Any],
    agent: str | None = None,
    profile: str = "parity",
) -> int:
    """Make one ``todo_write`` call (with ``profile``) from a child process; returns the version it wrote."""
    done = subprocess.run(
        [sys.executable, "-c", _WRITER, str(directory), session_id, json.dumps(params), agent or "", profile],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(done.stdout.strip())


def init(items: dict[str, list[str]]) -> dict[str, Any]:
    """The params of an ``init`` call with these phases and tasks."""
    return {"ops": [{"op": "init", "list": [{"phase": p, "items": t} for p, t in items.items()]}]}


def kinds(store: phasetodo.Store, session_id: str) -> list[tuple[str, str | None]]:
    """``(kind, source)`` of every event of one session, read afresh from the store."""
    with phasetodo.Session.open(session_id, store, resume="keep", clear_delay=-1) as session:
        return [(event.kind, event.source) for event in session.events()]


def latest(store: phasetodo.Store, session_id: str) -> tuple[phasetodo.Phase, ...]:
    """The newest list of one session, read afresh from the store."""
    with phasetodo.Session.open(session_id, store, resume="keep", clear_delay=-1) as session:
        return session.phases


@contextmanager
def running_board(
    store: phasetodo.Store, *, read_only: bool = False, every: float = 0.1
) -> Iterator[tuple[str, Board]]:
    """A real uvicorn server for the board on 127.0.0.1 (a free port), stopped on exit."""
    board = Board(store, read_only=read_only)
    app = create_app(board, token=TOKEN, every=every)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(2000):  # at most ~20 s for the server to come up
        if server.started or not thread.is_alive():
            break
        time.sleep(0.01)
    if not server.started:
        raise RuntimeError("the board's server did not start")
    try:
        yield f"http://127.0.0.1:{port}", board
    finally:
        board.close()  # ends the live feeds first, so shutdown does not wait on them
        server.should_exit = True
        thread.join(30)
        sock.close()
