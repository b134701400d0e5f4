"""Following a session's log as it grows: what :meth:`Session.watch` and :meth:`Session.awatch` do.

A watch yields every new event in version order and keeps the session's view current; a log
replaced under it (a checkout, a restore) is adopted whole. The loops read the session through
:class:`Followed`, so this module needs nothing of the session but what it names.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Protocol

from ._core.model import Phase
from .stores import Event, Log
from .stores._base import Head, head_of

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["Followed", "awatch", "watch"]


class Followed(Protocol):
    """What a watch reads and moves of a session's view of its log."""

    @property
    def log(self) -> Log: ...
    @property
    def head(self) -> Head: ...
    @property
    def closed(self) -> bool: ...
    @property
    def version(self) -> int: ...
    def sync(self) -> tuple[Phase, ...]: ...
    def advance_to(self, version: int, phases: tuple[Phase, ...]) -> None: ...


#: How long one :meth:`Session.awatch` wait holds a thread before it hands it back.
_AWATCH_SLICE = 0.25
#: The threads awatch waits use, shared by every session of the process.
_AWATCH_THREADS = 32

_awatch_pool: ThreadPoolExecutor | None = None
_awatch_pool_lock = threading.Lock()


def _awatch_executor() -> ThreadPoolExecutor:
    """The session layer's own pool for awatch waits, made on first use.

    Waits never run on the loop's default pool, so watchers cannot starve the
    ``to_thread`` work of the application (or the write a watcher waits for).
    """
    from concurrent.futures import ThreadPoolExecutor  # on first use: it costs 4 ms at import

    global _awatch_pool
    with _awatch_pool_lock:
        if _awatch_pool is None:
            _awatch_pool = ThreadPoolExecutor(_AWATCH_THREADS, thread_name_prefix="phasetodo-awatch")
        return _awatch_pool


class _Place:
    """Where a watch is in the log: the version it yielded last, the history that belongs to
    (None until read, when the caller named an older version), and that event."""

    def __init__(self, view: Followed, after: int | None) -> None:
        now = view.version
        self.cursor = now if after is None else after
        self.seen: Head | None = view.head if self.cursor == now else None
        self.last: Event | None = None

    def step(self, view: Followed, wait: float | None) -> list[Event]:
        """The events after the cursor, or a replaced log's newest (whole), waiting at most
        ``wait`` seconds (None: for ever) for one when there is none yet."""
        found = self._read(view)
        if found:
            return found
        if self._replaced(view) or view.log.wait(self.cursor, wait):
            return self._read(view)
        return []

    def _read(self, view: Followed) -> list[Event]:
        found: list[Event] = []
        if self._replaced(view):
            self.seen = head_of(view.log)  # the log was replaced: its newest event, with the whole list
            newest = _replacement(view, self.last)
            if newest is not None:
                found.append(newest)
                self.cursor, self.last = newest.version, newest
        batch = list(view.log.events(self.cursor))
        head = head_of(view.log)  # the history these events belong to
        if batch and head.version == batch[-1].version:
            self.seen = head  # (with no events read, a new head is a replacement: adopted next read)
        if batch:
            self.cursor, self.last = batch[-1].version, batch[-1]
        return found + batch

    def _replaced(self, view: Followed) -> bool:
        """Whether the log now holds another history than the one read, no longer than it."""
        if self.seen is None:
            return False
        head = head_of(view.log)
        return head != self.seen and head.version <= self.cursor


def watch(view: Followed, timeout: float | None = None, *, after: int | None = None) -> Iterator[Event]:
    """Yield each new event as it lands in the store, whoever wrote it, in version order.

    Starts after this session's current version (or after ``after``) and
    keeps :attr:`phases` up to date as it goes. Stops once ``timeout``
    seconds pass without a new event (``None``: never) or the session
    closes. JSONL and SQLite poll cheaply; PostgreSQL waits on LISTEN/NOTIFY.
    """
    place = _Place(view, after)
    deadline = None if timeout is None else time.monotonic() + timeout
    while not view.closed:
        found = place.step(view, None if deadline is None else max(0.0, deadline - time.monotonic()))
        if not found:
            if deadline is not None and time.monotonic() >= deadline:
                return
            continue
        for event in found:
            view.advance_to(event.version, event.phases)
            yield event
        if timeout is not None:  # quiet time, counted again from here
            deadline = time.monotonic() + timeout


def _replacement(view: Followed, last: Event | None) -> Event | None:
    """The newest event of a log that replaced the one a watch read, or None if it is ``last``.

    A log that holds other records where the watch had read (as many events, or
    fewer) was replaced, not appended to: this view adopts it whole.
    """
    view.sync()
    newest = view.log.latest()
    if newest is None or newest == last:  # an empty log, or the same history re-hashed
        return None
    return newest


async def awatch(
    view: Followed, timeout: float | None = None, *, after: int | None = None
) -> AsyncIterator[Event]:
    """:meth:`watch` for asyncio: waits in a worker thread, never blocking the loop.

    The waits run on a pool of the session layer (32 threads, made on first
    use), not on the loop's default pool, and each holds its thread for at
    most a quarter of a second before queueing again: any number of
    watchers share the pool in turn, none waits behind another's quiet
    session, and a closed session stops within a slice.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    place = _Place(view, after)
    deadline = None if timeout is None else time.monotonic() + timeout
    while not view.closed:
        left = _AWATCH_SLICE if deadline is None else max(0.0, deadline - time.monotonic())
        batch = await loop.run_in_executor(_awatch_executor(), place.step, view, min(left, _AWATCH_SLICE))
        if not batch:
            if deadline is not None and time.monotonic() >= deadline:
                return
            continue
        if timeout is not None:  # the timeout counts quiet time, as in watch
            deadline = time.monotonic() + timeout
        for event in batch:
            view.advance_to(event.version, event.phases)
            yield event
