"""What reading the last N events of a long log costs: records read and milliseconds.

Usage: ``python -m benchmarks.feed [--events N] [--dsn DSN]``.

For each store a log of ``--events`` user edits on a 200-task list is built
(deltas and checkpoints, as any log), then a fresh log object reads
``events(after)`` for the last 10, 100, 1,000 and all events (the figures count
opening the log too: its newest checkpoint and the tail after it). The records read
should follow N (plus one stretch between checkpoints), not the log's length.
PostgreSQL runs with ``--dsn`` (else ``$PHASETODO_TEST_DSN``, else it is left out).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import phasetodo
from phasetodo.stores import Event

_TASKS = 200


def build(store: phasetodo.Store, events: int) -> None:
    """``events`` user edits in one lock: 200 tasks, then one more note per event."""
    tasks = [phasetodo.Task(f"t{i}") for i in range(_TASKS)]
    log = store.open("feed")
    with log.lock():
        for version in range(1, events + 1):
            if version > 1:
                at = version % _TASKS
                tasks[at] = phasetodo.Task(tasks[at].content, notes=(*tasks[at].notes, f"n{version}"))
            log.append(Event(version, "user_edit", float(version), (phasetodo.Phase("P", tuple(tasks)),)))
    log.close()


def measure(make: Callable[[], phasetodo.Store], events: int) -> list[tuple[int, int, float]]:
    """``(N, records read, ms)`` for the last N events, each on a fresh store and log object:
    opening it (its newest checkpoint and the tail after it) and reading them."""
    rows = []
    for last in (10, 100, 1000, events):
        store = make()
        start = time.perf_counter()
        log = store.open("feed")
        count = sum(1 for _ in log.events(events - last))
        ms = (time.perf_counter() - start) * 1000
        assert count == last
        rows.append((last, log.records_read, ms))  # type: ignore[attr-defined]
        log.close()
        store.close()
    return rows


def main(argv: list[str] | None = None) -> None:
    """Build the logs and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--dsn", default=os.environ.get("PHASETODO_TEST_DSN"))
    args = parser.parse_args(argv)
    where = Path(tempfile.mkdtemp(prefix="phasetodo-feed-"))
    makers: dict[str, Callable[[], phasetodo.Store]] = {
        "jsonl": lambda: phasetodo.JsonlStore(where / "logs", fsync=False),
        "sqlite": lambda: phasetodo.SqliteStore(where / "s.db"),
    }
    if args.dsn:
        dsn = args.dsn
        makers["postgres"] = lambda: phasetodo.PostgresStore(dsn)
    print(f"{'store':8} {'last N':>7} {'records read':>13} {'ms':>9}   (log of {args.events} events)")
    for name, make in makers.items():
        store = make()
        build(store, args.events)
        store.close()
        for last, read, ms in measure(make, args.events):
            print(f"{name:8} {last:>7} {read:>13} {ms:>9.1f}")


if __name__ == "__main__":
    main()
