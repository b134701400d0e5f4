"""The change feeds behind the board's live updates.

A plan page follows its session with :meth:`phasetodo.Session.watch`, which
waits the way its store does best (a ``stat`` poll for JSONL, one indexed query
for SQLite, LISTEN/NOTIFY for PostgreSQL), in a worker thread. The sessions
page watches every session at once, which no store offers, so it polls a cheap
fingerprint (ids with their newest versions) instead.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar

import phasetodo

from .board import Board

__all__ = ["POLL_SECONDS", "WAIT_SECONDS", "changes", "versions"]

#: How often the sessions page's poll looks at the store: well inside the one-second promise.
POLL_SECONDS = 0.25

#: The longest one wait for a plan's next event lasts, so a closing board stops its feeds soon.
WAIT_SECONDS = 1.0

#: Worker threads that may wait on plans at once; their own pool, so the board's reads never queue
#: behind them.
WATCHERS = 64

_T = TypeVar("_T")

_WATCHERS: RunVar[anyio.CapacityLimiter] = RunVar("phasetodo_watchers")


async def _changes(board: Board, read: Callable[[], _T], *, every: float, idle: float) -> AsyncIterator[_T]:
    """Yield ``read()`` now and again each time its value changes, until the board closes.

    ``read`` runs in a worker thread (it touches the store); ``every`` is the
    poll interval in seconds. After ``idle`` seconds without a change the same
    value is yielded again, so a consumer can send a keep-alive.
    """
    seen: object = object()
    quiet = 0.0
    while not board.closing.is_set():
        value = await anyio.to_thread.run_sync(read)
        if value != seen or quiet >= idle:
            seen, quiet = value, 0.0
            yield value
        await anyio.sleep(every)
        quiet += every


def changes(
    board: Board, read: Callable[[], _T], *, every: float = POLL_SECONDS, idle: float = math.inf
) -> AsyncIterator[_T]:
    """The sessions page's feed (see :func:`_changes`): ``read()``'s value on every change."""
    return _changes(board, read, every=every, idle=idle)


def _next_version(session: phasetodo.Session, wait: float) -> int | None:
    """The first new event's version ``watch`` reports (a replaced log's newest too); None after
    ``wait`` quiet seconds."""
    for event in session.watch(wait):
        return event.version
    return None


async def versions(
    board: Board, session_id: str, *, wait: float = WAIT_SECONDS, idle: float = math.inf
) -> AsyncIterator[int | None]:
    """Yield the session's version now, then each new one as :meth:`Session.watch` sees it land,
    and the newest of a log replaced under it (a checkout), however many events it holds.

    Yields None after ``idle`` seconds without an event (for a keep-alive) and
    stops when the board closes (within ``wait`` seconds). A burst may yield
    versions the consumer has already shown: it compares the board's head and skips
    those. The session is opened without an agent, so watching claims and creates
    nothing; a write that lands while it opens is still yielded.
    """
    limiter = _WATCHERS.get(None)
    if limiter is None:
        limiter = anyio.CapacityLimiter(WATCHERS)
        _WATCHERS.set(limiter)
    # The version first, from the board's own open log (which the page's first read has just
    # decoded): the watching session decodes the list again, so it opens after, not before.
    head, cursor = await anyio.to_thread.run_sync(lambda: (board.head(session_id), board.version(session_id)))
    yield cursor
    session = await anyio.to_thread.run_sync(
        lambda: phasetodo.Session.open(session_id, board.store, resume="keep")
    )
    try:
        # A write, or a log replaced by another of as many events (a checkout), while it
        # opened: the watch starts from what the session read, so yield it; the consumer
        # compares heads.
        moved = await anyio.to_thread.run_sync(lambda: board.head(session_id) != head)
        if session.version != cursor or moved:
            yield session.version
        quiet = 0.0
        while not board.closing.is_set():
            found = await anyio.to_thread.run_sync(_next_version, session, wait, limiter=limiter)
            if found is not None:
                cursor, quiet = found, 0.0
                yield cursor
                continue
            quiet += wait
            if quiet >= idle:
                quiet = 0.0
                yield None
    finally:
        session.close()
