"""What opening a team plan with a long history costs: the board's per-click open, an agent's start.

Usage: ``python -m benchmarks.open_log [--store jsonl,sqlite,postgres] [--events 13000] [--tasks 100]
[--rounds 7] [--dsn DSN]``.

A lead writes a plan of ``--tasks`` tasks; an agent claims one and writes ``start {}`` again
``--events`` times (each keeps its task and renews its lease: a long history on a small plan;
``heartbeat()`` made such a history before it kept renewals beside the log). The run then times
``Session.open(...).version`` two ways, each ``--rounds`` times, and prints min, median and max
in milliseconds:

* ``fresh``: in a new Python process, after ``import phasetodo`` (an agent or a CLI command
  that starts and opens the plan once); the import is not counted, but the store's and the
  team profile's code, which ``phasetodo`` loads on first use, is;
* ``loaded``: the same, once the process has opened another (one-task) team plan on the
  store, so that only the plan's own log is read;
* ``again``: in one process that has opened the plan before (the board, the MCP server).

The log's size is printed beside them, to show that opening does not grow with the history.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import phasetodo
from phasetodo.stores._url import store_from_url

SESSION = "plan"
#: A one-task plan a process opens first, to load the code an open needs.
WARM = "warm"

#: What a fresh process runs: the open's wall-clock milliseconds, printed (the import is not timed).
_FRESH = """
import sys, time
import phasetodo
from phasetodo.stores._url import store_from_url
store = store_from_url(sys.argv[1])
if sys.argv[3] == "loaded":
    with phasetodo.Session.open(sys.argv[4], store, resume="keep") as session:
        session.version
began = time.perf_counter()
with phasetodo.Session.open(sys.argv[2], store, resume="keep") as session:
    session.version
print((time.perf_counter() - began) * 1e3)
store.close()
"""


def fill(spec: str, tasks: int, events: int, session: str = SESSION, warm: str = WARM) -> None:
    """The plan ``session`` of ``tasks`` tasks, one claimed, then ``events`` writes renewing that
    claim; and the one-task plan ``warm``."""
    store = store_from_url(spec)
    items = [f"task {n}" for n in range(tasks)]
    for session_id, listed in ((session, items), (warm, items[:1])):
        with phasetodo.Session.open(session_id, store, profile="team", agent="lead") as lead:
            lead.write({"ops": [{"op": "init", "list": [{"phase": "Work", "items": listed}]}]})
    with phasetodo.Session.open(session, store, profile="team", agent="a1", lease=60) as agent:
        agent.write({"ops": [{"op": "start"}]})
        for _ in range(events):
            agent.write({"ops": [{"op": "start"}]})
    store.close()


def fresh(
    spec: str, rounds: int, how: str = "fresh", session: str = SESSION, warm: str = WARM
) -> list[float]:
    """Milliseconds of one open of ``session`` in each of ``rounds`` new processes (``how``:
    fresh, or loaded by opening ``warm`` first)."""
    out = []
    for _ in range(rounds):
        command = [sys.executable, "-c", _FRESH, spec, session, how, warm]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        out.append(float(done.stdout))
    return out


def again(spec: str, rounds: int) -> list[float]:
    """Milliseconds of ``rounds`` opens in this process, after one untimed open."""
    store = store_from_url(spec)
    out = []
    try:
        for n in range(rounds + 1):
            began = time.perf_counter()
            with phasetodo.Session.open(SESSION, store, resume="keep") as session:
                assert session.version > 0
            if n:
                out.append((time.perf_counter() - began) * 1e3)
    finally:
        store.close()
    return out


@contextmanager
def _spec(kind: str, folder: Path, dsn: str | None) -> Iterator[tuple[str, Path | None]]:
    """The store's URL, and the file its log is in (None on PostgreSQL)."""
    if kind == "jsonl":
        yield f"jsonl:{folder / 'store'}", folder / "store" / f"{SESSION}.jsonl"
    elif kind == "sqlite":
        yield f"sqlite:{folder / 'plan.db'}", folder / "plan.db"
    elif kind == "postgres":
        from .sessions import postgres_dsn

        with postgres_dsn(dsn) as found:
            yield str(found), None
    else:
        raise SystemExit(f"--store: {kind!r} is not jsonl, sqlite or postgres")


def _spread(values: Sequence[float]) -> str:
    return f"{min(values):7.1f} {statistics.median(values):7.1f} {max(values):7.1f}"


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--store", default="jsonl,sqlite", help="comma-separated: jsonl, sqlite, postgres")
    parser.add_argument("--events", type=int, default=13_000)
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--dsn", help="a PostgreSQL server to use (default: start a throwaway one)")
    args = parser.parse_args(argv)
    print(f"opening a plan of {args.tasks:,} tasks after {args.events:,} writes, ms: min median max")
    for kind in args.store.split(","):
        with tempfile.TemporaryDirectory() as tmp, _spec(kind, Path(tmp), args.dsn) as (spec, file):
            fill(spec, args.tasks, args.events)
            size = f"{file.stat().st_size / 1e6:.1f} MB" if file is not None else "-"
            print(f"{kind:<9} fresh {_spread(fresh(spec, args.rounds))}   "
                  f"loaded {_spread(fresh(spec, args.rounds, 'loaded'))}   "
                  f"again {_spread(again(spec, args.rounds))}   log {size}")


if __name__ == "__main__":
    main()
