"""The model values where the mutation check found no test: checks of given values, bulk-built tasks."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import phasetodo
from phasetodo import Phase, Status, Task


@attrs.frozen
class _OtherPhase(Phase):
    """A Phase subclass: not a phase the engine takes."""


class TestGivenValues:
    def test_every_malformed_value_is_named(self) -> None:
        """Phase values with wrong field types are refused, each bad place named, in order."""
        bad: Any = (5, "oops", 7, ("x", 3), 1, (4,))  # values of the wrong types, on purpose
        phases = [
            Phase(bad[0], (Task("a"), bad[1], Task(bad[2]), Task("b", notes=bad[3]), Task("c"))),
            _OtherPhase("R"),
            Phase("Q", (bad[4], Task("d", notes=bad[5]))),
        ]
        for profile in ("parity", "strict", "team"):
            with pytest.raises(phasetodo.InvalidPhases) as caught:
                phasetodo.todo_write({"ops": [{"op": "done"}]}, phases, profile=profile)
            assert caught.value.problems == (
                "phases[0].name: must be a string",
                "phases[0].tasks[1]: must be a task, not str",
                "phases[0].tasks[2].content: must be a string",
                "phases[0].tasks[3].notes: must be strings",
                "phases[1]: must be a phase, not _OtherPhase",
                "phases[2].tasks[0]: must be a task, not int",
                "phases[2].tasks[1].notes: must be strings",
            )

    def test_well_formed_values_pass(self) -> None:
        """Values of the right types are taken as they are."""
        phases = [Phase("P", (Task("a", Status.IN_PROGRESS, ("n",)),))]
        result = phasetodo.todo_write({"ops": [{"op": "done", "task": "a"}]}, phases)
        assert result["details"]["phases"] == [
            {"name": "P", "tasks": [{"content": "a", "status": "completed", "notes": ["n"]}]}
        ]


class TestConverters:
    def test_status_given_by_name(self) -> None:
        """A status given by its name is stored as the Status itself."""
        task = Task("a", "completed")
        assert task.status is Status.COMPLETED
        assert Task("a", Status.BLOCKED).status is Status.BLOCKED


class TestManyTasks:
    SIZES = (3, 9, 40)

    @pytest.mark.parametrize("size", SIZES)
    def test_markdown_phase_of_any_size(self, size: int) -> None:
        """A phase read from Markdown holds plain tasks, however many it has."""
        text = "# P\n" + "".join(f"- [{' x'[i % 2]}] t{i}\n" for i in range(size))
        phases, errors = phasetodo.markdown_to_phases(text)
        assert errors == []
        expected = tuple(Task(f"t{i}", Status.COMPLETED if i % 2 else Status.PENDING) for i in range(size))
        assert phases[0].tasks[1:] == expected[1:]
        assert all(t.owner is None and t.reason is None and t.after == () for t in phases[0].tasks)

    @pytest.mark.parametrize("size", SIZES)
    def test_values_after_a_call_of_any_size(self, size: int) -> None:
        """The values a call returns keep each task's notes, and carry no team fields."""
        before = [
            Phase("P", tuple(Task(f"t{i}", notes=(f"n{i}",) if i % 3 == 0 else ()) for i in range(size)))
        ]
        tool = phasetodo.TodoWriteTool(phasetodo.tool.MemoryState(before))
        result = tool.execute({"ops": [{"op": "done", "phase": "P"}]})
        tasks = result.phases[0].tasks
        assert tasks == tuple(
            Task(f"t{i}", Status.COMPLETED, (f"n{i}",) if i % 3 == 0 else ()) for i in range(size)
        )
        assert all(t.owner is None and t.reason is None and t.after == () for t in tasks)
