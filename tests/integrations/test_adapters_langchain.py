"""LangChain: the middleware in a create_agent loop with a scripted chat model."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

import phasetodo
from phasetodo import MemoryStore, Session
from phasetodo.integrations.langchain import PhasetodoMiddleware, flatten
from phasetodo.tool import Options

INIT = {
    "ops": [
        {
            "op": "init",
            "list": [{"phase": "Fix", "items": ["Patch", "Test"]}, {"phase": "Ship", "items": ["Tag"]}],
        }
    ]
}
DONE = {"ops": [{"op": "done", "task": "Patch"}, {"op": "drop", "task": "Test"}]}


class _Scripted(GenericFakeChatModel):
    """A chat model that replies with scripted messages and accepts any tools."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> _Scripted:  # type: ignore[override]
        return self


def _script(*turns: list[dict[str, Any]]) -> Iterator[AIMessage]:
    messages = [
        AIMessage("", tool_calls=[{**c, "id": f"c{i}-{j}"} for j, c in enumerate(calls)])
        for i, calls in enumerate(turns)
    ]
    return iter([*messages, AIMessage("Done.")])


def _call(args: dict[str, Any], name: str = "todo_write") -> dict[str, Any]:
    return {"name": name, "args": args}


def _tool_messages(state: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


class TestMiddleware:
    def test_second_call_sees_the_first(self) -> None:
        """The list lives in graph state: the second call builds on the first."""
        agent = create_agent(
            _Scripted(messages=_script([_call(INIT)], [_call(DONE)])), middleware=[PhasetodoMiddleware()]
        )
        state = agent.invoke({"messages": [HumanMessage("Fix it.")]})
        first, second = _tool_messages(state)
        assert "Remaining items (3):" in first.content
        assert "Errors" not in second.content
        assert "✓ Patch" in second.content
        assert state["phases"] == [
            {
                "name": "Fix",
                "tasks": [
                    {"content": "Patch", "status": "completed"},
                    {"content": "Test", "status": "abandoned"},
                ],
            },
            {"name": "Ship", "tasks": [{"content": "Tag", "status": "in_progress"}]},
        ]
        assert state["todos"] == [
            {"content": "Patch", "status": "completed"},
            {"content": "Tag", "status": "in_progress"},
        ]
        assert state["todos"] == flatten(state["phases"])

    def test_async_loop(self) -> None:
        """The async agent loop runs the tool the same way."""
        agent = create_agent(
            _Scripted(messages=_script([_call(INIT)], [_call(DONE)])),
            middleware=[PhasetodoMiddleware(tool_description="Plan with phases.")],
        )
        state = asyncio.run(agent.ainvoke({"messages": [HumanMessage("Fix it.")]}))
        assert [t["content"] for t in state["todos"]] == ["Patch", "Tag"]

    def test_custom_wording(self) -> None:
        """system_prompt and tool_description replace ours, as in TodoListMiddleware."""
        middleware = PhasetodoMiddleware(system_prompt="Plan.", tool_description="Plan with phases.")
        assert middleware.system_prompt == "Plan."
        assert middleware.tools[0].description == "Plan with phases."
        assert middleware.tools[0].name == "todo_write"

    def test_bad_input_is_an_error_message(self) -> None:
        """Bad arguments give an error tool message and leave the state alone."""
        agent = create_agent(
            _Scripted(messages=_script([_call(INIT)], [_call({"ops": []})])),
            middleware=[PhasetodoMiddleware()],
        )
        state = agent.invoke({"messages": [HumanMessage("Fix it.")]})
        bad = _tool_messages(state)[1]
        assert bad.status == "error"
        assert "ops: must contain at least 1 item" in bad.content
        assert [t["status"] for t in state["todos"]] == ["in_progress", "pending", "pending"]

    def test_parallel_calls_are_refused(self) -> None:
        """Two calls in one turn are both refused: each call must see the previous list."""
        agent = create_agent(
            _Scripted(messages=_script([_call(INIT), _call(INIT)])), middleware=[PhasetodoMiddleware()]
        )
        state = agent.invoke({"messages": [HumanMessage("Fix it.")]})
        refused = _tool_messages(state)
        assert len(refused) == 2
        assert all(m.status == "error" and "2 times in one turn" in m.content for m in refused)
        assert "todos" not in state

    def test_whole_list_write_todos(self) -> None:
        """whole_list=True offers write_todos with LangChain's own arguments."""
        todos = [{"content": "Patch", "status": "completed"}, {"content": "Test", "status": "in_progress"}]
        model = _Scripted(
            messages=_script(
                [_call({"todos": [todos[0], {"content": "Test", "status": "pending"}]}, "write_todos")],
                [_call({"todos": todos}, "write_todos")],
            )
        )
        agent = create_agent(model, middleware=[PhasetodoMiddleware(whole_list=True)])
        state = agent.invoke({"messages": [HumanMessage("Fix it.")]})
        assert state["todos"] == todos
        assert state["phases"] == [{"name": "Todos", "tasks": todos}]

    def test_session_is_mirrored(self) -> None:
        """With a session the tool writes there, and the state mirrors it."""
        with Session.open("lc", store=MemoryStore()) as session:
            agent = create_agent(
                _Scripted(messages=_script([_call(INIT)], [_call(DONE)])),
                middleware=[PhasetodoMiddleware(session=session)],
            )
            state = agent.invoke({"messages": [HumanMessage("Fix it.")]})
            assert session.version == 2
            assert state["todos"] == flatten(state["phases"])
            assert state["phases"][1]["tasks"][0]["status"] == "in_progress"

    def test_system_prompt_is_added(self) -> None:
        """The model is told about the tool in its system prompt."""
        seen: list[Any] = []

        class _Recording(_Scripted):
            def _generate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
                seen.append(messages)
                return super()._generate(messages, *args, **kwargs)

        agent = create_agent(
            _Recording(messages=iter([AIMessage("Done.")])),
            system_prompt="You fix bugs.",
            middleware=[PhasetodoMiddleware()],
        )
        agent.invoke({"messages": [HumanMessage("Fix it.")]})
        system = seen[0][0]
        assert "You fix bugs." in system.text
        assert "`todo_write` tool" in system.text


class TestOptions:
    def test_options_give_profile_limits_and_agent(self) -> None:
        """options=Options(...) gives the tool its profile and limits, and the memory list its agent."""
        middleware = PhasetodoMiddleware(options=Options(profile="team", agent="ann"))
        assert middleware.profile is phasetodo.TEAM
        assert middleware.tool_description == phasetodo.TEAM.description
        start = {"ops": [{"op": "start", "task": "Patch"}]}
        agent = create_agent(
            _Scripted(messages=_script([_call(INIT)], [_call(start)])), middleware=[middleware]
        )
        state = agent.invoke({"messages": [HumanMessage("Fix it.")]})
        assert state["phases"][0]["tasks"][0] == {
            "content": "Patch", "status": "in_progress", "owner": "ann", "id": "t1"
        }

    def test_whole_list_keeps_the_limits(self) -> None:
        """whole_list=True runs parity with the options' limits."""
        middleware = PhasetodoMiddleware(
            whole_list=True, options=Options(limits=phasetodo.Limits(max_content=3))
        )
        todos = {"todos": [{"content": "Patch", "status": "pending"}]}
        model = _Scripted(messages=_script([_call(todos, "write_todos")]))
        state = create_agent(model, middleware=[middleware]).invoke({"messages": [HumanMessage("Fix it.")]})
        (refused,) = _tool_messages(state)
        assert refused.status == "error"
        assert "max_content=3" in refused.content

    def test_the_old_keywords_are_gone(self) -> None:
        """profile= is a TypeError: the profile goes in options (nothing was released)."""
        with pytest.raises(TypeError, match="profile"):
            PhasetodoMiddleware(profile="strict")  # type: ignore[call-arg]

