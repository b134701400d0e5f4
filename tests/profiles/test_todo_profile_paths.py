"""A ``todo`` plan (the reference's one-op tool) under limits, and a person's edits of it:
what is refused names its place, and nothing is written."""

from __future__ import annotations

from typing import Any

import pytest

import phasetodo
from phasetodo import Limits, person
from phasetodo.errors import InvalidParams


@pytest.fixture
def plan() -> phasetodo.Session:
    """A todo plan with phase A (tasks a, b), at version 1, under small limits."""
    session = phasetodo.Session.open(
        "t", "memory:", profile="todo", limits=Limits(max_content=3, max_name=4, max_note=5)
    )
    session.todo_write({"op": "init", "list": [{"phase": "A", "items": ["a", "b"]}]})
    return session


def _refused(session: phasetodo.Session, params: Any) -> tuple[str, ...]:
    with pytest.raises(InvalidParams) as raised:
        session.todo_write(params)
    assert session.version == 1
    return raised.value.problems


class TestLimits:
    def test_an_init_names_each_text_over_its_limit(self, plan: phasetodo.Session) -> None:
        """Items and phase names of an init's list are checked in place; non-text items are the
        tool's own check's to name."""
        params = {"op": "init", "list": [{"phase": "A", "items": ["a", 3, "bbbbbb"]}, "x",
                                         {"phase": 7}, {"phase": "Phase", "items": ["ok"]}]}
        assert _refused(plan, params) == (
            "ops[0].list[0].items[2]: 6 characters, over the limit max_content=3",
            "ops[0].list[3].phase: 5 characters, over the limit max_name=4",
        )

    def test_an_append_names_its_phase_and_items(self, plan: phasetodo.Session) -> None:
        """An append's phase and each over-long item are named."""
        assert _refused(plan, {"op": "append", "phase": "Phase", "items": ["a", 5, "bbbbbb"]}) == (
            "ops[0].phase: 5 characters, over the limit max_name=4",
            "ops[0].items[2]: 6 characters, over the limit max_content=3",
        )

    def test_a_block_reason_is_a_note(self, plan: phasetodo.Session) -> None:
        """A blocker's reason counts against ``max_note``."""
        assert _refused(plan, {"op": "block", "task": "a", "reason": "too long reason"}) == (
            "ops[0].reason: 15 characters, over the limit max_note=5",
        )


class TestPersonEdits:
    def test_each_op_the_tool_refuses_is_named(self, plan: phasetodo.Session) -> None:
        """A person's ops on a todo plan are the tool's single ops; each bad one is named by index."""
        with pytest.raises(InvalidParams) as raised:
            person.apply_edit(plan, [{"op": "done", "task": "a"}, {"task": 3}], source="cli")
        assert raised.value.problems == (
            "ops[1]: op must be operation to apply (was missing)",
            "ops[1]: task must be task content (was a number)",
        )
        assert plan.version == 1

    def test_no_ops_change_nothing(self, plan: phasetodo.Session) -> None:
        """An empty edit records nothing."""
        outcome = person.apply_edit(plan, [], source="cli")
        assert (outcome.changed, outcome.errors, plan.version) == (False, (), 1)
