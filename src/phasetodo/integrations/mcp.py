"""An MCP server for ``todo_write``, over stdio, on the official ``mcp`` package.

It uses the low-level server so the tools carry our own schemas: the
parameter schema as input schema and the details schema as output schema,
so a client can check the structured content of every result. Two tools:
``todo_write`` and the read-only ``todo_read``. Bad arguments come back as
an ``isError`` result listing the problems; nothing a client sends as tool
arguments ends the server.

Run it with ``phasetodo mcp`` or ``python -m phasetodo.integrations.mcp``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

try:
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
except ModuleNotFoundError as error:  # pragma: no cover - depends on the environment
    raise ModuleNotFoundError(
        "phasetodo.integrations.mcp needs the mcp package: pip install 'phasetodo[mcp]'",
        name=error.name,
    ) from error

from .._core.limits import Limits
from .._core.schema import DETAILS_SCHEMA, problems
from .._profiles.builtin import ProfileLike
from .._profiles.registry import CallContext
from .._specs import mcp_tool
from .._views.markdown import phases_to_markdown
from .._views.summary import format_summary
from ..tool import DEFAULT, TodoState, TodoWriteTool, ToolResult

__all__ = ["READ_TOOL", "SERVER_NAME", "build_server", "mcp_tool", "read_result", "serve", "serve_stdio"]

#: The name the server introduces itself with.
SERVER_NAME = "phasetodo"

_READ_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "format": {
            "type": "string",
            "enum": ["summary", "markdown"],
            "description": "summary (the default): what todo_write answers; markdown: a checklist.",
        }
    },
    "additionalProperties": False,
}

#: The read-only view: the current list, changing nothing.
READ_TOOL: dict[str, Any] = {
    "name": "todo_read",
    "title": "Read the todo list",
    "description": (
        "Show the current phased todo list without changing it. Use it to recall the plan; "
        "use todo_write to change it."
    ),
    "inputSchema": _READ_PARAMS,
    "outputSchema": DETAILS_SCHEMA,
    "annotations": {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
}


class _AgentState:
    """A session's state whose writes come from one agent."""

    def __init__(self, session: Any, agent: str) -> None:
        self._session = session
        self._agent = agent

    @property
    def phases(self) -> Sequence[Any]:
        """The session's list."""
        return self._session.phases  # type: ignore[no-any-return]

    @property
    def storage(self) -> Any:
        """The session's storage kind."""
        return self._session.storage

    @property
    def agent(self) -> str:
        """The agent every write comes from."""
        return self._agent

    def refresh(self) -> Any:
        """Catch up with other writers of the session."""
        return self._session.refresh()

    def write(self, params: Mapping[str, Any], **options: Any) -> ToolResult:
        """The session's write, as ``agent``."""
        return self._session.write(params, agent=self._agent, **options)  # type: ignore[no-any-return]


def read_result(tool: TodoWriteTool, arguments: object) -> ToolResult:
    """What ``todo_read`` answers: the list as summary or Markdown, or an error result."""
    arguments = {} if arguments is None else arguments
    found = problems(arguments, _READ_PARAMS)
    if isinstance(arguments, dict):
        found += [f"{key}: is not a known argument" for key in arguments if key != "format"]
    if found:
        return tool.error_result(found)
    assert isinstance(arguments, dict)
    refresh = getattr(tool.session, "refresh", None)
    if refresh is not None:
        refresh()  # other writers (agents of a shared plan) may have moved it on
    phases = tool.phases
    lossless = any(t.has_team_fields for p in phases for t in p.tasks)
    if not any(phase.tasks for phase in phases):
        text = "The todo list is empty."
    elif arguments.get("format") == "markdown":
        text = phases_to_markdown(phases, lossless=lossless)
    elif tool.profile.read is not None:
        state = tool.session
        call = CallContext(getattr(state, "agent", None), None, getattr(state, "phase", None))
        text = tool.profile.read(tuple(getattr(state, "plan", phases)), call)
    else:
        text = format_summary(phases)
    return ToolResult(text, tool.details())


def build_server(
    session: TodoState | None = None,
    *,
    profile: ProfileLike = "parity",
    limits: Limits | None = DEFAULT,
    agent: str | None = None,
) -> Server[Any]:
    """A low-level MCP server whose tools act on ``session`` (memory when ``None``).

    ``profile`` gives the tool's schema and behaviour, ``limits`` its limits;
    ``agent`` writes as that agent (a ``Session`` that belongs to one).
    """
    state = _AgentState(session, agent) if agent is not None and session is not None else session
    tool = TodoWriteTool(state, profile=profile, limits=limits)
    tools = [types.Tool.model_validate(mcp_tool(tool)), types.Tool.model_validate(READ_TOOL)]

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            result = _dispatch(tool, params.name, params.arguments)
        except Exception as error:  # a bug of ours must not end the session
            result = tool.error_result([f"internal error: {type(error).__name__}: {error}"])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.text)],
            structured_content=dict(result.details),
            is_error=result.is_error,
        )

    return Server(
        SERVER_NAME,
        version=_version(),
        instructions="A phased todo list: plan with todo_write, recall it with todo_read.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _dispatch(tool: TodoWriteTool, name: str, arguments: dict[str, Any] | None) -> ToolResult:
    if name == tool.name:
        return tool.execute({} if arguments is None else arguments)
    if name == READ_TOOL["name"]:
        return read_result(tool, arguments)
    return tool.error_result([f"name: no tool {name!r}; the tools are todo_write and todo_read"])


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("phasetodo")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


async def serve_stdio(
    session: TodoState | None = None,
    *,
    profile: ProfileLike = "parity",
    limits: Limits | None = DEFAULT,
    agent: str | None = None,
) -> None:
    """Serve over this process's stdin and stdout until the client closes them."""
    server = build_server(session, profile=profile, limits=limits, agent=agent)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(
    session: TodoState | None = None,
    *,
    profile: ProfileLike = "parity",
    limits: Limits | None = DEFAULT,
    agent: str | None = None,
) -> None:
    """Serve over stdio, blocking until the client disconnects.

    ``session`` holds the list (a ``phasetodo.Session`` for a durable one);
    ``None`` starts a fresh session in memory. ``profile``, ``limits`` and
    ``agent`` are those of :func:`build_server`.
    """
    if session is None:
        from ..session import Session
        from ..stores import MemoryStore

        session = Session.open("mcp", store=MemoryStore())
    anyio.run(functools.partial(serve_stdio, session, profile=profile, limits=limits, agent=agent))


if __name__ == "__main__":
    serve()
