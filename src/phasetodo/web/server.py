"""The HTTP server under the board: uvicorn with a connection cap, client timeouts and a quiet accept loop.

Beyond ``Limits.connections`` open connections a request gets a 503 and the
connection is closed; a client has ``header_timeout`` seconds to send a
request's headers (a 408, then the connection closes) and about
``body_timeout`` more for its body (an edit answers 408 at ``body_timeout``,
any request is cut off a little later). At start the soft file-handle limit is raised toward the
hard one, and the caps are fitted to what it allows, so the board runs out of
connections it may take before it runs out of file handles; should ``accept``
fail anyway, one line says so every ``QUIET_SECONDS`` instead of a traceback a
try.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

import attrs
import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .board import Board

__all__ = ["QUIET_SECONDS", "Limits", "make_server", "raise_file_limit"]

#: File handles kept for what is not a connection: open logs, watchers, the store, stdio.
RESERVE = 192
#: The soft file-handle limit asked for at start (never above the hard limit).
WANTED_FILES = 65536
#: At most one line a this many seconds about ``accept`` running out of file handles.
QUIET_SECONDS = 10.0
#: Seconds a connection over the cap has to send its request's headers before it is closed.
BUSY_SECONDS = 2.0
#: Seconds past ``body_timeout`` before a body still arriving is cut off (the app answers first).
BODY_GRACE = 5.0

_log = logging.getLogger("phasetodo.web")


@attrs.frozen
class Limits:
    """How much the board's server takes on at once, and how long it waits for a client.

    ``connections`` open at once (live feeds included), ``streams`` live feeds
    among them, ``header_timeout`` seconds for a request's headers,
    ``body_timeout`` for its body, ``keep_alive`` seconds an idle connection stays.
    """

    connections: int = 2048
    streams: int = 1024
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive: int = 5

    def fit(self, files: int) -> Limits:
        """These limits within ``files`` file handles: a live feed may hold a log open besides its
        connection, and :data:`RESERVE` handles stay free."""
        budget = max(files - RESERVE, 32)
        if self.connections + self.streams <= budget:
            return self
        streams = max(1, min(self.streams, budget // 3))
        return attrs.evolve(self, connections=max(streams + 1, budget - streams), streams=streams)


def raise_file_limit(wanted: int = WANTED_FILES) -> int:
    """Raise the soft limit on open files toward ``wanted`` where the hard limit allows;
    returns the soft limit now (``wanted`` where the platform has none to read)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):  # macOS may cap below the hard limit it reports
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return wanted if soft == resource.RLIM_INFINITY else int(soft)


def _json(code: str, message: str) -> bytes:
    return json.dumps({"error": code, "message": message}).encode()


def _busy_app(message: str) -> Any:
    """An ASGI app that answers every request 503 and closes the connection."""
    body = _json("busy", message)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        (b"retry-after", b"5"),
        (b"cache-control", b"no-store"),
    ]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


def _protocol(limits: Limits) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with the connection cap and the header and body deadlines."""
    busy = _busy_app(f"The board already has {limits.connections} connections, its most; try again soon.")
    body = _json("timeout", f"The request's headers did not arrive within {limits.header_timeout:g} seconds.")
    slow = (
        b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
        b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body)
    )

    class Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _waiting: object = None  # h11.IDLE: waiting for headers; h11.SEND_BODY: for the body

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > limits.connections:  # read the request, answer 503, close
                self.app = busy
                self._arm(h11.IDLE, min(BUSY_SECONDS, limits.header_timeout))
                return
            self._arm(h11.IDLE, limits.header_timeout)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            state = self.conn.their_state
            if state is h11.IDLE and self._waiting is None and not self.transport.is_closing():
                self._arm(h11.IDLE, limits.header_timeout)  # the next request of a kept-alive connection
            elif state is h11.SEND_BODY and self._waiting is not h11.SEND_BODY:
                self._arm(h11.SEND_BODY, limits.body_timeout + BODY_GRACE)
            elif state not in (h11.IDLE, h11.SEND_BODY):
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.conn.their_state is h11.IDLE:
                self._disarm()  # idle between requests: uvicorn's keep-alive timeout holds

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self, state: object, seconds: float) -> None:
            self._disarm()
            self._waiting = state
            self._deadline = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self._waiting = None

        def _expired(self) -> None:
            waiting, self._deadline, self._waiting = self._waiting, None, None
            if self.transport.is_closing():
                return
            idle = self.cycle is None or self.cycle.response_complete
            if waiting is h11.IDLE and self.conn.their_state is h11.IDLE and idle:
                self.transport.write(slow)
            self.transport.close()  # a body cut off: the app sees the client gone

    return Protocol


def _quiet_accept(loop: asyncio.AbstractEventLoop) -> None:
    """Make ``accept`` running out of file handles one line every :data:`QUIET_SECONDS`."""
    last = [-QUIET_SECONDS, 0]  # when the last line was written, failures not reported yet

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if not str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            loop.default_exception_handler(context)
            return
        last[1] += 1
        now = time.monotonic()
        if now - last[0] >= QUIET_SECONDS:
            error = context.get("exception")
            _log.warning(
                "phasetodo board: cannot accept new connections (%s; %d failure(s) since the last "
                "such line); retrying every second",
                getattr(error, "strerror", None) or error,
                last[1],
            )
            last[0], last[1] = now, 0

    loop.set_exception_handler(handler)


class BoardServer(uvicorn.Server):
    """uvicorn's server that ends the board's live feeds on exit and keeps accept errors quiet."""

    def __init__(
        self, config: uvicorn.Config, board: Board, announce: Callable[[], None] | None = None
    ) -> None:
        super().__init__(config)
        self.board = board
        #: Called once the server accepts and its Ctrl-C handler is in place (a Ctrl-C before
        #: then could land inside an import, where Python drops it, and the server would stay up).
        self.announce = announce

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        """Serve ``sockets`` until told to exit."""
        _quiet_accept(asyncio.get_running_loop())
        await super().serve(sockets)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start serving, then announce it."""
        await super().startup(sockets)
        if self.started and self.announce is not None:
            self.announce()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """Ctrl-C: end the live feeds first, so shutdown does not wait on them."""
        self.board.closing.set()
        super().handle_exit(sig, frame)


def make_server(
    app: Any,
    board: Board,
    limits: Limits,
    announce: Callable[[], None] | None = None,
    **config: Any,
) -> BoardServer:
    """A server for the board's ``app`` within ``limits`` that calls ``announce`` once it
    serves (``config``: more ``uvicorn.Config``)."""
    settings: dict[str, Any] = {
        "log_level": "warning",
        "lifespan": "off",
        "timeout_graceful_shutdown": 2,
        "timeout_keep_alive": limits.keep_alive,
        **config,
    }
    return BoardServer(uvicorn.Config(app, http=_protocol(limits), **settings), board, announce)
