"""The team race, with its figures: N agent processes through one plan.

Usage: ``python -m benchmarks.team_race [--agents 8] [--tasks 200] [--store jsonl|sqlite|postgres]
[--dsn DSN]`` (PostgreSQL: a database whose plan ``race`` may be replaced).

Each agent process loops "claim the next ready task, complete it" (the same
worker as ``tests/sessions/test_team_race.py``). Prints the tasks, agents, completions,
duplicate claims found in the log, calls made, and the wall time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import phasetodo
from phasetodo import Status

WORKER = Path(__file__).parent.parent / "tests" / "session_helpers" / "team_worker.py"


def _plan(tasks: int, per_phase: int = 20) -> dict[str, Any]:
    phases = []
    for p in range((tasks + per_phase - 1) // per_phase):
        items: list[Any] = []
        for t in range(min(per_phase, tasks - p * per_phase)):
            content = f"p{p}-t{t}"
            items.append(content if p == 0 else {"content": content, "after": [f"p{p - 1}-t{t}"]})
        phases.append({"phase": f"Phase {p}", "items": items})
    return {"ops": [{"op": "init", "list": phases}]}


def _store(kind: str, where: Path | str) -> phasetodo.Store:
    if kind == "postgres":
        return phasetodo.PostgresStore(str(where))
    return phasetodo.JsonlStore(where) if kind == "jsonl" else phasetodo.SqliteStore(where)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--store", choices=["jsonl", "sqlite", "postgres"], default="jsonl")
    parser.add_argument("--dsn", help="the PostgreSQL database for --store postgres (its tables are reused)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where: Path | str = Path(tmp) / ("logs" if args.store == "jsonl" else "plans.db")
        if args.store == "postgres":
            if not args.dsn:
                parser.error("--store postgres needs --dsn")
            where = args.dsn
        store = _store(args.store, where)
        with phasetodo.Session.open("race", store=store, profile="team", agent="lead") as lead:
            lead.todo_write(_plan(args.tasks))
        store.close()
        go = Path(tmp) / "go"
        agents = [f"agent-{i}" for i in range(args.agents)]
        procs = [
            subprocess.Popen(
                [sys.executable, str(WORKER), args.store, str(where), "race", a, str(go)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for a in agents
        ]
        time.sleep(1.0)  # let every worker import and wait at the gate
        start = time.perf_counter()
        go.touch()
        done: Counter[str] = Counter()
        per_agent: Counter[str] = Counter()
        calls = 0
        for agent, proc in zip(agents, procs, strict=True):
            out, _ = proc.communicate()
            for line in out.splitlines():
                word, value = line.split(" ", 1)
                if word == "done":
                    done[value] += 1
                    per_agent[agent] += 1
                else:
                    calls += int(value)
        wall = time.perf_counter() - start
        store = _store(args.store, where)
        with phasetodo.Session.open("race", store=store, profile="team") as session:
            events = list(session.events())
        store.close()
    holder: dict[str, str] = {}
    double = two_active = 0
    for event in events:
        owners = [t.owner for p in event.phases for t in p.tasks if t.status is Status.IN_PROGRESS]
        two_active += len(owners) != len(set(owners))
        for p in event.phases:
            for t in p.tasks:
                if t.status is Status.IN_PROGRESS and t.owner is not None:
                    double += holder.setdefault(t.content, t.owner) != t.owner
    print(f"store {args.store}: {args.tasks} tasks, {args.agents} agent processes")
    print(
        f"completions {sum(done.values())} ({len(done)} distinct, {sum(v > 1 for v in done.values())} twice)"
    )
    print(f"duplicate claims in the log: {double}; events with an agent on two tasks: {two_active}")
    print(f"per agent: {dict(sorted(per_agent.items()))}")
    print(f"calls {calls}, events {len(events)}, wall {wall:.2f} s")


if __name__ == "__main__":
    main()
