"""Per-call cost of a durable session beside the in-memory call, and open time.

Usage: ``python -m benchmarks.sessions [--rounds N] [--calls N]``.

* ``w1``: one ``todo_write`` of the w1 workload, on a session whose list is
  reset to w1's ``before`` (untimed) before each timed call;
* ``w5``: the 200-call w5 trace on a fresh session, end to end;
* ``open``: ``Session.open`` on logs of 1,000 and 10,000 w1-sized events, with
  the peak memory it allocates beside the log's size.

Stores: ``memory`` (MemoryStore), ``jsonl`` (fsync per call, the default),
``jsonl-nofsync``, ``sqlite`` (WAL, synchronous=FULL). Run it under ``nice``
on a shared machine and compare ratios, not absolute figures.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import phasetodo
from phasetodo.stores import Event
from phasetodo.tool import call

from .run import load, median_us

STORES: dict[str, Callable[[Path], phasetodo.Store]] = {
    "memory": lambda _: phasetodo.MemoryStore(),
    "jsonl": lambda where: phasetodo.JsonlStore(where / "logs"),
    "jsonl-nofsync": lambda where: phasetodo.JsonlStore(where / "logs", fsync=False),
    "sqlite": lambda where: phasetodo.SqliteStore(where / "s.db"),
}
_ids = itertools.count()


def per_call_us(call: Callable[[], object], reset: Callable[[], object], calls: int) -> float:
    """Median µs of ``call`` timed one at a time, ``reset`` (untimed) before each."""
    samples = []
    for _ in range(calls):
        reset()
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def w1(where: Path, calls: int) -> dict[str, float]:
    """µs per w1 call: in memory, and on each store."""
    work = load("w1_typical")
    before, params = phasetodo.load_phases(work["before"]), work["params"]
    out = {"in-memory": per_call_us(lambda: call(params, before).to_json(), lambda: None, calls)}
    for name, make in STORES.items():
        store = make(where / f"w1-{name}")
        session = phasetodo.Session.open("w1", store, clear_delay=-1)
        out[name] = per_call_us(
            lambda s=session: s.todo_write(params),  # type: ignore[misc]
            lambda s=session: s.user_edit(before, source="bench"),  # type: ignore[misc]
            calls,
        )
        session.close()
        store.close()
    return out


def w5(where: Path, rounds: int) -> dict[str, float]:
    """µs for the 200-call w5 trace: in memory, and on a fresh session of each store."""
    trace = load("w5_trace")["calls"]

    def in_memory() -> None:
        phases: tuple[phasetodo.Phase, ...] = ()
        for params in trace:
            result = call(params, phases)
            result.to_json()
            phases = result.phases

    out = {"in-memory": median_us(in_memory, rounds)}
    for name, make in STORES.items():
        store = make(where / f"w5-{name}")

        def on_session(store: phasetodo.Store = store) -> None:
            with phasetodo.Session.open(f"w5-{next(_ids)}", store, clear_delay=-1) as session:
                for params in trace:
                    session.todo_write(params)

        out[name] = median_us(on_session, rounds, budget_s=0.5)
        store.close()
    return out


def build_log(store: phasetodo.Store, session_id: str, events: int, phases: Any) -> None:
    """Append ``events`` copies of ``phases`` to a new log, fast (one lock)."""
    log = store.open(session_id)
    with log.lock():
        for version in range(1, events + 1):
            log.append(Event(version, "write", float(version), phases))
    log.close()


def open_cost(where: Path, rounds: int) -> list[tuple[str, int, float, int, int]]:
    """(store, events, µs to open, peak bytes allocated, log bytes) per log size."""
    phases = phasetodo.load_phases(load("w1_typical")["before"])
    rows = []
    for name in ("jsonl", "sqlite"):
        for events in (1_000, 10_000):
            place = where / f"open-{name}-{events}"
            builder = (
                phasetodo.JsonlStore(place / "logs", fsync=False)
                if name == "jsonl"
                else phasetodo.SqliteStore(place / "s.db")
            )
            build_log(builder, "big", events, phases)
            builder.close()
            store = STORES[name](place)
            elapsed = median_us(lambda s=store: phasetodo.Session.open("big", s).close(), rounds)  # type: ignore[misc]
            tracemalloc.start()
            phasetodo.Session.open("big", store).close()
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            store.close()
            size = sum(p.stat().st_size for p in place.rglob("*") if p.is_file())
            rows.append((name, events, elapsed, peak, size))
    return rows


def main(argv: list[str] | None = None) -> None:
    """Print the three tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=300, help="timed w1 calls per store")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        first = w1(where, args.calls)
        print(f"{'w1 µs/call':<16}{'µs':>10}{'x in-memory':>13}")
        for name, us in first.items():
            print(f"{name:<16}{us:>10,.0f}{us / first['in-memory']:>12.1f}x")
        trace = w5(where, args.rounds)
        print(f"\n{'w5 (200 calls)':<16}{'µs':>10}{'µs/call':>10}{'x in-memory':>13}")
        for name, us in trace.items():
            ratio = us / trace["in-memory"]
            print(f"{name:<16}{us:>10,.0f}{us / 200:>10,.0f}{ratio:>12.1f}x")
        print(f"\n{'open':<8}{'events':>8}{'µs':>10}{'peak KiB':>10}{'log KiB':>10}")
        for name, events, us, peak, size in open_cost(where, args.rounds):
            print(f"{name:<8}{events:>8,}{us:>10,.0f}{peak / 1024:>10,.0f}{size / 1024:>10,.0f}")


if __name__ == "__main__":
    main()
