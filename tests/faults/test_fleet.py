"""A short fault run per store: the checker finds no anomaly once the guarantees hold.

A run whose anomaly is known and not fixed yet is an expected failure that names it.
"""

from __future__ import annotations

import argparse

import pytest
from benchmarks import faults

#: What the checker still finds (issue 32, open): each such run is an expected failure, not strict,
#: as the anomaly does not show in every short run; docs/reliability.md lists them.
JSONL_PAUSE = "under pause a fresh read once returned v222 after v230 was acknowledged (stale-read)"
PG_STALE = "on PostgreSQL a write's reply can show a list the log does not hold at its version (stale-base)"
PG_RESTART = "a write after an immediate PostgreSQL restart can be built on a list the log lost"
BOUNCER = "through PgBouncer a write can be built on an older list (stale-base)"


def _open(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=False, raises=AssertionError, reason=reason)


STORES = [
    pytest.param("jsonl", ("none", "kill", "readers", "skew"), id="jsonl"),
    pytest.param("jsonl", ("pause",), id="jsonl-pause", marks=_open(JSONL_PAUSE)),
    pytest.param("sqlite", ("none", "kill", "pause", "readers", "skew"), id="sqlite"),
    pytest.param(
        "postgres", ("none", "kill", "pause", "skew", "readers", "pg-terminate"), id="postgres",
        marks=[pytest.mark.postgres, _open(PG_STALE)],
    ),
    pytest.param(
        "postgres", ("pg-restart",), id="postgres-restart", marks=[pytest.mark.postgres, _open(PG_RESTART)]
    ),
    pytest.param("pgbouncer", ("none", "skew"), id="pgbouncer", marks=[pytest.mark.postgres, _open(BOUNCER)]),
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
