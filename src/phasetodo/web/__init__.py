"""The live board: ``phasetodo serve`` shows every session of a store in a browser.

People see the whole plan while agents change it, its history, and correct it
without stopping the agent: each change is a ``user_edit`` event made with
``expected_version``, so an edit from a stale page changes nothing. Needs the
``web`` extra (Starlette and uvicorn); the pages are plain files of this
package, with nothing fetched from elsewhere.
"""

from __future__ import annotations

import secrets
import socket
import sys
from types import FrameType
from typing import IO

import phasetodo

from .app import LOCAL_HOSTS, TOKEN_HEADER, create_app
from .board import Board

__all__ = ["LOCAL_HOSTS", "TOKEN_HEADER", "Board", "create_app", "new_token", "serve"]


def new_token() -> str:
    """A fresh secret for one run of the board."""
    return secrets.token_urlsafe(24)


def _url(host: str, port: int) -> str:
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}/"


def serve(
    store: phasetodo.Store | str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    read_only: bool = False,
    token: str | None = None,
    out: IO[str] | None = None,
) -> None:
    """Serve the board over ``store`` until interrupted; prints the address to open.

    ``store`` is a store or a store string (:func:`phasetodo.stores.store_from_url`);
    ``None`` is the default store, the one ``Session.open`` and the command use.
    The address carries the token that writes need (unless ``read_only``).
    Binding to anything but this machine's loopback lets the network read
    the plans; the board then answers to any ``Host`` and says so. Raises
    ``OSError`` before printing anything when it cannot listen there (port 0
    picks a free port, and the printed address names it).
    """
    if store is None or isinstance(store, str):
        from ..stores import store_from_url

        own = store_from_url(store)
        try:
            serve(own, host=host, port=port, read_only=read_only, token=token, out=out)
        finally:
            own.close()
        return
    import uvicorn

    out = out if out is not None else sys.stdout
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.create_server((host, port), family=family)
    port = sock.getsockname()[1]
    token = token or new_token()
    board = Board(store, read_only=read_only)
    local = host in LOCAL_HOSTS
    app = create_app(board, token=token, hosts=LOCAL_HOSTS | {host} if local else None)

    class _Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            board.closing.set()  # end the live feeds, so shutdown does not wait on them
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2, lifespan="off"
    )
    server = _Server(config)
    url = _url(host, port)
    if read_only:
        out.write(f"phasetodo board (read-only): {url}\n")
    else:
        out.write(f"phasetodo board: {url}?token={token}\n")
    if not local:
        out.write(f"warning: bound to {host}, so other machines can reach the board\n")
    out.flush()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn passes Ctrl-C on once it has shut down: a clean stop
        pass
    finally:
        board.close()
        sock.close()
