"""Claude Code's task tools on a team plan: ids, claims, dependencies, listing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from phasetodo import Phase
from phasetodo._profiles.team.engine import apply_team
from phasetodo._profiles.team.schema import parse_team_params
from phasetodo._profiles.team.summary import format_team_summary
from phasetodo.integrations.claude_tasks import CLAUDE_TASK_TOOLS, ClaudeCodeTasks


class Plan:
    """A plan in memory that several agents' tools share."""

    def __init__(self) -> None:
        self.phases: tuple[Phase, ...] = ()

    def writer(self, agent: str) -> Any:
        plan = self

        class Writer:
            def team_write(self, params: Mapping[str, Any]) -> tuple[bool, str, tuple[Phase, ...]]:
                outcome = apply_team(plan.phases, parse_team_params(params), agent=agent, lead="lead")
                plan.phases = outcome.phases
                return (
                    bool(outcome.errors),
                    format_team_summary(outcome.phases, agent, outcome.errors),
                    plan.phases,
                )

            def team_phases(self) -> tuple[Phase, ...]:
                return plan.phases

        return Writer()


@pytest.fixture
def plan() -> Plan:
    return Plan()


def tools(plan: Plan, agent: str) -> ClaudeCodeTasks:
    return ClaudeCodeTasks(plan.writer(agent), agent)


def create(t: ClaudeCodeTasks, *subjects: str) -> None:
    for subject in subjects:
        assert not t.execute("TaskCreate", {"subject": subject, "description": f"do {subject}"}).is_error


class TestCreate:
    def test_ids_count_up(self, plan: Plan) -> None:
        """TaskCreate answers with the new id, as Claude Code does."""
        t = tools(plan, "w1")
        assert t.execute("TaskCreate", {"subject": "A", "description": "first"}).text == (
            "Task #t1 created successfully: A"
        )
        assert (
            t.execute("TaskCreate", {"subject": "B", "description": ""}).text
            == "Task #t2 created successfully: B"
        )

    def test_duplicate_subject_is_an_error(self, plan: Plan) -> None:
        """A second task with the same subject is refused."""
        t = tools(plan, "w1")
        create(t, "A")
        assert t.execute("TaskCreate", {"subject": "A", "description": "x"}).is_error

    def test_bad_input(self, plan: Plan) -> None:
        """Input that breaks the schema is an error naming the field."""
        reply = tools(plan, "w1").execute("TaskCreate", {"subject": 3})
        assert reply.is_error
        assert "subject: must be a string" in reply.text
        assert "description: is required" in reply.text


class TestUpdate:
    def test_claim_and_complete(self, plan: Plan) -> None:
        """status in_progress claims for the caller; completed finishes it."""
        t = tools(plan, "w1")
        create(t, "A", "B")
        assert (
            t.execute("TaskUpdate", {"taskId": "1", "status": "in_progress"}).text
            == "Updated task #t1 status"
        )
        assert "#t1 [in_progress] A (w1)" in t.execute("TaskList", {}).text
        assert not t.execute("TaskUpdate", {"taskId": "1", "status": "completed"}).is_error
        listing = t.execute("TaskList", {}).text.splitlines()
        assert listing == ["#t1 [completed] A (w1)", "#t2 [in_progress] B (w1)"]

    def test_another_agents_task_is_not_taken(self, plan: Plan) -> None:
        """Two agents claiming one task: the second gets an error naming the first."""
        create(tools(plan, "w1"), "A")
        assert not tools(plan, "w1").execute("TaskUpdate", {"taskId": "1", "owner": "w1"}).is_error
        reply = tools(plan, "w2").execute("TaskUpdate", {"taskId": "1", "status": "in_progress"})
        assert reply.is_error
        assert 'Task "A" is in progress for agent "w1"' in reply.text

    def test_blocked_by(self, plan: Plan) -> None:
        """addBlockedBy makes a task wait; TaskGet and TaskList show it."""
        t = tools(plan, "w1")
        create(t, "A", "B", "C")
        assert not t.execute(
            "TaskUpdate", {"taskId": "3", "addBlockedBy": ["1"], "addBlocks": ["2"]}
        ).is_error
        assert t.execute("TaskGet", {"taskId": "3"}).text.splitlines() == [
            "Task #t3: C",
            "Status: pending",
            "Description: do C",
            "Blocked by: #t1",
            "Blocks: #t2",
        ]
        assert "#t3 [pending] C [blocked by #t1]" in t.execute("TaskList", {}).text
        reply = t.execute("TaskUpdate", {"taskId": "3", "status": "in_progress"})
        assert 'Task "C" is not ready: it waits for "A"' in reply.text

    def test_deleted_is_hidden_and_ids_stay(self, plan: Plan) -> None:
        """A deleted task leaves the listing; later tasks keep their ids."""
        t = tools(plan, "w1")
        create(t, "A", "B")
        assert not t.execute("TaskUpdate", {"taskId": "1", "status": "deleted"}).is_error
        assert t.execute("TaskList", {}).text == "#t2 [pending] B"
        assert t.execute("TaskGet", {"taskId": "1"}).text == "Task not found"

    def test_owner_cannot_be_given_away(self, plan: Plan) -> None:
        """Setting another agent as owner is refused: claims are made by the claimer."""
        t = tools(plan, "w1")
        create(t, "A")
        assert t.execute("TaskUpdate", {"taskId": "1", "owner": "w2"}).is_error

    def test_unknown_tool(self, plan: Plan) -> None:
        """A tool name outside the four is an error reply."""
        assert tools(plan, "w1").execute("TaskStop", {}).is_error


class TestSpecs:
    def test_four_tools(self) -> None:
        """The four tools carry a description and an object input schema."""
        assert list(CLAUDE_TASK_TOOLS) == ["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"]
        assert all(spec["input_schema"]["type"] == "object" for spec in CLAUDE_TASK_TOOLS.values())


class TestOnSessions:
    def test_two_agents_on_one_store(self, tmp_path: Any) -> None:
        """Each agent's task tools work the same durable plan; ids agree across handles."""
        import phasetodo
        from phasetodo.integrations.claude_tasks import claude_tasks

        store = phasetodo.SqliteStore(tmp_path / "plans.db")
        with (
            phasetodo.Session.open("plan", store=store, profile="team", agent="lead") as lead,
            phasetodo.Session.open("plan", store=store, profile="team", agent="w1") as w1,
        ):
            mine, theirs = claude_tasks(lead), claude_tasks(w1)
            create(mine, "Design", "Build")
            assert not theirs.execute("TaskUpdate", {"taskId": "2", "addBlockedBy": ["1"]}).is_error
            assert not theirs.execute("TaskUpdate", {"taskId": "1", "status": "in_progress"}).is_error
            assert mine.execute("TaskList", {}).text.splitlines() == [
                "#t1 [in_progress] Design (w1)",
                "#t2 [pending] Build [blocked by #t1]",
            ]
            assert mine.execute("TaskUpdate", {"taskId": "1", "status": "in_progress"}).is_error
        store.close()


class TestIds:
    def test_ids_survive_a_removal(self, plan: Plan) -> None:
        """After a task is removed (rm), the others keep their ids and a new task gets a fresh one."""
        t = tools(plan, "w1")
        create(t, "A", "B", "C")
        assert not plan.writer("lead").team_write({"ops": [{"op": "rm", "task": "t1"}]})[0]
        assert t.execute("TaskGet", {"taskId": "#t2"}).text.startswith("Task #t2: B")
        assert t.execute("TaskCreate", {"subject": "D", "description": ""}).text == (
            "Task #t4 created successfully: D"
        )
        assert t.execute("TaskGet", {"taskId": "t1"}).text == "Task not found"
