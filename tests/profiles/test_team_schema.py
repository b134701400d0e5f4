"""The team profile's schema, parser and op values where the mutation check found no test.

The schema is built once, at import; the tests of what it offers look at a
fresh import too, so that the code building it is what they check.
"""

from __future__ import annotations

import copy
import importlib.util
from types import ModuleType
from typing import Any

import pytest

import phasetodo
from phasetodo import InvalidParams
from phasetodo._core import schema
from phasetodo._core.ops import OP_NAMES, Done, Drop, Note, Rm, Start
from phasetodo._profiles.team import schema as team_schema
from phasetodo._profiles.team.ops import (
    TEAM_OP_NAMES,
    After,
    Block,
    TeamAppend,
    TeamInit,
    TeamItem,
    TeamPhase,
    Unblock,
)
from phasetodo._profiles.team.schema import dump_team_op
from phasetodo.profiles import TEAM


def fresh_import(name: str) -> ModuleType:
    """A new copy of module ``name``, executed now (``sys.modules`` is left as it is)."""
    spec = importlib.util.find_spec(name)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["imported", "fresh"])
def built(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The team schema as imported, and as a fresh import builds it."""
    if request.param == "imported":
        return team_schema.TEAM_PARAMS_SCHEMA
    return fresh_import("phasetodo._profiles.team.schema").TEAM_PARAMS_SCHEMA  # type: ignore[no-any-return]


def _fields(params_schema: dict[str, Any]) -> dict[str, Any]:
    return params_schema["properties"]["ops"]["items"]["properties"]  # type: ignore[no-any-return]


def refused(params: object) -> tuple[str, ...]:
    """The problems of team params the schema refuses."""
    with pytest.raises(InvalidParams) as caught:
        phasetodo.todo_write(params, [], profile="team", agent="w1")  # type: ignore[arg-type]
    return caught.value.problems


class TestSchema:
    def test_offers_the_team_ops(self, built: dict[str, Any]) -> None:
        """The op names are the team's ten, and block's reason and after's list are offered."""
        fields = _fields(built)
        assert fields["op"]["enum"] == list(TEAM_OP_NAMES)
        assert fields["reason"]["type"] == "string"
        assert fields["after"] == {**fields["after"], "type": "array", "items": {"type": "string"}}
        assert built["required"] == ["ops"]

    def test_items_are_strings_or_objects(self, built: dict[str, Any]) -> None:
        """Append's items and init's items are strings or {content, after} objects."""
        fields = _fields(built)
        for items in (fields["items"], fields["list"]["items"]["properties"]["items"]):
            kinds = items["items"]["anyOf"]
            assert [k["type"] for k in kinds] == ["string", "object"]
            assert kinds[1]["required"] == ["content"]
            assert kinds[1]["properties"]["after"]["items"] == {"type": "string"}
            assert items["minItems"] == 1

    def test_wording(self, built: dict[str, Any]) -> None:
        """The schema tells the model the call is all or nothing, as the calling agent."""
        assert "all or nothing, as the " in built["description"]
        assert "calling agent: if any operation fails, none is applied." in built["description"]
        task = _fields(built)["task"]["description"]
        assert task.startswith("start/done/drop/rm/note/block/unblock: ")
        assert "start without a task claims the next ready task." in task
        assert _fields(built)["reason"]["description"].startswith("block: ")
        assert _fields(built)["after"]["description"].startswith("after: ")

    def test_the_parity_schema_is_left_as_it_was(self) -> None:
        """Building the team schema changes nothing in the parity schema it starts from."""
        before = copy.deepcopy(schema.PARAMS_SCHEMA)
        fresh_import("phasetodo._profiles.team.schema")
        assert before == schema.PARAMS_SCHEMA
        assert _fields(schema.PARAMS_SCHEMA)["op"]["enum"] == list(OP_NAMES)
        assert "reason" not in _fields(schema.PARAMS_SCHEMA)

    def test_the_problem_walk_leaves_items_to_the_item_check(self) -> None:
        """Every item problem is listed once, with its place, whatever the item's shape."""
        assert refused({"ops": [{"op": "append", "phase": "P", "items": [7]}]}) == (
            "ops[0].items[0]: must be a string or an object with content and after",
        )
        assert refused({"ops": [{"op": "init", "list": [{"phase": "P", "items": [{"content": 1}]}]}]}) == (
            "ops[0].list[0].items[0].content: must be a string, not a number",
        )

    def test_fresh_walk_schema_leaves_items_to_the_item_check(self) -> None:
        """The walker's schema, built afresh, has no item union: items are left to the item check."""
        walk = _fields(fresh_import("phasetodo._profiles.team.schema")._WALK)
        assert walk["items"]["items"] == {}
        assert walk["list"]["items"]["properties"]["items"]["items"] == {}
        assert walk["items"]["minItems"] == 1
        assert walk["op"]["enum"] == list(TEAM_OP_NAMES)


class TestCompiledCheck:
    def test_compiled_on_first_use(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """From nothing compiled, the first team call compiles the schema, which then decides every call."""
        monkeypatch.setattr(team_schema, "_compiled", [])
        assert TEAM.parse({"ops": [{"op": "block", "task": "a", "reason": "r"}]}) == (Block("a", "r"),)
        assert len(team_schema._compiled) == 1
        assert refused({"ops": [{"op": "block", "task": 1}]}) == (
            "ops[0].task: must be a string, not a number",
        )


class TestProblems:
    def test_not_an_object(self) -> None:
        """Params that are not an object are refused in one line."""
        assert refused(["ops"]) == ("params: must be an object, not an array",)

    def test_every_item_problem_is_listed(self) -> None:
        """Item problems of every op and of every init entry are listed, after the other problems."""
        params = {
            "ops": [
                5,
                {
                    "op": "append",
                    "phase": "P",
                    "items": ["ok", 3, {"after": ["a"]}, {"content": "c", "after": "a"}],
                },
                {"op": "nope"},
                {
                    "op": "init",
                    "list": [
                        {"phase": "P", "items": ["a", 7]},
                        "bad",
                        {"phase": "Q", "items": [{"content": 1}]},
                    ],
                },
            ]
        }
        assert refused(params) == (
            "ops[0]: must be an object, not a number",
            "ops[2].op: must be one of init, start, done, drop, rm, append, note, block, unblock, after",
            "ops[3].list[1]: must be an object, not a string",
            "ops[1].items[1]: must be a string or an object with content and after",
            "ops[1].items[2].content: is required",
            "ops[1].items[3].after: must be an array, not a string",
            "ops[3].list[0].items[1]: must be a string or an object with content and after",
            "ops[3].list[2].items[0].content: must be a string, not a number",
        )


class TestParse:
    def test_every_op(self) -> None:
        """Each team op's arguments become its value; missing fields stay missing."""
        ops = [
            {"op": "init"},
            {"op": "init", "list": [{"phase": "P", "items": ["a", {"content": "b", "after": ["a"]}]}]},
            {"op": "append", "phase": "P"},
            {"op": "append", "phase": "P", "items": [{"content": "c"}]},
            {"op": "start"},
            {"op": "note", "task": "a", "text": "t"},
            {"op": "block", "task": "a", "reason": "r"},
            {"op": "unblock", "task": "a"},
            {"op": "after", "task": "a"},
            {"op": "after", "task": "a", "after": ["b"]},
            {"op": "done", "task": "a", "phase": "P"},
            {"op": "drop", "task": "a", "phase": "P"},
            {"op": "drop", "phase": "P"},
            {"op": "rm", "task": "a", "phase": "P"},
        ]
        assert TEAM.parse({"ops": ops}) == (
            TeamInit(),
            TeamInit((TeamPhase("P", (TeamItem("a"), TeamItem("b", ("a",)))),)),
            TeamAppend("P"),
            TeamAppend("P", (TeamItem("c"),)),
            Start(),
            Note("a", "t"),
            Block("a", "r"),
            Unblock("a"),
            After("a"),
            After("a", ("b",)),
            Done("a", "P"),
            Drop("a", "P"),
            Drop(None, "P"),
            Rm("a", "P"),
        )

    def test_dump_is_the_inverse(self) -> None:
        """Every op goes back to the arguments it was parsed from."""
        ops = [
            {"op": "init"},
            {"op": "init", "list": [{"phase": "P", "items": ["a", {"content": "b", "after": ["a"]}]}]},
            {"op": "append"},
            {"op": "append", "phase": "P", "items": ["c", {"content": "d", "after": ["c"]}]},
            {"op": "block", "task": "a", "reason": "r"},
            {"op": "after", "task": "a", "after": ["b", "c"]},
            {"op": "drop", "phase": "P"},
            {"op": "note", "task": "a", "text": "t"},
        ]
        assert [dump_team_op(op) for op in TEAM.parse({"ops": ops})] == ops


class TestValues:
    def test_values_from_lists_are_hashable_tuples(self) -> None:
        """Team op values built from lists hold tuples, so they compare and hash as values."""
        phase = TeamPhase("P", [TeamItem("a", ["b"])])
        assert phase.items == (TeamItem("a", ("b",)),)
        assert hash(phase) == hash(TeamPhase("P", (TeamItem("a", ("b",)),)))
        assert TeamInit([phase]).list == (phase,)
        assert TeamAppend("P", [TeamItem("a")]).items == (TeamItem("a"),)
        assert After("a", ["b"]).after == ("b",)
        assert After("a").after is None
        assert TeamAppend("P").items is None
        assert TeamInit().list is None

    def test_missing_fields_give_the_reference_errors(self) -> None:
        """A team append without items or an init without a list is an op error, not a crash."""
        result = phasetodo.todo_write({"ops": [{"op": "append", "phase": "P"}]}, [], profile="team")
        assert result["details"]["errors"] == ["Missing items for append operation"]
        result = phasetodo.todo_write({"ops": [{"op": "init"}]}, [], profile="team")
        assert result["details"]["errors"] == ["Missing list for init operation"]
