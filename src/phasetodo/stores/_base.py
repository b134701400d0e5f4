"""What every store shares: the event value, the store interface and id checks.

A store keeps one append-only log per session. The session layer only needs
five things from it, which is the whole interface a new backend implements:
open a log, append an event, read the latest snapshot, iterate the events in
order, and hold a lock across threads and processes while it writes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

import attrs

from .._core.codec import dump_phases, load_phases
from .._core.model import Phase
from .._profiles.result import Storage
from ..errors import InvalidEvent, InvalidPhases, InvalidSessionId

__all__ = [
    "EVENT_KINDS",
    "Event",
    "EventKind",
    "Log",
    "Store",
    "check_session_id",
    "event_from_json",
    "event_to_json",
]

#: ``write``: a successful todo_write call; ``user_edit``: a person changed the
#: list (Markdown import, a CLI verb); ``clear``: auto-clear removed closed tasks.
EventKind = Literal["write", "user_edit", "clear"]
EVENT_KINDS: tuple[EventKind, ...] = ("write", "user_edit", "clear")


@attrs.frozen
class Event:
    """One entry of a session log: the full phases snapshot after a change.

    Replay is last-write-wins: the newest event's ``phases`` is the list.
    ``version`` counts events from 1; ``time`` is the session clock's reading
    (seconds); ``source`` says where a user edit came from; ``agent`` is the
    agent that made a tool write, when known.
    """

    version: int
    kind: EventKind
    time: float
    phases: tuple[Phase, ...]
    source: str | None = None
    agent: str | None = None


def event_to_json(event: Event) -> dict[str, Any]:
    """An event as JSON data; ``source`` and ``agent`` are left out when unset."""
    out: dict[str, Any] = {
        "version": event.version,
        "kind": event.kind,
        "time": event.time,
        "phases": dump_phases(event.phases),
    }
    if event.source is not None:
        out["source"] = event.source
    if event.agent is not None:
        out["agent"] = event.agent
    return out


def event_from_json(data: object) -> Event:
    """Build an event from JSON data; raises ``InvalidEvent`` (a ``ValueError``) naming the bad field."""
    if not isinstance(data, Mapping):
        raise InvalidEvent("event: must be an object")
    version = data.get("version")
    if type(version) is not int or version < 1:
        raise InvalidEvent("event.version: must be an integer >= 1")
    kind = data.get("kind")
    if kind not in EVENT_KINDS:
        raise InvalidEvent(f"event.kind: must be one of {', '.join(EVENT_KINDS)}")
    time = data.get("time")
    if not isinstance(time, (int, float)) or isinstance(time, bool) or not math.isfinite(time):
        raise InvalidEvent("event.time: must be a finite number")
    for key in ("source", "agent"):
        if data.get(key) is not None and type(data[key]) is not str:
            raise InvalidEvent(f"event.{key}: must be a string")
    try:
        phases = load_phases(data.get("phases"))
    except InvalidPhases as error:
        raise InvalidEvent(f"event.phases: {'; '.join(error.problems)}") from error
    return Event(version, kind, float(time), phases, data.get("source"), data.get("agent"))


_MAX_ID = 200
_BAD_ID = re.compile(r"[\x00-\x1f\x7f/\\:]")


def check_session_id(session_id: object) -> str:
    """Return ``session_id`` if it is safe as a file name in any store.

    Rejects non-strings, empty ids, ``.`` and ``..``, path separators, drive
    colons, NUL and other control characters, and ids over 200 characters, so
    no id can name a place outside its store.
    """
    if not isinstance(session_id, str):
        raise InvalidSessionId(f"session_id: must be a string, not {type(session_id).__name__}")
    if not session_id or session_id in (".", ".."):
        raise InvalidSessionId(f"session_id: {session_id!r} is not a usable name")
    if len(session_id) > _MAX_ID:
        raise InvalidSessionId(f"session_id: longer than {_MAX_ID} characters")
    bad = _BAD_ID.search(session_id)
    if bad is not None:
        raise InvalidSessionId(
            f"session_id: {session_id!r} contains {bad.group()!r}, which could leave the store"
        )
    return session_id


class Log(Protocol):
    """One session's append-only event log, as a store opened it.

    Writers call :meth:`latest` and :meth:`append` inside :meth:`lock`, so the
    version they build on is the version they append after.
    """

    @property
    def storage(self) -> Storage:
        """``"session"`` for durable stores, ``"memory"`` otherwise."""
        ...

    @property
    def session_id(self) -> str:
        """The session this log belongs to."""
        ...

    @property
    def owner(self) -> str | None:
        """The agent the session belongs to, recorded when the log was created."""
        ...

    def lock(self) -> AbstractContextManager[None]:
        """Hold the session exclusively across threads and processes (re-entrant).

        Events appended inside are durable when the block exits.
        """
        ...

    def latest(self) -> Event | None:
        """The newest event (its snapshot is the list), or None for an empty log.

        Costs the size of one snapshot, not of the history.
        """
        ...

    def append(self, event: Event) -> None:
        """Append ``event``, whose version must be the latest version plus one."""
        ...

    def events(self) -> Iterator[Event]:
        """Every event in version order, read lazily."""
        ...

    def close(self) -> None:
        """Release the log's file handles; the store stays open."""
        ...


class Store(Protocol):
    """Where session logs live. A new backend implements this and :class:`Log`."""

    @property
    def storage(self) -> Storage:
        """``"session"`` for durable stores, ``"memory"`` otherwise."""
        ...

    def open(self, session_id: str, *, owner: str | None = None) -> Log:
        """Open (creating if needed) one session's log; a new log records ``owner``."""
        ...

    def sessions(self) -> list[str]:
        """The ids of the sessions the store holds, sorted."""
        ...

    def close(self) -> None:
        """Release the store's resources."""
        ...
