"""A short fault run per store: the checker finds no anomaly once the guarantees hold."""

from __future__ import annotations

import argparse

import pytest
from benchmarks import faults

STORES = [
    pytest.param("jsonl", ("none", "kill", "pause", "readers", "skew", "replace"), id="jsonl"),
    pytest.param("sqlite", ("none", "kill", "pause", "readers", "skew", "replace"), id="sqlite"),
    pytest.param(
        "postgres",
        ("none", "kill", "pause", "skew", "readers", "pg-terminate", "pg-restart"),
        id="postgres",
        marks=pytest.mark.postgres,
    ),
    pytest.param(
        "pgbouncer",
        ("none", "kill", "pause", "skew", "readers", "pg-terminate", "pg-restart"),
        id="pgbouncer",
        marks=pytest.mark.postgres,
    ),
]


@pytest.mark.slow
class TestShortRun:
    @pytest.mark.parametrize(("store", "kinds"), STORES)
    def test_no_anomaly(self, store: str, kinds: tuple[str, ...]) -> None:
        """Three agents for three seconds per fault kind leave a history with no anomaly."""
        options = argparse.Namespace(agents=3, seconds=3.0, lease=1.0, seed=7, keep=False)
        outcomes = faults.run([store], kinds, options)
        assert [o.fault for o in outcomes] == list(kinds)
        assert all(o.acknowledged for o in outcomes), faults.table(outcomes)
        assert [a for o in outcomes for a in o.anomalies] == [], faults.table(outcomes)
