"""Request ids: what an event records of the call that made it, so that a retry gets the same answer.

A write made with a ``request_id`` records a :class:`Request` in its event: the
id, a digest of the call's params and the reply (the result's text and details,
the list in them left out when it is the event's own list). A later call with
the same id finds that event and is answered from it, appending nothing; the
same id with other params is refused (:class:`~phasetodo.errors.RequestIdReused`).

Every store remembers the ids of at least the last :data:`WINDOW` events: SQLite
and PostgreSQL every id (an indexed column), JSONL and memory the last
:data:`WINDOW` events' ids.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import attrs

from .._core.codec import dump_phases
from .._core.model import Phase
from .._profiles.result import ToolResult
from ..errors import InvalidOption, InvalidOptionType, InvalidParams

__all__ = [
    "MAX_REQUEST_ID",
    "WINDOW",
    "Request",
    "answer",
    "check_json_params",
    "check_request_id",
    "params_digest",
    "reply_of",
    "request_from_json",
    "request_key",
]

#: How many of the newest events every store remembers request ids for (at least).
WINDOW = 10_000
#: The longest request id, in characters.
MAX_REQUEST_ID = 200


@attrs.frozen
class Request:
    """The call an event answered: its ``id``, the digest of its ``params`` and its ``reply``.

    ``reply`` is JSON data: ``text``, ``details`` (``details.phases`` is ``None``
    when it equals the event's list), ``errors``, ``is_error`` and ``flags_error``.
    ``agent`` and ``scope`` name the caller the id belongs to (see :attr:`key`).
    """

    id: str
    params: str
    reply: Mapping[str, Any] = attrs.field(eq=False)
    agent: str | None = None
    scope: str | None = None

    @property
    def key(self) -> str:
        """What stores remember the id by: the caller's agent and scope with the id."""
        return request_key(self.agent, self.scope, self.id)

    def to_json(self) -> dict[str, Any]:
        """The request as it is kept in a record (the scope only when there is one)."""
        out: dict[str, Any] = {"id": self.id, "params": self.params, "reply": dict(self.reply)}
        if self.scope is not None:
            out["scope"] = self.scope
        return out


def request_key(agent: str | None, scope: str | None, request_id: str) -> str:
    """The key of ``request_id`` made by ``agent`` in ``scope``: another caller's id is another key."""
    return json.dumps([agent, scope, request_id], ensure_ascii=False, separators=(",", ":"))


def check_request_id(request_id: object) -> str | None:
    """Return ``request_id`` if it is None or a usable id (a non-empty string of at most 200 characters)."""
    if request_id is None:
        return None
    if not isinstance(request_id, str):
        raise InvalidOptionType(f"request_id: must be a string or None, not {type(request_id).__name__}")
    if not request_id or len(request_id) > MAX_REQUEST_ID:
        raise InvalidOption(f"request_id: must have 1 to {MAX_REQUEST_ID} characters, not {len(request_id)}")
    try:
        request_id.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidOption(f"request_id: {request_id!r} holds a lone surrogate") from None
    return request_id


def params_digest(params: Mapping[str, Any]) -> str:
    """A digest of a call's params (canonical JSON: sorted keys, no spaces), to tell a retry from a reuse.

    Raises :class:`~phasetodo.InvalidParams` naming the place of a key that is not a string
    or a value JSON cannot hold (what the schema refuses too).
    """
    check_json_params(params)
    text = json.dumps(params, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_json_params(params: object) -> None:
    """Raise :class:`~phasetodo.InvalidParams` naming the first place of ``params`` that holds a
    key that is not a string or a value JSON cannot hold (what a log could not record)."""
    problem = undigestable(params)
    if problem is not None:
        raise InvalidParams([problem])


def undigestable(value: object) -> str | None:
    """Where ``value`` holds a mapping key that is not a string or a value JSON cannot hold
    (the first such place, named as the schema names it, with why), or None."""
    work: list[tuple[object, str]] = [(value, "")]
    while work:
        item, where = work.pop()
        if isinstance(item, Mapping):
            for key, inner in item.items():
                if not isinstance(key, str):
                    return f"{where or 'params'}: has a key {key!r} that is not a string"
                work.append((inner, f"{where}.{key}" if where else key))
        elif isinstance(item, (list, tuple)):
            work.extend((inner, f"{where}[{i}]") for i, inner in enumerate(item))
        elif item is not None and not isinstance(item, (str, int, float, bool)):
            return f"{where or 'params'}: must be JSON data, not a {type(item).__name__}"
    return None


def request_from_json(data: object, agent: object = None) -> Request | None:
    """The request a record's ``request`` field holds (None when absent); ``ValueError`` names a bad field.

    ``agent`` is the record's writer (the agent the id belongs to)."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise ValueError("event.request: must be an object")
    rid, digest, reply = data.get("id"), data.get("params"), data.get("reply")
    if type(rid) is not str or not rid:
        raise ValueError("event.request.id: must be a non-empty string")
    if type(digest) is not str:
        raise ValueError("event.request.params: must be a string")
    if not isinstance(reply, Mapping) or type(reply.get("text")) is not str:
        raise ValueError("event.request.reply: must be an object with a text")
    if not isinstance(reply.get("details"), Mapping):
        raise ValueError("event.request.reply.details: must be an object")
    scope = data.get("scope")
    if scope is not None and (type(scope) is not str or not scope):
        raise ValueError("event.request.scope: must be a non-empty string")
    return Request(rid, digest, reply, agent if type(agent) is str else None, scope)


def reply_of(result: ToolResult, phases: tuple[Phase, ...], *, dumped: bool = False) -> dict[str, Any]:
    """What a record keeps of ``result`` to answer a retry (its list left out when it is ``phases``).

    ``dumped`` says that ``details.phases`` is known to be ``phases`` as JSON (a built-in
    profile's unscoped call), which spares dumping a big list again to compare it.
    """
    details = dict(result.details)
    if "phases" in details and (dumped or details["phases"] == dump_phases(phases)):
        details["phases"] = None
    return {
        "text": result.text,
        "details": details,
        "errors": list(result.errors),
        "problems": list(result.problems),
        "is_error": result.is_error,
        "flags_error": result.flags_error,
    }


def answer(request: Request, phases: tuple[Phase, ...]) -> ToolResult:
    """The result a retry gets: the first call's, rebuilt from its record and the event's list."""
    reply = request.reply
    details = dict(reply["details"])
    if "phases" in details and details["phases"] is None:
        details["phases"] = dump_phases(phases)
    return ToolResult(
        reply["text"],
        details,
        is_error=reply.get("is_error") is True,
        problems=tuple(str(p) for p in reply.get("problems") or ()),
        phases=phases,
        errors=tuple(str(e) for e in reply.get("errors") or ()),
        flags_error=reply.get("flags_error") is True,
    )
