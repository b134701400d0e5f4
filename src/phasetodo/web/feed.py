"""The change feed behind the board's live updates.

Until sessions offer ``Session.watch``, a change by any process is found by a
cheap poll of the newest version (the JSONL store compares the file size, SQLite
looks up one key). Swap :func:`_changes` for ``watch`` and nothing else moves.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

import anyio
import anyio.to_thread

from .board import Board

__all__ = ["POLL_SECONDS", "changes"]

#: How often the poll looks at the log: well inside the board's one-second promise.
POLL_SECONDS = 0.25

_T = TypeVar("_T")


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
    """The board's change feed (see :func:`_changes`): ``read()``'s value on every change."""
    return _changes(board, read, every=every, idle=idle)
