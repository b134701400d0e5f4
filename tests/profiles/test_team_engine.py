"""The team engine over values: claims, readiness, blocking, permissions, normalization."""

from __future__ import annotations

from typing import Any

import pytest

import phasetodo
from phasetodo import InvalidParams, Phase, Status, Task
from phasetodo._profiles.team.engine import (
    apply_team,
    find_cycle,
    normalize_team,
    ready_tasks,
    team_problems,
)
from phasetodo._profiles.team.schema import TEAM_PARAMS_SCHEMA, dump_team_op, parse_team_params

PLAN = {
    "op": "init",
    "list": [
        {
            "phase": "Build",
            "items": ["Parser", {"content": "Lexer"}, {"content": "Tests", "after": ["Parser", "Lexer"]}],
        },
        {"phase": "Ship", "items": [{"content": "Release", "after": ["Tests"]}]},
    ],
}


def team_call(
    params: dict[str, Any], phases: tuple[phasetodo.Phase, ...], **given: Any
) -> dict[str, Any]:
    """One team call through the one pipeline, as the JSON result (no limits: plans of any size)."""
    return dict(phasetodo.tool.call(params, phases, profile="team", limits=None, **given).to_json())


def call(phases: Any, agent: str | None, *ops: dict[str, Any], lead: str | None = "lead") -> dict[str, Any]:
    return team_call({"ops": list(ops)}, phasetodo.load_phases(phases), agent=agent, lead=lead)


def planned() -> list[dict[str, Any]]:
    phases: list[dict[str, Any]] = call([], "lead", PLAN)["details"]["phases"]
    return phases


def task(result: dict[str, Any], content: str) -> dict[str, Any]:
    """The task's entry in ``details.phases``, without its id (``TestIds`` checks those)."""
    found: dict[str, Any] = next(
        t for p in result["details"]["phases"] for t in p["tasks"] if t["content"] == content
    )
    return {k: v for k, v in found.items() if k != "id"}


def active(result: dict[str, Any]) -> dict[str, str]:
    return {
        t["content"]: t["owner"]
        for p in result["details"]["phases"]
        for t in p["tasks"]
        if t["status"] == "in_progress"
    }


class TestItems:
    def test_init_items_may_be_strings_or_objects(self) -> None:
        """init takes plain strings and {content, after} objects, and after reaches details."""
        phases = planned()
        assert phases[0]["tasks"][0] == {"content": "Parser", "status": "pending", "id": "t1"}
        assert phases[0]["tasks"][2] == {
            "content": "Tests",
            "status": "pending",
            "after": ["Parser", "Lexer"],
            "id": "t3",
        }

    def test_init_does_not_claim(self) -> None:
        """A plan made by init has nobody on any task until an agent starts one."""
        assert active(call([], "lead", PLAN)) == {}

    def test_after_must_name_tasks(self) -> None:
        """An after naming no task is an error and nothing is applied."""
        result = call(
            planned(),
            "w1",
            {"op": "append", "phase": "Ship", "items": [{"content": "Docs", "after": ["Nope"]}]},
        )
        assert result["isError"] is True
        assert 'Task "Docs" comes after "Nope", which is not a task' in result["details"]["errors"]
        assert result["details"]["phases"] == planned()

    def test_cycle_is_rejected(self) -> None:
        """Items that wait for each other in a ring are refused, naming the ring."""
        result = call(
            [],
            "lead",
            {
                "op": "init",
                "list": [
                    {
                        "phase": "P",
                        "items": [{"content": "a", "after": ["b"]}, {"content": "b", "after": ["a"]}],
                    }
                ],
            },
        )
        assert result["isError"] is True
        assert '"after" makes a cycle' in result["details"]["errors"][0]

    def test_self_reference_is_a_cycle(self) -> None:
        """A task that comes after itself is a cycle."""
        result = call(
            [], "lead", {"op": "init", "list": [{"phase": "P", "items": [{"content": "a", "after": ["a"]}]}]}
        )
        assert result["isError"] is True

    def test_duplicate_content_is_rejected(self) -> None:
        """Contents name tasks, so a team plan refuses a second task with the same content."""
        result = call(planned(), "w1", {"op": "append", "phase": "Ship", "items": ["Parser"]})
        assert result["details"]["errors"] == ['Task "Parser" already exists']

    def test_schema_lists_item_problems(self) -> None:
        """A bad item raises InvalidParams naming its place."""
        with pytest.raises(InvalidParams) as caught:
            parse_team_params({"ops": [{"op": "append", "phase": "P", "items": [3, {"after": ["x"]}]}]})
        assert list(caught.value.problems) == [
            "ops[0].items[0]: must be a string or an object with content and after",
            "ops[0].items[1].content: is required",
        ]

    def test_schema_offers_block_and_unblock(self) -> None:
        """The op enum of the team schema has block and unblock, and a reason field."""
        entry = TEAM_PARAMS_SCHEMA["properties"]["ops"]["items"]["properties"]
        assert {"block", "unblock", "after"} <= set(entry["op"]["enum"])
        assert entry["reason"]["type"] == "string"

    def test_ops_dump_back_to_their_json(self) -> None:
        """Every parsed op dumps back to the arguments it came from."""
        ops = [
            PLAN,
            {"op": "start"},
            {"op": "block", "task": "a", "reason": "r"},
            {"op": "unblock", "task": "a"},
            {"op": "done", "phase": "P"},
            {"op": "note", "task": "a", "text": "t"},
            {"op": "append", "phase": "P", "items": ["x", {"content": "y", "after": ["x"]}]},
        ]
        assert [dump_team_op(op) for op in parse_team_params({"ops": ops})] == [
            {
                **PLAN,
                "list": [
                    {"phase": "Build", "items": ["Parser", "Lexer", PLAN["list"][0]["items"][2]]},
                    PLAN["list"][1],
                ],
            },
            *ops[1:],
        ]


class TestClaims:
    def test_start_claims_for_the_agent(self) -> None:
        """start {task} makes the task in_progress with the caller as owner."""
        result = call(planned(), "w1", {"op": "start", "task": "Lexer"})
        assert task(result, "Lexer") == {"content": "Lexer", "status": "in_progress", "owner": "w1"}
        assert result["details"]["task"] == "Lexer"

    def test_start_without_task_claims_next_ready(self) -> None:
        """start {} claims the first ready task in plan order."""
        assert active(call(planned(), "w1", {"op": "start"})) == {"Parser": "w1"}

    def test_previous_task_goes_back_unowned(self) -> None:
        """Claiming a second task puts the first back to pending without an owner."""
        phases = call(planned(), "w1", {"op": "start", "task": "Parser"})["details"]["phases"]
        result = call(phases, "w1", {"op": "start", "task": "Lexer"})
        assert task(result, "Parser") == {"content": "Parser", "status": "pending"}
        assert active(result) == {"Lexer": "w1"}

    def test_another_agents_task_is_not_taken(self) -> None:
        """A task in progress for another agent is refused, naming the owner."""
        phases = call(planned(), "w1", {"op": "start", "task": "Parser"})["details"]["phases"]
        result = call(phases, "w2", {"op": "start", "task": "Parser"})
        assert result["isError"] is True
        assert result["details"]["errors"] == ['Task "Parser" is in progress for agent "w1"']
        assert active(result) == {"Parser": "w1"}

    def test_others_are_never_demoted(self) -> None:
        """Two agents each keep their own active task."""
        phases = call(planned(), "w1", {"op": "start"})["details"]["phases"]
        assert active(call(phases, "w2", {"op": "start"})) == {"Parser": "w1", "Lexer": "w2"}

    def test_start_of_waiting_task_names_what_it_waits_for(self) -> None:
        """A task whose after is open cannot start; the error names the open tasks."""
        result = call(planned(), "w1", {"op": "start", "task": "Tests"})
        assert result["details"]["errors"] == ['Task "Tests" is not ready: it waits for "Parser", "Lexer"']

    def test_start_without_task_keeps_the_current_one(self) -> None:
        """start {} by an agent already on a task changes nothing."""
        phases = call(planned(), "w1", {"op": "start", "task": "Lexer"})["details"]["phases"]
        assert active(call(phases, "w1", {"op": "start"})) == {"Lexer": "w1"}

    def test_start_with_nothing_ready_is_no_error(self) -> None:
        """start {} with no ready task claims nothing and is not an error."""
        phases = call(planned(), "w1", {"op": "start"})["details"]["phases"]
        phases = call(phases, "w2", {"op": "start"})["details"]["phases"]
        result = call(phases, "w3", {"op": "start"})
        assert result["isError"] is False
        assert result["details"]["task"] is None
        assert "You (w3) have no task, and none is ready." in result["content"][0]["text"]

    def test_closing_picks_up_next_ready(self) -> None:
        """An agent that completes its task and holds no other claims the next ready one."""
        phases = call(planned(), "w1", {"op": "start", "task": "Parser"})["details"]["phases"]
        phases = call(phases, "w2", {"op": "start", "task": "Lexer"})["details"]["phases"]
        result = call(phases, "w1", {"op": "done", "task": "Parser"})
        assert active(result) == {"Lexer": "w2"}  # Tests still waits for Lexer
        result = call(result["details"]["phases"], "w2", {"op": "done", "task": "Lexer"})
        assert active(result) == {"Tests": "w2"}

    def test_person_cannot_claim(self) -> None:
        """A person's start is an error: only agents work tasks."""
        result = call(planned(), None, {"op": "start", "task": "Parser"})
        assert result["details"]["errors"] == [
            "start: a person does not claim tasks; an agent starts its own"
        ]

    def test_closed_task_cannot_start(self) -> None:
        """A completed task is not started again."""
        phases = call(planned(), "w1", {"op": "done", "task": "Parser"})["details"]["phases"]
        result = call(phases, "w2", {"op": "start", "task": "Parser"})
        assert result["details"]["errors"] == ['Task "Parser" is completed; it cannot be started']


class TestBlocked:
    def test_block_with_reason(self) -> None:
        """block sets status blocked and the reason; details carry both."""
        result = call(planned(), "w1", {"op": "block", "task": "Lexer", "reason": "spec unclear"})
        assert task(result, "Lexer") == {"content": "Lexer", "status": "blocked", "reason": "spec unclear"}

    def test_block_needs_a_reason(self) -> None:
        """A block without a reason is an error."""
        result = call(planned(), "w1", {"op": "block", "task": "Lexer"})
        assert result["details"]["errors"] == ['Missing reason for block operation on "Lexer"']

    def test_blocked_is_never_claimed(self) -> None:
        """start {} skips blocked tasks and start {task} on one names its reason."""
        phases = call(planned(), "w1", {"op": "block", "task": "Parser", "reason": "r"})["details"]["phases"]
        assert active(call(phases, "w2", {"op": "start"})) == {"Lexer": "w2"}
        assert call(phases, "w2", {"op": "start", "task": "Parser"})["details"]["errors"] == [
            'Task "Parser" is blocked: r'
        ]

    def test_blocking_own_task_frees_the_agent(self) -> None:
        """An agent that blocks its active task picks up the next ready one."""
        phases = call(planned(), "w1", {"op": "start", "task": "Parser"})["details"]["phases"]
        result = call(phases, "w1", {"op": "block", "task": "Parser", "reason": "r"})
        assert task(result, "Parser") == {
            "content": "Parser",
            "status": "blocked",
            "owner": "w1",
            "reason": "r",
        }
        assert active(result) == {"Lexer": "w1"}

    def test_unblock_makes_it_ready(self) -> None:
        """unblock returns the task to pending, unowned, without a reason."""
        phases = call(planned(), "w1", {"op": "block", "task": "Parser", "reason": "r"})["details"]["phases"]
        result = call(phases, "w1", {"op": "unblock", "task": "Parser"})
        assert task(result, "Parser") == {"content": "Parser", "status": "pending"}
        assert result["details"]["ready"] == ["Parser", "Lexer"]

    def test_summary_says_what_is_blocked_and_why(self) -> None:
        """The summary lists blocked tasks with their reasons."""
        text = call(planned(), "w1", {"op": "block", "task": "Lexer", "reason": "spec unclear"})["content"][
            0
        ]["text"]
        assert '⊘ t2 "Lexer" (Build) — spec unclear' in text


class TestPermissions:
    def claimed(self) -> list[dict[str, Any]]:
        phases: list[dict[str, Any]] = call(planned(), "w1", {"op": "start", "task": "Parser"})["details"][
            "phases"
        ]
        return phases

    @pytest.mark.parametrize(
        ("op", "doing"), [("done", "mark it done"), ("drop", "drop it"), ("rm", "remove it")]
    )
    def test_agent_cannot_close_anothers_task(self, op: str, doing: str) -> None:
        """done/drop/rm of a task another agent is on is refused for a non-lead, in words."""
        result = call(self.claimed(), "w2", {"op": op, "task": "Parser"})
        assert result["details"]["errors"] == [
            f'Task "Parser" belongs to agent "w1": only it or the lead ("lead") may {doing}'
        ]

    def test_lead_may_close_anothers_task(self) -> None:
        """The lead completes a task another agent is on."""
        result = call(self.claimed(), "lead", {"op": "done", "task": "Parser"})
        assert task(result, "Parser") == {"content": "Parser", "status": "completed", "owner": "w1"}

    def test_person_may_do_anything(self) -> None:
        """A person removes a task another agent is on."""
        assert active(call(self.claimed(), None, {"op": "rm", "task": "Parser"})) == {}

    def test_unowned_tasks_are_anyones(self) -> None:
        """An agent completes an unowned task, which records it as the owner."""
        result = call(planned(), "w2", {"op": "done", "task": "Lexer"})
        assert task(result, "Lexer") == {"content": "Lexer", "status": "completed", "owner": "w2"}

    def test_phase_wide_done_refuses_others_tasks(self) -> None:
        """done {phase} by a non-lead fails when another agent holds a task in it."""
        result = call(self.claimed(), "w2", {"op": "done", "phase": "Build"})
        assert result["isError"] is True

    def test_init_over_held_tasks_needs_the_lead(self) -> None:
        """Only the lead (or a person) replaces a plan others are working on."""
        result = call(self.claimed(), "w2", PLAN)
        assert result["details"]["errors"] == [
            'init would replace tasks held by "w1": only the lead may replace the plan'
        ]
        assert call(self.claimed(), "lead", PLAN)["isError"] is False

    def test_anyone_may_note(self) -> None:
        """Notes are how the team talks: any agent notes any task."""
        result = call(self.claimed(), "w2", {"op": "note", "task": "Parser", "text": "mind the tabs"})
        assert task(result, "Parser")["notes"] == ["mind the tabs"]

    def test_batch_is_all_or_nothing(self) -> None:
        """One failing op leaves the plan as it was, with the good ops not applied."""
        result = call(
            self.claimed(), "w2", {"op": "done", "task": "Lexer"}, {"op": "start", "task": "Parser"}
        )
        assert result["isError"] is True
        assert task(result, "Lexer")["status"] == "pending"


class TestAfterOp:
    def test_adds_dependencies(self) -> None:
        """after {task, after} makes a pending task wait for more tasks."""
        result = call(planned(), "w1", {"op": "after", "task": "Lexer", "after": ["Parser"]})
        assert task(result, "Lexer") == {"content": "Lexer", "status": "pending", "after": ["Parser"]}
        assert result["details"]["ready"] == ["Parser"]

    def test_refuses_a_cycle(self) -> None:
        """A dependency that closes a ring is refused."""
        result = call(planned(), "w1", {"op": "after", "task": "Parser", "after": ["Release"]})
        assert result["details"]["errors"] == [
            '"after" makes a cycle: "Parser" -> "Release" -> "Tests" -> "Parser"'
        ]

    def test_running_task_cannot_wait(self) -> None:
        """A task in progress is not made to wait."""
        phases = call(planned(), "w1", {"op": "start", "task": "Parser"})["details"]["phases"]
        result = call(phases, "w1", {"op": "after", "task": "Parser", "after": ["Lexer"]})
        assert result["details"]["errors"] == [
            'Task "Parser" is in_progress; only a pending or blocked task can wait'
        ]


class TestRm:
    def test_rm_removes_from_after_and_says_so(self) -> None:
        """Removing a task takes it out of every after, with a notice in the text."""
        result = call(planned(), "lead", {"op": "rm", "task": "Lexer"})
        assert task(result, "Tests")["after"] == ["Parser"]
        assert 'Removed "Lexer" from what "Tests" comes after' in result["content"][0]["text"]

    def test_rm_of_phase(self) -> None:
        """Removing a phase's tasks frees what came after them."""
        result = call(planned(), "lead", {"op": "rm", "phase": "Build"})
        assert task(result, "Release") == {"content": "Release", "status": "pending"}


class TestSummary:
    def test_summary_order(self) -> None:
        """Own task, ready tasks, who is on what, blocked, waiting, then the plan."""
        phases = call(planned(), "w2", {"op": "start", "task": "Lexer"})["details"]["phases"]
        phases = call(phases, "w1", {"op": "block", "task": "Release", "reason": "freeze"})["details"][
            "phases"
        ]
        text = call(phases, "w1", {"op": "start"})["content"][0]["text"]
        assert text.splitlines()[:6] == [
            'You (w1) are on t1 "Parser" (Build).',
            "Ready: none.",
            "On it:",
            '  w2 → t2 "Lexer" (Build)',
            "Blocked (1):",
            '  ⊘ t4 "Release" (Ship) — freeze',
        ]
        assert text.index("Waiting (1):") < text.index("Plan (0/4 closed):")
        assert "    → t1 Parser [w1]" in text

    def test_person_view_has_no_own_task(self) -> None:
        """A person's summary opens with the ready tasks."""
        text = call(planned(), None, {"op": "note", "task": "Parser", "text": "x"})["content"][0]["text"]
        assert text.startswith('Ready (2): t1 "Parser" (Build), t2 "Lexer" (Build)')

    def test_empty_plan(self) -> None:
        """An emptied plan says so."""
        assert call(planned(), "lead", {"op": "rm"})["content"][0]["text"] == "The plan is empty."


class TestNormalization:
    def test_repairs_a_persons_edit(self) -> None:
        """In progress without owner becomes pending; an agent's second task too; pending loses owner."""
        phases = (
            Phase(
                "P",
                (
                    Task("a", Status.IN_PROGRESS),
                    Task("b", Status.IN_PROGRESS, owner="w1"),
                    Task("c", Status.IN_PROGRESS, owner="w1"),
                    Task("d", Status.PENDING, owner="w2", reason="x", after=("zz", "d", "a")),
                ),
            ),
        )
        assert normalize_team(phases) == (
            Phase(
                "P",
                (
                    Task("a", id="t1"),
                    Task("b", Status.IN_PROGRESS, owner="w1", id="t2"),
                    Task("c", id="t3"),
                    Task("d", after=("a",), id="t4"),
                ),
                last_id=4,
            ),
        )

    def test_problems_name_duplicates_and_cycles(self) -> None:
        """team_problems lists duplicate contents and after cycles."""
        phases = (Phase("P", (Task("a", after=("b",)), Task("b", after=("a",)), Task("a"))),)
        found = team_problems(phases)
        assert found[0] == 'phases[0].tasks[2]: task "a" appears twice'
        assert found[1].startswith('phases: "after" makes a cycle')

    def test_find_cycle(self) -> None:
        """find_cycle returns the ring, first node repeated, or None."""
        assert find_cycle({"a": ("b",), "b": ("c",), "c": ("a",)}, ["a"]) == ["a", "b", "c", "a"]
        assert find_cycle({"a": ("b", "c"), "b": ("c",), "c": ()}, ["a"]) is None

    def test_ready_tasks(self) -> None:
        """Ready: pending, unowned, unblocked, every after closed."""
        phases = phasetodo.load_phases(planned())
        assert [t.content for _, t in ready_tasks(phases)] == ["Parser", "Lexer"]

    def test_input_is_not_modified(self) -> None:
        """apply_team works on a copy."""
        phases = phasetodo.load_phases(planned())
        before = tuple(phases)
        apply_team(phases, parse_team_params({"ops": [{"op": "start"}]}), agent="w1")
        assert phases == before


class TestParityUnchanged:
    def test_parity_dump_omits_team_keys(self) -> None:
        """A parity call's details.phases has no owner, reason or after keys."""
        result = phasetodo.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a"]}]}]})
        assert result["details"]["phases"] == [
            {"name": "P", "tasks": [{"content": "a", "status": "in_progress"}]}
        ]

    def test_parity_carries_team_fields_through(self) -> None:
        """Parity handed a team plan keeps owner, reason and after untouched and never promotes blocked."""
        phases = [
            {
                "name": "P",
                "tasks": [
                    {"content": "a", "status": "blocked", "reason": "r", "owner": "w1"},
                    {"content": "b", "status": "pending", "after": ["a"]},
                ],
            }
        ]
        result = phasetodo.todo_write({"ops": [{"op": "note", "task": "b", "text": "n"}]}, phases)
        assert result["details"]["phases"] == [
            {
                "name": "P",
                "tasks": [
                    {"content": "a", "status": "blocked", "owner": "w1", "reason": "r"},
                    {"content": "b", "status": "in_progress", "notes": ["n"], "after": ["a"]},
                ],
            }
        ]

    def test_parity_carries_team_fields_on_values(self) -> None:
        """The same on Phase values: owner, reason and after survive a parity call."""
        phases = (Phase("P", (Task("a", Status.BLOCKED, owner="w1", reason="r"), Task("b", after=("a",)))),)
        result = phasetodo.tool.call({"ops": [{"op": "note", "task": "b", "text": "n"}]}, phases)
        assert result.phases == (
            Phase(
                "P",
                (
                    Task("a", Status.BLOCKED, owner="w1", reason="r"),
                    Task("b", Status.IN_PROGRESS, ("n",), after=("a",)),
                ),
            ),
        )

    def test_parity_summary_shows_blocked(self) -> None:
        """Parity's summary marks a blocked task with ⊘ and leaves it out of remaining work."""
        phases = [
            {
                "name": "P",
                "tasks": [{"content": "a", "status": "blocked"}, {"content": "b", "status": "pending"}],
            }
        ]
        text = phasetodo.todo_write({"ops": [{"op": "start", "task": "b"}]}, phases)["content"][0]["text"]
        assert "    ⊘ a" in text
        assert "Remaining items (1):" in text
        assert '"P" — 0/2 tasks complete' in text


class TestScope:
    def scoped(self, *ops: dict[str, Any], agent: str = "sub-1") -> dict[str, Any]:
        return team_call(
            {"ops": list(ops)}, phasetodo.load_phases(planned()), agent=agent, lead="lead", scope="Ship"
        )

    def test_sees_only_its_phase(self) -> None:
        """A scoped call's details and text hold only the scoped phase."""
        result = self.scoped({"op": "note", "task": "Release", "text": "x"})
        assert [p["name"] for p in result["details"]["phases"]] == ["Ship"]
        assert result["details"]["scope"] == "Ship"
        assert "Parser" not in result["content"][0]["text"].split("Plan")[1]

    def test_cannot_touch_other_phases(self) -> None:
        """Ops on tasks or phases outside the scope are errors."""
        result = self.scoped({"op": "done", "task": "Parser"})
        assert result["details"]["errors"] == ['Task "Parser" is not in phase "Ship", the one you work on']
        assert self.scoped({"op": "done", "phase": "Build"})["isError"] is True
        assert self.scoped({"op": "append", "phase": "Build", "items": ["x"]})["isError"] is True
        assert self.scoped(PLAN)["isError"] is True

    def test_start_looks_only_in_scope(self) -> None:
        """start {} in a scope whose tasks all wait claims nothing."""
        result = self.scoped({"op": "start"})
        assert result["details"]["task"] is None
        assert result["details"]["ready"] == []

    def test_done_everything_means_the_phase(self) -> None:
        """done {} in a scope closes only the scoped phase."""
        result = team_call(
            {"ops": [{"op": "done"}]}, phasetodo.load_phases(planned()), agent="s", lead="lead", scope="Ship"
        )
        assert result["details"]["phases"][0]["tasks"][0]["status"] == "completed"
        full = apply_team(
            phasetodo.load_phases(planned()),
            parse_team_params({"ops": [{"op": "done"}]}),
            agent="s",
            scope="Ship",
        )
        assert [t.status for t in full.phases[0].tasks] == [Status.PENDING] * 3


class TestEmptyTargets:
    @pytest.mark.parametrize("field", ["task", "phase"])
    def test_empty_target_is_not_everything(self, field: str) -> None:
        """done with an empty task or phase is refused, not read as every task."""
        result = call(planned(), "lead", {"op": "done", field: ""})
        assert result["details"]["errors"] == [f"done: {field} is empty; leave it out to mean every task"]


class TestIds:
    def test_every_task_gets_an_id_in_plan_order(self) -> None:
        """init numbers the tasks t1, t2, ... and details.phases shows them, the mark on the first phase."""
        phases = planned()
        assert [t["id"] for p in phases for t in p["tasks"]] == ["t1", "t2", "t3", "t4"]
        assert phases[0]["last_id"] == 4
        assert "last_id" not in phases[1]

    def test_an_id_names_the_task_in_any_op(self) -> None:
        """start, done, note, block and after take an id where they take a content."""
        result = call(planned(), "w1", {"op": "start", "task": "t2"})
        assert task(result, "Lexer")["owner"] == "w1"
        result = call(result["details"]["phases"], "w1", {"op": "note", "task": "t2", "text": "x"})
        assert task(result, "Lexer")["notes"] == ["x"]
        result = call(result["details"]["phases"], "w1", {"op": "done", "task": "t2"})
        assert task(result, "Lexer")["status"] == "completed"

    def test_after_may_name_ids(self) -> None:
        """An after given as ids is kept as the tasks' contents."""
        result = call(planned(), "lead", {"op": "append", "phase": "Ship", "items": [
            {"content": "Notes", "after": ["t1", "Lexer"]}]})
        assert task(result, "Notes")["after"] == ["Parser", "Lexer"]

    def test_ids_are_never_reused_after_rm(self) -> None:
        """Removing the newest task does not free its id: the next task gets a new one."""
        result = call(planned(), "lead", {"op": "rm", "task": "t4"})
        again = {"op": "append", "phase": "Ship", "items": ["Again"]}
        result = call(result["details"]["phases"], "lead", again)
        assert result["details"]["phases"][0]["last_id"] == 5
        assert task_with_id(result, "Again") == "t5"

    def test_ids_are_never_reused_after_init(self) -> None:
        """A new plan from init goes on counting from the old plan's mark."""
        result = call(planned(), "lead", {"op": "init", "list": [{"phase": "New", "items": ["x"]}]})
        assert task_with_id(result, "x") == "t5"

    def test_a_rename_keeps_the_id_and_after(self) -> None:
        """A person renaming a task (the board's edit) keeps its id, and after follows the rename."""
        from phasetodo.web import edits

        phases = planned()
        renamed = edits.rename(phases, 0, 0, "Parser v2", "Parser")
        repaired = phasetodo.dump_phases(normalize_team(phasetodo.load_phases(renamed)))
        tests = repaired[0]["tasks"][2]
        assert repaired[0]["tasks"][0]["id"] == "t1"
        assert tests["after"] == ["Parser v2", "Lexer"]

    def test_a_copied_id_is_replaced(self) -> None:
        """A person's edit that gives two tasks one id keeps it on the first, the other gets a new one."""
        phases = (Phase("P", (Task("a", id="t1"), Task("b", id="t1")), last_id=1),)
        fixed = normalize_team(phases)
        assert [t.id for t in fixed[0].tasks] == ["t1", "t2"]
        assert fixed[0].last_id == 2

    def test_summary_shows_ids(self) -> None:
        """The plan's lines carry each task's id."""
        text = call(planned(), "w1", {"op": "start", "task": "t1"})["content"][0]["text"]
        assert "    → t1 Parser [w1]" in text
        assert "    ○ t3 Tests (after: Parser, Lexer)" in text


def task_with_id(result: dict[str, Any], content: str) -> str:
    found: str = next(
        t["id"] for p in result["details"]["phases"] for t in p["tasks"] if t["content"] == content
    )
    return found


class TestIdsInMarkdown:
    def test_lossless_markdown_keeps_ids(self) -> None:
        """The lossless Markdown writes an @id line per task and reads it back."""
        started = call(planned(), "w1", {"op": "start", "task": "t2"})
        phases = phasetodo.load_phases(started["details"]["phases"])
        text = phasetodo.phases_to_markdown(phases, lossless=True)
        assert "  @id t2" in text
        back, errors = phasetodo.markdown_to_phases(text)
        assert not errors
        assert [t.id for p in back for t in p.tasks] == ["t1", "t2", "t3", "t4"]
