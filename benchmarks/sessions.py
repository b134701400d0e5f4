"""Per-call cost of a durable session beside the in-memory call, open time, throughput and log bytes.

Usage: ``python -m benchmarks.sessions [--rounds N] [--calls N] [--dsn DSN] [--only log]``.

* ``w1``: one ``todo_write`` of the w1 workload, on a session whose list is
  reset to w1's ``before`` (untimed) before each timed call;
* ``w5``: the 200-call w5 trace on a fresh session, end to end;
* ``open``: ``Session.open`` on logs of 1,000 and 10,000 w1-sized events, with
  the peak memory it allocates beside the log's size.

* ``writes/s``: small ``todo_write`` calls per second with 1 writer and with 8
  writer processes on one session, on JSONL, SQLite and PostgreSQL;
* ``open 10k``: ``Session.open`` of a 10,000-event log (the w5 trace replayed
  50 times) on JSONL, SQLite and PostgreSQL;
* ``bytes/write``: log bytes per ``todo_write`` on sessions of 10 and 10,000
  tasks (a ``done`` and an ``append`` per call, checkpoints included).

Stores: ``memory`` (MemoryStore), ``jsonl`` (fsync per call, the default),
``jsonl-nofsync``, ``sqlite`` (WAL, synchronous=FULL), ``postgres`` (``--dsn``,
else ``$PHASETODO_TEST_DSN``, else a throwaway cluster as the tests start one).
Run it under ``nice`` on a shared machine and compare ratios, not absolute figures.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

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


def _durable(name: str, where: Path, dsn: str | None) -> str:
    """A ``--store`` string for one durable store kind."""
    if name == "jsonl":
        return f"jsonl:{where / 'logs'}"
    if name == "sqlite":
        return f"sqlite:{where / 's.db'}"
    assert dsn is not None
    return dsn


def _fresh(name: str, where: Path, dsn: str | None) -> phasetodo.Store:
    if name == "postgres":
        assert dsn is not None
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS phasetodo_events, phasetodo_sessions, phasetodo_renewals")
    return phasetodo.stores.store_from_url(_durable(name, where, dsn))


def _writer(spec: str, tag: str, count: int, ready: Any, go: Any) -> None:
    """One writer process: open the session, wait for ``go``, then ``count`` small calls."""
    store = phasetodo.stores.store_from_url(spec)
    with phasetodo.Session.open("tp", store, resume="keep", clear_delay=-1) as session:
        ready.release()
        go.wait()
        for k in range(count):
            session.todo_write({"ops": [{"op": "append", "phase": tag, "items": [f"{tag}-{k}"]}]})
    store.close()


def throughput(where: Path, dsn: str | None, calls: int) -> list[tuple[str, float, float]]:
    """(store, writes/s with 1 writer, writes/s with 8 writer processes), timed from a common start."""
    import multiprocessing

    rows = []
    context = multiprocessing.get_context("spawn")
    for name in ("jsonl", "sqlite", "postgres"):
        rates = []
        for writers in (1, 8):
            place = where / f"tp-{name}-{writers}"
            _fresh(name, place, dsn).close()
            spec = _durable(name, place, dsn)
            ready, go = context.Semaphore(0), context.Event()
            procs = [
                context.Process(target=_writer, args=(spec, f"w{i}", calls, ready, go))
                for i in range(writers)
            ]
            for proc in procs:
                proc.start()
            for _ in procs:  # every writer imported phasetodo and opened the session
                ready.acquire()
            start = time.perf_counter()
            go.set()
            for proc in procs:
                proc.join()
            elapsed = time.perf_counter() - start
            rates.append(writers * calls / elapsed)
        rows.append((name, rates[0], rates[1]))
    return rows


def open_10k(where: Path, dsn: str | None, rounds: int) -> list[tuple[str, float, int]]:
    """(store, µs to open a 10,000-event session, bytes read where countable)."""
    trace = load("w5_trace")["calls"]
    rows = []
    for name in ("jsonl", "sqlite", "postgres"):
        place = where / f"open10k-{name}"
        store = _fresh(name, place, dsn)
        log = store.open("big")
        phases: tuple[phasetodo.Phase, ...] = ()
        with log.lock():
            for version in range(1, 10_001):
                params = trace[(version - 1) % len(trace)]
                phases = phasetodo.tool.call(params, phases, limits=None).phases
                log.append(Event(version, "write", float(version), phases, ops=tuple(params["ops"]),
                                 profile="parity"))
        log.close()
        store.close()
        again = phasetodo.stores.store_from_url(_durable(name, place, dsn))
        elapsed = median_us(lambda s=again: phasetodo.Session.open("big", s).close(), rounds)  # type: ignore[misc]
        with phasetodo.Session.open("big", again) as session:
            read = getattr(session._log, "bytes_read", -1)
        again.close()
        rows.append((name, elapsed, read))
    return rows


def _log_bytes(store: phasetodo.Store) -> int:
    if isinstance(store, phasetodo.JsonlStore):
        return sum(p.stat().st_size for p in store.directory.glob("*.jsonl"))
    if isinstance(store, phasetodo.SqliteStore):
        return int(store.read("SELECT coalesce(sum(length(body)), 0) FROM events", ())[0][0])
    assert isinstance(store, phasetodo.PostgresStore)
    return int(store.read("SELECT coalesce(sum(octet_length(body)), 0) FROM phasetodo_events", ())[0][0])


def bytes_per_write(where: Path, dsn: str | None, writes: int) -> list[tuple[str, int, float, float]]:
    """(store, tasks, log bytes per write, bytes of the write's ops) on 10 and 10,000 tasks."""
    rows = []
    for name in ("jsonl", "sqlite", "postgres"):
        for tasks in (10, 10_000):
            per = min(tasks, 100)
            init = {"ops": [{"op": "init", "list": [
                {"phase": f"Phase {p}", "items": [f"task {p}-{t} with a realistic name" for t in range(per)]}
                for p in range(tasks // per)]}]}
            store = _fresh(name, where / f"bytes-{name}-{tasks}", dsn)
            session = phasetodo.Session.open("b", store, resume="keep", clear_delay=-1)
            session.todo_write(init)
            session.todo_write({"ops": [{"op": "start", "task": "task 0-0 with a realistic name"}]})
            start, ops_bytes = _log_bytes(store), 0
            for k in range(writes):
                target = f"task {k % (tasks // per)}-{(k // (tasks // per)) % per} with a realistic name"
                params = {"ops": [{"op": "done", "task": target},
                                  {"op": "append", "phase": "Late", "items": [f"late {k}"]}]}
                ops_bytes += len(json.dumps(params["ops"]))
                session.todo_write(params)
            rows.append((name, tasks, (_log_bytes(store) - start) / writes, ops_bytes / writes))
            session.close()
            store.close()
    return rows


def _team_list(tasks: int, *, owner: str | None) -> list[dict[str, Any]]:
    """``tasks`` tasks in 100 phases: the first half completed, one in progress (owned by
    ``owner`` when given: a team plan's active task has an owner), the rest pending."""
    per = tasks // 100
    phases: list[dict[str, Any]] = []
    for p in range(100):
        items: list[dict[str, Any]] = []
        for t in range(per):
            number = p * per + t
            status = "completed" if number < tasks // 2 else "pending"
            items.append({"content": f"Phase {p} task {t} do the thing", "status": status})
        phases.append({"name": f"Phase {p}", "tasks": items})
    active = phases[50]["tasks"][0]
    active["status"] = "in_progress"
    if owner is not None:
        active["owner"] = owner
    return phases


def _team_task(tasks: int, number: int) -> str:
    """The content of task ``number`` (counted over the whole list) of :func:`_team_list`."""
    per = tasks // 100
    return f"Phase {number // per} task {number % per} do the thing"


def team_write(tasks: int, step: int) -> dict[str, Any]:
    """One agent's write, the same in both profiles: a note and ``done`` on its task,
    ``start`` on the next. Step 0 works on :func:`_team_list`'s active task (the first of
    the pending half); step ``k`` on the task ``start`` took at step ``k - 1``, so that
    consecutive writes continue one another and need no reset."""
    mine = _team_task(tasks, tasks // 2 + step)
    return {"ops": [
        {"op": "note", "task": mine, "text": "found the cause"},
        {"op": "done", "task": mine},
        {"op": "start", "task": _team_task(tasks, tasks // 2 + step + 1)},
    ]}


def _team_store(kind: str, where: Path, dsn: str | None) -> str:
    """The store string of a ``team_vs_parity`` store kind under ``where`` (``postgresql``: ``dsn``)."""
    if kind == "memory":
        return "memory:"
    if kind == "jsonl":
        return f"jsonl:{where / 'logs'}"
    if kind == "sqlite":
        return f"sqlite:{where / 's.db'}"
    assert dsn is not None
    return dsn


def _session_bytes(store: phasetodo.Store, session_id: str) -> int:
    """Bytes this session's log holds in ``store`` (0 for a memory store, which encodes nothing)."""
    if isinstance(store, phasetodo.JsonlStore):
        path = store.path_for(session_id)
        return path.stat().st_size if path.exists() else 0
    if isinstance(store, phasetodo.SqliteStore):
        rows = store.read(
            "SELECT coalesce(sum(length(body)), 0) FROM events WHERE session = ?", (session_id,)
        )
        return int(rows[0][0]) if rows else 0
    if isinstance(store, phasetodo.PostgresStore):
        rows = store.read(
            "SELECT coalesce(sum(octet_length(body)), 0) FROM phasetodo_events WHERE session = %s",
            (session_id,),
        )
        return int(rows[0][0]) if rows else 0
    return 0


@attrs.define
class TeamRow:
    """One store and list size of :func:`team_vs_parity`: wall-clock µs per write.

    ``parity`` and ``team`` are the timed writes (each a delta record: the event appended,
    fsynced or committed, as the store does it); ``*_checkpoint`` the record that carried the
    whole list (the load's own, or the first write's after it, whichever is bigger: a record
    that alone outweighs a checkpoint is the checkpoint); ``*_share`` that checkpoint's cost
    spread over the writes between two checkpoints (the store writes one once the deltas
    since the last weigh as much as it: its µs times delta bytes over checkpoint bytes).
    ``parity_cpu`` and ``team_cpu`` are the same writes' CPU µs (this process's), steadier on
    a loaded machine but blind to waits on disk or server.
    """

    store: str
    tasks: int
    parity: list[float]
    team: list[float]
    parity_cpu: list[float] = attrs.Factory(list)
    team_cpu: list[float] = attrs.Factory(list)
    parity_checkpoint: float = 0.0
    team_checkpoint: float = 0.0
    parity_share: float = 0.0
    team_share: float = 0.0

    @property
    def ratio(self) -> float:
        """Team over parity: the fastest write of each, checkpoint shares included."""
        return (min(self.team) + self.team_share) / (min(self.parity) + self.parity_share)

    @property
    def median_ratio(self) -> float:
        """Team over parity on the median writes, checkpoint shares included."""
        team = statistics.median(self.team) + self.team_share
        return team / (statistics.median(self.parity) + self.parity_share)

    @property
    def cpu_ratio(self) -> float:
        """Team over parity on the fastest CPU times (checkpoint shares left out)."""
        return min(self.team_cpu) / min(self.parity_cpu)


def _checked(result: Mapping[str, Any], what: str) -> None:
    text = result["content"][0]["text"]
    if result.get("isError") or text.startswith("Errors"):
        raise AssertionError(f"{what}: {text[:300]}")


def team_vs_parity(
    rounds: int,
    sizes: tuple[int, ...] = (10_000, 100_000),
    stores: tuple[str, ...] = ("memory", "jsonl", "sqlite"),
    *,
    dsn: str | None = None,
    big_rounds: int | None = None,
) -> Iterator[TeamRow]:
    """One :class:`TeamRow` per list size and store: :func:`team_write` through
    ``Session.todo_write`` in the parity and the team profile, on the same list.

    Each profile has its own session (``Session.open`` on a store string under a fresh
    temporary folder; ``postgresql`` on ``dsn``, under new session ids), loaded with
    :func:`_team_list` (a ``user_edit``) and given one untimed write, which the durable
    stores keep as a checkpoint. Then ``rounds`` timed writes per profile on lists of up to
    10,000 tasks (``big_rounds``, default ``max(3, rounds // 3)``, above), consecutive
    (each continues the last), the two profiles alternating and taking turns to go first,
    so that a loaded machine slows both alike, a full garbage collection (untimed) before
    each. Wall-clock time, as a store waits on disk or server, and CPU time beside it.
    """
    import uuid

    big = max(3, rounds // 3) if big_rounds is None else big_rounds
    for tasks in sizes:
        for kind in stores:
            if kind == "postgresql" and dsn is None:
                continue
            with tempfile.TemporaryDirectory(prefix=f"phasetodo-team-{kind}-") as tmp:
                count = rounds if tasks <= 10_000 else big
                yield _team_row(kind, tasks, count, Path(tmp), dsn, uuid.uuid4().hex)


def _team_row(kind: str, tasks: int, rounds: int, where: Path, dsn: str | None, tag: str) -> TeamRow:
    row = TeamRow(kind, tasks, [], [])
    opened = []
    for profile, owner in (("parity", None), ("team", "a")):
        store = phasetodo.stores.store_from_url(_team_store(kind, where / profile, dsn))
        session_id = f"bench-team-{tag}-{profile}"
        session = phasetodo.Session.open(session_id, store, profile=profile, agent=owner, clear_delay=-1)
        listed = phasetodo.load_phases(_team_list(tasks, owner=owner))
        empty = _session_bytes(store, session_id)
        start = time.perf_counter()
        session.user_edit(listed, source="bench")
        records = [((time.perf_counter() - start) * 1e6, _session_bytes(store, session_id) - empty)]
        held = _session_bytes(store, session_id)
        start = time.perf_counter()
        _checked(session.todo_write(team_write(tasks, 0)), f"{kind} {profile} first write")
        records.append(((time.perf_counter() - start) * 1e6, _session_bytes(store, session_id) - held))
        elapsed, checkpoint = max(records, key=lambda record: record[1])  # the bigger record
        setattr(row, f"{profile}_checkpoint", elapsed)
        opened.append((profile, store, session_id, session, checkpoint))
    try:
        marks = [_session_bytes(store, sid) for _, store, sid, _, _ in opened]
        for step in range(1, rounds + 1):
            turn = opened if step % 2 else opened[::-1]
            for profile, _, _, session, _ in turn:
                params = team_write(tasks, step)
                gc.collect()  # each write starts from the same collector state (untimed)
                cpu, start = time.process_time(), time.perf_counter()
                result = session.todo_write(params)
                getattr(row, profile).append((time.perf_counter() - start) * 1e6)
                getattr(row, f"{profile}_cpu").append((time.process_time() - cpu) * 1e6)
                _checked(result, f"{kind} {profile} write {step}")
        for (profile, store, sid, _, checkpoint), mark in zip(opened, marks, strict=True):
            per_write = (_session_bytes(store, sid) - mark) / rounds
            if checkpoint > 0:
                share = getattr(row, f"{profile}_checkpoint") * per_write / checkpoint
                setattr(row, f"{profile}_share", share)
    finally:
        for _, store, sid, session, _ in opened:
            session.close()
            if kind == "postgresql":
                _drop_session(store, sid)
            store.close()
    return row


def _drop_session(store: phasetodo.Store, session_id: str) -> None:
    """Remove a benchmark session from a PostgreSQL server (its rows only)."""
    assert isinstance(store, phasetodo.PostgresStore)
    import psycopg

    with psycopg.connect(store.dsn, autocommit=True) as conn:
        conn.execute("DELETE FROM phasetodo_events WHERE session = %s", (session_id,))
        conn.execute("DELETE FROM phasetodo_sessions WHERE id = %s", (session_id,))


def postgres_dsn(dsn: str | None, max_connections: int = 60) -> Any:
    """A context giving a DSN: the one given, ``$PHASETODO_TEST_DSN``, or a throwaway cluster
    (that allows ``max_connections`` clients)."""
    import contextlib
    import os

    given = dsn or os.environ.get("PHASETODO_TEST_DSN")
    if given:
        return contextlib.nullcontext(given)
    from tests.postgres_support import cluster

    return cluster(max_connections)


def main(argv: list[str] | None = None) -> None:
    """Print the three tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=300, help="timed w1 calls per store")
    parser.add_argument("--dsn", help="a PostgreSQL server to use (default: start a throwaway one)")
    parser.add_argument("--writes", type=int, default=200, help="writes per writer process")
    parser.add_argument(
        "--bytes-writes", type=int, default=2_000,
        help="writes per bytes-per-write run (enough to include a checkpoint on 10,000 tasks)",
    )
    parser.add_argument("--only", choices=["log"], help="only the event-log tables (writes/s, open, bytes)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, postgres_dsn(args.dsn) as dsn:
        where = Path(tmp)
        print(f"{'writes/s':<10}{'1 writer':>10}{'8 writers':>11}")
        for name, one, eight in throughput(where, dsn, args.writes):
            print(f"{name:<10}{one:>10,.0f}{eight:>11,.0f}")
        print(f"\n{'open 10k':<10}{'ms':>10}{'bytes read':>12}")
        for name, us, read in open_10k(where, dsn, args.rounds):
            print(f"{name:<10}{us / 1000:>10,.1f}{read if read >= 0 else '-':>12}")
        print(f"\n{'bytes/write':<12}{'tasks':>8}{'log B':>8}{'ops B':>8}")
        for name, tasks, per, ops in bytes_per_write(where, dsn, args.bytes_writes):
            print(f"{name:<12}{tasks:>8,}{per:>8,.0f}{ops:>8,.0f}")
        if args.only == "log":
            return
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
