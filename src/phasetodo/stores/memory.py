"""A store that keeps logs in this process only (``storage == "memory"``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Literal

from .._core.model import Renewal
from ..errors import VersionConflict
from ._base import Event, check_session_id
from ._chain import Verification

__all__ = ["MemoryLog", "MemoryStore"]


class MemoryLog:
    """One session's events in a list, guarded by a re-entrant thread lock."""

    storage: Literal["memory"] = "memory"

    def __init__(self, session_id: str, owner: str | None, profile: str | None = None) -> None:
        self.session_id = session_id
        self.owner = owner
        #: The profile the plan was made with, recorded at its first event (None before).
        self.profile: str | None = None
        self._wanted_profile = profile
        self._events: list[Event] = []
        self._requests: dict[str, Event] = {}
        self._renewals: dict[str, Renewal] = {}
        self._lock = threading.RLock()
        self._landed = threading.Condition(self._lock)

    def lock(self) -> AbstractContextManager[None]:
        """Hold the session against other threads of this process."""
        return self._lock  # type: ignore[return-value]

    def latest(self) -> Event | None:
        """The newest event, or None."""
        with self._lock:
            return self._events[-1] if self._events else None

    def append(self, event: Event) -> None:
        """Append ``event`` after checking its version follows the latest."""
        with self._lock:
            version = len(self._events)
            if event.version != version + 1:
                raise VersionConflict(self.session_id, event.version - 1, version)
            self._events.append(event)
            if event.version == 1:
                self.profile = self._wanted_profile
            if event.request is not None:
                self._requests[event.request.key] = event
            self._landed.notify_all()

    def version(self) -> int:
        """How many events the log holds."""
        return len(self._events)

    def events(self, after: int = 0) -> Iterator[Event]:
        """The events above version ``after`` so far, in order."""
        with self._lock:
            snapshot = self._events[max(after, 0) :]
        return iter(snapshot)

    def find_request(self, key: str) -> Event | None:
        """The event a write with request ``key`` appended, or None (every id is remembered)."""
        with self._lock:
            return self._requests.get(key)

    def renewals(self) -> dict[str, Renewal]:
        """The claims' renewed deadlines, by task id (see :mod:`._renewals`)."""
        with self._lock:
            return dict(self._renewals)

    def renew(self, renewals: Mapping[str, Renewal]) -> None:
        """Replace the renewals with ``renewals``; the events are unchanged."""
        with self._lock:
            self._renewals = dict(renewals)

    def wait(self, after: int, timeout: float | None = None) -> bool:
        """Block until an event above version ``after`` is appended (or ``timeout`` passes)."""
        with self._landed:
            return self._landed.wait_for(lambda: len(self._events) > after, timeout)

    def verify(self) -> Verification:
        """Always holds: events are kept as values in this process, with no record to alter."""
        with self._lock:
            return Verification(True, len(self._events), 0)

    def compact(self) -> None:
        """Nothing to rewrite: events are kept as values."""

    def close(self) -> None:
        """Nothing to release: the events stay in the store."""


class MemoryStore:
    """Session logs held in memory: fast, shared by every session of one store
    object, and gone when the process ends. Results report ``storage: "memory"``.
    """

    storage: Literal["memory"] = "memory"

    def __init__(self) -> None:
        self._logs: dict[str, MemoryLog] = {}
        self._lock = threading.Lock()

    def open(self, session_id: str, *, owner: str | None = None, profile: str | None = None) -> MemoryLog:
        """The session's log, created (recording ``owner``, and ``profile`` at its first event) on
        first use."""
        check_session_id(session_id)
        with self._lock:
            log = self._logs.get(session_id)
            if log is None:
                log = self._logs[session_id] = MemoryLog(session_id, owner, profile)
            return log

    def verify(self, session_id: str) -> Verification:
        """Always holds (see :meth:`MemoryLog.verify`)."""
        return self.open(session_id).verify()

    def sessions(self) -> list[str]:
        """The ids of the sessions opened so far."""
        with self._lock:
            return sorted(self._logs)

    def close(self) -> None:
        """Nothing to release."""
