"""Provider tool specs: OpenAI (plain and strict), Anthropic and MCP."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import anthropic
import jsonschema
import pytest
from agents.strict_schema import ensure_strict_json_schema
from hypothesis import given, settings

import phasetodo
from phasetodo import testing
from phasetodo.integrations.openai import OPENAI_STRICT_SCHEMA, strict_schema, strip_nulls
from phasetodo.tool import TodoWriteTool

from ..budget import examples

_OP_FIELDS = ("list", "task", "phase", "items", "text")


def _objects(schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every object schema inside ``schema``."""
    if schema.get("type") == "object" or "object" in (schema.get("type") or ()):
        yield schema
        for sub in schema.get("properties", {}).values():
            yield from _objects(sub)
    if isinstance(schema.get("items"), dict):
        yield from _objects(schema["items"])


def _descriptions(schema: Any, path: str = "") -> dict[str, str]:
    """Every description in a schema, by where it sits."""
    found: dict[str, str] = {}
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                found[path] = value
            else:
                found.update(_descriptions(value, f"{path}/{key}"))
    return found


def _with_nulls(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` as a strict-mode model writes them: absent op fields spelled as null."""
    return {"ops": [{**dict.fromkeys(_OP_FIELDS), **op} for op in params["ops"]]}


class TestOpenAI:
    def test_chat_completions_shape(self) -> None:
        """Chat Completions gets {type: function, function: {name, description, parameters, strict}}."""
        spec = TodoWriteTool().to_openai()
        assert spec == {
            "type": "function",
            "function": {
                "name": "todo_write",
                "description": TodoWriteTool.description,
                "parameters": phasetodo.profiles.PARAMS_SCHEMA,
                "strict": False,
            },
        }

    def test_responses_shape(self) -> None:
        """Responses gets the function fields at the top level."""
        spec = TodoWriteTool().to_openai("responses", strict=True)
        assert spec == {
            "type": "function",
            "name": "todo_write",
            "description": TodoWriteTool.description,
            "parameters": OPENAI_STRICT_SCHEMA,
            "strict": True,
        }

    def test_unknown_api_is_refused(self) -> None:
        """An api other than chat or responses raises a ValueError naming it."""
        with pytest.raises(ValueError, match="api: must be 'chat' or 'responses'"):
            TodoWriteTool().to_openai("assistants")  # type: ignore[arg-type]

    def test_strict_schema_is_closed_and_fully_required(self) -> None:
        """Every object is closed and requires all its properties; optional ones accept null."""
        for node in _objects(OPENAI_STRICT_SCHEMA):
            assert node["additionalProperties"] is False
            assert node["required"] == list(node["properties"])
        op = OPENAI_STRICT_SCHEMA["properties"]["ops"]["items"]["properties"]
        assert op["op"]["type"] == "string"
        for field in _OP_FIELDS:
            assert "null" in op[field]["type"], field

    def test_strict_schema_survives_the_agents_sdk(self) -> None:
        """agents.strict_schema.ensure_strict_json_schema leaves the strict schema unchanged."""
        spec = TodoWriteTool().to_openai(strict=True)["function"]["parameters"]
        assert ensure_strict_json_schema(copy.deepcopy(spec)) == spec

    def test_strict_schema_leaves_the_plain_one_alone(self) -> None:
        """Making a schema strict works on a copy."""
        before = copy.deepcopy(phasetodo.profiles.PARAMS_SCHEMA)
        strict_schema(phasetodo.profiles.PARAMS_SCHEMA)
        assert before == phasetodo.profiles.PARAMS_SCHEMA

    @settings(max_examples=examples(100), deadline=None)
    @given(testing.calls(valid=True))
    def test_nulls_apply_as_absent(self, call: tuple[tuple[phasetodo.Phase, ...], Any]) -> None:
        """A strict payload's nulls read as absent, but a null-only done/drop/rm target is refused."""
        phases, params = call
        params = {
            "ops": [{k: v for k, v in op.items() if k == "op" or k in _OP_FIELDS} for op in params["ops"]]
        }
        nulled = _with_nulls(params)
        jsonschema.validate(nulled, OPENAI_STRICT_SCHEMA)
        plain = TodoWriteTool(phasetodo.tool.MemoryState(phases)).execute(params)
        strict = TodoWriteTool(phasetodo.tool.MemoryState(phases)).execute(nulled, nulls_are_absent=True)
        whole_list = any(
            op["op"] in ("done", "drop", "rm") and "task" not in op and "phase" not in op
            for op in params["ops"]
        )
        if whole_list:  # null never means every task: refused, nothing applied
            assert strict.is_error is True
            assert strict.details["phases"] == phasetodo.dump_phases(phases)
        else:
            assert strip_nulls(nulled) == params
            assert strict == plain


class TestAnthropic:
    def test_shape(self) -> None:
        """Anthropic gets name, description and input_schema."""
        spec = TodoWriteTool().to_anthropic()
        assert spec == {
            "name": "todo_write",
            "description": TodoWriteTool.description,
            "input_schema": phasetodo.profiles.PARAMS_SCHEMA,
        }

    @pytest.mark.parametrize("profile", ["parity", "strict"])
    def test_strict_spec_is_what_the_sdk_makes_of_it(self, profile: str) -> None:
        """to_anthropic(strict=True) is a fixed point of anthropic.transform_schema, flagged strict."""
        spec = TodoWriteTool(profile=profile).to_anthropic(strict=True)  # type: ignore[arg-type]
        assert spec["strict"] is True
        schema = spec["input_schema"]
        assert anthropic.transform_schema(copy.deepcopy(schema)) == schema
        assert all(obj.get("additionalProperties") is False for obj in _objects(schema))
        valid = {"ops": [{"op": "done", "task": "Patch it"}]}
        jsonschema.validate(valid, schema)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"ops": [{"op": "done", "stray": 1}]}, schema)

    def test_sdk_transform_keeps_every_constraint(self) -> None:
        """The SDK's strict transform moves nothing into descriptions and keeps minItems and enums."""
        schema = TodoWriteTool().to_anthropic()["input_schema"]
        transformed = anthropic.transform_schema(copy.deepcopy(schema))
        assert _descriptions(transformed) == _descriptions(schema)
        ops = transformed["properties"]["ops"]
        assert ops["minItems"] == 1
        assert ops["items"]["properties"]["items"]["minItems"] == 1
        assert ops["items"]["properties"]["op"]["enum"] == list(phasetodo.ops.OPS)
        assert ops["items"]["required"] == ["op"]
