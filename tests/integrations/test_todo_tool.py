"""``TodoTool``: the reference's current ``todo`` tool for hosts, and its provider specs."""

from __future__ import annotations

import copy
from typing import Any

import anthropic
import jsonschema
import pytest
from agents.strict_schema import ensure_strict_json_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import todo
from phasetodo.errors import InvalidOption
from phasetodo.integrations._options import make_tool
from phasetodo.profiles import TODO, TODO_PARAMS_SCHEMA
from phasetodo.tool import Options, TodoTool, TodoWriteTool, tool_class

from ..budget import examples
from ..todo.test_todo_properties import calls


def _calls_agree(tool: TodoTool, data: st.DataObject, storage: str) -> None:
    """Drawn calls one by one: the tool's result is apply's every time."""
    phases: list[dict[str, Any]] = []
    for _ in range(data.draw(st.integers(1, 8))):
        params = data.draw(calls(phases))
        expected = todo.apply(params, phases, storage=storage)
        assert tool.execute(params).to_json() == expected
        phases = expected["details"]["phases"]


class TestResults:
    @settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_a_memory_tool_agrees_with_apply(self, data: st.DataObject) -> None:
        """Over generated single-op calls, the tool on a memory list gives apply's results."""
        _calls_agree(TodoTool(), data, "memory")

    @settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_a_session_tool_agrees_with_apply(self, data: st.DataObject) -> None:
        """On a todo session the tool gives apply's results too."""
        with phasetodo.Session.open("t", "memory:", profile="todo") as session:
            _calls_agree(TodoTool(session), data, "memory")

    def test_anything_as_arguments_is_an_error_result(self) -> None:
        """A call that is not an object is the tool's own error result, never an exception."""
        tool = TodoTool()
        assert tool.execute(["init"]).to_json() == todo.apply(["init"])
        assert tool.execute("view").to_json() == todo.apply("view")

    def test_nulls_from_a_strict_payload_read_as_absent(self) -> None:
        """With nulls_are_absent, fields sent as null are left out."""
        tool = TodoTool()
        params = {"op": "init", "list": None, "task": None, "phase": None, "items": ["a"], "reason": None}
        result = tool.execute(params, nulls_are_absent=True).to_json()
        assert result == todo.apply({"op": "init", "items": ["a"]})

    def test_a_call_over_the_limits_is_an_error_result(self) -> None:
        """A call past the limits changes nothing and names the limit."""
        tool = TodoTool(limits=phasetodo.Limits(max_content=3))
        result = tool.execute({"op": "init", "items": ["too long"]})
        assert result.is_error
        assert "max_content=3" in result.text
        assert result.details == {"phases": [], "storage": "memory"}

    def test_a_plan_in_another_profile_is_refused(self) -> None:
        """The tool runs on todo plans only: a parity session is refused, naming its profile."""
        with (
            phasetodo.Session.open("p", "memory:") as session,
            pytest.raises(InvalidOption, match="'parity'"),
        ):
            TodoTool(session)


class TestHosts:
    def test_the_todo_profile_makes_the_todo_tool(self) -> None:
        """Integrations given the todo profile, or a todo session, make a TodoTool."""
        assert tool_class("todo") is TodoTool
        assert tool_class("strict") is TodoWriteTool
        assert isinstance(make_tool(None, Options(TODO)), TodoTool)
        with phasetodo.Session.open("t", "memory:", profile="todo") as session:
            assert isinstance(make_tool(session, None), TodoTool)


class TestSpecs:
    def test_openai_chat_and_responses(self) -> None:
        """The OpenAI specs carry the name, the prompt and the reference's schema."""
        tool = TodoTool()
        chat = tool.to_openai()
        assert chat["type"] == "function"
        assert chat["function"]["name"] == "todo"
        assert chat["function"]["parameters"] == TODO_PARAMS_SCHEMA
        assert tool.to_openai("responses")["parameters"] == TODO_PARAMS_SCHEMA

    def test_openai_strict_schema_survives_the_agents_sdk(self) -> None:
        """The strict form makes every field required and nullable, as the Agents SDK keeps it."""
        spec = TodoTool().to_openai(strict=True)["function"]["parameters"]
        assert spec["required"] == ["op", "list", "task", "phase", "items", "reason"]
        assert "null" in spec["properties"]["task"]["type"]
        assert ensure_strict_json_schema(copy.deepcopy(spec)) == spec

    def test_anthropic_strict_spec_is_what_the_sdk_makes_of_it(self) -> None:
        """to_anthropic(strict=True) is a fixed point of anthropic.transform_schema."""
        spec = TodoTool().to_anthropic(strict=True)
        schema = spec["input_schema"]
        assert spec["name"] == "todo"
        assert anthropic.transform_schema(copy.deepcopy(schema)) == schema
        jsonschema.validate({"op": "block", "task": "Parser", "reason": "spec"}, schema)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"op": "note", "task": "Parser"}, schema)

    def test_the_schema_takes_every_vector_shape_apply_accepts(self) -> None:
        """Calls apply accepts without repairing them validate against the schema."""
        blocked = [{"name": "A", "tasks": [{"content": "x", "status": "blocked"}]}]
        for params in (
            {"op": "init", "list": [{"phase": "A", "items": ["a"]}]},
            {"op": "init", "items": ["a"], "phase": "A"},
            {"op": "view"},
            {"op": "unblock", "phase": "A"},
        ):
            assert "isError" not in todo.apply(params, blocked)
            jsonschema.validate(params, TODO_PARAMS_SCHEMA)

    def test_mcp_spec_describes_the_details(self) -> None:
        """The MCP definition's output schema takes a result's details, blocker and all."""
        spec = TodoTool().to_mcp()
        assert spec["name"] == "todo"
        assert spec["inputSchema"] == TODO_PARAMS_SCHEMA
        result = todo.apply({"op": "init", "items": ["a", "b"]})
        blocked = todo.apply({"op": "block", "task": "a", "reason": "x"}, result["details"]["phases"])
        done = todo.apply({"op": "done", "task": "b"}, blocked["details"]["phases"])
        for details in (result["details"], blocked["details"], done["details"]):
            jsonschema.validate(details, spec["outputSchema"])
