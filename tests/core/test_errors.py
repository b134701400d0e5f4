"""Bad input: every problem is listed with its place, and nothing else escapes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import phasetodo
from phasetodo._core.codec import converter
from phasetodo._core.schema import is_valid

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["ops", "op", "task", "phase", "items", "list", "text"]), inner),
    max_leaves=12,
)


class TestInvalidParams:
    def test_is_a_value_error(self) -> None:
        """InvalidParams is a ValueError and a PhasetodoError."""
        assert issubclass(phasetodo.InvalidParams, ValueError)
        assert issubclass(phasetodo.InvalidParams, phasetodo.PhasetodoError)

    @pytest.mark.parametrize(
        ("params", "problems"),
        [
            ({}, ["ops: is required"]),
            ({"ops": []}, ["ops: must contain at least 1 item"]),
            ({"ops": "init"}, ["ops: must be an array, not a string"]),
            (None, ["params: must be an object, not null"]),
            ([1], ["params: must be an object, not an array"]),
            (
                {"ops": [{"op": "pending"}]},
                ["ops[0].op: must be one of init, start, done, drop, rm, append, note"],
            ),
            (
                {
                    "ops": [
                        {"op": "done", "task": 3},
                        {"op": "note", "task": "A", "text": None},
                        {"op": "append", "phase": "P", "items": []},
                        {"op": "init", "list": [{"items": ["a", 1]}]},
                        "rm",
                    ]
                },
                [
                    "ops[0].task: must be a string, not a number",
                    "ops[1].text: must be a string, not null",
                    "ops[2].items: must contain at least 1 item",
                    "ops[3].list[0].phase: is required",
                    "ops[3].list[0].items[1]: must be a string, not a number",
                    "ops[4]: must be an object, not a string",
                ],
            ),
            ({"ops": [{"op": "done", "phase": False}]}, ["ops[0].phase: must be a string, not a boolean"]),
        ],
    )
    def test_lists_every_problem_with_its_place(self, params: Any, problems: list[str]) -> None:
        """Each problem is one line naming where it is, in document order."""
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.todo_write(params)
        assert list(caught.value.problems) == problems
        assert all(p in str(caught.value) for p in problems)

    def test_nothing_is_applied(self) -> None:
        """A batch with one bad op applies none of its good ops."""
        before = [{"name": "P", "tasks": [{"content": "A", "status": "pending"}]}]
        with pytest.raises(phasetodo.InvalidParams):
            phasetodo.todo_write({"ops": [{"op": "rm"}, {"op": "bogus"}]}, before)
        assert before == [{"name": "P", "tasks": [{"content": "A", "status": "pending"}]}]

    @given(json_values)
    def test_only_invalid_params_escapes(self, params: Any) -> None:
        """Any JSON-shaped value either applies or raises InvalidParams with problems."""
        if is_valid(params):
            assert phasetodo.todo_write(params)["details"]["storage"] == "memory"
            return
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.todo_write(params)
        assert caught.value.problems

    def test_non_json_values_are_rejected(self) -> None:
        """Values JSON cannot hold in a checked field are reported, not crashed on."""
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.todo_write({"ops": [{"op": "done", "task": b"A"}]})
        assert caught.value.problems == ("ops[0].task: must be a string, not a bytes",)


class TestInvalidPhases:
    @pytest.mark.parametrize(
        ("data", "problems"),
        [
            ("x", ["phases: must be an array, not a string"]),
            ([{"tasks": []}], ["[0].name: is required"]),
            (
                [{"name": "P", "tasks": [{"content": "A", "status": "done"}, {"status": "pending"}]}],
                [
                    "[0].tasks[0].status: must be one of pending, in_progress, completed, abandoned, blocked",
                    "[0].tasks[1].content: is required",
                ],
            ),
            (
                [{"name": "P", "tasks": [{"content": "A", "status": "pending", "notes": [1]}]}],
                ["[0].tasks[0].notes[0]: must be a string, not a number"],
            ),
        ],
    )
    def test_names_each_bad_place(self, data: Any, problems: list[str]) -> None:
        """load_phases reports every malformed place in the same error family."""
        with pytest.raises(phasetodo.InvalidPhases) as caught:
            phasetodo.load_phases(data)
        assert list(caught.value.problems) == problems
        assert isinstance(caught.value, ValueError)

    def test_todo_write_rejects_a_malformed_list(self) -> None:
        """A malformed stored list is an InvalidPhases error, not a crash."""
        with pytest.raises(phasetodo.InvalidPhases):
            phasetodo.todo_write({"ops": [{"op": "done"}]}, [{"name": 1, "tasks": []}])


class TestConverter:
    @pytest.mark.parametrize(
        "params",
        [
            {"op": "rm", "task": "A"},
            {"op": "start", "task": "A"},
            {"op": "append", "phase": "P", "items": ["a", "b"]},
            {"op": "note", "task": "A", "text": "t"},
            {"op": "init", "list": [{"phase": "P", "items": ["a"]}]},
            {"op": "init"},
            {"op": "done"},
        ],
    )
    def test_ops_unstructure_back_to_their_arguments(self, params: dict[str, Any]) -> None:
        """The converter turns every op back into the tool arguments it came from."""
        (op,) = phasetodo.profiles.parse_params({"ops": [params]})
        assert converter.unstructure(op) == params
