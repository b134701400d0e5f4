"""The beads import's cost: a long chain of ``blocks`` links, and an oversized export refused.

Usage: ``python -m benchmarks.beads [--issues 16000] [--repeat 9] [--refused 150000]``

Builds a beads export of ``--issues`` issues where each waits on the one before it (the
worst order for a cycle check that walks the links it has), closes the chain into a cycle
with one more link, and times ``beads_to_phases`` on it. Then builds an export of
``--refused`` issues (over the default ``max_tasks``), and reports the time and the peak
memory (tracemalloc) its refusal took. Issue 32 asks for the 16,000-issue chain in 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc

from phasetodo.errors import InvalidParams
from phasetodo.integrations.beads import beads_to_phases


def chain(issues: int) -> str:
    """``issues`` issues, each waiting on the one before; the first waits on the last (a cycle)."""
    lines = []
    for n in range(issues):
        waits = n - 1 if n else issues - 1
        dep = {"issue_id": f"bd-{n}", "depends_on_id": f"bd-{waits}", "type": "blocks"}
        issue = {"id": f"bd-{n}", "title": f"Issue {n}", "status": "open", "dependencies": [dep]}
        lines.append(json.dumps(issue))
    return "\n".join(lines) + "\n"


def flat(issues: int) -> str:
    """``issues`` plain open issues, one per line."""
    return "".join(f'{{"id":"bd-{n}","title":"Issue {n}","status":"open"}}\n' for n in range(issues))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=16_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--refused", type=int, default=150_000)
    args = parser.parse_args()
    text = chain(args.issues)
    walls, cpus = [], []
    for _ in range(args.repeat):
        start, cpu = time.perf_counter(), time.process_time()
        read = beads_to_phases(text)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    print(f"chain of {args.issues:,} issues, {args.repeat} runs; {len(read.errors)} link(s) not enforced")
    for name, times in (("wall-clock", sorted(walls)), ("CPU", sorted(cpus))):
        middle = times[len(times) // 2]
        print(f"  {name}: min {times[0]:.3f} s, median {middle:.3f} s, max {times[-1]:.3f} s")
    big = flat(args.refused)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        beads_to_phases(big)
        outcome = "imported"
    except InvalidParams as error:
        outcome = f"refused ({error.problems[0]})"
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"{args.refused:,} issues ({len(big):,} characters): {outcome}")
    print(f"  {seconds:.3f} s, peak {peak / 2**20:.0f} MiB besides the text")


if __name__ == "__main__":
    main()
