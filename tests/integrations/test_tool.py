"""TodoWriteTool: the model-facing tool, its prompt, its executor and its state."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import phasetodo
from phasetodo import MemoryStore, Session, SqliteStore
from phasetodo.tool import DESCRIPTION, MemoryState, TodoWriteTool, ToolResult

INIT = {"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Patch", "Test"]}]}]}


class TestIdentity:
    def test_name_schema_and_flags(self) -> None:
        """The tool is todo_write with the parameter schema, exclusive and strict like the reference."""
        tool = TodoWriteTool()
        assert tool.name == "todo_write"
        assert tool.parameters == phasetodo.profiles.PARAMS_SCHEMA
        assert tool.concurrency == "exclusive"
        assert tool.strict is True
        assert tool.description == DESCRIPTION

    def test_description_names_every_op(self) -> None:
        """The prompt explains each op by name."""
        for name in ("init", "start", "done", "drop", "rm", "append", "note"):
            assert re.search(rf"^- {name} ", DESCRIPTION, re.MULTILINE), name

    def test_description_carries_the_guidance(self) -> None:
        """The prompt says names are identifiers, phases are short and unnumbered, done is immediate."""
        text = " ".join(DESCRIPTION.split())
        for phrase in (
            "exact content",
            "keep contents unique",
            "no numbering",
            "never reword them",
            "the moment it is finished",
            "three or more",
        ):
            assert phrase in text, phrase

    def test_description_examples_are_valid_calls(self) -> None:
        """Every JSON example in the prompt is a call the schema accepts, and they apply cleanly."""
        examples = [json.loads(line) for line in DESCRIPTION.splitlines() if line.startswith("{")]
        assert len(examples) >= 3
        tool = TodoWriteTool()
        for example in examples:
            result = tool.execute(example)
            assert not result.is_error
            assert not result.text.startswith("Errors:"), result.text


class TestExecute:
    def test_result_matches_the_library_call(self) -> None:
        """A valid call returns the same text and details as phasetodo.todo_write."""
        result = TodoWriteTool().execute(INIT)
        reference = phasetodo.todo_write(INIT)
        assert result.content == reference["content"]
        assert result.details == reference["details"]
        assert result.is_error is False
        assert result.to_dict() == {**reference, "is_error": False}

    def test_calls_build_on_each_other(self) -> None:
        """Each call starts from the list the previous one left."""
        tool = TodoWriteTool()
        tool.execute(INIT)
        result = tool.execute({"ops": [{"op": "done", "task": "Patch"}]})
        assert [t.status.value for t in tool.phases[0].tasks] == ["completed", "in_progress"]
        assert "1/2 tasks complete" in result.text

    def test_op_errors_are_not_tool_errors(self) -> None:
        """A miss is reported in the text, as the reference does, and the result is no error."""
        tool = TodoWriteTool()
        result = tool.execute({"ops": [{"op": "done", "task": "Nothing"}]})
        assert result.is_error is False
        assert result.text.startswith('Errors: Task "Nothing" not found')

    @pytest.mark.parametrize(
        ("params", "problem"),
        [
            ({"ops": []}, "ops: must contain at least 1 item"),
            (
                {"ops": [{"op": "pending"}]},
                "ops[0].op: must be one of init, start, done, drop, rm, append, note",
            ),
            ({}, "ops: is required"),
            ([1], "params: must be an object, not an array"),
            ("ops", "params: must be an object, not a string"),
            (
                {"ops": [{"op": "note", "task": "Patch", "text": None}]},
                "ops[0].text: must be a string, not null",
            ),
        ],
    )
    def test_bad_arguments_give_an_error_result(self, params: object, problem: str) -> None:
        """Bad arguments give an error result listing the problem; the list is unchanged."""
        tool = TodoWriteTool()
        tool.execute(INIT)
        before = tool.phases
        result = tool.execute(params)
        assert result.is_error is True
        assert problem in result.problems
        assert f"- {problem}" in result.text.splitlines()
        assert "nothing was applied" in result.text
        assert tool.phases == before
        assert result.details == {"phases": phasetodo.dump_phases(before), "storage": "memory"}

    def test_nulls_are_absent_only_when_asked(self) -> None:
        """Null op fields are rejected by default and dropped with nulls_are_absent."""
        params = {"ops": [{"op": "init", "list": [{"phase": "A", "items": ["x"]}], "task": None}]}
        assert TodoWriteTool().execute(params).is_error is True
        assert TodoWriteTool().execute(params, nulls_are_absent=True).is_error is False


class TestState:
    def test_memory_state_starts_from_given_phases(self) -> None:
        """MemoryState takes JSON phases and reports memory storage."""
        state = MemoryState([{"name": "A", "tasks": [{"content": "x", "status": "pending"}]}])
        tool = TodoWriteTool(state)
        assert tool.storage == "memory"
        assert tool.execute({"ops": [{"op": "start", "task": "x"}]}).details["phases"] == [
            {"name": "A", "tasks": [{"content": "x", "status": "in_progress"}]}
        ]

    def test_durable_session(self, tmp_path: Path) -> None:
        """With a SQLite-backed Session the list survives reopening and reports session storage."""
        store = SqliteStore(tmp_path / "todo.db")
        with Session.open("s1", store=store, resume="keep") as session:
            result = TodoWriteTool(session).execute(INIT)
            assert result.details["storage"] == "session"
        with Session.open("s1", store=SqliteStore(tmp_path / "todo.db"), resume="keep") as again:
            tool = TodoWriteTool(again)
            assert phasetodo.dump_phases(tool.phases) == result.details["phases"]
            bad = tool.execute({"ops": []})
            assert bad.is_error
            assert bad.details == result.details
            assert again.version == 1

    def test_memory_store_session(self) -> None:
        """A Session on a MemoryStore reports memory storage in results and errors."""
        with Session.open("s", store=MemoryStore()) as session:
            tool = TodoWriteTool(session)
            assert tool.execute(INIT).details["storage"] == "memory"
            assert tool.execute({"ops": []}).details["storage"] == "memory"


class TestToolResult:
    def test_is_a_frozen_value(self) -> None:
        """ToolResult values compare by value and cannot be changed."""
        one = ToolResult("t", {"phases": [], "storage": "memory"})
        assert one == ToolResult("t", {"phases": [], "storage": "memory"})
        with pytest.raises(AttributeError):
            one.text = "x"  # type: ignore[misc]


class TestStrictTool:
    def test_strict_tool_refuses_the_whole_batch(self) -> None:
        """A strict tool returns an error result and keeps the list when any op fails."""
        tool = phasetodo.TodoWriteTool(profile="strict")
        tool.execute({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["A", "B"]}]}]})
        before = tool.phases
        result = tool.execute({"ops": [{"op": "done", "task": "A"}, {"op": "done", "task": "task-2"}]})
        assert result.is_error
        assert tool.phases == before
        assert "task-2" in result.text

    def test_strict_tool_offers_view(self) -> None:
        """The strict tool's schema and prompt carry the view op; parity's do not."""
        strict, parity = phasetodo.TodoWriteTool(profile="strict"), phasetodo.TodoWriteTool()
        assert "view" in strict.parameters["properties"]["ops"]["items"]["properties"]["op"]["enum"]
        assert "view" not in parity.parameters["properties"]["ops"]["items"]["properties"]["op"]["enum"]
        assert "view {task}" in strict.description
        assert not strict.execute({"ops": [{"op": "view"}]}).is_error
        assert parity.execute({"ops": [{"op": "view"}]}).is_error

    def test_unknown_profile_is_rejected(self) -> None:
        """A profile name other than parity or strict raises naming the field."""
        with pytest.raises(phasetodo.errors.UnknownProfile, match="profile: must be one of parity, strict"):
            phasetodo.TodoWriteTool(profile="lenient")  # type: ignore[arg-type]
