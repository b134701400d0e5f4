"""The fault checker: a fleet of agents on one team plan, faults injected, the history checked.

Usage: ``python -m benchmarks.faults [--store jsonl|sqlite|postgres|pgbouncer] [--agents 4]
[--seconds 5] [--faults none,kill,pause,skew,readers,pg-restart,pg-terminate] [--lease 1]
[--seed 7]``. Several ``--store`` values may be given as a comma list.

For each fault kind a fresh team plan is written and ``--agents`` processes work it for
``--seconds``: claim (``start {}``), beat once (``heartbeat()``), work a little, close
(``done``). Every agent numbers
its calls ``call-1``, ``call-2``, ... (the same ids in every agent, on purpose) and retries
a call that raised with the same id. Each call is recorded, with the wall-clock interval
around it, in a JSON-lines history per agent; reads (a fresh ``Session.open``) record the
version they returned. At the end the final log is read back and the history checked
(:mod:`benchmarks._faults.checks`). The run prints a table (fault kind x store: calls,
acknowledged, anomalies by kind) and exits 1 on any anomaly. See ``docs/reliability.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import attrs

import phasetodo
import phasetodo.errors
from phasetodo.stores._url import store_from_url

from ._faults import replace
from ._faults.checks import KINDS, Anomaly, Record, check

FAULTS = ("none", "kill", "pause", "skew", "readers", "replace", "pg-restart", "pg-terminate")
POSTGRES_ONLY = ("pg-restart", "pg-terminate")
FILE_ONLY = ("replace",)  # swapped as a checkout or a restore does it: JSONL and SQLite
ROOT = Path(__file__).resolve().parent.parent


@attrs.frozen
class Outcome:
    """One run (a fault kind on a store): its calls, acknowledged writes and anomalies."""

    store: str
    fault: str
    calls: int
    acknowledged: int
    anomalies: tuple[Anomaly, ...]


def _tasks(phases: Sequence[phasetodo.Phase]) -> dict[str, list[Any]]:
    return {t.content: [t.status.value, t.owner] for p in phases for t in p.tasks}


def _reply_tasks(result: dict[str, Any]) -> dict[str, list[Any]]:
    """The list a write's reply showed (``details.phases``), as :func:`_tasks` gives it."""
    return {
        t["content"]: [t["status"], t.get("owner")] for p in result["details"]["phases"] for t in p["tasks"]
    }


def _mine(phases: Sequence[phasetodo.Phase], agent: str) -> str | None:
    for phase in phases:
        for task in phase.tasks:
            if task.owner == agent and task.status is phasetodo.Status.IN_PROGRESS:
                return task.content
    return None


def agent_main(
    spec: str, session_id: str, agent: str, out: Path, seconds: float, lease: float, skew: float, reader: bool
) -> None:
    """One agent (or reader) process: work the plan until the deadline, every call recorded."""
    deadline = time.time() + seconds
    if out.exists() and not out.read_bytes().endswith(b"\n"):
        with out.open("ab") as cut:  # a SIGKILL cut the last line: end it, so ours start afresh
            cut.write(b"\n")
    with out.open("a", encoding="utf-8") as log:

        def record(**fields: Any) -> None:
            log.write(json.dumps({"agent": agent, **fields}) + "\n")
            log.flush()

        if reader:
            while time.time() < deadline:
                _read(spec, session_id, record)
                time.sleep(0.02)
            return
        calls, pending = _resume(out)
        session: phasetodo.Session | None = None
        while time.time() < deadline:
            if pending is None:
                calls += 1
                ops = (
                    [{"op": "start"}]
                    if session is None or _mine(session.phases, agent) is None
                    else [{"op": "done", "task": _mine(session.phases, agent)}]
                )
                record(kind="intent", rid=f"call-{calls}", params=ops)
            else:  # the call a SIGKILL cut short, sent again as it was: it must apply once
                ops, pending = pending, None
            for _attempt in range(20):  # a call that raised is retried with the same id
                start = time.time()
                try:
                    if session is None:
                        session = phasetodo.Session.open(
                            session_id,
                            store_from_url(spec),
                            profile="team",
                            agent=agent,
                            lease=lease,
                            clock=lambda: time.time() + skew,
                        )
                    result = session.todo_write({"ops": ops}, request_id=f"call-{calls}")
                except Exception as error:
                    record(
                        kind="write",
                        rid=f"call-{calls}",
                        params=ops,
                        start=start,
                        end=time.time(),
                        ok=False,
                        error=True,
                        version=None,
                        text=repr(error)[:200],
                    )
                    session = None
                    time.sleep(0.05)
                    continue
                record(
                    kind="write",
                    rid=f"call-{calls}",
                    params=ops,
                    start=start,
                    end=time.time(),
                    ok=True,
                    error=bool(result.get("isError")),
                    version=session.written,  # where this call was acknowledged, not the newest
                    changed=True,
                    tasks=_reply_tasks(result),  # what the reply showed, not a later look
                    text=result["content"][0]["text"].splitlines()[0],
                )
                break
            if session is not None and ops[0]["op"] == "start":
                _beat(session, agent, record)
            time.sleep(0.01)
            if calls % 3 == 0:
                _read(spec, session_id, record)


def _beat(session: phasetodo.Session, agent: str, record: Any) -> None:
    """Renew the claim the agent holds, recording the task, the version it was seen at and
    the deadline a heartbeat acknowledged (None: it held nothing, or the beat raised)."""
    version = session.version
    task = _mine(session.phases, agent)
    start, until, text = time.time(), None, ""
    try:
        until = session.heartbeat() if task is not None else None
    except Exception as error:
        text = repr(error)[:200]
    record(kind="beat", start=start, end=time.time(), ok=not text, task=task, version=version, until=until,
           text=text)


def _resume(out: Path) -> tuple[int, list[Any] | None]:
    """Where a restarted agent goes on: its last call's number, and that call's ops when it
    was begun but never answered (the process was killed during it), else None."""
    calls, pending = 0, None
    for line in _load(out):
        if line["kind"] == "intent":
            calls, pending = int(line["rid"].removeprefix("call-")), line["params"]
        elif line["kind"] == "write" and line["ok"] and line["rid"] == f"call-{calls}":
            pending = None
    return calls, pending


def _read(spec: str, session_id: str, record: Any) -> None:
    start = time.time()
    try:
        store = store_from_url(spec)
        with phasetodo.Session.open(session_id, store, profile="team") as seen:
            version = seen.version
        store.close()
    except Exception as error:
        record(kind="read", start=start, end=time.time(), ok=False, version=None, text=repr(error)[:200])
        return
    record(kind="read", start=start, end=time.time(), ok=True, version=version, text="")


def _plan(tasks: int) -> dict[str, Any]:
    return {
        "ops": [{"op": "init", "list": [{"phase": "Work", "items": [f"task {n}" for n in range(tasks)]}]}]
    }


def _spawn(
    spec: str,
    session_id: str,
    agent: str,
    out: Path,
    args: argparse.Namespace,
    skew: float,
    reader: bool = False,
    seconds: float | None = None,
) -> subprocess.Popen[bytes]:
    argv = [
        sys.executable,
        "-m",
        "benchmarks.faults",
        "--agent",
        agent,
        "--spec",
        spec,
        "--session",
        session_id,
        "--out",
        str(out),
        "--seconds",
        str(args.seconds if seconds is None else seconds),
        "--lease",
        str(args.lease),
        "--skew",
        str(skew),
    ] + (["--reader"] if reader else [])
    return subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _inject(
    fault: str,
    procs: list[subprocess.Popen[bytes]],
    args: argparse.Namespace,
    rng: random.Random,
    server: Any,
    outs: Sequence[Path],
    plan: tuple[str, str, Path],
    respawn: Callable[[int, float], subprocess.Popen[bytes]],
) -> None:
    """Inject ``fault`` into the running fleet until the run's time is up.

    ``plan`` is the store's URL, the session id and the history folder (where the
    ``replace`` fault records each swap); ``respawn(n, seconds)`` starts agent ``n``
    again after a SIGKILL, as a supervisor would, for what is left of the run.
    """
    end = time.monotonic() + args.seconds
    while time.monotonic() < end and not all(out.exists() for out in outs):
        time.sleep(0.05)  # every agent has made its first call: faults from then on
    sibling: replace.Sibling | None = None
    while time.monotonic() < end - 0.5:
        time.sleep(rng.uniform(0.3, 0.8))
        if fault == "replace":
            sibling = _replace(plan, sibling)
            continue
        n = rng.randrange(len(procs))
        victim = procs[n]
        if victim.poll() is not None:
            continue
        if fault == "kill":
            victim.send_signal(signal.SIGKILL)  # the child we started, by its handle
            victim.wait()
            procs[n] = respawn(n, end - time.monotonic())
        elif fault == "pause":
            victim.send_signal(signal.SIGSTOP)
            time.sleep(args.lease * 1.5)  # longer than the lease: its claim lapses meanwhile
            victim.send_signal(signal.SIGCONT)
        elif fault == "pg-restart" and server is not None:
            server.restart("immediate")
        elif fault == "pg-terminate" and server is not None:
            _terminate_backends(server.dsn)


def _replace(plan: tuple[str, str, Path], sibling: replace.Sibling | None) -> replace.Sibling | None:
    """One tick of the ``replace`` fault: cut a sibling of the log, or swap the one cut before."""
    spec, session_id, history = plan
    if sibling is None:
        return replace.cut(spec, session_id, history.parent / f"{history.name}-sibling-{time.time_ns()}")
    record = replace.swap(sibling)
    with (history / "injector.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")
    return None


def _terminate_backends(dsn: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )


def _final_log(spec: str, session_id: str) -> list[Record]:
    store = store_from_url(spec)
    with phasetodo.Session.open(session_id, store, profile="team") as session:
        lead = session.owner
        events = [
            {
                "version": e.version,
                "time": e.time,
                "agent": e.agent,
                "lead": lead,
                "rid": e.request.id if e.request is not None else None,
                "tasks": _tasks(e.phases),
            }
            for e in session.events()
        ]
    store.close()
    return events


def _final_log_retried(spec: str, session_id: str) -> list[Record]:
    for _attempt in range(10):
        try:
            return _final_log(spec, session_id)
        except phasetodo.errors.StoreError:
            time.sleep(0.5)
    return _final_log(spec, session_id)


def _load(path: Path) -> list[Record]:
    out: list[Record] = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue  # the line a SIGKILL cut (a restarted agent goes on below it)
    return out


def run_one(
    spec: str, store: str, fault: str, args: argparse.Namespace, folder: Path, server: Any = None
) -> Outcome:
    """Run the fleet on a fresh plan under ``fault`` and check its history."""
    rng = random.Random(f"{args.seed}-{store}-{fault}")
    session_id = f"faults-{fault}-{rng.randrange(10**6)}"
    try:
        with phasetodo.Session.open(session_id, store_from_url(spec), profile="team", agent="lead") as lead:
            lead.todo_write(_plan(args.agents * 50))
    except phasetodo.errors.StoreError as error:
        return Outcome(store, fault, 0, 0, (Anomaly("store-unusable", str(error)),))
    history = folder / session_id
    history.mkdir()
    skews = [
        rng.choice((-1, 1)) * rng.uniform(60, 600) if fault == "skew" else 0.0 for _ in range(args.agents)
    ]
    procs = [
        _spawn(spec, session_id, f"a{n}", history / f"a{n}.jsonl", args, skew) for n, skew in enumerate(skews)
    ]
    readers = [
        _spawn(spec, session_id, f"r{n}", history / f"r{n}.jsonl", args, 0.0, reader=True)
        for n in range(2 if fault == "readers" else 0)
    ]
    outs = [history / f"a{n}.jsonl" for n in range(args.agents)]

    def respawn(n: int, seconds: float) -> subprocess.Popen[bytes]:
        return _spawn(spec, session_id, f"a{n}", outs[n], args, skews[n], seconds=max(seconds, 0.1))

    try:
        _inject(fault, procs, args, rng, server, outs, (spec, session_id, history), respawn)
        broken = None
    except (phasetodo.errors.StoreError, phasetodo.errors.CorruptLog) as error:
        broken = Anomaly("store-unusable", f"the injector could not read the log: {error}")
    for proc in procs + readers:
        try:
            proc.wait(timeout=args.seconds + 120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    calls = [c for path in sorted(history.glob("*.jsonl")) for c in _load(path)]
    made = sum(1 for c in calls if c["kind"] in ("write", "read"))
    acked = sum(1 for c in calls if c["kind"] == "write" and c["ok"] and not c["error"])
    try:
        events = _final_log_retried(spec, session_id)
    except phasetodo.errors.StoreError as error:  # the store itself no longer opens: an anomaly
        return Outcome(store, fault, made, acked, (Anomaly("store-unusable", str(error)),))
    (history / "final-log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    found = tuple(check(calls, events))
    return Outcome(store, fault, made, acked, found if broken is None else (broken, *found))


@contextmanager
def _store(kind: str, folder: Path) -> Iterator[tuple[str, Any]]:
    """The store's URL, and the PostgreSQL server for the faults that need it."""
    if kind == "jsonl":
        yield f"jsonl:{folder / 'logs'}", None
    elif kind == "sqlite":
        yield f"sqlite:{folder / 'plans.db'}", None
    else:
        sys.path.insert(0, str(ROOT))
        from tests import postgres_support

        with ExitStack() as stack:
            made = stack.enter_context(postgres_support.server())
            if kind == "pgbouncer":
                bouncer = stack.enter_context(postgres_support.pgbouncer(made))
                yield bouncer.dsn, made
            else:
                yield made.dsn, made


def table(outcomes: Sequence[Outcome]) -> str:
    """The fault x store table: calls, acknowledged writes, anomalies by kind."""
    lines = [f"{'fault':<13} {'store':<10} {'calls':>6} {'acked':>6}  anomalies"]
    for o in outcomes:
        kinds = Counter(a.kind for a in o.anomalies)
        said = ", ".join(f"{k} {kinds[k]}" for k in KINDS if kinds[k]) or "0"
        lines.append(f"{o.fault:<13} {o.store:<10} {o.calls:>6} {o.acknowledged:>6}  {said}")
    return "\n".join(lines)


def run(stores: Sequence[str], faults: Sequence[str], args: argparse.Namespace) -> list[Outcome]:
    """Every fault kind on every store (PostgreSQL faults only where a server runs)."""
    outcomes = []
    for store in stores:
        with _folder(args.keep) as tmp, _store(store, tmp) as (spec, server):
            for fault in faults:
                if (fault in POSTGRES_ONLY and server is None) or (fault in FILE_ONLY and server is not None):
                    continue
                outcomes.append(run_one(spec, store, fault, args, tmp, server))
                print(table(outcomes[-1:]).splitlines()[-1], file=sys.stderr)
            if args.keep:
                print(f"histories kept in {tmp}", file=sys.stderr)
    return outcomes


@contextmanager
def _folder(keep: bool) -> Iterator[Path]:
    """A fresh folder for a store's runs: removed afterwards unless ``keep``."""
    if keep:
        yield Path(tempfile.mkdtemp(prefix="phasetodo-faults-"))
        return
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module's docstring); ``--agent`` runs one agent process."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--store", default="jsonl", help="jsonl, sqlite, postgres, pgbouncer (comma list)")
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--faults", default=",".join(FAULTS))
    parser.add_argument("--lease", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=5, help="anomalies shown per run")
    parser.add_argument(
        "--keep", action="store_true", help="keep the histories and logs (the folder is printed)"
    )
    parser.add_argument("--agent", help=argparse.SUPPRESS)
    parser.add_argument("--spec", help=argparse.SUPPRESS)
    parser.add_argument("--session", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--skew", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--reader", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.agent:
        agent_main(
            args.spec,
            args.session,
            args.agent,
            Path(args.out),
            args.seconds,
            args.lease,
            args.skew,
            args.reader,
        )
        return
    stores = args.store.split(",")
    faults = args.faults.split(",")
    for name, given, known in (
        ("--store", stores, ("jsonl", "sqlite", "postgres", "pgbouncer")),
        ("--faults", faults, FAULTS),
    ):
        wrong = [g for g in given if g not in known]
        if wrong:
            parser.error(f"{name}: unknown {', '.join(wrong)} (known: {', '.join(known)})")
    outcomes = run(stores, faults, args)
    print(table(outcomes))
    for o in outcomes:
        for anomaly in o.anomalies[: args.show]:
            print(f"  {o.fault}/{o.store}: {anomaly.kind}: {anomaly.detail}")
    if any(o.anomalies for o in outcomes):
        sys.exit(1)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
