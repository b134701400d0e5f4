"""The stdio line filter in front of the MCP server: every request gets an answer.

The SDK's stdio transport drops a line it cannot validate (a debug log, no
reply), so a host would wait forever for that request. This filter reads each
line itself, passes on the messages the SDK accepts and answers the others
with the JSON-RPC error they deserve: -32700 (parse error, id null) for a line
that is not JSON, -32600 (invalid request) for JSON that is not a message this
server reads, with the request's id whenever one can be read (a float or a
boolean id is echoed as sent). A batch gets one error per request in it. An
invalid response (the client answering us) is logged, since nobody awaits it.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import AsyncIterable, Sequence
from typing import Any

import anyio
import attrs
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from pydantic_core import from_json

__all__ = ["INVALID_REQUEST", "PARSE_ERROR", "InFlight", "Refused", "check_line", "relay"]

#: JSON-RPC's code for a line that is not JSON.
PARSE_ERROR = -32700
#: JSON-RPC's code for JSON that is not a valid request.
INVALID_REQUEST = -32600

_log = logging.getLogger("phasetodo.mcp")

#: Strings (skipped whole), runs of openers and runs of closers.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{]+|[\]}]+')
_NOT_JSON = object()


class _Answer(types.JSONRPCError):
    """An error reply that echoes the request's id whatever its JSON type (a float or a boolean too)."""

    id: Any


@attrs.frozen
class Refused:
    """A line not passed on: the error replies to send for it (none for a response), and why."""

    replies: tuple[types.JSONRPCError, ...]
    reason: str


def check_line(line: str) -> types.JSONRPCMessage | Refused | None:
    """The message on ``line``, or what to answer instead; ``None`` for a blank line."""
    if not line.strip():
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as error:
        return _refuse(line, _summary(error))
    if isinstance(message, types.JSONRPCNotification) and ('"id"' in line or "\\u" in line):
        # The SDK reads {"id": 1.5, "method": ...} as a notification: nobody would answer it.
        value = from_json(line)
        if isinstance(value, dict) and "id" in value:
            return _refuse(line, "", value)
    return message


def _refuse(line: str, checked: str, value: object = _NOT_JSON) -> Refused:
    """Why ``line`` is refused and what to answer; ``checked`` is what the SDK's validation said."""
    unreadable = ""
    if value is _NOT_JSON:
        try:
            value = from_json(line)
        except ValueError as error:  # not JSON to the SDK's parser: too deep, a lone surrogate, or not JSON
            value, unreadable = _lenient(line), str(error)
            if value is _NOT_JSON:
                reason = f"Parse error: {unreadable}"
                return Refused((_error(None, PARSE_ERROR, reason),), reason)
    if isinstance(value, list):
        return _batch(value)
    problem = _problem(value) or (
        f"the JSON is valid but this server cannot read it: {unreadable}" if unreadable else checked
    )
    reason = f"Invalid Request: {problem or 'not a JSON-RPC 2.0 message'}"
    if isinstance(value, dict) and "method" not in value and _unanswered(value):
        return Refused((), f"dropped an invalid response from the client (id {_id(value)!r})")
    return Refused((_error(_id(value), INVALID_REQUEST, reason),), reason)


def _batch(items: Sequence[object]) -> Refused:
    """One error for each request in a batch (this server takes one message a line)."""
    reason = "Invalid Request: batches are not supported; send one message a line"
    if not items:
        return Refused((_error(None, INVALID_REQUEST, "Invalid Request: an empty batch"),), reason)
    replies = tuple(_error(_id(item), INVALID_REQUEST, reason) for item in items if not _unanswered(item))
    return Refused(replies, reason)


def _unanswered(item: object) -> bool:
    """Whether JSON-RPC answers nothing to ``item``: a notification, or a response of the client's."""
    if not isinstance(item, dict):
        return False
    if "method" in item:
        return "id" not in item
    return "result" in item or "error" in item


def _problem(value: object) -> str:
    """What makes ``value`` no JSON-RPC 2.0 request or notification, or ``""`` when its envelope is fine."""
    if not isinstance(value, dict):
        return "a message must be a JSON object"
    if value.get("jsonrpc") != "2.0":
        return '"jsonrpc" must be "2.0"'
    if "method" not in value:
        return "" if "result" in value or "error" in value else 'no "method"'
    if not isinstance(value["method"], str):
        return '"method" must be a string'
    ident = value.get("id")
    if "id" in value and (type(ident) is not int and type(ident) is not str):
        return '"id" must be a string or an integer'
    if value.get("params") is not None and not isinstance(value["params"], dict):
        return '"params" must be an object'
    return ""


def _id(value: object) -> Any:
    """The id to echo: the request's own when it is a number, boolean or string we can write; else null."""
    if not isinstance(value, dict):
        return None
    ident = value.get("id")
    if isinstance(ident, str):
        try:
            ident.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: no UTF-8 reply can carry it back
            return None
        return ident
    if isinstance(ident, float) and not math.isfinite(ident):  # NaN or Infinity: not JSON out
        return None
    return ident if isinstance(ident, (int, float)) else None


def _error(ident: Any, code: int, message: str) -> types.JSONRPCError:
    return _Answer(jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=message))


def _summary(error: ValidationError) -> str:
    """The SDK's first complaint, as ``place: message``."""
    first = error.errors()[0]
    place = ".".join(str(part) for part in first["loc"][1:])
    return f"{place}: {first['msg']}" if place else str(first["msg"])


def _lenient(line: str) -> object:
    """``line`` read by Python's parser, which takes lone surrogates and deeper nesting."""
    try:
        return json.loads(line)
    except RecursionError:  # deeper still: keep the top level, enough to read the id
        shallow = _shallow(line)
        if shallow is None:
            return _NOT_JSON
        try:
            return json.loads(shallow)
        except (ValueError, RecursionError):
            return _NOT_JSON
    except ValueError:
        return _NOT_JSON


def _shallow(line: str) -> str | None:
    """``line`` with every container below the top level replaced by ``null``; ``None`` if unbalanced."""
    out: list[str] = []
    depth = start = 0
    for match in _TOKENS.finditer(line):
        token = match[0]
        if token[0] == '"':
            continue
        if token[0] in "[{":
            if depth <= 1 < depth + len(token):  # a container at the second level opens here
                out.append(line[start : match.start() + 1 - depth])
            depth += len(token)
            continue
        after = depth - len(token)
        if after < 0:
            return None
        if after <= 1 < depth:  # the second-level container closes here
            out.append("null")
            start = match.start() + depth - 1
        depth = after
    if depth:
        return None
    out.append(line[start:])
    return "".join(out)


#: How long the end of the input waits for the replies still owed, in seconds.
DRAIN_WAIT = 30.0


class InFlight:
    """The requests passed on to the server and the replies sent back.

    A client may close its input right after its last call: the end of the input then
    waits until every request passed on has its reply, since closing the server's input
    stops it, and a write applied would go unanswered.
    """

    def __init__(self) -> None:
        self.asked = 0
        self.answered = 0
        self._moved = anyio.Event()

    def answer(self) -> None:
        """Count one reply sent."""
        self.answered += 1
        self._moved.set()

    async def drained(self, timeout: float = DRAIN_WAIT) -> None:
        """Return once every request passed on was answered (or ``timeout`` seconds passed)."""
        with anyio.move_on_after(timeout):
            while True:
                self._moved = moved = anyio.Event()
                if self.answered >= self.asked:
                    return
                await moved.wait()


async def relay(
    source: AsyncIterable[bytes], messages: Any, replies: Any, in_flight: InFlight | None = None
) -> None:
    """Pass each line's message from ``source`` on to ``messages``; answer the others on ``replies``.

    ``messages`` is closed at the end of the input, which ends the server: once
    ``in_flight`` (when given) says every request passed on was answered.
    """
    async with messages:
        await _relay(source, messages, replies, in_flight)
        if in_flight is not None:
            await in_flight.drained()


async def _relay(
    source: AsyncIterable[bytes], messages: Any, replies: Any, in_flight: InFlight | None
) -> None:
    """Each line's message on to ``messages`` (counted in ``in_flight``), the refused answered."""
    async for raw in source:
        verdict = check_line(raw.decode("utf-8", "replace"))
        if verdict is None:
            continue
        try:
            if isinstance(verdict, Refused):
                if not verdict.replies:
                    _log.warning("phasetodo mcp: %s", verdict.reason)
                for reply in verdict.replies:
                    await replies.send(SessionMessage(reply))
                continue
            if in_flight is not None and isinstance(verdict, types.JSONRPCRequest):
                in_flight.asked += 1  # before the send: its reply may come back at once
            await messages.send(SessionMessage(verdict))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return
