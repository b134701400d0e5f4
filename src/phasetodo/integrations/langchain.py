"""LangChain: an agent middleware that drops in for ``TodoListMiddleware``.

``PhasetodoMiddleware`` gives a ``create_agent`` agent the ``todo_write`` tool
(or, with ``whole_list=True``, a phased ``write_todos`` that takes LangChain's
own whole-list arguments) and keeps two keys in the graph state: ``phases``,
the list as ``details.phases`` data, and ``todos``, the same tasks flattened to
LangChain's ``[{content, status}]`` so code that reads ``result["todos"]``
keeps working. Abandoned tasks are left out of ``todos``, which has no such
status. Needs the ``phasetodo[langchain]`` extra.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, NotRequired

from typing_extensions import TypedDict

from .._core.model import Status
from .._profiles.parity import PARITY
from .._profiles.registry import Profile
from ..tool import Options, TodoState, TodoWriteTool, ToolResult
from ._extras import needs_extra
from ._options import chosen, make_tool
from .wholelist import LangChainWriteTodos

with needs_extra(__name__, "LangChain", "langchain"):
    from langchain.agents.middleware.types import (
        AgentMiddleware,
        AgentState,
        ModelRequest,
        ModelResponse,
        OmitFromInput,
    )
    from langchain.tools import ToolRuntime
    from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
    from langchain_core.tools import BaseTool, StructuredTool
    from langgraph.runtime import Runtime
    from langgraph.types import Command

__all__ = ["SYSTEM_PROMPT", "PhasedTodoState", "PhasetodoMiddleware", "Todo", "flatten"]

#: Added to the system prompt: when to plan and how to keep the list current.
SYSTEM_PROMPT = """\
## The todo list

You keep a phased todo list with the `{name}` tool. Plan work of three or more \
steps with it, keep exactly one task in progress, mark each task done the \
moment it is finished and add work as you discover it. Call `{name}` at most \
once per turn: each call sees the list the previous one left."""


class Todo(TypedDict):
    """A task in LangChain's flat shape."""

    content: str
    status: str


class PhasedTodoState(AgentState[Any]):
    """Graph state with the phased list and its flattened ``todos`` view."""

    phases: Annotated[NotRequired[list[dict[str, Any]]], OmitFromInput]
    todos: Annotated[NotRequired[list[Todo]], OmitFromInput]


def flatten(phases: Sequence[dict[str, Any]]) -> list[Todo]:
    """Every task of ``phases`` in order as ``{content, status}``, abandoned ones left out."""
    return [
        Todo(content=task["content"], status=task["status"])
        for phase in phases
        for task in phase["tasks"]
        if task["status"] != Status.ABANDONED.value
    ]


class PhasetodoMiddleware(AgentMiddleware[PhasedTodoState, Any, Any]):
    """Phased todos for a LangChain agent; use it where ``TodoListMiddleware`` was.

    Without ``session`` the list lives in the graph state (a checkpointer makes
    it durable); with one, the tool writes to that session and the state
    mirrors it. ``whole_list=True`` offers ``write_todos`` with LangChain's
    arguments instead of the ops tool. ``system_prompt`` and
    ``tool_description`` replace our wording, as they do for
    ``TodoListMiddleware``. ``options`` holds the profile the calls run in,
    their limits and the agent that writes (``None``: parity, the session's
    own limits; the whole-list tool always runs parity).
    """

    state_schema = PhasedTodoState

    def __init__(
        self,
        *,
        session: TodoState | None = None,
        whole_list: bool = False,
        system_prompt: str | None = None,
        tool_description: str | None = None,
        options: Options | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.whole_list = whole_list
        #: What every call runs with (``None``: the tool's defaults).
        self.options = chosen(options)
        default = LangChainWriteTodos.description if whole_list else self.profile.description
        self.tool_description = tool_description if tool_description is not None else default
        self.tool_name = LangChainWriteTodos.name if whole_list else TodoWriteTool.name
        self.system_prompt = (
            system_prompt if system_prompt is not None else SYSTEM_PROMPT.format(name=self.tool_name)
        )
        self.tools: list[BaseTool] = [self._make_tool()]

    @property
    def profile(self) -> Profile:
        """The profile the ops tool's calls run in."""
        return self.options.profile if self.options is not None else PARITY

    # -- the tool ------------------------------------------------------------------

    def _make_tool(self) -> BaseTool:
        schema = LangChainWriteTodos.parameters if self.whole_list else self.profile.schema

        def write(runtime: ToolRuntime, **params: Any) -> Command[Any]:
            return self._write(runtime, params)

        async def awrite(runtime: ToolRuntime, **params: Any) -> Command[Any]:
            return self._write(runtime, params)

        return StructuredTool.from_function(
            func=write,
            coroutine=awrite,
            name=self.tool_name,
            description=self.tool_description,
            args_schema=dict(schema),
            infer_schema=False,
        )

    def _write(self, runtime: ToolRuntime, params: dict[str, Any]) -> Command[Any]:
        phases = runtime.state.get("phases") or ()
        result: ToolResult
        if self.whole_list:
            options = self.options.override(profile=PARITY) if self.options is not None else None
            result = LangChainWriteTodos.on(make_tool(self.session, options, phases=phases)).execute(params)
        else:
            result = make_tool(self.session, self.options, phases=phases).execute(params)
        message = ToolMessage(
            result.text,
            tool_call_id=runtime.tool_call_id,
            name=self.tool_name,
            status="error" if result.is_error else "success",
        )
        update: dict[str, Any] = {"messages": [message]}
        if not result.is_error:
            phases = list(result.details["phases"])
            update["phases"] = phases
            update["todos"] = flatten(phases)
        return Command(update=update)

    # -- the model call --------------------------------------------------------------

    def _with_prompt(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        blocks: list[str | dict[str, str]] = []
        if request.system_message is not None:
            blocks += request.system_message.content_blocks  # type: ignore[arg-type]
            blocks.append({"type": "text", "text": f"\n\n{self.system_prompt}"})
        else:
            blocks.append({"type": "text", "text": self.system_prompt})
        return request.override(system_message=SystemMessage(content=blocks))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage:
        """Add the todo guidance to the system prompt."""
        return handler(self._with_prompt(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        """Add the todo guidance to the system prompt."""
        return await handler(self._with_prompt(request))

    def after_model(self, state: PhasedTodoState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Refuse parallel calls of the tool: each call must see the list the last one left."""
        last = next((m for m in reversed(state["messages"]) if isinstance(m, AIMessage)), None)
        if last is None:
            return None
        calls = [call for call in last.tool_calls if call["name"] == self.tool_name]
        if len(calls) < 2:
            return None
        text = (
            f"Error: {self.tool_name} was called {len(calls)} times in one turn; nothing was "
            "applied. Call it once per turn, with every op in that one call."
        )
        return {"messages": [ToolMessage(text, tool_call_id=c["id"], status="error") for c in calls]}

    async def aafter_model(self, state: PhasedTodoState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Async form of :meth:`after_model`."""
        return self.after_model(state, runtime)
