"""The parameter schemas and the null rule where the mutation check found no test.

The schemas are built once, at import; the tests that check what a schema
offers look at a fresh import too, so that the code building it is what they
check (a test process has usually imported the module long before).
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import phasetodo
from phasetodo import InvalidParams
from phasetodo._core import schema
from phasetodo._core.ops import OP_NAMES


def fresh_import(name: str) -> ModuleType:
    """A new copy of module ``name``, executed now (``sys.modules`` is left as it is)."""
    spec = importlib.util.find_spec(name)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Data(dict):  # type: ignore[type-arg]
    """A dict subclass, as some JSON libraries and hosts hand over."""


@pytest.fixture(params=["imported", "fresh"])
def built(request: pytest.FixtureRequest) -> ModuleType:
    """The schema module as imported, and as a fresh import builds it."""
    return schema if request.param == "imported" else fresh_import("phasetodo._core.schema")


def _op_fields(params_schema: dict[str, Any]) -> dict[str, Any]:
    return params_schema["properties"]["ops"]["items"]["properties"]  # type: ignore[no-any-return]


def _constraints(value: Any) -> Any:
    """A schema without its descriptions and comments (what it accepts, not what it says)."""
    if isinstance(value, dict):
        return {k: _constraints(v) for k, v in value.items() if k not in ("description", "$comment")}
    if isinstance(value, list):
        return [_constraints(v) for v in value]
    return value


def _described(value: dict[str, Any], place: str = "params") -> list[str]:
    """The places in a schema with a type but no description."""
    missing = [] if value.get("description") else [place]
    for key, sub in value.get("properties", {}).items():
        missing += _described(sub, f"{place}.{key}")
    if "items" in value:
        missing += _described(value["items"], f"{place}[]")
    return missing


class TestParitySchema:
    def test_constraints_are_the_references(self, built: ModuleType) -> None:
        """The parity schema accepts what the reference's does: same types, required fields and bounds."""
        reference = json.loads(
            (Path(__file__).parent.parent / "conformance" / "todo_write.params.schema.json").read_text()
        )
        ours = _constraints(copy.deepcopy(built.PARAMS_SCHEMA))
        theirs = _constraints(reference)
        for value in (ours, theirs):
            names = _op_fields(value)["op"].pop("enum")
            assert sorted(names) == sorted(OP_NAMES)
        assert ours == theirs

    def test_every_field_is_described(self, built: ModuleType) -> None:
        """Every field a model fills in is described (the op objects and init's entries by their arrays)."""
        assert _described(built.PARAMS_SCHEMA) == ["params.ops[]", "params.ops[].list[]"]
        assert _described(built.STRICT_PARAMS_SCHEMA) == ["params.ops[]", "params.ops[].list[]"]

    def test_stored_phases_schema(self, built: ModuleType) -> None:
        """The schema of stored phases: a list of {name, tasks} objects, with no minimum."""
        phases = built.PHASES_SCHEMA
        assert phases["type"] == "array"
        assert "minItems" not in phases
        assert phases["items"]["type"] == "object"
        assert phases["items"]["required"] == ["name", "tasks"]
        assert phases["items"]["properties"]["tasks"]["items"]["required"] == ["content", "status"]


class TestStrictSchema:
    def test_offers_view(self, built: ModuleType) -> None:
        """The strict schema's ops are the parity ops and ``view``; the parity schema is left as it was."""
        assert _op_fields(built.STRICT_PARAMS_SCHEMA)["op"]["enum"] == [*OP_NAMES, "view"]
        assert _op_fields(built.PARAMS_SCHEMA)["op"]["enum"] == list(OP_NAMES)

    def test_says_all_or_nothing(self, built: ModuleType) -> None:
        """The strict schema tells the model the batch is all or nothing, and that tasks have no ids."""
        strict = built.STRICT_PARAMS_SCHEMA
        assert "all or nothing" in strict["description"]
        assert "if any operation fails, none is applied." in strict["description"]
        assert "all or nothing" not in built.PARAMS_SCHEMA["description"]
        fields = _op_fields(strict)
        assert fields["task"]["description"].startswith("start/done/drop/rm/note/view: ")
        assert "(tasks have no ids)" in fields["task"]["description"]
        assert "done/drop/rm/view of a whole phase" in fields["phase"]["description"]

    def test_is_the_parity_schema_otherwise(self, built: ModuleType) -> None:
        """Apart from the op names and the wording, the strict schema is the parity schema."""
        strict, parity = copy.deepcopy(built.STRICT_PARAMS_SCHEMA), copy.deepcopy(built.PARAMS_SCHEMA)
        for value in (strict, parity):
            del value["description"]
            fields = _op_fields(value)
            del fields["op"]["enum"]
            del fields["task"]["description"]
            del fields["phase"]["description"]
        assert strict == parity


class TestCompiledChecks:
    @pytest.fixture(autouse=True)
    def _cold(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Start from nothing compiled, as a new process does."""
        for check in (schema.PARAMS_CHECK, schema.STRICT_PARAMS_CHECK):
            monkeypatch.setattr(check, "_compiled", None)

    def test_dict_subclasses_are_json_objects(self) -> None:
        """Params and ops given as dict subclasses are checked by the schema and applied."""
        params = _Data(ops=[_Data(op="init", list=[{"phase": "P", "items": ["a"]}])])
        assert schema.is_valid(params)
        assert schema.is_valid_strict(params)
        result = phasetodo.todo_write(params)
        assert result["details"]["phases"] == [
            {"name": "P", "tasks": [{"content": "a", "status": "in_progress"}]}
        ]

    def test_each_profile_has_its_own_schema(self) -> None:
        """``view`` is valid in the strict schema only, whichever is compiled first."""
        view = _Data(ops=[{"op": "view"}])
        assert not schema.is_valid(view)
        assert schema.is_valid_strict(view)
        assert not schema.is_valid(view)
        with pytest.raises(InvalidParams, match=r"ops\[0\]\.op: must be one of init, start, done"):
            phasetodo.todo_write(view)

    def test_strict_first(self) -> None:
        """Compiled in the other order, each schema still decides alone."""
        view = _Data(ops=[{"op": "view"}])
        assert schema.is_valid_strict(view)
        assert not schema.is_valid(view)
        assert not schema.is_valid_strict(_Data(ops=[{"op": "nope"}]))
        assert schema.is_valid(_Data(ops=[{"op": "done"}]))

    def test_compiled_once(self) -> None:
        """A profile's schema is compiled on its first check and kept."""
        assert schema.is_valid(_Data(ops=[{"op": "done"}]))
        first = schema.PARAMS_CHECK.compiled()
        assert schema.is_valid(_Data(ops=[{"op": "rm"}]))
        assert schema.PARAMS_CHECK.compiled() is first


class TestNullRule:
    def test_nothing_to_read_is_no_copy(self) -> None:
        """Params without a null op field come back as they were given, not copied."""
        given: tuple[object, ...] = (
            {"ops": [{"op": "done", "task": "a"}]},
            {"ops": ["done", 3]},
            {"ops": ({"op": "done", "task": None},)},
            {"ops": 5},
            {"list": []},
            ["ops"],
        )
        for params in given:
            assert schema.read_nulls(params) is params

    def test_only_op_objects_with_nulls_are_rewritten(self) -> None:
        """Entries that are not op objects, and ops without nulls, are kept as given, in order."""
        start = {"op": "start", "task": "a"}
        params = {
            "ops": [start, {"op": "done", "task": "a", "phase": None}, "junk", {"op": "rm", "task": "b"}]
        }
        read = schema.read_nulls(params)
        assert read == {"ops": [start, {"op": "done", "task": "a"}, "junk", {"op": "rm", "task": "b"}]}
        assert read["ops"][0] is start

    def test_null_never_means_every_task(self) -> None:
        """A whole-list op made by nulls is refused with one line that says what to do."""
        with pytest.raises(InvalidParams) as caught:
            schema.read_nulls({"ops": [{"op": "done"}, {"op": "rm", "phase": None, "text": None}]})
        assert caught.value.problems == (
            "ops[1].phase: is null, and null never means every task: "
            "name a task or a phase, or leave both out to act on every task",
        )
