"""The board's ASGI app: pages, a JSON API, live feeds (server-sent events) and edits.

Safe by default. Every request must name one of the board's hosts in ``Host``
(no DNS rebinding, whatever the bound address: see :mod:`.access`); a board
reachable from other machines wants the token on reads too (header
``X-Phasetodo-Token`` or, for live feeds, ``?token=``). Every write needs the
token in the header, a JSON body and a same-origin request (``Origin`` equal to
the board's own, ``Sec-Fetch-Site: same-origin`` when the browser sends it); a
read-only board refuses them all. At most ``max_streams`` live feeds are open at
once (a 503 beyond), and an edit body must arrive within ``body_timeout``
seconds. Every response carries a Content-Security-Policy that allows only the
board's own script and style files, so plan text can never run. The script is a set
of native ES modules (``static/main.js`` imports the rest), each served as
``text/javascript`` whatever the system's MIME table says: a browser runs a module
(and, under ``nosniff``, any script) only with a JavaScript type.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
from collections.abc import AsyncIterator, Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import phasetodo

from ..errors import InvalidOption
from .access import LOCAL_HOSTS, Access
from .board import HEAD_ID, MAX_PAGE, PAGE, Board
from .feed import changes, versions

__all__ = ["BODY_TIMEOUT", "LOCAL_HOSTS", "MAX_STREAMS", "TOKEN_HEADER", "create_app"]

#: The header that carries the token on writes (and on reads, for a board beyond loopback).
TOKEN_HEADER = "x-phasetodo-token"
#: The largest edit body accepted (a Markdown list of tens of thousands of tasks fits).
MAX_BODY = 8 * 1024 * 1024
#: Live feeds (server-sent events) open at once; one more gets a 503.
MAX_STREAMS = 1024
#: Seconds an edit's body may take to arrive.
BODY_TIMEOUT = 30.0
#: Seconds without a change after which a live feed sends a keep-alive comment.
KEEP_ALIVE = 10.0

_STATIC = Path(__file__).parent / "static"
_SECURITY_HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        b"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
)


#: The type of the static files a browser refuses under another one (modules, and any script
#: or style sheet under ``nosniff``), not left to the system's MIME table, which may differ.
_STATIC_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}


class _StaticFiles(StaticFiles):
    """The board's static files, each with the type the browser needs to use it."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        kind = _STATIC_TYPES.get(Path(full_path).suffix)
        if kind is not None and isinstance(response, FileResponse):
            response.media_type = kind
            response.headers["content-type"] = kind
        return response


def _token_given(scope: Scope, headers: dict[bytes, bytes]) -> str:
    """The token a request carries: the header, else ``?token=`` (what a live feed can send)."""
    if TOKEN_HEADER.encode() in headers:
        return headers[TOKEN_HEADER.encode()].decode("latin-1")
    raw: bytes = scope.get("query_string", b"")
    return parse_qs(raw.decode("latin-1")).get("token", [""])[0]


class _Guard:
    """ASGI middleware: refuse foreign ``Host`` headers and, on a private board, reads
    without the token; add the security headers."""

    def __init__(self, app: ASGIApp, access: Access, token: str) -> None:
        self.app = app
        self.access = access
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1")
        refused = None
        if not self.access.allows(host):
            refused = _error(
                400,
                "host",
                f"Host {host!r} is not one of this board's names "
                "(phasetodo serve --allow-host NAME adds one)",
            )
        elif self.access.private and scope["path"].startswith("/api/"):
            given = _token_given(scope, headers).encode("utf-8", "replace")
            if not secrets.compare_digest(given, self.token):
                refused = _error(
                    403,
                    "token",
                    "This board can be reached from other machines, so reading it needs its token: "
                    "open the address that phasetodo serve printed (it ends in ?token=...).",
                )
        if refused is not None:
            await refused(scope, receive, self._secure(send))
            return
        await self.app(scope, receive, self._secure(send))

    @staticmethod
    def _secure(send: Send) -> Send:
        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_SECURITY_HEADERS]
            await send(message)

        return secured


def _error(
    status: int, code: str, message: str, headers: dict[str, str] | None = None, **more: Any
) -> JSONResponse:
    return JSONResponse({"error": code, "message": message, **more}, status_code=status, headers=headers)


class _Gauge:
    """How many live feeds are open, and the most that may be."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.open = 0


class _Counted(Response):
    """A live feed's response, counted while it streams; a 503 when the gauge is full."""

    def __init__(self, inner: Response, gauge: _Gauge) -> None:
        self.inner, self.gauge = inner, gauge

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        gauge = self.gauge
        if gauge.open >= gauge.most:
            busy = _error(
                503,
                "busy",
                f"The board already serves {gauge.most} live pages, its most; try again soon.",
                headers={"retry-after": "5", "connection": "close"},
            )
            await busy(scope, receive, send)
            return
        gauge.open += 1
        try:
            await self.inner(scope, receive, send)
        finally:
            gauge.open -= 1


#: The most digits a numeric query parameter may have (any count or version fits in 18).
_MAX_DIGITS = 18


def _count(text: str | None) -> int | None:
    """``text`` as a whole number when it is 1 to 18 ASCII digits, else ``None``.

    ``str.isdigit`` also takes ``²`` and other digits ``int`` refuses, and ``int``
    refuses thousands of digits: either would be a 500, not the 400 it is.
    """
    if text is None or not 0 < len(text) <= _MAX_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def _page_args(request: Request) -> tuple[int, int] | JSONResponse:
    """``offset`` and ``limit`` of a sessions request, or the 400 that says what is wrong."""
    offset = _count(request.query_params.get("offset", "0"))
    limit = _count(request.query_params.get("limit", str(PAGE)))
    if offset is None:
        return _error(400, "invalid", "offset: must be a number of sessions, 0 or more")
    if limit is None or not 0 < limit <= MAX_PAGE:
        return _error(400, "invalid", f"limit: must be a number of sessions from 1 to {MAX_PAGE}")
    return offset, limit


def _refusal(request: Request, token: str, read_only: bool) -> JSONResponse | None:
    """Why this write is refused, or None when it may go on."""
    if read_only:
        return _error(
            403, "read_only", "This board is read-only (phasetodo serve --read-only): nothing changed."
        )
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    origin = request.headers.get("origin")
    if origin != own:
        return _error(
            403,
            "origin",
            f"Edits must come from the board's own page ({own}), not from "
            f"{origin or 'a request without an Origin header'}: nothing changed.",
        )
    site = request.headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return _error(403, "origin", f"Edits must come from the board's own page, not a {site} request.")
    given = request.headers.get(TOKEN_HEADER, "")
    if not secrets.compare_digest(given.encode(), token.encode()):
        return _error(
            403,
            "token",
            "This page has no valid token: open the address that phasetodo serve printed "
            "(it ends in ?token=...). Nothing changed.",
        )
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return _error(415, "content_type", "Edits are sent as application/json.")
    return None


async def _run(call: Callable[[], Any]) -> Any:
    return await anyio.to_thread.run_sync(call)


def _since(request: Request) -> str | None:
    """The head id of the plan a page already shows: ``Last-Event-ID`` (a reconnect), else
    ``?since=``; None when it names none (or not a head id, such as a bare version)."""
    given = request.headers.get("last-event-id") or request.query_params.get("since")
    return given if given is not None and HEAD_ID.fullmatch(given) else None


def _plan_message(board: Board, sid: str, shown: str | None) -> tuple[str, str]:
    """The live feed's message for a page that shows the plan of head id ``shown`` (None:
    none): what changed since then (``delta``), or the whole plan (``plan``) when the board
    cannot tell that (another history among them). Each carries its head id as the event id,
    which the browser sends back when it reconnects; that id comes back with the message."""
    delta = board.plan_delta(sid, shown) if shown is not None else None
    if delta is not None:
        head, text = delta
        return head, f"event: delta\nid: {head}\ndata: {text}\n\n"
    head, text = board.plan_text(sid)
    return head, f"event: plan\nid: {head}\ndata: {text}\n\n"


def create_app(
    board: Board,
    *,
    token: str,
    hosts: Iterable[str] | Access = LOCAL_HOSTS,
    every: float = 0.25,
    max_body: int = MAX_BODY,
    max_streams: int = MAX_STREAMS,
    body_timeout: float = BODY_TIMEOUT,
) -> ASGIApp:
    """The board as an ASGI app over ``board``.

    ``token`` is the secret every write must carry. ``hosts`` are the host
    names the board answers to, or an :class:`~.access.Access` (which may also
    want the token on reads). The sessions feed polls every ``4 * every``
    seconds (plans follow ``Session.watch``); ``max_body`` is the largest edit
    accepted, in bytes, ``body_timeout`` how long its body may take, and
    ``max_streams`` how many live feeds may be open at once.
    """
    if not token:
        raise ValueError("token: must be a non-empty secret")
    if hosts is None:  # the board once took None for "any Host": that let DNS rebinding in
        raise InvalidOption("hosts: name the hosts the board answers to (phasetodo.web.access)")
    access = hosts if isinstance(hosts, Access) else Access(frozenset(hosts))
    gauge = _Gauge(max_streams)

    async def page(request: Request) -> Response:
        return FileResponse(_STATIC / "board.html", media_type="text/html")

    async def guarded(call: Callable[[], Any]) -> Response:
        try:
            return JSONResponse(await _run(call))
        except LookupError as error:
            return _error(404, "not_found", str(error))

    async def sessions(request: Request) -> Response:
        page = _page_args(request)
        if isinstance(page, Response):
            return page
        return await guarded(lambda: board.sessions(*page))

    async def plan(request: Request) -> Response:
        sid = request.path_params["sid"]
        try:
            _, text = await _run(lambda: board.plan_text(sid))
        except LookupError as error:
            return _error(404, "not_found", str(error))
        return Response(text, media_type="application/json")

    async def markdown(request: Request) -> Response:
        sid = request.path_params["sid"]
        return await guarded(lambda: board.markdown(sid))

    async def history(request: Request) -> Response:
        sid = request.path_params["sid"]
        since = _count(request.query_params.get("since", "0"))
        if since is None:
            return _error(400, "invalid", "since: must be a version number")
        given = request.query_params.get("limit")
        limit = None if given is None else _count(given)
        if given is not None and not limit:
            return _error(400, "invalid", "limit: must be a number of events above 0")
        return await guarded(lambda: board.history(sid, since, limit))

    async def version(request: Request) -> Response:
        sid, number = request.path_params["sid"], request.path_params["version"]
        return await guarded(lambda: board.at_version(sid, number))

    def streaming(events: AsyncIterator[str]) -> Response:
        inner = StreamingResponse(events, media_type="text/event-stream", headers={"x-accel-buffering": "no"})
        return _Counted(inner, gauge)

    async def sessions_stream(request: Request) -> Response:
        # One listing per poll (the page's sessions with their versions), less often than one plan.
        page = _page_args(request)
        if isinstance(page, Response):
            return page
        offset, limit = page

        async def events() -> AsyncIterator[str]:
            yield "retry: 1000\n\n"
            sent: object = object()
            read = partial(board.listing, offset, limit)
            async for listing in changes(board, read, every=4 * every, idle=KEEP_ALIVE):
                if listing == sent:  # nothing new: a comment, so a gone client is noticed
                    yield ": keep-alive\n\n"
                    continue
                sent = listing
                shown = await _run(partial(board.sessions, offset, limit, listing))
                yield f"event: sessions\ndata: {json.dumps(shown, separators=(',', ':'))}\n\n"

        return streaming(events())

    async def plan_stream(request: Request) -> Response:
        # A page that shows the plan of head id H says so (``?since=H``, or ``Last-Event-ID`` when
        # the browser reconnects): it gets what changed since H, or the whole plan when the log
        # holds another history now (a checkout). Without it, the whole plan comes first.
        sid = request.path_params["sid"]
        since = _since(request)
        try:
            await _run(lambda: board.version(sid))
        except LookupError as error:
            return _error(404, "not_found", str(error))

        async def events() -> AsyncIterator[str]:
            yield "retry: 1000\n\n"
            shown = since
            try:
                async for version in versions(board, sid, idle=KEEP_ALIVE):
                    if version is None:  # nothing new: a comment, so a gone client is noticed
                        yield ": keep-alive\n\n"
                        continue
                    if await _run(partial(board.head, sid)) == shown:
                        continue  # a burst's older event: the plan sent already holds it
                    shown, message = await _run(partial(_plan_message, board, sid, shown))
                    yield message
            except OSError as error:  # out of file handles: end the feed, the page reconnects
                if error.errno not in (errno.EMFILE, errno.ENFILE):
                    raise

        return streaming(events())

    async def edit(request: Request) -> Response:
        refused = _refusal(request, token, board.read_only)
        if refused is not None:
            return refused
        sid = request.path_params["sid"]
        raw = bytearray()
        try:
            with anyio.fail_after(body_timeout):
                async for chunk in request.stream():
                    raw += chunk
                    if len(raw) > max_body:
                        return _error(413, "too_large", f"An edit may be at most {max_body} bytes.")
        except TimeoutError:
            return _error(
                408,
                "timeout",
                f"The edit did not arrive within {body_timeout:g} seconds: nothing changed.",
                headers={"connection": "close"},
            )
        except ClientDisconnect:
            return _error(400, "invalid", "The edit was cut off: nothing changed.")
        try:
            body = json.loads(raw)
        except ValueError:
            return _error(400, "invalid", "The edit is not valid JSON.")
        if not isinstance(body, dict):
            return _error(400, "invalid", "The edit must be a JSON object.")
        try:
            return JSONResponse(await _run(lambda: board.edit(sid, body)))
        except phasetodo.VersionConflict as conflict:
            return _error(
                409,
                "conflict",
                f"Nothing changed: the plan moved on since this page showed it (the page showed "
                f"version {conflict.expected}, the plan is now at version {conflict.actual}). "
                "The page now shows the newest plan; check it and try again.",
                expected=conflict.expected,
                version=conflict.actual,
            )
        except LookupError as error:
            return _error(404, "not_found", str(error))
        except PermissionError:
            return _error(403, "read_only", "This board is read-only: nothing changed.")
        except ValueError as error:
            return _error(400, "invalid", f"Nothing changed: {error}")

    routes = [
        Route("/", page),
        Route("/s/{sid}", page),
        Route("/s/{sid}/history", page),
        Route("/s/{sid}/team", page),
        Route("/s/{sid}/graph", page),
        Route("/s/{sid}/activity", page),
        Route("/s/{sid}/v/{version:int}", page),
        Route("/api/sessions", sessions),
        Route("/api/stream", sessions_stream),
        Route("/api/sessions/{sid}", plan),
        Route("/api/sessions/{sid}/stream", plan_stream),
        Route("/api/sessions/{sid}/events", history),
        Route("/api/sessions/{sid}/markdown", markdown),
        Route("/api/sessions/{sid}/versions/{version:int}", version),
        Route("/api/sessions/{sid}/edit", edit, methods=["POST"]),
        Mount("/static", _StaticFiles(directory=_STATIC), name="static"),
    ]
    return _Guard(Starlette(routes=routes), access, token)
