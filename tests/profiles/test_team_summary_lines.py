"""What an agent reads back from a team plan, line by line, where the mutation check found no test."""

from __future__ import annotations

from typing import Any

import phasetodo
from phasetodo import Phase, Status, Task
from phasetodo._profiles.team.summary import format_team_head, format_team_summary

ACTIVE, DONE, DROPPED, BLOCKED = Status.IN_PROGRESS, Status.COMPLETED, Status.ABANDONED, Status.BLOCKED

TEAM = (
    Phase(
        "Build",
        (
            Task("Parser", DONE, owner="w1"),
            Task("Lexer", ACTIVE, ("use re", "two\nlines"), owner="w2"),
            Task("Deploy", BLOCKED, owner="w1", reason="no credentials"),
            Task("Tests", after=("Lexer",)),
            Task("Docs"),
        ),
    ),
    Phase("Ship", (Task("Tag", DROPPED), Task("Push", notes=("n1",)), Task("Wait", BLOCKED))),
)

PLAN = """\
Plan (2/8 closed):
  Build:
    ✓ Parser [w1]
    → Lexer [w2] (+2 notes)
    ⊘ Deploy [w1] — blocked: no credentials
    ○ Tests (after: Lexer)
    ○ Docs
  Ship:
    ✗ Tag
    ○ Push (+1 note)
    ⊘ Wait"""

OTHERS = """\
Blocked (2):
  ⊘ "Deploy" (Build) — no credentials [w1]
  ⊘ "Wait" (Ship) — no reason given
Waiting (1):
  "Tests" (Build) after "Lexer\""""


def _view(phases: Any, agent: str | None) -> dict[str, Any]:
    """A team call that changes nothing (its one op fails): the text and details the agent gets."""
    return phasetodo.todo_write(  # type: ignore[return-value]
        {"ops": [{"op": "note", "task": "no such task", "text": "x"}]},
        list(phases),
        profile="team",
        agent=agent,
    )


class TestAgentView:
    def test_on_a_task(self) -> None:
        """An agent on a task reads it first, with its notes, then the ready, blocked and waiting tasks."""
        assert format_team_summary(TEAM, "w2") == (
            'You (w2) are on "Lexer" (Build).\n'
            "    use re\n"
            "    ---\n"
            "    two\n"
            "    lines\n"
            'Ready (2): "Docs" (Build), "Push" (Ship)\n' + OTHERS + "\n" + PLAN
        )

    def test_without_a_task(self) -> None:
        """An agent with no task is told how to claim one and sees who is on what, after the errors."""
        assert format_team_summary(TEAM, "w1", errors=["e1", "e2"], notices=["a notice"]) == (
            "Errors — nothing was applied, the plan is unchanged:\n"
            "- e1\n"
            "- e2\n"
            "\n"
            "a notice\n"
            "You (w1) have no task: start {} claims the next ready one.\n"
            'Ready (2): "Docs" (Build), "Push" (Ship)\n'
            "On it:\n"
            '  w2 → "Lexer" (Build)\n' + OTHERS + "\n" + PLAN
        )

    def test_a_person_sees_the_team(self) -> None:
        """Without an agent there is no "You" line; the head alone leaves the plan out."""
        head = 'Ready (2): "Docs" (Build), "Push" (Ship)\nOn it:\n  w2 → "Lexer" (Build)\n' + OTHERS
        assert format_team_summary(TEAM, None) == head + "\n" + PLAN
        assert format_team_summary(TEAM, None, plan=False) == head
        assert format_team_head(TEAM) == head
        assert format_team_head(TEAM, "w2").startswith('You (w2) are on "Lexer" (Build).\n')

    def test_nothing_ready(self) -> None:
        """When every open task is blocked or waiting, the agent is told none is ready."""
        phases = (Phase("A", (Task("x", BLOCKED, reason="r"), Task("y", after=("x",)))),)
        assert format_team_summary(phases, "w3") == (
            "You (w3) have no task, and none is ready.\n"
            "Ready: none.\n"
            "Blocked (1):\n"
            '  ⊘ "x" (A) — r\n'
            "Waiting (1):\n"
            '  "y" (A) after "x"\n'
            "Plan (0/2 closed):\n"
            "  A:\n"
            "    ⊘ x — blocked: r\n"
            "    ○ y (after: x)"
        )

    def test_an_unowned_active_task(self) -> None:
        """An active task nobody owns is listed as on "?", its notes counted in the plan."""
        phases = (Phase("Plain", (Task("a", ACTIVE, ("n1", "n2")), Task("b"))),)
        assert format_team_summary(phases, "w1") == (
            "You (w1) have no task: start {} claims the next ready one.\n"
            'Ready (1): "b" (Plain)\n'
            "On it:\n"
            '  ? → "a" (Plain)\n'
            "Plan (0/2 closed):\n"
            "  Plain:\n"
            "    → a (+2 notes)\n"
            "    ○ b"
        )


class TestActiveNotes:
    def test_an_owned_active_task_counts_its_notes(self) -> None:
        """In a phase whose only team field is an owner, the active task's notes are counted, not shown."""
        phases = (Phase("B", (Task("L", ACTIVE, ("n1", "n2"), owner="w2"), Task("x", DONE, owner="w1"))),)
        assert format_team_summary(phases, "w2") == (
            'You (w2) are on "L" (B).\n'
            "    n1\n"
            "    ---\n"
            "    n2\n"
            "Ready: none.\n"
            "Plan (1/2 closed):\n"
            "  B:\n"
            "    → L [w2] (+2 notes)\n"
            "    ✓ x [w1]"
        )

    def test_an_unowned_active_task_next_to_owned_ones(self) -> None:
        """Next to owned tasks, an active task nobody owns has its notes counted too."""
        phases = (Phase("B", (Task("L", ACTIVE, ("n1",)), Task("x", DONE, owner="w1"))),)
        assert format_team_summary(phases, None).endswith("  B:\n    → L (+1 note)\n    ✓ x [w1]")


class TestReady:
    def test_ten_shown_then_a_count(self) -> None:
        """The head names the first ten ready tasks, across phases, and counts the rest."""
        phases = (
            Phase("A", tuple(Task(f"a{i}") for i in range(7))),
            Phase("B", tuple(Task(f"b{i}") for i in range(5))),
        )
        shown = ", ".join([*(f'"a{i}" (A)' for i in range(7)), *(f'"b{i}" (B)' for i in range(3))])
        assert format_team_head(phases, "w1") == (
            f"You (w1) have no task: start {{}} claims the next ready one.\nReady (12): {shown}, and 2 more"
        )

    def test_ready_tasks_of_later_phases(self) -> None:
        """Ready tasks are found in every phase, after a phase with none; waits name every task."""
        phases = (
            Phase("Done", (Task("x", DONE, owner="w1"),)),
            Phase("Next", (Task("y"), Task("w", after=("y", "z")), Task("z"))),
        )
        assert format_team_head(phases, "w1") == (
            "You (w1) have no task: start {} claims the next ready one.\n"
            'Ready (2): "y" (Next), "z" (Next)\n'
            "Waiting (1):\n"
            '  "w" (Next) after "y", "z"'
        )

    def test_exactly_ten(self) -> None:
        """Ten ready tasks are all named, with no count after them."""
        phases = (Phase("A", tuple(Task(f"a{i}") for i in range(10))),)
        assert format_team_head(phases).endswith('"a8" (A), "a9" (A)')


class TestPlanLines:
    def test_team_fields_on_each_line(self) -> None:
        """Owner, a blocked task's reason, after and the note count are on the task's line."""
        phases = (
            Phase(
                "Odd",
                (
                    Task("multi\nline", BLOCKED, ("x",), owner="w1", reason="r"),
                    Task("stale", reason="old"),
                    Task("w", after=("a", "b"), notes=("1", "2")),
                    Task("own", owner="w9"),
                ),
            ),
        )
        assert format_team_summary(phases, None) == (
            'Ready (2): "stale" (Odd), "w" (Odd)\n'
            "Blocked (1):\n"
            '  ⊘ "multi line" (Odd) — r [w1]\n'  # the lists show a task on one line
            "Plan (0/4 closed):\n"
            "  Odd:\n"
            "    ⊘ multi\nline [w1] — blocked: r (+1 note)\n"
            "    ○ stale\n"
            "    ○ w (after: a, b) (+2 notes)\n"
            "    ○ own [w9]"
        )

    def test_scope_shows_one_phase(self) -> None:
        """A scoped caller sees only its phase, and is told so."""
        assert format_team_summary(TEAM, None, scope="Ship") == (
            'Phase "Ship" is yours to work; the rest of the plan is not shown.\n'
            'Ready (1): "Push" (Ship)\n'
            "Blocked (1):\n"
            '  ⊘ "Wait" (Ship) — no reason given\n'
            "Plan (1/3 closed):\n"
            "  Ship:\n"
            "    ✗ Tag\n"
            "    ○ Push (+1 note)\n"
            "    ⊘ Wait"
        )
        assert format_team_summary(TEAM, "w1", scope="Ship", plan=False) == (
            'Phase "Ship" is yours to work; the rest of the plan is not shown.\n'
            "You (w1) have no task: start {} claims the next ready one.\n"
            'Ready (1): "Push" (Ship)\n'
            "Blocked (1):\n"
            '  ⊘ "Wait" (Ship) — no reason given'
        )

    def test_empty_plan(self) -> None:
        """A plan without tasks says so, after any errors and notices."""
        assert format_team_summary((), "w1") == "The plan is empty."
        assert format_team_summary((Phase("E"),), "w1", errors=["bad"], notices=["hi"]) == (
            "Errors — nothing was applied, the plan is unchanged:\n- bad\n\nhi\nThe plan is empty."
        )


class TestEmptyPlanDetails:
    def test_details_of_an_empty_plan(self) -> None:
        """A call on an empty plan reports no phases and no ready tasks, as lists."""
        details = _view([], "w1")["details"]
        assert (details["phases"], details["ready"]) == ([], [])


class TestDetails:
    PHASES = (
        Phase(
            "Odd",
            (
                Task("multi\nline", BLOCKED, ("x",), owner="w1", reason="r"),
                Task("w", after=("a", "b"), notes=("1", "2")),
                Task("act", ACTIVE, ("n",), owner="w2"),
            ),
        ),
        Phase("Plain", (Task("a", DONE, ("n1", "n2")), Task("b"))),
        Phase("Own", (Task("o1", DONE, owner="w1"), Task("o2", DROPPED, ("z",), owner="w3"))),
        Phase("Later", (Task("l1", after=("b",)), Task("l2", BLOCKED, reason="why"))),
    )

    def test_details_hold_the_whole_plan(self) -> None:
        """``details.phases`` is the plan as ``dump_phases`` writes it, team fields included."""
        result = _view(self.PHASES, "w2")
        details = result["details"]["phases"]
        assert [t["id"] for p in details for t in p["tasks"]] == [f"t{n}" for n in range(1, 10)]
        assert details[0].pop("last_id") == 9
        for task in (t for p in details for t in p["tasks"]):
            del task["id"]
        assert details == phasetodo.dump_phases(self.PHASES)
        assert result["details"]["ready"] == ["b"]

    def test_text_of_the_plan(self) -> None:
        """The plan lines of a mixed plan: plain phases, owned tasks and the team's own lines."""
        text = _view(self.PHASES, "w2")["content"][0]["text"]
        assert text.endswith(
            "Plan (3/9 closed):\n"
            "  Odd:\n"
            "    ⊘ t1 multi\nline [w1] — blocked: r (+1 note)\n"
            "    ○ t2 w (after: a, b) (+2 notes)\n"
            "    → t3 act [w2] (+1 note)\n"
            "  Plain:\n"
            "    ✓ t4 a (+2 notes)\n"
            "    ○ t5 b\n"
            "  Own:\n"
            "    ✓ t6 o1 [w1]\n"
            "    ✗ t7 o2 [w3] (+1 note)\n"
            "  Later:\n"
            "    ○ t8 l1 (after: b)\n"
            "    ⊘ t9 l2 — blocked: why"
        )
