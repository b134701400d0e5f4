"""The log records' edits: what a write changed, matched by identity first, then by value."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from phasetodo._core.codec import dump_phases, load_phases
from phasetodo._core.model import Phase
from phasetodo.stores._records import diff, patch
from phasetodo.testing import calls
from phasetodo.tool import call

from ..budget import examples


def _rebuilt(phases: tuple[Phase, ...]) -> tuple[Phase, ...]:
    """Equal values that share no object with ``phases``."""
    return load_phases(dump_phases(phases))


class TestDiff:
    @settings(max_examples=examples(200))
    @given(calls())
    def test_the_edit_of_a_call_gives_its_list(self, drawn: tuple[tuple[Phase, ...], Any]) -> None:
        """Patching the list before a call with its edit gives the list after it, whether the
        after list shares the engine's values or is rebuilt from JSON."""
        before, params = drawn
        after = call(params, before).phases
        assert patch(before, diff(before, after)) == after
        assert patch(before, diff(before, _rebuilt(after))) == after

    @settings(max_examples=examples(100))
    @given(calls())
    def test_an_equal_rebuilt_list_is_one_span(self, drawn: tuple[tuple[Phase, ...], Any]) -> None:
        """A list rebuilt by value, sharing no object, still matches phase for phase."""
        before, _ = drawn
        edit = diff(before, _rebuilt(before))
        assert edit == ([[0, len(before)]] if before else [])

    def test_a_team_write_costs_what_it_changed(self) -> None:
        """A team write on 100 phases records one changed phase and spans for the rest."""
        plan = [
            {"name": f"P{p}", "tasks": [{"content": f"t{p}.{t}", "status": "pending"} for t in range(20)]}
            for p in range(100)
        ]
        before = call({"ops": [{"op": "start"}]}, load_phases(plan), profile="team", agent="w1").phases
        after = call(
            {"ops": [{"op": "note", "task": "t0.0", "text": "found it"}]}, before, profile="team", agent="w1"
        ).phases
        edit = diff(before, after)
        assert edit[0]["at"] == 0
        assert edit[1:] == [[1, 100]]
        assert patch(before, edit) == after
