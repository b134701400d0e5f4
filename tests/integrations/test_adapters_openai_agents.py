"""openai-agents: the FunctionTool in the SDK's own agent loop with a scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from agents import Agent, FunctionTool, Runner, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

import phasetodo
from phasetodo import MemoryStore, Session
from phasetodo.integrations.openai import OPENAI_STRICT_SCHEMA
from phasetodo.integrations.openai_agents import todo_write_tool
from phasetodo.tool import Options

set_tracing_disabled(True)

_NULLS = {"list": None, "task": None, "phase": None, "items": None, "text": None}
INIT = {"ops": [{**_NULLS, "op": "init", "list": [{"phase": "Fix", "items": ["Patch", "Test"]}]}]}
DONE = {"ops": [{**_NULLS, "op": "done", "task": "Patch"}]}


def _run(tool: FunctionTool, *calls: dict[str, Any] | str) -> list[str]:
    """Run an agent whose model makes ``calls`` one turn each; returns the tool outputs."""
    steps: list[Any] = [[function_call("todo_write", c, call_id=f"c{i}")] for i, c in enumerate(calls)]
    model = ScriptedModel([*steps, [assistant_message("Done.")]])
    result = Runner.run_sync(Agent(name="coder", model=model, tools=[tool]), "Fix it.")
    assert result.final_output == "Done."
    return [str(item.output) for item in result.new_items if item.type == "tool_call_output_item"]


class TestFunctionTool:
    def test_definition(self) -> None:
        """The tool is todo_write with the strict schema, as the SDK prefers."""
        tool = todo_write_tool()
        assert (tool.name, tool.strict_json_schema) == ("todo_write", True)
        assert tool.params_json_schema == OPENAI_STRICT_SCHEMA
        plain = todo_write_tool(strict=False)
        assert plain.params_json_schema == phasetodo.profiles.PARAMS_SCHEMA
        assert plain.strict_json_schema is False

    def test_second_call_sees_the_first(self) -> None:
        """In the agent loop the second call completes a task the first call created."""
        with Session.open("agents", store=MemoryStore()) as session:
            first, second = _run(todo_write_tool(session), INIT, DONE)
            assert "Remaining items (2):" in first
            assert "Remaining items (1):" in second
            assert "✓ Patch" in second
            assert phasetodo.dump_phases(session.phases)[0]["tasks"][0]["status"] == "completed"

    def test_bad_input_is_returned_not_raised(self) -> None:
        """Bad arguments and broken JSON come back as error text; the run goes on."""
        bad, broken, good = _run(todo_write_tool(), {"ops": [{**_NULLS, "op": "pending"}]}, "{not json", INIT)
        assert "ops[0].op: must be one of" in bad
        assert "params: not valid JSON" in broken
        assert "Remaining items (2):" in good


class TestProfileOption:
    def test_strict_profile_sends_its_own_schema(self) -> None:
        """options=Options(profile="strict") offers view in the strict-mode schema and prompt."""
        tool = todo_write_tool(options=Options(profile="strict"))
        op = tool.params_json_schema["properties"]["ops"]["items"]["properties"]["op"]
        assert "view" in op["enum"]
        assert tool.description == phasetodo.STRICT.description

    def test_strict_profile_refuses_a_bad_batch(self) -> None:
        """A strict adapter's bad batch is refused whole."""
        with Session.open("agents", store=MemoryStore()) as session:
            tool = todo_write_tool(session, options=Options(profile="strict"))
            _run(tool, {"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
            _run(tool, {"ops": [{"op": "done", "task": "a"}, {"op": "done", "task": "zzz"}]})
            assert [t.status.value for t in session.phases[0].tasks] == ["in_progress", "pending"]

    def test_the_old_keywords_are_gone(self) -> None:
        """profile= beside the session is a TypeError: the profile goes in options (nothing was released)."""
        with pytest.raises(TypeError, match="profile"):
            todo_write_tool(profile="strict")  # type: ignore[call-arg]

