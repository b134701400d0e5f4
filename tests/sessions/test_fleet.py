"""A small fleet (8 agent processes, two of them SIGKILLed holding a claim) on each store.

The benchmark's own run (``benchmarks.fleet.run_fleet``) with real processes: every task
completed, none completed twice, and the killed agents' claims taken over after their lease.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.fleet import run_fleet

from .. import postgres_support

pytestmark = pytest.mark.slow


def _check(run_spec: str, folder: Path) -> None:
    run = run_fleet(run_spec, agents=8, tasks=120, kill=0.25, lease=1.0, work=0.005, folder=folder)
    assert run.killed == 2
    assert (run.completed, run.completed_twice) == (120, 0)
    assert run.reclaimed >= run.killed  # each killed agent held a claim another agent took over
    assert run.claims >= 120
    # the clock stops at the write that closed the last task, before the agents had all exited
    assert 0 < run.seconds <= run.exited_seconds


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
def test_a_fleet_with_killed_agents_finishes_every_task_once(kind: str, tmp_path: Path) -> None:
    """JSONL and SQLite: all tasks done exactly once, the killed holders' tasks reclaimed."""
    spec = f"jsonl:{tmp_path / 'store'}" if kind == "jsonl" else f"sqlite:{tmp_path / 'fleet.db'}"
    _check(spec, tmp_path)


def test_a_fleet_on_postgres(postgres_dsn: str, tmp_path: Path) -> None:
    """PostgreSQL: the same run against the throwaway cluster."""
    postgres_support.reset(postgres_dsn)
    _check(postgres_dsn, tmp_path)
