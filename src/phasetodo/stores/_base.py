"""What every store shares: the event value, the store interface, id checks and cached reads.

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
from ._requests import Request

__all__ = [
    "EVENT_KINDS",
    "CachedLog",
    "Event",
    "EventKind",
    "Head",
    "Log",
    "Store",
    "check_agent",
    "check_session_id",
    "event_fields",
    "event_from_json",
    "event_to_json",
    "head_of",
]

#: ``write``: a successful todo_write call; ``user_edit``: a person changed the
#: list (Markdown import, a CLI verb); ``clear``: auto-clear removed closed tasks.
EventKind = Literal["write", "user_edit", "clear"]
EVENT_KINDS: tuple[EventKind, ...] = ("write", "user_edit", "clear")


@attrs.frozen
class Event:
    """One entry of a session log, with the list after it.

    ``version`` counts events from 1; ``time`` is the session clock's reading
    (seconds); ``source`` says where a user edit came from; ``agent`` is the
    agent that made a tool write, when known. A ``write`` carries the ``ops``
    it applied (JSON data, as validated) and the ``profile`` that ran them: a
    store keeps those, not the list, and materializes ``phases`` by replaying
    them. ``ops`` is None for edits, clears, and writes a store cannot replay.
    ``request`` is the call a write made with a ``request_id`` answered (see
    :mod:`phasetodo.stores._requests`), so that a retry gets the same reply.
    """

    version: int
    kind: EventKind
    time: float
    phases: tuple[Phase, ...]
    source: str | None = None
    agent: str | None = None
    ops: tuple[Any, ...] | None = attrs.field(default=None, eq=False)
    profile: str | None = attrs.field(default=None, eq=False)
    request: Request | None = attrs.field(default=None, eq=False)


@attrs.frozen
class Head:
    """Which history a reader holds: its newest version and what identifies its newest record.

    ``key`` is the newest record's hash (for a JSONL file, with the file's identity),
    or None where the log has none. Two reads of the same history give equal heads; a
    log replaced under a reader (a ``git checkout`` of another branch, a restored
    backup) gives another head even when it holds as many events, or fewer.
    """

    version: int
    key: object = None


def head_of(log: object) -> Head:
    """The head of ``log``: its own ``head()`` if it has one, else its version alone."""
    head = getattr(log, "head", None)
    if callable(head):
        found: Head = head()
        return found
    version: int = log.version()  # type: ignore[attr-defined]
    return Head(version)


#: How many times :func:`newest_of` looks again while writes keep landing between its looks.
_LOOKS = 50


def newest_of(log: Any) -> tuple[Head, Event | None]:
    """The log's head and its newest event, read as one: looked at again while a write lands
    between the looks. Under a stream of writes too fast to catch, the head returned is one
    no later look equals, so a reader that compares heads reads again next time. A log that
    reads both at once (``newest()``, as :class:`CachedLog` does) is asked once."""
    newest = getattr(log, "newest", None)
    if callable(newest):
        found: tuple[Head, Event | None] = newest()
        return found
    for _ in range(_LOOKS):
        head = head_of(log)
        latest: Event | None = log.latest()
        if (latest.version if latest is not None else 0) == head.version and head_of(log) == head:
            return head, latest
    return Head(latest.version if latest is not None else 0, object()), latest


def check_agent(agent: object, place: str = "agent") -> str | None:
    """Return ``agent`` if it is None or a non-empty string without control characters."""
    if agent is None:
        return None
    if not isinstance(agent, str):
        raise TypeError(f"{place}: must be a string or None, not {type(agent).__name__}")
    try:
        agent.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{place}: {agent!r} holds a lone surrogate") from None
    return agent


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


def event_fields(
    data: object, texts: tuple[str, ...] = ("source", "agent")
) -> tuple[Mapping[str, Any], int, EventKind, float]:
    """What every event's JSON data (a log record too) must hold: the data, its version, kind and time.

    The fields named in ``texts`` must be strings when set. Raises ``InvalidEvent``
    (a ``ValueError``) naming the bad field.
    """
    if type(data) is not dict and not isinstance(data, Mapping):  # a parsed record: a dict, at once
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
    for key in texts:
        if data.get(key) is not None and type(data[key]) is not str:
            raise InvalidEvent(f"event.{key}: must be a string")
    return data, version, kind, float(time)


def event_from_json(data: object) -> Event:
    """Build an event from JSON data; raises ``InvalidEvent`` (a ``ValueError``) naming the bad field."""
    data, version, kind, time = event_fields(data)
    try:
        phases = load_phases(data.get("phases"))
    except InvalidPhases as error:
        raise InvalidEvent(f"event.phases: {'; '.join(error.problems)}") from error
    return Event(version, kind, time, phases, data.get("source"), data.get("agent"))


_MAX_ID = 200
#: Bytes a file name may take on common file systems, and the longest name a store
#: makes from an id: ``<id>.jsonl.torn``.
_NAME_MAX = 255
_LONGEST_SUFFIX = len(".jsonl.torn")
_BAD_ID = re.compile(r"[\x00-\x1f\x7f/\\:]")


def check_session_id(session_id: object) -> str:
    """Return ``session_id`` if it is safe as a file name in any store.

    Rejects non-strings, empty ids, ``.`` and ``..``, path separators, drive
    colons, NUL and other control characters, lone surrogates, ids over 200
    characters and ids whose longest file name (``<id>.jsonl.torn``) would pass
    255 bytes, so no id can name a place outside its store or fail as a name.
    """
    if not isinstance(session_id, str):
        raise InvalidSessionId(f"session_id: must be a string, not {type(session_id).__name__}")
    if not session_id or session_id in (".", ".."):
        raise InvalidSessionId(f"session_id: {session_id!r} is not a usable name")
    if len(session_id) > _MAX_ID:
        raise InvalidSessionId(f"session_id: longer than {_MAX_ID} characters")
    try:
        size = len(session_id.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidSessionId(
            f"session_id: {session_id!r} holds a lone surrogate, which no file name or database can keep"
        ) from None
    if size + _LONGEST_SUFFIX > _NAME_MAX:
        raise InvalidSessionId(
            f"session_id: {size} bytes in UTF-8; at most {_NAME_MAX - _LONGEST_SUFFIX} fit in a file name"
        )
    bad = _BAD_ID.search(session_id)
    if bad is not None:
        raise InvalidSessionId(
            f"session_id: {session_id!r} contains {bad.group()!r}, which could leave the store"
        )
    return session_id


class Log(Protocol):
    """One session's append-only event log, as a store opened it.

    A writer holds :meth:`lock`, reads :meth:`latest` (the newest version, other
    processes' writes included), builds the next event from it and
    appends it; the event is durable once the block exits. So every
    call is applied to the newest version under the store's writer lock, on
    every store. Readers need no lock: :meth:`version` is a cheap look at the
    newest version, :meth:`latest` materializes its list (one checkpoint plus a
    bounded tail of deltas), :meth:`events` replays the history and :meth:`wait`
    blocks until a newer version lands.
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

    @property
    def profile(self) -> str | None:
        """The profile's name the plan was made with, as its chained first record names it
        (None: an empty log, or one written before the profile was recorded)."""
        ...

    def lock(self) -> AbstractContextManager[None]:
        """Hold the session exclusively across threads and processes (re-entrant).

        Creates the log if it does not exist yet. Events appended inside are
        durable when the block exits.
        """
        ...

    def version(self) -> int:
        """The newest version in the store (0 for an empty log); cheap enough for every read."""
        ...

    def latest(self) -> Event | None:
        """The newest event with its list, or None for an empty log."""
        ...

    # A log may also have ``head() -> Head``: the identity of the history it reads now
    # (see :class:`Head`); readers compare heads, not versions, to notice a replaced log.

    def append(self, event: Event) -> None:
        """Append ``event`` (inside :meth:`lock`); its version must be the latest plus one.

        A ``write`` event with ``ops`` is kept as its ops; any other as a
        structural diff; now and then as a checkpoint holding the whole list.
        """
        ...

    def events(self, after: int = 0) -> Iterator[Event]:
        """Every event with a version above ``after``, in version order, lists materialized."""
        ...

    def wait(self, after: int, timeout: float | None = None) -> bool:
        """Block until the newest version is above ``after``; False if ``timeout`` seconds passed."""
        ...

    # A log may also have ``renewals() -> dict[str, Renewal]`` and ``renew(renewals)`` (under
    # the lock): the heartbeats' deadlines, by task id, kept beside the history and replaced
    # whole (see ``_renewals``); without them a heartbeat appends a ``write`` event.

    # A log may also have ``find_request(key) -> Event | None`` (the event a write with
    # that request key appended, ``Request.key``: the caller's agent, scope and id; among
    # at least the last ``_requests.WINDOW`` events);
    # without it the session looks through the last ``WINDOW`` events itself.

    def compact(self) -> None:
        """Rewrite the log in the newest format: deltas and checkpoints, history kept."""
        ...

    def close(self) -> None:
        """Release the log's handles; the store stays open."""
        ...


class Store(Protocol):
    """Where session logs live. A new backend implements this and :class:`Log`."""

    @property
    def storage(self) -> Storage:
        """``"session"`` for durable stores, ``"memory"`` otherwise."""
        ...

    def open(self, session_id: str, *, owner: str | None = None, profile: str | None = None) -> Log:
        """Open one session's log; the log is created (recording ``owner``, and chaining it with
        ``profile``, the profile's name, in its first record) at its first write.

        Opening creates nothing, so reading needs no write access.
        """
        ...

    def sessions(self) -> list[str]:
        """The ids of the sessions the store holds, sorted."""
        ...

    def close(self) -> None:
        """Release the store's resources."""
        ...


#: How often :meth:`CachedLog.wait` looks at the newest version, in seconds.
_POLL = 0.05


class CachedLog:
    """The reads of a log that caches its newest event: a subclass keeps ``_latest`` and
    brings it up to date in ``_catch_up``, reading only what is new."""

    _latest: Event | None
    _head: str | None

    def _catch_up(self) -> None:
        raise NotImplementedError

    def _key(self) -> object:
        """What identifies the newest record read (its hash); a subclass may add more."""
        return self._head

    def head(self) -> Head:
        """The identity of the history this log reads now (only what is new is read)."""
        self._catch_up()
        latest = self._latest
        return Head(latest.version if latest is not None else 0, self._key())

    def version(self) -> int:
        """The newest version: a cheap look when nothing changed, else only what is new is read."""
        self._catch_up()
        latest = self._latest
        return latest.version if latest is not None else 0

    def latest(self) -> Event | None:
        """The newest event, with its list (cached; only what is new is read)."""
        self._catch_up()
        return self._latest

    def _reading(self) -> AbstractContextManager[object]:
        """The lock that guards the cache (re-entrant): the subclass's."""
        raise NotImplementedError

    def newest(self) -> tuple[Head, Event | None]:
        """:meth:`head` and :meth:`latest` from one catch-up, under the cache's lock: a pair
        that no write lands between, for one read where :func:`newest_of` would make three."""
        with self._reading():
            self._catch_up()
            latest = self._latest
            return Head(latest.version if latest is not None else 0, self._key()), latest

    def read_ahead(self) -> None:
        """Read what other writers appended, without the lock: a write that takes the lock
        next then reads under it only what landed while it waited (see Session)."""
        self._catch_up()

    def wait(self, after: int, timeout: float | None = None) -> bool:
        """Poll every 50 ms until a version above ``after`` lands, or the log is replaced."""
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        start = self.head()
        while (head := self.head()).version <= after and head == start:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                time.sleep(min(_POLL, left))
            else:
                time.sleep(_POLL)
        return True
