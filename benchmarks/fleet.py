"""A fleet of agent processes on one team plan, some of them killed: claims, latency, losses.

Usage: ``python -m benchmarks.fleet --store jsonl|sqlite|postgres [--agents 32] [--tasks 2000]
[--kill 0.1] [--lease 2] [--work 0.01] [--plans 1] [--dsn DSN] [--start-each]``.

The lead writes a plan of ``--tasks`` tasks (phases of 100). Then ``--agents`` processes each
open the plan with ``lease=--lease`` seconds. An agent's ``start {}`` claims the first ready
task (a lapsed claim included); it works ``--work`` seconds, then ``done`` closes the task and,
in the same call, picks up the next ready one (docs/teams.md), so each claim costs one write.
When none was ready it calls ``start {}`` again, and it stops when no task is open. With
``--start-each`` every claim is a ``start`` call of its own after the ``done``, two writes a
claim (the loop this benchmark ran before 2026-12-05).

A share ``--kill`` of the agents is SIGKILLed while it holds a claim, so its task stays claimed
until the lease lapses and another agent takes it: a run with killed agents lasts at least one
lease, which caps its claims per second at about ``--tasks / --lease`` (use ``--kill 0`` to
measure the fleet's pace alone). The clock starts once every agent process has started and
opened the plan (they wait for one another), so Python's start-up is not counted; nor is
a process's first call, the one that compiles the call schema's validator: each agent makes
it as a dry run (which appends nothing) before it says it is ready. Each agent then freezes
what its start-up made (``gc.freeze()``), as a long-running agent process should (see
docs/scaling.md, "Agent processes"). With
``--plans N``, N such plans (sessions ``fleet-0`` to ``fleet-N-1``) are worked side by side on
the one store, each by ``--agents`` agents of its own. At the end the logs are read back and
the run reports (summed over the plans):

* claims per second: the claims the agents made, over the time from the start until the
  write that closed the plan's last task (until 2026-12-05 the clock ran until every agent
  process had exited: agents that find nothing left sleep ``--lease / 10`` before they
  look again, which added up to that long to a run; that time is still printed);
* p50 and p99 write latency (every ``todo_write`` an agent made, in ms). An agent that finds
  nothing left waits until all have before it exits: 32 processes exiting at once would
  take the machine from the last writers (they did until 2026-12-05);
* tasks completed (every task must be), completed twice (must be none), reclaimed after a
  lease lapsed, and writes refused because a claim had been reclaimed (fenced);
* the agents' CPU time per write (the agents that ran to the end), which a busy machine
  changes far less than the wall-clock figures.

PostgreSQL: ``--dsn``, else ``$PHASETODO_TEST_DSN``, else a throwaway cluster (as the tests
start one). :func:`run_fleet` is what the test of a small fleet calls.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

import phasetodo
from phasetodo.stores._url import store_from_url

SESSION = "fleet"


@attrs.frozen
class FleetRun:
    """What one run measured."""

    store: str
    agents: int
    tasks: int
    killed: int
    #: From the start until the write that closed the plan's last task ended.
    seconds: float
    claims: int
    latencies_ms: tuple[float, ...]
    completed: int
    completed_twice: int
    reclaimed: int
    fenced: int
    #: CPU seconds the agents that finished used from the start to their end (start-up not counted).
    cpu_seconds: float = 0.0
    #: How many plans were worked side by side (``agents`` and ``tasks`` are their sums).
    plans: int = 1
    #: From the start until every agent process had exited (0: not measured).
    exited_seconds: float = 0.0

    @property
    def cpu_ms_per_write(self) -> float:
        """The agents' CPU time per write (ms): what a write costs, whatever the machine's load."""
        return self.cpu_seconds * 1e3 / len(self.latencies_ms) if self.latencies_ms else 0.0

    @property
    def claims_per_second(self) -> float:
        """Claims made by all agents over :attr:`seconds` (until the plan's last task was closed)."""
        return self.claims / self.seconds if self.seconds else 0.0

    def percentile(self, share: float) -> float:
        """The latency (ms) below which ``share`` of the writes fall."""
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _plan(tasks: int) -> dict[str, Any]:
    phases = [
        {"phase": f"Phase {p + 1}", "items": [f"task {n}" for n in range(p * 100, min(tasks, (p + 1) * 100))]}
        for p in range((tasks + 99) // 100)
    ]
    return {"ops": [{"op": "init", "list": phases}]}


def _open_left(result: phasetodo.ToolResult) -> bool:
    """Whether the plan after a call still has a task to claim or close."""
    return any(t.status in _OPEN for p in result.phases for t in p.tasks)


_OPEN = (phasetodo.Status.PENDING, phasetodo.Status.IN_PROGRESS)


def agent_main(
    spec: str,
    agent: str,
    lease: float,
    work: float,
    out: Path,
    stall_at: int = 0,
    session_id: str = SESSION,
    *,
    start_each: bool = False,
) -> None:
    """One agent process: claim, work, close, until no task is open; every write timed to ``out``.

    A ``done`` picks up the agent's next ready task in the same call, so a claim costs one
    write; with ``start_each`` the agent claims it with a ``start`` of its own (two writes).

    With ``stall_at`` N, the agent hangs holding its Nth claim (until it is killed), so a
    victim is sure to die with a claim however fast the others finish the plan.
    """
    claims = 0
    store = store_from_url(spec)
    with (
        out.open("a", encoding="utf-8") as log,
        phasetodo.Session.open(session_id, store, profile="team", agent=agent, lease=lease) as session,
    ):
        # A process's first call compiles the call schema's validator (about 15 ms, once): a
        # dry run pays that before the clock, as Python's start-up is not counted either.
        session.write({"ops": [{"op": "start"}]}, dry_run=True)
        # What start-up made stays for the process's life: frozen, the collector no longer
        # scans it (docs/scaling.md, "Agent processes").
        gc.collect()
        gc.freeze()
        _ready_then_wait(log, out.parent / "go")
        cpu = time.process_time()

        def write(ops: list[dict[str, Any]], what: str) -> phasetodo.ToolResult:
            start = time.perf_counter()
            result = session.write({"ops": ops})
            ms = (time.perf_counter() - start) * 1e3
            entry = {"what": what, "ms": ms, "end": time.time(), "text": result.text[:200]}
            log.write(json.dumps(entry) + "\n")
            log.flush()
            return result

        task = None
        while True:
            if task is None:
                result = write([{"op": "start"}], "start")
                task = result.details["task"]  # the task this call claimed (None: none was ready)
                if task is None:
                    if not _open_left(result):
                        log.write(json.dumps({"what": "cpu", "s": time.process_time() - cpu}) + "\n")
                        log.flush()
                        _finished_then_wait(out)
                        return
                    time.sleep(lease / 10)  # all open work is claimed or waits: look again soon
                    continue
            log.write(json.dumps({"what": "claimed", "task": task}) + "\n")
            log.flush()
            claims += 1
            time.sleep(3600 if claims == stall_at else work)
            done = write([{"op": "done", "task": task}], "done")
            if done.is_error:
                log.write(json.dumps({"what": "fenced", "task": task}) + "\n")
                log.flush()
            # the done picked up the next ready task in the same call (none when refused)
            task = None if done.is_error or start_each else done.details["task"]
    store.close()


def _ready_then_wait(log: Any, go: Path) -> None:
    """Say this agent is started, then wait for the run's start (all agents started)."""
    log.write(json.dumps({"what": "ready"}) + "\n")
    log.flush()
    while not go.exists():
        time.sleep(0.005)


def _finished_then_wait(out: Path) -> None:
    """Say this agent found nothing left, then wait to exit until every agent has: processes
    exiting while others still write would take the machine from them (not the fleet's pace)."""
    out.with_suffix(".finished").touch()
    stop = out.parent / "stop"
    while not stop.exists():
        time.sleep(0.01)


def _stop_when_finished(folder: Path, procs: Sequence[subprocess.Popen[bytes]]) -> None:
    """Wait until every agent has found nothing left (or was killed), then let them all exit."""
    deadline = time.monotonic() + 600
    waiting = set(range(len(procs)))
    while waiting and time.monotonic() < deadline:
        waiting = {n for n in waiting if procs[n].poll() is None and not (folder / f"a{n}.finished").exists()}
        time.sleep(0.05)
    (folder / "stop").touch()


def _start_when_ready(folder: Path, agents: int, procs: Sequence[subprocess.Popen[bytes]]) -> None:
    """Wait until every agent process has started and opened the plan, then let them all go."""
    deadline = time.monotonic() + 300
    waiting = set(range(agents))
    while waiting and time.monotonic() < deadline:
        waiting = {n for n in waiting if procs[n].poll() is None and not _read_log(folder / f"a{n}.log")}
        time.sleep(0.01)
    (folder / "go").touch()


def _session_id(plan: int, plans: int, name: str = SESSION) -> str:
    """The session of plan number ``plan`` (one plan: ``name``, as before ``--plans``)."""
    return name if plans == 1 else f"{name}-{plan}"


def run_fleet(
    spec: str,
    *,
    agents: int,
    tasks: int,
    kill: float,
    lease: float,
    work: float,
    folder: Path,
    plans: int = 1,
    start_each: bool = False,
    session: str = SESSION,
) -> FleetRun:
    """Write the plans, run the agents (killing a share), wait for them, and read the logs back.

    With ``plans`` N, N plans of ``tasks`` tasks each are worked side by side on the one
    store, each by ``agents`` agents of its own; the run reports their sum. ``session`` names
    the plan (``session-0`` and on, with several), which must hold no events yet.
    """
    store = store_from_url(spec)
    for plan in range(plans):
        plan_id = _session_id(plan, plans, session)
        with phasetodo.Session.open(plan_id, store, profile="team", agent="lead") as lead:
            if lead.version:  # a plan left by an earlier run would be audited with this one's
                store.close()
                raise ValueError(
                    f"session {lead.session_id!r} already holds {lead.version} events on "
                    f"{spec.split(':')[0]}: a fleet starts from an empty plan (use an empty store)"
                )
            lead.todo_write(_plan(tasks))
    store.close()
    total = agents * plans  # process k works plan k // agents as agent a{k % agents}
    # each victim hangs holding its first claim until it is killed: a later one might never
    # come when the others finish the plan first (a victim starved of the lock)
    victims = dict.fromkeys(random.Random(7).sample(range(total), round(total * kill)), 1)
    procs = [
        _spawn(
            spec, f"a{k % agents}", lease, work, folder / f"a{k}.log", victims.get(k, 0),
            _session_id(k // agents, plans, session), start_each,
        )
        for k in range(total)
    ]
    _start_when_ready(folder, total, procs)  # the clock runs from here: Python's start-up is not the fleet's
    started, wall = time.perf_counter(), time.time()
    killed = _kill_holding(procs, victims, folder)
    _stop_when_finished(folder, procs)
    for proc in procs:
        proc.wait(timeout=600)
    exited = time.perf_counter() - started
    logs = [_read_log(folder / f"a{k}.log") for k in range(total)]
    # the plan is worked until its last task is closed; agents that then find nothing left
    # sleep before they look again, which is not the fleet's pace
    closed = [e["end"] for entries in logs for e in entries if e["what"] == "done" and "end" in e]
    seconds = max(closed) - wall if closed else exited
    latencies = tuple(e["ms"] for entries in logs for e in entries if "ms" in e)
    claims = sum(1 for entries in logs for e in entries if e["what"] == "claimed")
    fenced = sum(1 for entries in logs for e in entries if e["what"] == "fenced")
    audits = [_audit(spec, _session_id(plan, plans, session)) for plan in range(plans)]
    completed, twice, reclaimed = (sum(found[i] for found in audits) for i in range(3))
    return FleetRun(
        spec.split(":")[0],
        total,
        tasks * plans,
        killed,
        seconds,
        claims,
        latencies,
        completed,
        twice,
        reclaimed,
        fenced,
        sum(e["s"] for entries in logs for e in entries if e["what"] == "cpu"),
        plans,
        exited,
    )


def _spawn(
    spec: str, agent: str, lease: float, work: float, out: Path, stall_at: int, session_id: str,
    start_each: bool,
) -> subprocess.Popen[bytes]:
    argv = [
        sys.executable,
        "-m",
        "benchmarks.fleet",
        "--agent",
        agent,
        "--spec",
        spec,
        "--lease",
        str(lease),
        "--work",
        str(work),
        "--out",
        str(out),
        "--stall-at",
        str(stall_at),
        "--session",
        session_id,
        *(["--start-each"] if start_each else []),
    ]
    root = Path(__file__).resolve().parent.parent
    return subprocess.Popen(argv, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _kill_holding(procs: Sequence[subprocess.Popen[bytes]], victims: Iterable[int], folder: Path) -> int:
    """SIGKILL each victim once its log shows a claim it has not closed; the count killed."""
    killed, waiting = 0, set(victims)
    deadline = time.monotonic() + 120
    while waiting and time.monotonic() < deadline:
        for n in sorted(waiting):
            entries = _read_log(folder / f"a{n}.log")
            if procs[n].poll() is not None:
                waiting.discard(n)
            elif entries and entries[-1]["what"] == "claimed":
                os.kill(procs[n].pid, signal.SIGKILL)
                killed += 1
                waiting.discard(n)
        time.sleep(0.01)
    return killed


def _read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            break  # a line cut by the kill
    return out


def _audit(spec: str, session_id: str = SESSION) -> tuple[int, int, int]:
    """From a plan's log: tasks completed, tasks completed more than once, claims taken over."""
    store = store_from_url(spec)
    completions: dict[str, int] = {}
    holder: dict[str, str | None] = {}
    reclaimed = 0
    with phasetodo.Session.open(session_id, store, profile="team") as session:
        before: dict[str, tuple[str, str | None]] = {}
        for event in session.events():
            now = {t.content: (t.status.value, t.owner) for p in event.phases for t in p.tasks}
            for content, (status, owner) in now.items():
                was = before.get(content)
                if status == "completed" and (was is None or was[0] != "completed"):
                    completions[content] = completions.get(content, 0) + 1
                if status == "in_progress" and (was is None or was != (status, owner)):
                    if holder.get(content) not in (None, owner):
                        reclaimed += 1
                    holder[content] = owner
            before = now
        final = [t for p in session.phases for t in p.tasks]
    store.close()
    done = sum(1 for t in final if t.status is phasetodo.Status.COMPLETED)
    return done, sum(1 for n in completions.values() if n > 1), reclaimed


@contextmanager
def _store_spec(kind: str, folder: Path, dsn: str | None) -> Iterator[str]:
    if kind == "jsonl":
        yield f"jsonl:{folder / 'store'}"
    elif kind == "sqlite":
        yield f"sqlite:{folder / 'fleet.db'}"
    else:
        from .sessions import postgres_dsn

        with postgres_dsn(dsn) as found:
            yield str(found)


def _table(run: FleetRun) -> str:
    return (
        f"{run.store:<9} {run.plans:>5} {run.agents:>6} {run.tasks:>6} {run.killed:>6} {run.seconds:>8.1f} "
        f"{run.claims_per_second:>9.1f} {run.percentile(0.5):>8.1f} {run.percentile(0.99):>8.1f} "
        f"{run.completed:>9} {run.completed_twice:>6} {run.reclaimed:>9} {run.fenced:>6}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module's docstring); ``--agent`` runs one agent process."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--store", choices=("jsonl", "sqlite", "postgres"), default="jsonl")
    parser.add_argument("--agents", type=int, default=32, help="agents per plan")
    parser.add_argument("--plans", type=int, default=1, help="plans worked side by side on the store")
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--kill", type=float, default=0.1)
    parser.add_argument("--lease", type=float, default=2.0)
    parser.add_argument("--work", type=float, default=0.01)
    parser.add_argument("--dsn")
    parser.add_argument(
        "--start-each", action="store_true", help="claim with a start after each done (two writes a claim)"
    )
    parser.add_argument("--agent", help=argparse.SUPPRESS)
    parser.add_argument("--spec", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--stall-at", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--session", default=SESSION, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.agent:
        agent_main(
            args.spec, args.agent, args.lease, args.work, Path(args.out), args.stall_at, args.session,
            start_each=args.start_each,
        )
        return
    with tempfile.TemporaryDirectory() as tmp, _store_spec(args.store, Path(tmp), args.dsn) as spec:
        run = run_fleet(
            spec,
            agents=args.agents,
            tasks=args.tasks,
            kill=args.kill,
            lease=args.lease,
            work=args.work,
            folder=Path(tmp),
            plans=args.plans,
            start_each=args.start_each,
        )
    print(
        "store     plans agents  tasks killed  seconds  claims/s  p50 ms  p99 ms"
        "  completed  twice reclaimed fenced"
    )
    print(_table(run))
    if run.completed != run.tasks or run.completed_twice:
        print(f"FAILED: {run.completed} of {run.tasks} completed, {run.completed_twice} completed twice")
        sys.exit(1)
    print(
        f"median write {statistics.median(run.latencies_ms):.1f} ms over {len(run.latencies_ms)} writes; "
        f"agents' CPU {run.cpu_ms_per_write:.2f} ms a write; every agent had exited after "
        f"{run.exited_seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
