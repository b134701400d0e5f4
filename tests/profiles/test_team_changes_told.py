"""What an agent is told happened on a team plan since its last look, by task id: renames, moves,
notes, removals, drops and tasks put back to pending, made by other agents and by people."""

from __future__ import annotations

import phasetodo
from phasetodo import person

PLAN = [{"phase": "Build", "items": ["A", "B", "C"]}, {"phase": "Ship", "items": ["D", "E"]}]
INIT = {"ops": [{"op": "init", "list": PLAN}]}
NOTE = {"ops": [{"op": "note", "task": "A", "text": "still on it"}]}


def _team(store: phasetodo.MemoryStore) -> tuple[phasetodo.Session, phasetodo.Session, phasetodo.Session]:
    """A lead's plan (Build: A B C; Ship: D E) and two agents' handles on it."""
    lead = phasetodo.Session.open("p", store=store, profile="team", agent="lead")
    lead.todo_write(INIT)
    w1 = phasetodo.Session.open("p", store=store, profile="team", agent="w1")
    w2 = phasetodo.Session.open("p", store=store, profile="team", agent="w2")
    return lead, w1, w2


def _told(session: phasetodo.Session) -> list[str]:
    """The lines of "Since your last look" that the agent's next call opens with."""
    lines = session.todo_write(NOTE)["content"][0]["text"].splitlines()
    assert lines[0].startswith("Since your last look")
    end = next(i for i, line in enumerate(lines) if line.startswith("You ("))
    return [line.strip() for line in lines[1:end]]


class TestWhatIsTold:
    def test_a_rename_a_move_and_a_note_are_told_as_one_line_per_task(self) -> None:
        """A person's whole-list edit that renames and moves a task is one line naming both."""
        lead, w1, w2 = _team(phasetodo.MemoryStore())
        w1.todo_write({"ops": [{"op": "start", "task": "A"}]})
        w2.todo_write({"ops": [{"op": "start", "task": "B"}]})
        w2.todo_write({"ops": [{"op": "note", "task": "B", "text": "flaky"}]})
        plan = phasetodo.dump_phases(lead.phases)
        moved = plan[0]["tasks"].pop(2)
        moved["content"] = "C2"
        plan[1]["tasks"].append(moved)
        del plan[1]["tasks"][0]
        lead.user_edit(plan, source="board")
        assert _told(w1) == [
            'w2 claimed t2 "B"; a note on t2 "B"',
            'renamed t3 "C" to "C2"; moved t3 "C2" to Ship',
            'removed t4 "D" (Ship)',
        ]

    def test_a_reset_a_drop_and_a_removed_phase_are_told(self) -> None:
        """A task a person put back, one the lead dropped, and each task of a removed phase."""
        lead, w1, w2 = _team(phasetodo.MemoryStore())
        w2.todo_write({"ops": [{"op": "start", "task": "B"}]})
        w1.todo_write({"ops": [{"op": "start", "task": "A"}]})
        assert person.reset_to_pending(lead, "B", source="cli").changed
        lead.todo_write({"ops": [{"op": "drop", "task": "C"}]})
        lead.user_edit(phasetodo.dump_phases(lead.phases)[:1], source="board")
        assert _told(w1) == [
            't2 "B" is pending again',
            'lead dropped t3 "C"',
            'removed t4 "D" (Ship)',
            'removed t5 "E" (Ship)',
        ]

    def test_a_person_resetting_a_task_that_is_not_there_changes_nothing(self) -> None:
        """Putting back a task no phase holds records nothing and says which task was not found."""
        lead, _, _ = _team(phasetodo.MemoryStore())
        version = lead.version
        outcome = person.reset_to_pending(lead, "Z", source="cli")
        assert (outcome.changed, outcome.errors) == (False, ('Task "Z" not found',))
        assert lead.version == version
