"""What keeps a team write on a big plan cheap must not change what it does: phases read
before lend their contents and ids, tasks are found by scanning before any index, and
``details.ready`` is listed when read."""

from __future__ import annotations

from typing import Any

import phasetodo
from phasetodo import Phase
from phasetodo._core.codec import dump_phases, load_phases
from phasetodo._profiles.team.engine import apply_team, ready_tasks
from phasetodo._profiles.team.schema import parse_team_params


def plan(phases: int = 3, tasks: int = 20) -> tuple[Phase, ...]:
    """A team plan (ids given) of ``phases`` phases of ``tasks`` tasks."""
    items = [{"phase": f"P{p}", "items": [f"task {p}-{n}" for n in range(tasks)]} for p in range(phases)]
    outcome = apply_team((), parse_team_params({"ops": [{"op": "init", "list": items}]}), agent="lead")
    assert not outcome.errors
    return outcome.phases


def call(phases: tuple[Phase, ...], *ops: dict[str, Any], agent: str = "w1") -> Any:
    return apply_team(phases, parse_team_params({"ops": list(ops)}), agent=agent, lead="lead")


BATCH = (
    {"op": "append", "phase": "P1", "items": ["late one", {"content": "later", "after": ["t3"]}]},
    {"op": "note", "task": "t25", "text": "seen"},
    {"op": "rm", "task": "task 2-4"},
    {"op": "start", "task": "t7"},
)


class TestLentColumns:
    def test_a_call_leaves_the_phases_it_read_as_they_were(self) -> None:
        """A call that adds, notes, removes and claims on phases read by an earlier call
        changes none of them, and gives what the same call on a fresh copy gives."""
        phases = plan()
        before = dump_phases(phases)
        call(phases, {"op": "start"})  # the phases are read (and kept) once
        outcome = call(phases, *BATCH)
        assert not outcome.errors
        assert dump_phases(phases) == before
        fresh = call(load_phases(before), *BATCH)
        assert dump_phases(outcome.phases) == dump_phases(fresh.phases)
        assert call(phases, *BATCH).phases == outcome.phases

    def test_a_refused_call_on_phases_read_before_changes_nothing(self) -> None:
        """All or nothing holds on lent columns too: the plan comes back as it was."""
        phases = plan()
        call(phases, {"op": "start"})
        refused = call(phases, *BATCH, {"op": "done", "task": "no such task"})
        assert refused.errors
        assert refused.phases == phases


class TestLookups:
    def test_many_ids_in_one_call_each_find_their_task(self) -> None:
        """Past the first few ids (found by scanning) the rest go through an index: each
        note lands on the task with that id, removed tasks' ids found nowhere."""
        phases = plan(phases=4, tasks=10)
        ids = {t.id: t.content for p in phases for t in p.tasks}
        chosen = [f"t{n}" for n in range(3, 40, 3)]
        outcome = call(phases, *({"op": "note", "task": i, "text": f"note {i}"} for i in chosen))
        assert not outcome.errors
        noted = {t.content: t.notes for p in outcome.phases for t in p.tasks if t.notes}
        assert noted == {ids[i]: (f"note {i}",) for i in chosen}
        removed = call(phases, {"op": "rm", "task": "t5"}).phases
        gone = call(removed, {"op": "note", "task": "t5", "text": "x"})
        assert gone.errors == (
            'Task "t5" not found — no task of the plan has the id "t5" now (a removed task\'s id is '
            "never given again)",
        )
        other = call(phases, {"op": "note", "task": "task-3", "text": "x"})
        assert other.errors == (
            'Task "task-3" not found — name a task by its content or by its id ("t1", "t2", …)',
        )


class TestReady:
    def test_details_ready_lists_every_ready_task_when_read(self) -> None:
        """``details["ready"]`` of a write is every ready task in plan order, and the
        summary counts the same number."""
        store = phasetodo.MemoryStore()
        with phasetodo.Session.open("plan", store, profile="team", agent="w1") as session:
            session.write({"ops": [{"op": "init", "list": [
                {"phase": "A", "items": ["a1", "a2", {"content": "a3", "after": ["b1"]}]},
                {"phase": "B", "items": ["b1", "b2"]},
            ]}]})
            result = session.write({"ops": [{"op": "start"}]})
            expected = [task.content for _, task in ready_tasks(session.phases)]
            assert result.details["ready"] == expected == ["a2", "b1", "b2"]
            assert "Ready (3):" in result.text
