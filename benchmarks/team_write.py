"""What one agent's write costs on a big team plan, and what a heartbeat adds to the log.

Usage: ``python -m benchmarks.team_write [--tasks 100000] [--writes 20] [--beat-tasks 1000]``.

A lead writes a plan of ``--tasks`` tasks (phases of 100) on a memory store; one agent then
makes ``--writes`` writes, ``start {}`` and ``done`` by turns, and the run prints the CPU and
wall-clock time per write (min, median, max), two ways:

* ``Session.write`` reading ``details["task"]`` (what the agent of ``benchmarks.fleet`` does:
  ``details.phases`` is never built);
* ``Session.todo_write``, whose JSON holds the whole plan in ``details.phases``.

Then, on a JSONL store, ``--beaters`` agents, each holding a claim on a plan of
``--beat-tasks`` tasks, call ``heartbeat()`` ten times each, and the run prints the log bytes
a beat added and the size of the file the renewals are kept in beside the log.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import phasetodo
from phasetodo.stores._url import store_from_url


def _plan(tasks: int) -> dict[str, Any]:
    phases = [
        {"phase": f"Phase {p + 1}", "items": [f"task {n}" for n in range(p * 100, min(tasks, (p + 1) * 100))]}
        for p in range((tasks + 99) // 100)
    ]
    return {"ops": [{"op": "init", "list": phases}]}


def _timed(writes: int, write: Callable[[dict[str, Any]], str | None]) -> tuple[list[float], list[float]]:
    """CPU and wall-clock ms of ``writes`` writes, ``start {}`` and ``done`` by turns."""
    cpu: list[float] = []
    wall: list[float] = []
    held: str | None = None
    for n in range(writes):
        ops = [{"op": "done", "task": held}] if n % 2 and held else [{"op": "start"}]
        began, used = time.perf_counter(), time.process_time()
        claimed = write({"ops": ops})
        cpu.append((time.process_time() - used) * 1e3)
        wall.append((time.perf_counter() - began) * 1e3)
        held = claimed if ops[0]["op"] == "start" else None
    return cpu, wall


def write_costs(tasks: int, writes: int) -> list[tuple[str, list[float], list[float]]]:
    """(how, CPU ms, wall ms) of one agent's writes on a memory store, both ways."""
    out = []
    for how in ("write", "todo_write"):
        store = phasetodo.MemoryStore()
        with phasetodo.Session.open("plan", store, profile="team", agent="lead") as lead:
            lead.todo_write(_plan(tasks))
        with phasetodo.Session.open("plan", store, profile="team", agent="a1", lease=60) as session:
            if how == "write":

                def write(params: dict[str, Any]) -> str | None:
                    task: str | None = session.write(params).details["task"]
                    return task
            else:

                def write(params: dict[str, Any]) -> str | None:
                    task: str | None = session.todo_write(params)["details"]["task"]
                    return task

            write({"ops": [{"op": "start"}]})  # warm: the engine reads the plan's phases once
            cpu, wall = _timed(writes, write)
        out.append((how, cpu, wall))
    return out


def beat_bytes(tasks: int, agents: int = 32, beats: int = 10) -> tuple[float, int]:
    """Log bytes one ``heartbeat()`` adds on a JSONL store, ``agents`` agents each holding a
    claim and beating ``beats`` times, and the bytes of the renewals' file beside the log."""
    with tempfile.TemporaryDirectory() as tmp:
        store = store_from_url(f"jsonl:{Path(tmp) / 'store'}")
        with phasetodo.Session.open("plan", store, profile="team", agent="lead") as lead:
            lead.todo_write(_plan(tasks))
        sessions = [
            phasetodo.Session.open("plan", store, profile="team", agent=f"a{n}", lease=60)
            for n in range(agents)
        ]
        for session in sessions:
            session.write({"ops": [{"op": "start"}]})
        log = Path(tmp, "store", "plan.jsonl")
        size = log.stat().st_size
        for _ in range(beats):
            for session in sessions:
                session.heartbeat()
        for session in sessions:
            session.close()
        beside = Path(tmp, "store", "plan.jsonl.beat")
        return (log.stat().st_size - size) / (beats * agents), beside.stat().st_size if beside.exists() else 0


def _spread(values: Sequence[float]) -> str:
    return f"{min(values):8.2f} {statistics.median(values):8.2f} {max(values):8.2f}"


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--beat-tasks", type=int, default=1000)
    parser.add_argument("--beaters", type=int, default=32)
    args = parser.parse_args(argv)
    print(f"one agent's writes on {args.tasks:,} tasks (memory store), ms: min median max")
    for how, cpu, wall in write_costs(args.tasks, args.writes):
        print(f"{how:<11} CPU  {_spread(cpu)}   wall {_spread(wall)}")
    beat, beside = beat_bytes(args.beat_tasks, args.beaters)
    print(
        f"heartbeats of {args.beaters} agents on {args.beat_tasks:,} tasks (JSONL): {beat:.0f} log bytes"
        f" a beat; renewals beside the log: {beside:,} bytes in all"
    )


if __name__ == "__main__":
    main()
