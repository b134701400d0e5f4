"""Options a session refuses, naming them, and what a scoped handle shows of the plan."""

from __future__ import annotations

import pytest

import phasetodo
from phasetodo.errors import InvalidOption, InvalidOptionType

PLAN = {"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a"]}, {"phase": "B", "items": ["b"]}]}]}


class TestLease:
    @pytest.mark.parametrize("lease", [0, -1, True, float("inf"), float("nan"), "5"])
    def test_a_lease_that_is_not_a_positive_number_is_named(self, lease: object) -> None:
        """Zero, a negative, a bool, infinity, NaN or text as the lease names ``lease`` and the value."""
        with pytest.raises(InvalidOption, match=r"^lease: must be a positive number of seconds, not "):
            phasetodo.Session.open("p", "memory:", profile="team", agent="w1", lease=lease)  # type: ignore[arg-type]


class TestScoped:
    def test_a_plan_that_is_not_shared_cannot_be_scoped(self) -> None:
        """A parity session has no phases for subagents: scoped() names the profile it needs."""
        with (
            phasetodo.Session.open("s", "memory:") as session,
            pytest.raises(InvalidOption, match="scoped: needs a shared profile such as 'team', not 'parity'"),
        ):
            session.scoped(agent="w1", phase="A")

    @pytest.mark.parametrize(
        ("agent", "phase", "field"), [("", "A", "agent"), (3, "A", "agent"), ("w1", "", "phase")]
    )
    def test_an_empty_agent_or_phase_is_named(self, agent: object, phase: str, field: str) -> None:
        """The agent and the phase of a scoped handle must be non-empty text."""
        with (
            phasetodo.Session.open("p", "memory:", profile="team", agent="lead") as lead,
            pytest.raises(InvalidOptionType, match=f"^{field}: must be a non-empty string$"),
        ):
            lead.scoped(agent=agent, phase=phase)  # type: ignore[arg-type]

    def test_a_handle_shows_its_phase_and_the_whole_plan(self) -> None:
        """``phases`` is the scoped phase, ``plan`` the whole plan, ``refresh`` catches up with others."""
        store = phasetodo.MemoryStore()
        lead = phasetodo.Session.open("p", store=store, profile="team", agent="lead")
        lead.todo_write(PLAN)
        handle = lead.scoped(agent="w1", phase="B")
        assert (handle.storage, [p.name for p in handle.phases], [p.name for p in handle.plan]) == (
            "memory", ["B"], ["A", "B"],
        )
        other = phasetodo.Session.open("p", store=store, profile="team", agent="lead")
        other.todo_write({"ops": [{"op": "append", "phase": "B", "items": ["b2"]}]})
        assert [t.content for p in handle.refresh() for t in p.tasks] == ["b", "b2"]
