"""The change feeds behind the board's live updates.

A plan page follows its session with :meth:`phasetodo.Session.watch`, which
waits the way its store does best (a ``stat`` poll for JSONL, one indexed query
for SQLite, LISTEN/NOTIFY for PostgreSQL), in a worker thread. The sessions
page watches every session at once, which no store offers, so it polls a cheap
fingerprint (ids with their newest versions) instead.
"""

from __future__ import annotations

import math
import time
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


def _wake(session: phasetodo.Session, after: int, wait: float) -> None:
    """Return once an event after version ``after`` lands (or the log is replaced while this
    waits), or after ``wait`` quiet seconds: the feed then looks at the board's head itself."""
    for _ in session.watch(wait, after=after):
        return


async def versions(
    board: Board, session_id: str, *, wait: float = WAIT_SECONDS, idle: float = math.inf
) -> AsyncIterator[int | None]:
    """Yield the session's version now, then again each time the board's head for it moves:
    a new event, or a log replaced under it (a checkout), however many events that holds.

    :meth:`Session.watch` is only the wake-up (it waits the way the store does best); what
    moved is told by the board's own head, compared with the one read before the last yield,
    so a change that lands between two waits is never taken in silently. Yields None after
    ``idle`` seconds without a change (for a keep-alive) and stops when the board closes
    (within ``wait`` seconds). The consumer compares the board's head again and skips a version
    it has already shown. The watching session is opened without an agent: it claims and
    creates nothing.
    """
    limiter = _WATCHERS.get(None)
    if limiter is None:
        limiter = anyio.CapacityLimiter(WATCHERS)
        _WATCHERS.set(limiter)

    def look() -> tuple[str, int]:  # a head id starts with its version (see HEAD_ID)
        head = board.head(session_id)
        return head, int(head.partition("-")[0])

    # The board's own open log first (the page's first read has just decoded it): the watching
    # session decodes the list again, so it opens after, not before.
    head, cursor = await anyio.to_thread.run_sync(look)
    yield cursor
    session = await anyio.to_thread.run_sync(
        lambda: phasetodo.Session.open(session_id, board.store, resume="keep")
    )
    try:
        quiet = 0.0
        while not board.closing.is_set():
            now, version = await anyio.to_thread.run_sync(look)
            if now != head:
                head, cursor, quiet = now, version, 0.0
                yield cursor
                continue
            if quiet >= idle:
                quiet = 0.0
                yield None
            started = time.monotonic()
            await anyio.to_thread.run_sync(_wake, session, cursor, wait, limiter=limiter)
            quiet += time.monotonic() - started
    finally:
        session.close()
