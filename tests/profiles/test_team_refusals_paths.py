"""Team plans refuse what the caller may not do, with an error naming the task and the holder."""

from __future__ import annotations

from typing import Any

import phasetodo

PLAN = {"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a", "b", "c"]}]}]}


def _plan() -> tuple[phasetodo.Session, phasetodo.Session, phasetodo.Session]:
    """A lead's plan where w1 holds task a, blocked on CI; w2 holds nothing."""
    store = phasetodo.MemoryStore()
    lead = phasetodo.Session.open("p", store=store, profile="team", agent="lead")
    lead.todo_write(PLAN)
    w1 = phasetodo.Session.open("p", store=store, profile="team", agent="w1")
    w2 = phasetodo.Session.open("p", store=store, profile="team", agent="w2")
    w1.todo_write({"ops": [{"op": "start", "task": "a"}]})
    w1.todo_write({"ops": [{"op": "block", "task": "a", "reason": "CI is down"}]})
    return lead, w1, w2


def _errors(session: phasetodo.Session, *ops: dict[str, Any]) -> list[str]:
    """The error lines of a refused call (which must leave the plan's version as it was)."""
    version = session.version
    result = session.todo_write({"ops": list(ops)})
    assert result["isError"] is True
    assert session.version == version
    lines = result["content"][0]["text"].splitlines()
    assert lines[0] == "Errors — nothing was applied, the plan is unchanged:"
    return [line.removeprefix("- ") for line in lines[1 : lines.index("")]]


class TestAnotherAgentsTask:
    def test_another_agent_may_not_unblock_it(self) -> None:
        """w2 cannot unblock the task w1 holds; the error names both and the lead."""
        _, _, w2 = _plan()
        assert _errors(w2, {"op": "unblock", "task": "a"}) == [
            'Task "a" belongs to agent "w1": only it or the lead ("lead") may unblock it'
        ]

    def test_the_lead_may_unblock_it(self) -> None:
        """The lead unblocks any task: it is pending again, for anyone."""
        lead, _, _ = _plan()
        result = lead.todo_write({"ops": [{"op": "unblock", "task": "a"}]})
        assert result["isError"] is False
        (task, *_) = lead.phases[0].tasks
        assert (task.status, task.reason) == (phasetodo.Status.PENDING, None)

    def test_another_agent_may_not_add_its_dependencies(self) -> None:
        """Making another agent's task wait is refused too."""
        _, _, w2 = _plan()
        (error,) = _errors(w2, {"op": "after", "task": "a", "after": ["b"]})
        assert error == 'Task "a" belongs to agent "w1": only it or the lead ("lead") may make it wait'


class TestTargets:
    def test_unblocking_a_task_that_is_not_blocked_is_refused(self) -> None:
        """An unblock of a pending task says it is not blocked."""
        _, _, w2 = _plan()
        assert _errors(w2, {"op": "unblock", "task": "b"}) == ['Task "b" is not blocked']

    def test_a_note_without_a_task_is_refused(self) -> None:
        """A note whose task is empty names the op."""
        _, _, w2 = _plan()
        errors = _errors(w2, {"op": "note", "task": "", "text": "x"})
        assert errors == ["Missing task content for note operation"]
