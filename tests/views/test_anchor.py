"""The compaction anchor: the list in a few bounded lines for after context compaction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phasetodo import REFERENCE_STATUSES, Phase, Status, Task, compaction_anchor
from phasetodo._views.anchor import MIN_ANCHOR_CHARS

from ..budget import examples

LIST = [
    Phase("Plan", (Task("Read code", Status.COMPLETED), Task("Pick approach", Status.ABANDONED))),
    Phase(
        "Build",
        (
            Task("Write tests", Status.IN_PROGRESS, ("first", "second\nline", "third", "fourth")),
            Task("Fix parser"),
        ),
    ),
    Phase("Ship", (Task("Tag release"),)),
]


class TestContent:
    def test_full_rendering(self) -> None:
        """Progress, active task, latest notes, remaining tasks and phase progress, in order."""
        assert compaction_anchor(LIST) == "\n".join(
            [
                "Todo list (restored after context compaction; name tasks by their exact content):",
                "Progress: 2/5 tasks closed in 3 phases.",
                'Active: "Write tests" (Build)',
                "  Latest notes (1 earlier):",
                "    - second line",
                "    - third",
                "    - fourth",
                "Remaining (3):",
                "  - Write tests [in progress] (Build)",
                "  - Fix parser (Build)",
                "  - Tag release (Ship)",
                "Phases:",
                "  ✓ Plan 2/2",
                "  → Build 0/2",
                "  ○ Ship 0/1",
            ]
        )

    def test_empty_list(self) -> None:
        """An empty list says so in one line."""
        assert compaction_anchor([]) == "Todo list: empty."

    def test_no_active_task(self) -> None:
        """A finished list has no active task and no remaining section."""
        done = [Phase("P", (Task("a", Status.COMPLETED),))]
        anchor = compaction_anchor(done)
        assert "Active: none." in anchor
        assert "Remaining" not in anchor

    def test_accepts_json_dicts(self) -> None:
        """JSON phases render like values."""
        data = [{"name": "P", "tasks": [{"content": "a", "status": "in_progress"}]}]
        assert 'Active: "a" (P)' in compaction_anchor(data)

    def test_long_lists_are_counted_not_cut(self) -> None:
        """Past the bound the rest of the remaining tasks and phases are counted."""
        workload = Path(__file__).parents[2] / "benchmarks" / "workloads" / "w2_scale.json"
        before = json.loads(workload.read_text(encoding="utf-8"))["before"]
        anchor = compaction_anchor(before, max_chars=1_000)
        assert len(anchor) <= 1_000
        assert "more remaining" in anchor
        assert "more phases" in anchor

    def test_too_small_bound(self) -> None:
        """A bound below the minimum is refused, naming the argument."""
        with pytest.raises(ValueError, match="max_chars: must be at least 80"):
            compaction_anchor(LIST, max_chars=79)


_TEXT = st.text(max_size=300)


class TestBound:
    @settings(max_examples=examples(200), deadline=None)
    @given(
        phases=st.lists(
            st.builds(
                Phase,
                _TEXT,
                st.lists(
                    st.builds(Task, _TEXT, st.sampled_from(REFERENCE_STATUSES), st.lists(_TEXT, max_size=5)),
                    max_size=8,
                ),
            ),
            max_size=8,
        ),
        max_chars=st.integers(MIN_ANCHOR_CHARS, 3_000),
    )
    def test_never_longer_than_the_bound(self, phases: list[Phase], max_chars: int) -> None:
        """Whatever the list, the anchor fits in max_chars."""
        assert len(compaction_anchor(phases, max_chars=max_chars)) <= max_chars
