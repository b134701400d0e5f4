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
from collections.abc import Iterable
from typing import IO

import phasetodo

#: The packages of the ``web`` extra and those they bring: one missing means the extra is not installed.
_EXTRA = frozenset({"starlette", "uvicorn", "anyio", "h11", "sniffio", "idna", "click"})

try:
    from .access import LOCAL_HOSTS, Access, access_for, check_host_name
    from .app import TOKEN_HEADER, create_app
    from .board import Board
    from .server import Limits, make_server, raise_file_limit
except ModuleNotFoundError as error:
    if (error.name or "").partition(".")[0] not in _EXTRA:
        raise  # not the extra: a fault of ours, shown as it is
    raise ModuleNotFoundError(
        f"phasetodo.web (the board, phasetodo serve) needs the 'web' extra, Starlette and uvicorn, "
        f"which is not installed (no module named {error.name!r}). Install phasetodo with it: from a "
        "clone, python -m pip install './phasetodo[web]' (the path of the clone); from a built wheel, "
        "python -m pip install './phasetodo-<version>-<tag>.whl[web]'. phasetodo is on no package index.",
        name=error.name,
    ) from error

__all__ = [
    "LOCAL_HOSTS",
    "TOKEN_HEADER",
    "Access",
    "Board",
    "Limits",
    "access_for",
    "create_app",
    "new_token",
    "serve",
]


def new_token() -> str:
    """A fresh secret for one run of the board."""
    return secrets.token_urlsafe(24)


def _url(host: str, port: int) -> str:
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}/"


def _exposure(host: str, access: Access, read_only: bool, store: object) -> str:
    """The startup warning of a board that other machines can reach: what they can do, and how."""
    names = sorted(access.hosts - LOCAL_HOSTS)
    answers = ", ".join(names + (["any IP address of this machine"] if access.any_ip else []))
    can = "read every plan" if read_only else "read and edit every plan"
    return (
        f"warning: bound to {host}, so other machines can reach the board; anyone with the address "
        f"above (it carries the token) can {can} in {store!r}, over plain HTTP that others on the "
        f"network can read. It answers to Host {answers or 'names of this machine only'} "
        "(add names with --allow-host NAME); reads without the token are refused\n"
    )


def serve(
    store: phasetodo.Store | str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    read_only: bool = False,
    token: str | None = None,
    out: IO[str] | None = None,
    allow_hosts: Iterable[str] = (),
    limits: Limits | None = None,
) -> None:
    """Serve the board over ``store`` until interrupted; prints the address to open once it
    serves (from then on Ctrl-C stops it cleanly).

    ``store`` is a store or a store string (:func:`phasetodo.stores.store_from_url`);
    ``None`` is the default store, the one ``Session.open`` and the command use.
    The address carries the token that writes need (unless ``read_only``).
    The board answers only to the loopback names, ``host`` and ``allow_hosts``
    (bound to every interface, to IP addresses too: :func:`access_for`).
    Bound beyond this machine's loopback, reads need the token as well, and
    the board says what it exposes. ``limits`` caps connections and live
    feeds and times out slow clients (the defaults, fitted to the file-handle
    limit, which is raised first where allowed). Raises ``OSError`` before
    printing anything when it cannot listen there (port 0 picks a free port,
    and the printed address names it), ``InvalidOption`` for a bad host name.
    """
    if store is None or isinstance(store, str):
        from ..stores import store_from_url

        own = store_from_url(store)
        try:
            serve(
                own,
                host=host,
                port=port,
                read_only=read_only,
                token=token,
                out=out,
                allow_hosts=allow_hosts,
                limits=limits,
            )
        finally:
            own.close()
        return
    out = out if out is not None else sys.stdout
    allow_hosts = list(allow_hosts)
    for name in allow_hosts:  # a bad name fails before anything listens
        check_host_name(name)
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.create_server((host, port), family=family)
    port = sock.getsockname()[1]
    access = access_for(host, sock.getsockname()[0], allow_hosts)
    limits = (limits or Limits()).fit(raise_file_limit())
    token = token or new_token()
    board = Board(store, read_only=read_only)
    app = create_app(
        board, token=token, hosts=access, max_streams=limits.streams, body_timeout=limits.body_timeout
    )
    url = _url(host, port)
    if read_only and not access.private:
        lines = f"phasetodo board (read-only): {url}\n"
    else:
        lines = f"phasetodo board{' (read-only)' if read_only else ''}: {url}?token={token}\n"
    if access.private:
        lines += _exposure(host, access, read_only, store)

    def announce() -> None:
        out.write(lines)
        out.flush()

    server = make_server(app, board, limits, announce)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn passes Ctrl-C on once it has shut down: a clean stop
        pass
    finally:
        board.close()
        sock.close()
