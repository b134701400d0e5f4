"""The strict profile's refusals and views around removals, on a real call."""

from __future__ import annotations

from typing import Any

import phasetodo

PLAN = phasetodo.todo_write(
    {"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a", "b"]}, {"phase": "B", "items": ["c"]}]}]},
    profile="strict",
)["details"]["phases"]


def _strict(*ops: dict[str, Any]) -> dict[str, Any]:
    return phasetodo.todo_write({"ops": list(ops)}, PLAN, profile="strict")


class TestRefusals:
    def test_an_append_to_a_blank_phase_is_refused(self) -> None:
        """Appending to a phase named with spaces fails, naming ``phase``; nothing is applied."""
        result = _strict({"op": "append", "phase": " ", "items": ["x"]})
        assert result["isError"] is True
        assert result["details"]["errors"] == ["ops[0] append: phase: a phase name must not be blank"]
        assert result["details"]["phases"] == PLAN

    def test_a_view_before_a_missed_removal_applies_nothing(self) -> None:
        """A view followed by an rm of a phase that is not there fails as one batch."""
        result = _strict({"op": "view", "task": "a"}, {"op": "rm", "phase": "Z"})
        assert result["details"]["errors"] == ['ops[1] rm: Phase "Z" not found']
        assert result["details"]["phases"] == PLAN


class TestViewsOfRemovedTasks:
    def test_a_task_whose_phase_the_call_removes_is_shown_as_it_was(self) -> None:
        """Viewing a task, then removing its whole phase: the view shows the task before it went."""
        result = _strict({"op": "view", "task": "c"}, {"op": "rm", "phase": "B"})
        text = result["content"][0]["text"]
        assert 'View of task "c" (phase "B", removed by this call): pending, no notes' in text

    def test_a_task_in_another_phase_is_shown_as_the_call_leaves_it(self) -> None:
        """Removing one phase leaves the view of a task elsewhere as it is."""
        result = _strict({"op": "view", "task": "a"}, {"op": "rm", "phase": "B"})
        assert 'View of task "a" (phase "A"): in_progress, no notes' in result["content"][0]["text"]
