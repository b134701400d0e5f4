"""Run the shared benchmark workloads and print per-call figures.

Usage: ``python -m benchmarks.run [--rounds N] [--scaling]``. Each workload is
measured end to end, as the reference was: validate the params, apply them to
a copy of ``before``, normalize, format the summary and build ``details`` as
JSON-ready data. Two entry points are timed:

* ``todo_write``: the public call, with ``before`` as JSON dicts (it also
  converts them to values, which a host holding a session does not pay);
* ``values``: ``before`` already held as ``Phase`` values, as in a session.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import phasetodo
from phasetodo.tool import call

WORKLOADS = Path(__file__).parent / "workloads"

#: The reference's figures on node (from shared/README.md), low and high, in µs.
REFERENCE_US = {
    "w1_typical": (130, 220),
    "w2_scale": (29_000, 30_000),
    "w3_append": (78_000, 91_000),
    "w4_markdown": (10_000, 12_000),
    "w5_trace": (118_000, 125_000),
}


def load(name: str) -> dict[str, Any]:
    """One workload file."""
    with (WORKLOADS / f"{name}.json").open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def median_us(fn: Callable[[], object], rounds: int, budget_s: float = 1.0) -> float:
    """Median wall time of ``fn`` in µs over ``rounds`` rounds of repeated calls."""
    fn()
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    loops = max(1, int(budget_s / rounds / once))
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - start) / loops * 1e6)
    return statistics.median(samples)


def cases() -> dict[str, dict[str, Callable[[], object]]]:
    """For each workload, the callables timed."""
    out: dict[str, dict[str, Callable[[], object]]] = {}
    for name in ("w1_typical", "w2_scale", "w3_append"):
        work = load(name)
        before, params = work["before"], work["params"]
        values = phasetodo.load_phases(before)
        out[name] = {
            "todo_write": lambda b=before, p=params: phasetodo.todo_write(p, b),
            "values": lambda v=values, p=params: call(p, v).to_json(),
        }
    md_before = load("w4_markdown")["before"]
    md_values = phasetodo.load_phases(md_before)
    out["w4_markdown"] = {
        "todo_write": lambda: phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(md_before)),
        "values": lambda: phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(md_values)),
    }
    calls = load("w5_trace")["calls"]
    out["w5_trace"] = {"todo_write": lambda: _trace_dicts(calls), "values": lambda: _trace(calls)}
    return out


def _trace_dicts(calls: list[dict[str, Any]]) -> None:
    phases: list[dict[str, Any]] = []
    for params in calls:
        phases = phasetodo.todo_write(params, phases)["details"]["phases"]


def _trace(calls: list[dict[str, Any]]) -> None:
    phases: tuple[phasetodo.Phase, ...] = ()
    for params in calls:
        outcome = call(params, phases)
        outcome.to_json()
        phases = outcome.phases


def scaling(rounds: int) -> tuple[float, float]:
    """µs for 100 and for 1,000 ``done`` ops on the 10,000-task list."""
    work = load("w2_scale")
    values = phasetodo.load_phases(work["before"])
    contents = [t.content for p in values for t in p.tasks]
    step = len(contents) // 1000
    ops = [{"op": "done", "task": c} for c in contents[::step][:1000]]
    small, large = {"ops": ops[::10]}, {"ops": ops}
    return (
        median_us(lambda: call(small, values).to_json(), rounds),
        median_us(lambda: call(large, values).to_json(), rounds),
    )


def main(argv: list[str] | None = None) -> None:
    """Print a table of median µs per call beside the reference's figures.

    The speed-up columns divide the reference's fastest figure by ours.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", help="run one workload, e.g. w2_scale")
    args = parser.parse_args(argv)
    print(
        f"{'workload':<13}{'todo_write µs':>15}{'values µs':>12}{'reference µs':>17}"
        f"{'speed-up, values':>18}{'todo_write':>12}"
    )
    for name, fns in cases().items():
        if args.only and name != args.only:
            continue
        full = median_us(fns["todo_write"], args.rounds)
        vals = median_us(fns["values"], args.rounds)
        low, high = REFERENCE_US[name]
        print(
            f"{name:<13}{full:>15,.0f}{vals:>12,.0f}{f'{low:,}-{high:,}':>17}"
            f"{low / vals:>17.1f}x{low / full:>11.1f}x"
        )
    if not args.only:
        small, large = scaling(args.rounds)
        print(f"scaling: 100 ops {small:,.0f} µs, 1,000 ops {large:,.0f} µs, ratio {large / small:.2f}")


if __name__ == "__main__":
    main()
