"""pydantic-ai: the Tool in pydantic-ai's own agent loop with a function model."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import phasetodo
from phasetodo import MemoryStore, Session
from phasetodo.integrations.pydantic_ai import todo_write_tool
from phasetodo.tool import Options

INIT = {"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Patch", "Test"]}]}]}
DONE = {"ops": [{"op": "done", "task": "Patch"}]}


def _model(*calls: dict[str, Any]) -> FunctionModel:
    """A model that makes ``calls`` one turn each, then answers."""

    def respond(messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        turn = sum(1 for m in messages if isinstance(m, ModelResponse))
        if turn < len(calls):
            return ModelResponse(parts=[ToolCallPart("todo_write", calls[turn], tool_call_id=f"c{turn}")])
        return ModelResponse(parts=[TextPart("Done.")])

    return FunctionModel(respond)


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]


class TestTool:
    def test_definition(self) -> None:
        """The tool is todo_write with our schema and runs alone."""
        tool = todo_write_tool()
        assert tool.name == "todo_write"
        assert tool.function_schema.json_schema == phasetodo.profiles.PARAMS_SCHEMA
        assert tool.sequential is True

    def test_second_call_sees_the_first(self) -> None:
        """In the agent loop the second call completes a task the first call created."""
        with Session.open("pyd", store=MemoryStore()) as session:
            agent = Agent(_model(INIT, DONE), tools=[todo_write_tool(session)])
            result = agent.run_sync("Fix it.")
            first, second = _returns(result.all_messages())
            assert "Remaining items (2):" in first.content
            assert "✓ Patch" in second.content
            assert result.output == "Done."
            assert session.version == 2

    def test_bad_input_goes_back_as_text(self) -> None:
        """Bad arguments come back to the model as the tool's text: it sees the problems and tries again."""
        agent = Agent(_model({"ops": [{"op": "pending"}]}, INIT), tools=[todo_write_tool()])
        result = agent.run_sync("Fix it.")
        rejected, applied = _returns(result.all_messages())
        assert rejected.content.startswith("Invalid todo_write call; nothing was applied.")
        assert "ops[0].op: must be one of" in rejected.content
        assert "Remaining items (2):" in applied.content

    def test_many_bad_calls_do_not_end_the_run(self) -> None:
        """Five bad calls in a row do not use up a retry budget: the run goes on to the good call."""
        bad = {"ops": [{"op": "done", "task": 5}]}
        with Session.open("pyd", store=MemoryStore()) as session:
            agent = Agent(_model(bad, bad, bad, bad, bad, INIT), tools=[todo_write_tool(session)])
            result = agent.run_sync("Fix it.")
            returns = _returns(result.all_messages())
            assert len(returns) == 6
            assert all("nothing was applied" in r.content for r in returns[:5])
            assert result.output == "Done."
            assert session.version == 1


class TestOptions:
    def test_options_give_the_profile_and_limits(self) -> None:
        """options=Options(...) gives the tool its profile (schema, prompt) and limits."""
        tool = todo_write_tool(options=Options(profile="strict", limits=phasetodo.Limits(max_ops=1)))
        assert tool.function_schema.json_schema == phasetodo.STRICT.schema
        assert tool.description == phasetodo.STRICT.description
        agent = Agent(_model({"ops": [{"op": "init", "list": []}, {"op": "view"}]}), tools=[tool])
        (rejected,) = _returns(agent.run_sync("Fix it.").all_messages())
        assert "max_ops=1" in rejected.content

    def test_the_old_keywords_are_gone(self) -> None:
        """profile= is a TypeError: the profile goes in options (nothing was released)."""
        with pytest.raises(TypeError, match="profile"):
            todo_write_tool(profile="strict")  # type: ignore[call-arg]

