"""Time this tree against another revision in one process, rounds interleaved.

Usage: ``python -m benchmarks.compare REV [--rounds N] [--only NAME[,NAME]] [--budget S]``.

On a shared machine the load moves by 2x between two runs of :mod:`benchmarks.run`,
so a before/after figure from separate runs says little. This script exports
``src/phasetodo`` of ``REV`` (any git revision: ``HEAD``, a commit, a branch) with
``git archive`` into a temporary folder, as the package ``phasetodo_base`` (its
imports are relative), imports both, and times the two on each
workload in alternating rounds of the same number of calls, each side first in
every other round. Per workload it prints each side's median CPU µs per call and
range, and the median of the per-round ratios this/base with their interquartile
range. A revision that still had the C module runs its pure-Python loops (the
module is not built here).

The workloads are :mod:`benchmarks.run`'s: ``todo_write`` on dicts (w1-w3), the
Markdown round trip (w4), the 200-call chain on dicts (w5).
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import phasetodo

from .run import load

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("w1_typical", "w2_scale", "w3_append", "w4_markdown", "w5_trace")

def export(rev: str, where: Path) -> ModuleType:
    """``src/phasetodo`` at ``rev`` as the package ``phasetodo_base`` under ``where``, imported."""
    archive = where / "src.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src/phasetodo"], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(where, filter="data")
    package = where / "phasetodo_base"
    shutil.move(where / "src" / "phasetodo", package)
    sys.path.insert(0, str(where))
    return importlib.import_module("phasetodo_base")


def call_of(module: Any, name: str) -> Callable[[], object]:
    """The timed call of workload ``name`` through ``module`` (``phasetodo`` or the base)."""
    work = load(name)
    if name == "w4_markdown":
        before = work["before"]
        return lambda: module.markdown_to_phases(module.phases_to_markdown(before))
    if name == "w5_trace":
        calls = work["calls"]

        def chain() -> None:
            phases: list[Any] = []
            for params in calls:
                phases = module.todo_write(params, phases)["details"]["phases"]

        return chain
    before, params = work["before"], work["params"]
    return lambda: module.todo_write(params, before)


def interleaved(
    base: Callable[[], object], this: Callable[[], object], rounds: int, budget: float
) -> tuple[list[float], list[float]]:
    """CPU µs per call of each, over ``rounds`` alternating rounds of the same number of calls."""
    clock = time.process_time
    this()
    base()
    start = clock()
    this()
    loops = max(1, int(budget / max(clock() - start, 1e-7)))
    samples: tuple[list[float], list[float]] = ([], [])
    for number in range(rounds):
        order = ((0, base), (1, this)) if number % 2 == 0 else ((1, this), (0, base))
        for side, fn in order:
            start = clock()
            for _ in range(loops):
                fn()
            samples[side].append((clock() - start) / loops * 1e6)
    return samples


def main(argv: list[str] | None = None) -> None:
    """Print the comparison; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the git revision to compare against, e.g. HEAD~3")
    parser.add_argument("--rounds", type=int, default=21, help="alternating rounds per workload")
    parser.add_argument("--only", help="workloads, comma-separated (default: all five)")
    parser.add_argument("--budget", type=float, default=0.05, help="seconds of calls per round and side")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else NAMES
    with tempfile.TemporaryDirectory() as tmp:
        base = export(args.rev, Path(tmp))
        print(f"{args.rev} (base) vs this tree, both pure Python")
        print(f"CPU µs per call, {args.rounds} alternating rounds; pid {os.getpid()}")
        print(f"{'workload':<13}{'base':>10}{'range':>20}{'this':>10}{'range':>20}{'this/base':>11}{'IQR':>16}")
        for name in names:
            old, new = interleaved(call_of(base, name), call_of(phasetodo, name), args.rounds, args.budget)
            ratios = sorted(n / o for n, o in zip(new, old, strict=True))
            quarter = len(ratios) // 4
            print(
                f"{name:<13}{statistics.median(old):>10,.0f}{f'{min(old):,.0f}-{max(old):,.0f}':>20}"
                f"{statistics.median(new):>10,.0f}{f'{min(new):,.0f}-{max(new):,.0f}':>20}"
                f"{statistics.median(ratios):>10.2f}x"
                f"{f'{ratios[quarter]:.2f}-{ratios[-1 - quarter]:.2f}x':>16}",
                flush=True,
            )


if __name__ == "__main__":
    main()
