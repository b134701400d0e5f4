"""The team profile through the tool, its provider specs, its limits and an agent framework."""

from __future__ import annotations

from typing import Any

import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

import phasetodo
from phasetodo import InvalidParams, Limits, MemoryStore, Session, TodoWriteTool
from phasetodo.errors import InvalidOption
from phasetodo.integrations.openai_agents import todo_write_tool
from phasetodo.tool import Options

set_tracing_disabled(True)

PLAN = {
    "ops": [
        {"op": "init", "list": [{"phase": "P", "items": ["a", {"content": "b", "after": ["a"]}]}]},
        {"op": "start"},
    ]
}


class TestMemoryTool:
    def test_agent_claims_in_memory(self) -> None:
        """TodoWriteTool(profile="team", agent=...) keeps a team plan in memory, as that agent."""
        tool = TodoWriteTool(profile="team", agent="w1")
        result = tool.execute(PLAN)
        assert result.is_error is False
        assert result.details["profile"] == "team"
        assert result.details["task"] == "a"
        assert tool.phases[0].tasks[0].owner == "w1"
        assert tool.description == phasetodo.TEAM.description
        assert tool.parameters == phasetodo.profiles.TEAM_PARAMS_SCHEMA

    def test_agent_belongs_to_the_session(self) -> None:
        """A tool on a session takes the agent from the session, not from the tool."""
        with (
            Session.open("p", store=MemoryStore(), profile="team", agent="w1") as session,
            pytest.raises(InvalidOption),
        ):
            TodoWriteTool(session, profile="team", agent="w2")

    def test_error_result_is_flagged(self) -> None:
        """A refused team call is an error result with isError in its JSON."""
        tool = TodoWriteTool(profile="team", agent="w1")
        tool.execute(PLAN)
        result = tool.execute({"ops": [{"op": "start", "task": "b"}]})
        assert result.is_error is True
        assert result.to_json()["isError"] is True


class TestSpecs:
    def test_openai_strict_items_take_nulls(self) -> None:
        """A payload written against the strict OpenAI form (null after) executes."""
        spec = TodoWriteTool(profile="team").to_openai(strict=True)
        item = spec["function"]["parameters"]["properties"]["ops"]["items"]["properties"]["items"]["items"]
        assert item["anyOf"][1]["additionalProperties"] is False
        assert item["anyOf"][1]["required"] == ["content", "after"]
        tool = TodoWriteTool(profile="team", agent="w1")
        nulls = {"task": None, "phase": None, "text": None, "reason": None, "after": None, "list": None}
        params = {
            "ops": [{**nulls, "op": "append", "phase": "P", "items": [{"content": "x", "after": None}, "y"]}]
        }
        result = tool.execute(params, nulls_are_absent=True)
        assert result.is_error is False, result.text
        assert [t.content for t in tool.phases[0].tasks] == ["x", "y"]

    def test_anthropic_and_mcp_carry_the_team_schema(self) -> None:
        """The Anthropic and MCP specs carry the team schema and prompt."""
        tool = TodoWriteTool(profile="team")
        assert tool.to_anthropic()["input_schema"] == phasetodo.profiles.TEAM_PARAMS_SCHEMA
        assert tool.to_mcp()["inputSchema"] == phasetodo.profiles.TEAM_PARAMS_SCHEMA


class TestLimits:
    def test_team_items_are_limited(self) -> None:
        """Item contents and their after entries are held to max_content, named by place."""
        tool = TodoWriteTool(profile="team", agent="w1", limits=Limits(max_content=3))
        result = tool.execute(
            {"ops": [{"op": "append", "phase": "P", "items": [{"content": "ok", "after": ["long"]}]}]}
        )
        assert result.is_error is True
        assert result.problems == ("ops[0].items[0].after[0]: 4 characters, over the limit max_content=3",)

    def test_block_reason_is_a_note(self) -> None:
        """A block reason is held to max_note."""
        with pytest.raises(InvalidParams) as caught:
            phasetodo.todo_write(
                {"ops": [{"op": "block", "task": "a", "reason": "x" * 6}]},
                profile="team",
                limits=Limits(max_note=5),
            )
        assert caught.value.problems == ("ops[0].reason: 6 characters, over the limit max_note=5",)


def _run(tool: Any, *calls: dict[str, Any]) -> list[str]:
    steps: list[Any] = [[function_call("todo_write", c, call_id=f"c{i}")] for i, c in enumerate(calls)]
    model = ScriptedModel([*steps, [assistant_message("Done.")]])
    result = Runner.run_sync(Agent(name="coder", model=model, tools=[tool]), "Work the plan.")
    return [str(item.output) for item in result.new_items if item.type == "tool_call_output_item"]


class TestFramework:
    def test_two_agents_in_the_sdk_loop(self) -> None:
        """Two openai-agents tools on one team plan: the second agent cannot take the first's task."""
        store = MemoryStore()
        with (
            Session.open("plan", store=store, profile="team", agent="w1") as one,
            Session.open("plan", store=store, profile="team", agent="w2") as two,
        ):
            (first,) = _run(todo_write_tool(one, options=Options(profile="team"), strict=False), PLAN)
            assert first.startswith('You (w1) are on t1 "a" (P).')
            steal = {"ops": [{"op": "start", "task": "a"}]}
            (second,) = _run(todo_write_tool(two, options=Options(profile="team"), strict=False), steal)
            assert 'Task "a" is in progress for agent "w1"' in second


class TestTodoWrite:
    def test_memory_call_as_an_agent(self) -> None:
        """phasetodo.todo_write(..., profile="team", agent=...) claims for that agent."""
        result = phasetodo.todo_write(PLAN, profile="team", agent="w1", lead="w1")
        assert result["details"]["phases"][0]["tasks"][0] == {
            "content": "a",
            "status": "in_progress",
            "owner": "w1",
            "id": "t1",
        }
        again = phasetodo.todo_write(
            {"ops": [{"op": "done", "task": "a"}]},
            result["details"]["phases"],
            profile="team",
            agent="w2",
            lead="w1",
        )
        assert again["isError"] is True


class TestToolOnASession:
    def test_a_team_sessions_tool_is_a_team_tool(self) -> None:
        """TodoWriteTool(session) takes the session's profile: its prompt, schema and rules."""
        with Session.open("plan", MemoryStore(), profile="team", agent="w1") as session:
            tool = TodoWriteTool(session)
            assert tool.profile is phasetodo.profiles.TEAM
            assert tool.parameters == phasetodo.profiles.TEAM.schema
            tool.execute({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
            tool.execute({"ops": [{"op": "start"}]})
            assert session.phases[0].tasks[0].owner == "w1"

    def test_a_given_profile_wins_and_other_sessions_stay_parity(self) -> None:
        """profile= still chooses; a session of another profile, or none, gives its own or parity."""
        with Session.open("plan", MemoryStore(), profile="team", agent="w1") as session:
            assert TodoWriteTool(session, profile="parity").profile is phasetodo.profiles.PARITY
        with Session.open("solo", MemoryStore()) as solo:
            assert TodoWriteTool(solo).profile is phasetodo.profiles.PARITY
        assert TodoWriteTool().profile is phasetodo.profiles.PARITY
