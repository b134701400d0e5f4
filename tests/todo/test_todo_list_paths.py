"""The stored list ``phasetodo.todo`` is given: each malformed place is named, nothing is guessed."""

from __future__ import annotations

from typing import Any

import pytest

import phasetodo
from phasetodo import todo
from phasetodo.errors import InvalidOption, InvalidPhases

VIEW = {"op": "view"}


def _problems(phases: Any) -> tuple[str, ...]:
    with pytest.raises(InvalidPhases) as raised:
        todo.apply(VIEW, phases)
    return raised.value.problems


class TestMalformedLists:
    def test_a_list_that_is_not_a_list_is_named(self) -> None:
        """A mapping where the phases belong is refused as ``phases``."""
        assert _problems({"name": "A", "tasks": []}) == ("phases: must be a list",)

    def test_a_phase_that_is_not_an_object_is_named(self) -> None:
        """A phase given as a string names its index."""
        assert _problems(["A"]) == ("phases[0]: must be an object",)

    def test_a_phase_without_a_text_name_is_named(self) -> None:
        """A phase whose name is not text names ``.name``."""
        assert _problems([{"name": 3, "tasks": []}]) == ("phases[0].name: must be a string",)

    def test_a_phase_whose_tasks_are_not_a_list_is_named(self) -> None:
        """A phase whose tasks are an object names ``.tasks``."""
        assert _problems([{"name": "A", "tasks": {}}]) == ("phases[0].tasks: must be a list",)

    @pytest.mark.parametrize(
        ("task", "problem"),
        [
            ("a", "phases[0].tasks[1]: must be an object"),
            ({"content": 1, "status": "pending"}, "phases[0].tasks[1].content: must be a string"),
            ({"content": "b", "status": "done"}, "phases[0].tasks[1].status: unknown status 'done'"),
            (
                {"content": "b", "status": "blocked", "blocker": 5},
                "phases[0].tasks[1].blocker: must be a string",
            ),
        ],
    )
    def test_a_bad_task_is_named_by_its_place_and_field(self, task: Any, problem: str) -> None:
        """Each way a task can be wrong names the task's place and the field."""
        good = {"content": "a", "status": "pending"}
        assert _problems([{"name": "A", "tasks": [good, task]}]) == (problem,)

    def test_every_bad_place_is_named_at_once(self) -> None:
        """Problems in several phases come back together, in list order."""
        phases = [{"name": "A", "tasks": [{"content": "a", "status": "?"}]}, 7, {"name": None, "tasks": []}]
        assert _problems(phases) == (
            "phases[0].tasks[0].status: unknown status '?'",
            "phases[1]: must be an object",
            "phases[2].name: must be a string",
        )

    def test_the_message_lists_the_problems(self) -> None:
        """The error's text carries each problem on a line of its own."""
        with pytest.raises(InvalidPhases, match=r"invalid phases:\n  phases\[0\]: must be an object"):
            todo.to_markdown([None])


class TestWhatIsKept:
    def test_no_list_is_an_empty_list(self) -> None:
        """``None`` for the phases is the empty list."""
        assert todo.apply(VIEW, None)["details"]["phases"] == []

    def test_unknown_fields_and_a_foreign_dropper_are_left_out(self) -> None:
        """Fields the reference does not keep are dropped, and only ``droppedBy: "user"`` is kept."""
        task = {"content": "a", "status": "abandoned", "droppedBy": "someone", "extra": 1}
        phases = todo.apply(VIEW, [{"name": "A", "tasks": [task], "note": "x"}])["details"]["phases"]
        assert phases == [{"name": "A", "tasks": [{"content": "a", "status": "abandoned"}]}]

    def test_a_todo_sessions_own_list_is_read(self) -> None:
        """A ``todo`` session's phases (the engine's values) read as the list they hold."""
        with phasetodo.Session.open("t", "memory:", profile="todo") as session:
            session.todo_write({"op": "init", "list": [{"phase": "A", "items": ["a", "b"]}]})
            result = todo.apply({"op": "done", "task": "a"}, session.phases)
        tasks = result["details"]["phases"][0]["tasks"]
        assert [(t["content"], t["status"]) for t in tasks] == [("a", "completed"), ("b", "in_progress")]


class TestOptions:
    def test_an_unknown_storage_is_named(self) -> None:
        """``storage`` other than memory or session is refused, naming the value."""
        with pytest.raises(InvalidOption, match="storage: must be 'memory' or 'session', not 'disk'"):
            todo.apply(VIEW, [], storage="disk")
