"""The board's ASGI app: pages, a JSON API, live feeds (server-sent events) and edits.

Safe by default. Reads answer only to a local ``Host`` (no DNS rebinding);
every write needs the board's token (header ``X-Phasetodo-Token``), a JSON
body and a same-origin request (``Origin`` equal to the board's own,
``Sec-Fetch-Site: same-origin`` when the browser sends it); a read-only board
refuses them all. Every response carries a Content-Security-Policy that allows
only the board's own script and style files, so plan text can never run.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import phasetodo

from .board import Board
from .feed import changes

__all__ = ["LOCAL_HOSTS", "TOKEN_HEADER", "create_app"]

#: The header that carries the token on writes.
TOKEN_HEADER = "x-phasetodo-token"
#: Host names a browser uses for this machine; the bound host is added to them.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: The largest edit body accepted (a Markdown list of tens of thousands of tasks fits).
MAX_BODY = 8 * 1024 * 1024
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


def _host_name(host: str) -> str:
    """``host`` without its port (``[::1]:8765`` → ``::1``)."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class _Guard:
    """ASGI middleware: refuse foreign ``Host`` headers, add the security headers."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.hosts is not None:
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if _host_name(host).lower() not in self.hosts:
                response = _error(400, "host", f"Host {host!r} is not this board's address")
                await response(scope, receive, self._secure(send))
                return
        await self.app(scope, receive, self._secure(send))

    @staticmethod
    def _secure(send: Send) -> Send:
        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_SECURITY_HEADERS]
            await send(message)

        return secured


def _error(status: int, code: str, message: str, **more: Any) -> JSONResponse:
    return JSONResponse({"error": code, "message": message, **more}, status_code=status)


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


def create_app(
    board: Board,
    *,
    token: str,
    hosts: Iterable[str] | None = LOCAL_HOSTS,
    every: float = 0.25,
    max_body: int = MAX_BODY,
) -> ASGIApp:
    """The board as an ASGI app over ``board``.

    ``token`` is the secret every write must carry. ``hosts`` are the host
    names the board answers to (``None``: any, for a board bound to all
    interfaces on purpose). ``every`` is the live feeds' poll interval in
    seconds; ``max_body`` the largest edit accepted, in bytes.
    """
    if not token:
        raise ValueError("token: must be a non-empty secret")

    async def page(request: Request) -> Response:
        return FileResponse(_STATIC / "board.html", media_type="text/html")

    async def guarded(call: Callable[[], Any]) -> Response:
        try:
            return JSONResponse(await _run(call))
        except LookupError as error:
            return _error(404, "not_found", str(error))

    async def sessions(request: Request) -> Response:
        return await guarded(board.sessions)

    async def plan(request: Request) -> Response:
        sid = request.path_params["sid"]
        return await guarded(lambda: board.plan(sid))

    async def markdown(request: Request) -> Response:
        sid = request.path_params["sid"]
        return await guarded(lambda: board.markdown(sid))

    async def history(request: Request) -> Response:
        sid = request.path_params["sid"]
        try:
            since = int(request.query_params.get("since", "0"))
        except ValueError:
            return _error(400, "invalid", "since: must be a version number")
        given = request.query_params.get("limit")
        if given is not None and not (given.isdigit() and int(given) > 0):
            return _error(400, "invalid", "limit: must be a number of events above 0")
        limit = int(given) if given is not None else None
        return await guarded(lambda: board.history(sid, since, limit))

    async def version(request: Request) -> Response:
        sid, number = request.path_params["sid"], request.path_params["version"]
        return await guarded(lambda: board.at_version(sid, number))

    def stream(read: Callable[[], Any], render: Callable[[], Any], name: str, poll: float) -> Response:
        async def events() -> AsyncIterator[str]:
            yield "retry: 1000\n\n"
            sent: object = object()
            async for value in changes(board, read, every=poll, idle=KEEP_ALIVE):
                if value == sent:  # nothing new: a comment, so a gone client is noticed
                    yield ": keep-alive\n\n"
                    continue
                sent = value
                data = json.dumps(await _run(render), separators=(",", ":"))
                yield f"event: {name}\ndata: {data}\n\n"

        return StreamingResponse(
            events(), media_type="text/event-stream", headers={"x-accel-buffering": "no"}
        )

    async def sessions_stream(request: Request) -> Response:
        # Every session's newest version: looked at less often than one plan.
        return stream(board.fingerprint, board.sessions, "sessions", 4 * every)

    async def plan_stream(request: Request) -> Response:
        sid = request.path_params["sid"]
        try:
            await _run(lambda: board.version(sid))
        except LookupError as error:
            return _error(404, "not_found", str(error))
        return stream(lambda: board.version(sid), lambda: board.plan(sid), "plan", every)

    async def edit(request: Request) -> Response:
        refused = _refusal(request, token, board.read_only)
        if refused is not None:
            return refused
        sid = request.path_params["sid"]
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > max_body:
                return _error(413, "too_large", f"An edit may be at most {max_body} bytes.")
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
        Route("/s/{sid}/v/{version:int}", page),
        Route("/api/sessions", sessions),
        Route("/api/stream", sessions_stream),
        Route("/api/sessions/{sid}", plan),
        Route("/api/sessions/{sid}/stream", plan_stream),
        Route("/api/sessions/{sid}/events", history),
        Route("/api/sessions/{sid}/markdown", markdown),
        Route("/api/sessions/{sid}/versions/{version:int}", version),
        Route("/api/sessions/{sid}/edit", edit, methods=["POST"]),
        Mount("/static", StaticFiles(directory=_STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    allowed = None if hosts is None else frozenset(h.lower() for h in hosts)
    return _Guard(app, allowed)
