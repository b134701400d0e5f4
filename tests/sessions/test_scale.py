"""``benchmarks.scale``: the issue's table in one command, on a small fleet of real processes."""

from __future__ import annotations

import pytest
from benchmarks import scale

pytestmark = pytest.mark.slow


def test_one_run_fills_every_row_for_each_store(capsys: pytest.CaptureFixture[str]) -> None:
    """Every figure gets a value per store, and the table says whether its goal was met."""
    sizes = scale.Sizes(agents=4, tasks=40, lease=1.0, events=20, big=500, rounds=1, larger="6")
    results = scale.run(["jsonl", "sqlite"], 1, None, sizes)
    assert set(results) == {*scale.FIGURES, "larger-6", "larger-6-p99"}
    for key in ("one", "pace", "plans", "larger-6", "open"):
        assert set(results[key]) == {"jsonl", "sqlite"}
        assert all(value > 0 for values in results[key].values() for value in values)
    assert results["beat"]["all"] == [0.0]  # heartbeats live beside the log
    lines = capsys.readouterr().out.splitlines()
    assert "| figure | jsonl | sqlite | goal | worst run |" in lines
    heartbeat = next(line for line in lines if line.startswith("| log bytes a heartbeat adds"))
    assert heartbeat == "| log bytes a heartbeat adds (JSONL) | 0.0 | 0.0 | ≤ 100 | met |"
    larger = next(line for line in lines if line.startswith("| a plan of 6 agents"))
    assert larger.endswith("| – | – |")  # reported, with no goal
