"""Issue 36's table in one command: every figure, side by side on each store, beside its goal.

Usage: ``python -m benchmarks.scale [--store jsonl,sqlite,postgres] [--runs 3] [--dsn DSN]``.

Each run measures, store after store (so the stores share the machine's moment):

* one plan of ``--agents`` agents (32) on ``--tasks`` tasks (1,000), lease ``--lease`` (5 s),
  a tenth of them killed holding a claim: the issue's own ``benchmarks.fleet`` command;
* the same with none killed (``--kill 0``: the fleet's pace alone; a run with killed agents
  lasts at least one lease, which caps it at about ``--tasks / --lease`` claims a second);
* 8 plans of 4 agents each, a tenth killed (``--plans 8 --agents 4``): claims a second in all;
* one plan of each of the ``--larger`` fleets (64 and 128 agents), a tenth killed: reported,
  with no goal of their own;
* opening a plan of 100 tasks after ``--events`` writes (13,000) in a new process, min and
  median of 7 (``benchmarks.open_log``; the plan is written once, before the first run);

then, with no store of its own, a team write on ``--big`` tasks (100,000; median of 20 writes,
``benchmarks.team_write``) and the log bytes a heartbeat adds. The table at the end gives each
figure's range over the runs, and whether its worst run meets the goal. Every fleet works a
plan of its own (``scale-<time>-<run>-<row>``), so a PostgreSQL database given with ``--dsn``
(else ``$PHASETODO_TEST_DSN``, else a throwaway cluster with room for the largest fleet)
needs no reset; it must allow a connection for each agent of the largest fleet, and a few more.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import attrs

from . import open_log, team_write
from .fleet import FleetRun, run_fleet


@attrs.frozen
class Figure:
    """One row of the table: what it measures (with its unit), its goal, which way is better."""

    name: str
    goal: float | None  # None: reported, with no goal
    at_most: bool = False

    def met(self, values: Sequence[float]) -> bool:
        """Whether the worst of ``values`` meets the goal."""
        if self.goal is None:
            return True
        return max(values) <= self.goal if self.at_most else min(values) >= self.goal

    def row(self, by_store: dict[str, list[float]], stores: Sequence[str]) -> str:
        """The row in Markdown: each store's range, the goal, and whether every store met it."""
        found = [by_store[s] for s in stores if by_store.get(s)]
        cells = [_range(by_store[s]) if by_store.get(s) else "–" for s in stores]
        verdict = "met" if found and all(self.met(v) for v in found) else "not met"
        if self.goal is None:
            goal = verdict = "–"
        else:
            goal = f"{'≤' if self.at_most else '≥'} {self.goal:g}"
        return f"| {self.name} | {' | '.join(cells)} | {goal} | {verdict} |"


#: The rows, by key; the last two need no store (one figure, shown under each).
FIGURES = {
    "one": Figure("one plan, a tenth of the agents killed: claims/s", 200),
    "one-p99": Figure("the same: p99 write, ms", 250, at_most=True),
    "pace": Figure("the same, none killed: claims/s", 200),
    "pace-p99": Figure("the same: p99 write, ms", 250, at_most=True),
    "plans": Figure("8 plans × 4 agents, a tenth killed: claims/s in all", 400),
    "open": Figure("opening the long plan in a new process: min ms", 20, at_most=True),
    "open-median": Figure("the same: median ms", 20, at_most=True),
    "team_write": Figure("a team write on the big plan (memory store): median ms", 10, at_most=True),
    "beat": Figure("log bytes a heartbeat adds (JSONL)", 100, at_most=True),
}


def _range(values: Sequence[float]) -> str:
    """``low–high`` (one figure when they round the same), to 0.1 below 100."""
    digits = 1 if max(values) < 100 else 0
    low, high = (f"{v:.{digits}f}" for v in (min(values), max(values)))
    return low if low == high else f"{low}–{high}"


@attrs.frozen
class Sizes:
    """The command's sizes (the issue's by default; the test runs a small fleet)."""

    agents: int = 32
    tasks: int = 1000
    lease: float = 5.0
    events: int = 13_000
    big: int = 100_000
    rounds: int = 7
    #: The larger fleets on one plan, reported with no goal (comma-separated; empty: none).
    larger: str = "64,128"

    def fleets(self) -> list[int]:
        """The sizes of :attr:`larger`."""
        return [int(n) for n in self.larger.split(",") if n.strip()]


Results = dict[str, dict[str, list[float]]]  # figure -> store -> one value a run


def _fleet(
    spec: str, folder: Path, name: str, sizes: Sizes, *, kill: float = 0.1, plans: int = 1,
    agents: int | None = None,
) -> FleetRun:
    """One ``benchmarks.fleet`` run in a folder of its own; raises when a task was lost or
    completed twice (a figure of a broken run is no figure)."""
    where = folder / name
    where.mkdir(parents=True)
    run = run_fleet(
        spec, agents=agents or sizes.agents, tasks=sizes.tasks, kill=kill, lease=sizes.lease,
        work=0.01, folder=where, plans=plans, session=name,
    )
    if run.completed != run.tasks or run.completed_twice:
        raise SystemExit(f"{name} on {spec.split(':')[0]}: {run.completed} of {run.tasks} tasks "
                         f"completed, {run.completed_twice} completed twice")
    return run


def measure_store(
    kind: str, spec: str, folder: Path, stamp: str, number: int, sizes: Sizes, results: Results
) -> None:
    """Run ``number``'s figures on one store, added to ``results`` (its plans are named
    ``stamp-number-...``; the long one it opens, ``stamp-open``). The opens come first: a
    server still busy with the fleets' aftermath (PostgreSQL's autovacuum) would time that."""
    name, folder = f"{stamp}-{number}", folder / kind

    def add(figure: str, value: float) -> None:
        results.setdefault(figure, {}).setdefault(kind, []).append(value)

    opens = open_log.fresh(spec, sizes.rounds, "fresh", f"{stamp}-open")
    add("open", min(opens))
    add("open-median", statistics.median(opens))
    said = [f"run {number} {kind:<9} open {min(opens):.1f}–{statistics.median(opens):.1f} ms"]
    fleets: dict[str, dict[str, Any]] = {"one": {}, "pace": {"kill": 0.0}, "plans": {"plans": 8, "agents": 4}}
    fleets.update({f"larger-{n}": {"agents": n} for n in sizes.fleets()})
    for key, how in fleets.items():
        fleet = _fleet(spec, folder, f"{name}-{key}", sizes, **how)
        add(key, fleet.claims_per_second)
        if key != "plans":
            add(f"{key}-p99", fleet.percentile(0.99))
        said.append(f"{key} {fleet.claims_per_second:.0f}/s (p99 {fleet.percentile(0.99):.0f} ms)")
    print("; ".join(said), flush=True)


def measure_engine(sizes: Sizes, results: Results) -> None:
    """One run's figures that need no store of their own: a big team write, a heartbeat."""
    ((_, _, wall), *_) = team_write.write_costs(sizes.big, 20)
    beat, _ = team_write.beat_bytes(min(sizes.tasks, 1000))
    for figure, value in (("team_write", statistics.median(wall)), ("beat", beat)):
        results.setdefault(figure, {})["all"] = [*results.get(figure, {}).get("all", []), value]
    print(f"team write {statistics.median(wall):.1f} ms; heartbeat {beat:.0f} B", flush=True)


@contextmanager
def _stores(kinds: Sequence[str], folder: Path, dsn: str | None, sizes: Sizes) -> Iterator[dict[str, str]]:
    """Each store's URL (PostgreSQL's server started once, with room for the largest fleet,
    when it is not given)."""
    with ExitStack() as stack:
        specs = {}
        for kind in kinds:
            if kind == "postgres":
                from .sessions import postgres_dsn

                # one connection an agent, and a few for the lead, the audit and the opens
                wanted = max([sizes.agents, 32, *sizes.fleets()]) + 20
                specs[kind] = str(stack.enter_context(postgres_dsn(dsn, wanted)))
            elif kind == "jsonl":
                specs[kind] = f"jsonl:{folder / 'store'}"
            elif kind == "sqlite":
                specs[kind] = f"sqlite:{folder / 'plans.db'}"
            else:
                raise SystemExit(f"--store: {kind!r} is not jsonl, sqlite or postgres")
        yield specs


def table(results: Results, stores: Sequence[str], sizes: Sizes) -> str:
    """The table in Markdown: a column per store (the store-free figures shown under each)."""
    figures = dict(FIGURES)
    for agents in sizes.fleets():  # reported beside the goals, with none of their own
        figures[f"larger-{agents}"] = Figure(f"a plan of {agents} agents, a tenth killed: claims/s", None)
        figures[f"larger-{agents}-p99"] = Figure("the same: p99 write, ms", None)
    lines = [f"| figure | {' | '.join(stores)} | goal | worst run |", "|" + " --- |" * (len(stores) + 3)]
    for key, figure in figures.items():
        by_store = results.get(key, {})
        if "all" in by_store:
            by_store = dict.fromkeys(stores, by_store["all"])
        lines.append(figure.row(by_store, stores))
    return "\n".join(lines)


def run(kinds: Sequence[str], runs: int, dsn: str | None, sizes: Sizes) -> Results:
    """Write each store's long plan, make ``runs`` runs, print the table; the results by
    figure and store. Plans are named ``scale-<time>-...``: a database may hold earlier ones."""
    results: Results = {}
    stamp = f"scale-{time.strftime('%Y%m%d%H%M%S')}"
    with tempfile.TemporaryDirectory() as tmp, _stores(kinds, Path(tmp), dsn, sizes) as specs:
        for spec in specs.values():
            open_log.fill(spec, 100, sizes.events, f"{stamp}-open", f"{stamp}-warm")
        for number in range(1, runs + 1):
            for kind, spec in specs.items():
                measure_store(kind, spec, Path(tmp), stamp, number, sizes, results)
            measure_engine(sizes, results)
    print(table(results, list(specs), sizes))
    return results


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--store", default="jsonl,sqlite,postgres", help="comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dsn", help="a PostgreSQL server to use (default: start a throwaway one)")
    defaults = Sizes()
    for field in attrs.fields(Sizes):
        default = getattr(defaults, field.name)
        parser.add_argument(f"--{field.name}", type=type(default), default=default)
    args = parser.parse_args(argv)
    sizes = Sizes(**{f.name: getattr(args, f.name) for f in attrs.fields(Sizes)})
    run(args.store.split(","), args.runs, args.dsn, sizes)


if __name__ == "__main__":
    main()
