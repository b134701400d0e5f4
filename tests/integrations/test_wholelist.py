"""Whole-list formats (seed 000, Claude Code, Codex, LangChain) on the phasetodo engine."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo import JsonlStore, Session
from phasetodo.errors import InvalidOption
from phasetodo.integrations.wholelist import (
    FORMATS,
    ClaudeCodeTodoWrite,
    CodexUpdatePlan,
    LangChainWriteTodos,
    TodosWrite,
    WholeListTool,
)
from phasetodo.tool import MemoryState, Options, TodoWriteTool

_STEPS = [("Read the issue", "completed"), ("Fix the parser", "in_progress"), ("Run the tests", "pending")]


def _payload(cls: type[WholeListTool], steps: list[tuple[str, str]] = _STEPS) -> dict[str, Any]:
    """A list of ``steps`` in the format of ``cls``."""
    if cls is CodexUpdatePlan:
        return {"plan": [{"step": c, "status": s} for c, s in steps]}
    if cls is ClaudeCodeTodoWrite:
        return {"todos": [{"content": c, "status": s, "activeForm": f"Doing: {c}"} for c, s in steps]}
    return {"todos": [{"content": c, "status": s} for c, s in steps]}


def _bad_inputs(cls: type[WholeListTool]) -> dict[str, tuple[dict[str, Any] | list[Any], str]]:
    key, content = cls.list_key, cls.content_key
    good = _payload(cls)
    blank = copy.deepcopy(good)
    blank[key][0][content] = "  "
    duplicate = copy.deepcopy(good)
    duplicate[key][2][content] = duplicate[key][0][content]
    two_active = copy.deepcopy(good)
    two_active[key][0]["status"] = "in_progress"
    abandoned = copy.deepcopy(good)
    abandoned[key][0]["status"] = "abandoned"
    return {
        "blank": (blank, f"{key}[0].{content}: must not be blank"),
        "duplicate": (duplicate, f"{key}[2].{content}: duplicates {key}[0]"),
        "two active": (two_active, f"{key}: 2 tasks are in_progress ({key}[0], {key}[1])"),
        "unknown status": (
            abandoned,
            f"{key}[0].status: must be one of pending, in_progress, completed",
        ),
        "missing list": ({}, f"{key}: is required"),
        "not an object": ([], "params: must be an object, not an array"),
    }


ALL = list(FORMATS.values())


class TestRoundTrip:
    @pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
    def test_written_list_reads_back(self, cls: type[WholeListTool]) -> None:
        """A list written through the format reads back exactly."""
        tool = cls()
        result = tool.execute(_payload(cls))
        assert result.is_error is False
        assert tool.read() == _payload(cls)
        assert tool.execute(tool.read()).details == result.details

    @pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
    def test_list_lands_in_one_phase(self, cls: type[WholeListTool]) -> None:
        """Tasks go into one phase, named by the adapter, with their statuses."""
        tool = cls(phase="Plan")
        tool.execute(_payload(cls))
        assert phasetodo.dump_phases(tool.phases) == [
            {"name": "Plan", "tasks": [{"content": c, "status": s} for c, s in _STEPS]}
        ]

    @pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
    def test_empty_list_clears(self, cls: type[WholeListTool]) -> None:
        """Writing an empty list clears the todo list."""
        tool = cls()
        tool.execute(_payload(cls))
        result = tool.execute(_payload(cls, []))
        assert result.text == "Todo list cleared."
        assert tool.read() == _payload(cls, [])

    def test_first_pending_is_started(self) -> None:
        """With work left and nothing in progress, the engine starts the first pending task."""
        tool = TodosWrite()
        tool.execute(_payload(TodosWrite, [("a", "completed"), ("b", "pending"), ("c", "pending")]))
        assert [t["status"] for t in tool.read()["todos"]] == ["completed", "in_progress", "pending"]


class TestBadInput:
    @pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
    @pytest.mark.parametrize(
        "case", ["blank", "duplicate", "two active", "unknown status", "missing list", "not an object"]
    )
    def test_error_result_and_nothing_changes(self, cls: type[WholeListTool], case: str) -> None:
        """Blank or duplicate contents, two active tasks and schema breaks give an error result."""
        tool = cls()
        tool.execute(_payload(cls, [("keep me", "in_progress")]))
        before = tool.phases
        params, problem = _bad_inputs(cls)[case]
        result = tool.execute(params)
        assert result.is_error is True
        assert any(p.startswith(problem) for p in result.problems), result.problems
        assert tool.phases == before

    @pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
    def test_error_names_the_tool_called(self, cls: type[WholeListTool]) -> None:
        """The error text names the whole-list tool that was called, not todo_write."""
        result = cls().execute({})
        assert result.text.startswith(f"Invalid {cls.name} call; nothing was applied.")

    @pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
    def test_limit_error_names_the_tool_called(self, cls: type[WholeListTool]) -> None:
        """A list past the engine's limits is refused in the whole-list tool's name too."""
        result = cls().execute(_payload(cls, [("x" * 10_001, "pending")]))
        assert result.is_error is True
        assert result.text.startswith(f"Invalid {cls.name} call")
        assert any("max_content" in p for p in result.problems)

    def test_claude_code_needs_an_active_form(self) -> None:
        """Claude Code's activeForm must not be blank."""
        payload = _payload(ClaudeCodeTodoWrite)
        payload["todos"][1]["activeForm"] = ""
        result = ClaudeCodeTodoWrite().execute(payload)
        assert result.problems == ("todos[1].activeForm: must not be blank",)

    def test_phase_name_is_checked(self) -> None:
        """A blank phase name is refused when the adapter is made."""
        with pytest.raises(ValueError, match="phase: must be a non-blank string"):
            TodosWrite(phase=" ")


class TestStatusMapping:
    def test_abandoned_tasks_are_left_out(self) -> None:
        """An abandoned task is no longer work: formats without the status do not list it."""
        tool = TodoWriteTool()
        tool.execute({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b", "c"]}]}]})
        tool.execute({"ops": [{"op": "drop", "task": "b"}]})
        for cls in ALL:
            assert [i.content for i in cls(tool.session).items()] == ["a", "c"]

    def test_every_phase_is_read_in_order(self) -> None:
        """Reading flattens every phase in order; the next write puts them in one phase."""
        tool = TodoWriteTool()
        tool.execute(
            {
                "ops": [
                    {"op": "init", "list": [{"phase": "A", "items": ["a"]}, {"phase": "B", "items": ["b"]}]}
                ]
            }
        )
        plan = CodexUpdatePlan(tool.session)
        assert plan.read() == {
            "plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "pending"}]
        }
        plan.execute(plan.read())
        assert [p.name for p in tool.phases] == ["Todos"]

    def test_notes_follow_their_task(self) -> None:
        """Notes written through the ops tool survive a whole-list write that keeps the task."""
        tool = TodoWriteTool()
        tool.execute({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
        tool.execute({"ops": [{"op": "note", "task": "b", "text": "Check the edge case."}]})
        todos = LangChainWriteTodos(tool.session)
        todos.execute(
            {"todos": [{"content": "b", "status": "in_progress"}, {"content": "z", "status": "pending"}]}
        )
        assert phasetodo.dump_phases(tool.phases)[0]["tasks"] == [
            {"content": "b", "status": "in_progress", "notes": ["Check the edge case."]},
            {"content": "z", "status": "pending"},
        ]

    def test_claude_code_active_form_falls_back_to_content(self) -> None:
        """A task the adapter never saw an activeForm for reads back with its content."""
        tool = TodoWriteTool()
        tool.execute({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a"]}]}]})
        assert ClaudeCodeTodoWrite(tool.session).read() == {
            "todos": [{"content": "a", "status": "in_progress", "activeForm": "a"}]
        }

    def test_codex_explanation_is_accepted(self) -> None:
        """update_plan takes an optional explanation and applies the plan."""
        result = CodexUpdatePlan().execute({"explanation": "Start.", **_payload(CodexUpdatePlan)})
        assert result.is_error is False


class TestSession:
    def test_writes_land_in_the_session_log(self, tmp_path: Path) -> None:
        """A whole-list write is an ordinary todo_write event in a durable session."""
        with Session.open("whole", store=JsonlStore(tmp_path), resume="keep") as session:
            TodosWrite(session).execute(_payload(TodosWrite))
            assert session.version == 1
        with Session.open("whole", store=JsonlStore(tmp_path), resume="keep") as again:
            assert TodosWrite(again).read() == _payload(TodosWrite)

    def test_names(self) -> None:
        """Each format keeps the tool name its agents know."""
        assert {cls.name for cls in ALL} == {"todo_write", "TodoWrite", "update_plan", "write_todos"}


class TestOptions:
    @pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
    def test_options_give_the_limits(self, cls: type[WholeListTool]) -> None:
        """options=Options(limits=...) bounds the calls; limits=None lifts them."""
        long = _payload(cls, [("x" * 10_001, "pending")])
        assert cls(options=Options(limits=phasetodo.Limits(max_content=3))).execute(_payload(cls)).is_error
        assert cls(options=Options(limits=None)).execute(long).is_error is False

    def test_options_agent_writes_to_the_memory_list(self) -> None:
        """An agent in the options is who writes to the memory list (a team plan's lead)."""
        state = TodosWrite(options=Options(agent="ann")).tool.session
        assert isinstance(state, MemoryState)
        assert (state.agent, state.options.lead) == ("ann", "ann")

    def test_a_profile_other_than_parity_is_refused(self) -> None:
        """The formats are the reference's ops: options with another profile are refused."""
        with pytest.raises(InvalidOption, match=r"options\.profile: 'strict'"):
            CodexUpdatePlan(options=Options(profile="strict"))
        with pytest.raises(InvalidOption, match="tool: runs 'team'"):
            CodexUpdatePlan.on(TodoWriteTool(profile="team"))

    def test_a_session_option_is_refused(self) -> None:
        """A dry run, a lead or a scope is the session's: an integration refuses it."""
        with pytest.raises(InvalidOption, match=r"options.dry_run: is the session's"):
            TodosWrite(options=Options(dry_run=True))

    def test_on_an_existing_tool(self) -> None:
        """WholeListTool.on(tool) reads and writes the list of a TodoWriteTool made already."""
        tool = TodoWriteTool(MemoryState(limits=None))
        plan = CodexUpdatePlan.on(tool, phase="Plan")
        assert plan.tool is tool
        plan.execute(_payload(CodexUpdatePlan, [("x" * 10_001, "pending")]))
        assert tool.phases[0].name == "Plan"

    def test_active_forms_are_each_tools_own(self) -> None:
        """Two Claude Code tools do not share the activeForm they were sent."""
        first, second = ClaudeCodeTodoWrite(), ClaudeCodeTodoWrite()
        first.execute(_payload(ClaudeCodeTodoWrite))
        second.execute(_payload(ClaudeCodeTodoWrite, [("Read the issue", "pending")]))
        assert first.read() == _payload(ClaudeCodeTodoWrite)
        assert ClaudeCodeTodoWrite().read() == {"todos": []}

    @pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
    def test_the_limits_keyword_is_gone(self, cls: type[WholeListTool]) -> None:
        """limits= is a TypeError: the limits go in options (nothing was released)."""
        with pytest.raises(TypeError, match="limits"):
            cls(limits=None)  # type: ignore[call-arg]

    def test_an_unknown_keyword_is_a_type_error(self) -> None:
        """A keyword no format takes raises TypeError, as Python does (profile= among them)."""
        with pytest.raises(TypeError, match="unexpected keyword argument 'profile'"):
            TodosWrite(profile="strict")  # type: ignore[call-arg]
