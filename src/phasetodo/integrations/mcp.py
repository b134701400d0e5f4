"""An MCP server for ``todo_write``, over stdio, on the official ``mcp`` package.

It uses the low-level server so the tools carry our own schemas: the
parameter schema as input schema and the details schema as output schema,
so a client can check the structured content of every result. Two tools:
``todo_write`` and the read-only ``todo_read``. Bad arguments come back as
an ``isError`` result listing the problems and naming the tool called;
nothing a client sends as tool arguments ends the server. Every request gets
an answer: a line the SDK cannot read (not JSON, a batch, a float id, a lone
surrogate, deep nesting) is answered with a JSON-RPC error by ``_mcp_lines``.

The work in flight is bounded: calls run one at a time, each reply is handed
to the transport before the next call starts, at most ``max_queued`` calls
wait (more get a short "busy" error result), and a reply larger than
``max_reply`` characters is replaced by a short error. So pipelined calls on
a large list cannot grow the server without limit.

A session owned by an agent, served without that agent, answers writes with
a JSON-RPC server error saying what the host must configure: the model cannot
fix that by changing its call.

A ``tools/call`` of ``todo_write`` whose ``_meta`` holds ``request_id`` (a
string; ``requestId`` is read too) is made exactly once on a durable
session: a retry with that id, on this server or another one on the same store,
is answered with the first call's result and appends nothing. The JSON-RPC id is
not used for this: a client numbers its requests afresh on every connection,
so ids of different calls meet across restarts.

Run it with ``phasetodo mcp`` or ``python -m phasetodo.integrations.mcp``.
"""

from __future__ import annotations

import functools
import io
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

import attrs

from .._core.model import Phase
from .._core.schema import DETAILS_SCHEMA, problems
from .._profiles.keys import unknown_key_problems
from .._profiles.registry import CallContext
from .._specs import mcp_tool
from .._views.markdown import phases_to_markdown
from .._views.summary import format_summary
from ..errors import (
    InvalidOption,
    InvalidOptionType,
    InvalidParams,
    NoAgentSession,
    NotSessionOwner,
    RequestIdReused,
)
from ..tool import Options, TodoState, TodoWriteTool, ToolResult
from ._extras import needs_extra
from ._options import chosen, make_tool

if TYPE_CHECKING:
    from typing_extensions import Unpack

with needs_extra(__name__, "the mcp package", "mcp"):
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp.shared.exceptions import MCPError
    from mcp.shared.message import SessionMessage

    from ._mcp_lines import InFlight, relay

__all__ = [
    "MAX_QUEUED",
    "MAX_REPLY",
    "READ_TOOL",
    "SERVER_NAME",
    "ServeOptions",
    "build_server",
    "mcp_tool",
    "read_result",
    "serve",
    "serve_stdio",
]

#: The name the server introduces itself with.
SERVER_NAME = "phasetodo"

#: How many calls may wait behind the one running before new ones get a "busy" error.
MAX_QUEUED = 16
#: The largest reply, in characters (text plus the list as JSON, estimated), the server sends.
MAX_REPLY = 32_000_000

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


class ServeOptions(TypedDict, total=False):
    """The keywords of :func:`build_server`, :func:`serve_stdio` and :func:`serve`.

    ``options`` holds the profile the calls run in (its schema is the tool's),
    their limits and the agent that writes (``None``: parity, the session's own
    limits; an agent writes to a ``Session`` that belongs to it, or to a plan
    it shares). ``max_queued`` (default :data:`MAX_QUEUED`) and ``max_reply``
    (default :data:`MAX_REPLY`) bound the work in flight. A ``todo_write`` op
    given a key its op does not take is refused, nothing applied, naming the key
    (the reference ignores it: a misspelled ``task`` leaves ``done`` with no target,
    completing the whole list); ``allow_unknown_keys=True`` turns that guard off.
    """

    options: Options | None
    max_queued: int
    max_reply: int
    allow_unknown_keys: bool


_SERVING_KEYS = ("options", "max_queued", "max_reply", "allow_unknown_keys")


@attrs.frozen
class _Bounds:
    """What a server holds beyond its tool: the bounds on the work in flight, and the key guard."""

    max_queued: int = MAX_QUEUED
    max_reply: int = MAX_REPLY
    guard_keys: bool = True


def _serving(session: TodoState | None, given: ServeOptions, called: str) -> tuple[TodoWriteTool, _Bounds]:
    """The tool a server's calls run on, and its bounds, from the keywords ``called`` was given."""
    unknown = [key for key in given if key not in _SERVING_KEYS]
    if unknown:
        raise TypeError(f"{called}() got an unexpected keyword argument {unknown[0]!r}")
    options = chosen(given.get("options"))
    bounds = _Bounds(
        given.get("max_queued", MAX_QUEUED),
        given.get("max_reply", MAX_REPLY),
        not given.get("allow_unknown_keys", False),
    )
    return make_tool(session, options), bounds


def _refresh(tool: TodoWriteTool) -> None:
    """Catch up with what other writers (a person at the command, another process) appended."""
    refresh = getattr(tool.session, "refresh", None)
    if callable(refresh):
        refresh()


def read_result(tool: TodoWriteTool, arguments: object) -> ToolResult:
    """What ``todo_read`` answers: the newest list as summary or Markdown, or an error result."""
    _refresh(tool)
    arguments = {} if arguments is None else arguments
    found = problems(arguments, _READ_PARAMS)
    if isinstance(arguments, dict):
        found += [f"{key}: is not a known argument" for key in arguments if key != "format"]
    if found:
        return tool.error_result(found, called=READ_TOOL["name"])
    assert isinstance(arguments, dict)
    phases = tool.phases
    lossless = any(t.has_team_fields for p in phases for t in p.tasks)
    if not any(phase.tasks for phase in phases):
        text = "The todo list is empty."
    elif arguments.get("format") == "markdown":
        text = phases_to_markdown(phases, lossless=lossless)
    elif tool.profile.read is not None:
        state = tool.session
        clock = getattr(state, "clock", None)
        now = float(clock()) if callable(clock) else None  # a lapsed lease shows as lapsed
        renewals = getattr(state, "renewals", None)  # a heartbeat's deadline shows too
        call = CallContext(
            getattr(state, "agent", None), None, getattr(state, "phase", None), now,
            renewals=renewals if isinstance(renewals, Mapping) else {},
        )
        text = tool.profile.read(tuple(getattr(state, "plan", phases)), call)
    else:
        text = format_summary(phases)
    return ToolResult(text, tool.details())


def _reply_size(result: ToolResult, phases: Sequence[Phase]) -> int:
    """About how many characters the reply takes: its text and the list as JSON."""
    size = len(result.text)
    for phase in phases:
        size += len(phase.name) + 30
        for task in phase.tasks:
            size += len(task.content) + 45 + sum(len(note) + 4 for note in task.notes)
    return size


def _oversized(name: str, size: int, limit: int, applied: bool) -> ToolResult:
    """The short error that replaces a reply over the size limit."""
    what = (
        "The call was applied; do not repeat it. Its reply"
        if applied
        else f"Nothing was changed. The {name} reply"
    )
    text = (
        f"{what} (the whole list) is about {size:,} characters, over this server's limit of "
        f"{limit:,}, so it is not sent. Work the list down (done, drop, rm) to shrink it."
    )
    return ToolResult(text, {}, is_error=True, problems=(text,))


class _Gate:
    """One call at a time, its reply handed to the transport before the next call starts.

    ``waiting`` counts the calls queued or running; the holder's request id is
    kept so the write stream can open the gate once that reply has left.
    """

    def __init__(self, max_queued: int) -> None:
        self.lock = anyio.Lock()
        self.max_queued = max_queued
        self.waiting = 0
        self.holder: object = None

    def release(self) -> None:
        self.holder = None
        self.lock.release()


class _GatedWrites:
    """The server's write stream: opens the gate once the running call's reply is sent."""

    def __init__(self, inner: Any, gate: _Gate, in_flight: InFlight | None = None) -> None:
        self._inner = inner
        self._gate = gate
        self._in_flight = in_flight

    async def send(self, item: Any) -> None:
        await self._inner.send(item)
        message = getattr(item, "message", None)
        if self._in_flight is not None and isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            self._in_flight.answer()
        gate = self._gate
        if (
            gate.holder is not None
            and isinstance(message, (types.JSONRPCResponse, types.JSONRPCError))
            and message.id == gate.holder
        ):
            gate.release()

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _GatedWrites:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def build_server(
    session: TodoState | None = None, *, gate: _Gate | None = None, **given: Unpack[ServeOptions]
) -> Server[Any]:
    """A low-level MCP server whose tools act on ``session`` (memory when ``None``).

    Its keywords are those of :class:`ServeOptions` (the calls' options and the
    bounds on the work in flight). ``gate`` runs calls one at a time; without
    a transport to open it once a reply is sent, it opens right after each call.
    """
    tool, bounds = _serving(session, given, "build_server")
    gated = gate is not None
    return _server(tool, gate if gate is not None else _Gate(bounds.max_queued), bounds, gated=gated)


def _server(tool: TodoWriteTool, gate: _Gate, bounds: _Bounds, *, gated: bool) -> Server[Any]:
    specs = [tool.to_mcp(), READ_TOOL] if tool.reads else [tool.to_mcp()]
    tools = [types.Tool.model_validate(spec) for spec in specs]

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if gate.waiting > gate.max_queued:
            busy = (
                f"The server is busy: {gate.waiting} calls are already waiting for this list. "
                "Nothing was changed; wait for their answers, then call again."
            )
            return types.CallToolResult(content=[types.TextContent(type="text", text=busy)], is_error=True)
        gate.waiting += 1
        try:
            await gate.lock.acquire()
        finally:
            gate.waiting -= 1
        released = False
        try:
            gate.holder = getattr(ctx, "request_id", None) if gated else None
            reply = _answer(tool, params.name, params.arguments, bounds, _request_id(params))
        except BaseException:
            gate.release()
            released = True
            raise
        finally:
            if not released and gate.holder is None:
                gate.release()  # no transport to open the gate once the reply is sent
        return reply

    return Server(
        SERVER_NAME,
        version=_version(),
        instructions=(
            "A phased todo list: plan with todo_write, recall it with todo_read."
            if tool.reads
            else f"A phased todo list: plan, update and view it with {tool.name}, one operation per call."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _unknown_keys(tool: TodoWriteTool, arguments: object) -> list[str]:
    """The key guard's problems, for arguments the tool's schema takes (its own problems come first)."""
    try:
        tool.profile.parse(arguments)
    except InvalidParams:
        return []
    return unknown_key_problems(arguments)


def _request_id(params: Any) -> object:
    """The call's ``_meta.request_id``, if the client sent one (not the JSON-RPC id: see the module)."""
    meta = getattr(params, "meta", None)
    if not isinstance(meta, dict):
        return None
    return meta.get("request_id", meta.get("requestId"))


def _answer(
    tool: TodoWriteTool, name: str, arguments: dict[str, Any] | None, bounds: _Bounds,
    request_id: object = None,
) -> types.CallToolResult:
    """Run one call and build its reply, within the size limit."""
    max_reply = bounds.max_reply
    try:
        problems = _unknown_keys(tool, arguments) if bounds.guard_keys and name == tool.name else []
        if problems:
            _refresh(tool)
            result = tool.error_result(problems)
        else:
            result = _dispatch(tool, name, arguments, request_id)
    except (NoAgentSession, NotSessionOwner) as error:
        raise MCPError(types.INTERNAL_ERROR, _host_message(tool, error)) from error
    except Exception as error:  # a bug of ours must not end the session
        result = tool.error_result([f"internal error: {type(error).__name__}: {error}"], called=name)
    if not result.is_error or result.details:
        phases = tool.phases
        size = _reply_size(result, phases)
        if size > max_reply:
            result = _oversized(name, size, max_reply, applied=name == tool.name and not result.is_error)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structured_content=dict(result.details) if result.details else None,
        is_error=result.is_error,
    )


def _host_message(tool: TodoWriteTool, error: Exception) -> str:
    """What the host must set up when the session belongs to an agent the server does not write as."""
    owner = getattr(tool.session, "owner", None)
    agent = f" --agent {owner}" if owner else " --agent NAME"
    return (
        f"server configuration: {error}. The host must start the server as the owning agent "
        f"(phasetodo mcp{agent}); the call itself is fine and nothing was changed."
    )


def _write_once(
    tool: TodoWriteTool, arguments: dict[str, Any] | None, request_id: object
) -> ToolResult | None:
    """A ``todo_write`` with a request id on a durable session (None when the state is no session)."""
    from ..session import Session  # on first use: a memory list has no log to remember ids in

    session = tool.session
    if not isinstance(session, Session):
        return None
    try:
        return session.write(
            {} if arguments is None else arguments, profile=tool.profile, limits=tool.limits,
            request_id=request_id,  # type: ignore[arg-type]  # checked by the session
        )
    except InvalidParams as error:
        return tool.error_result(error.problems)
    except (RequestIdReused, InvalidOption, InvalidOptionType) as error:
        return tool.error_result([f"_meta.request_id: {error}"])


def _dispatch(
    tool: TodoWriteTool, name: str, arguments: dict[str, Any] | None, request_id: object = None
) -> ToolResult:
    if name == tool.name:
        once = _write_once(tool, arguments, request_id) if request_id is not None else None
        result = tool.execute({} if arguments is None else arguments) if once is None else once
        if result.is_error and result.problems:  # refused before the session synced: show the newest list
            _refresh(tool)
            result = tool.error_result(result.problems)
        return result
    if name == READ_TOOL["name"] and tool.reads:
        return read_result(tool, arguments)
    _refresh(tool)
    names = f"the tools are {tool.name} and {READ_TOOL['name']}" if tool.reads else f"the tool is {tool.name}"
    return tool.error_result([f"name: no tool {name!r}; {names}"], called=name)


def _version() -> str:
    from .._version import __version__

    return __version__


async def serve_stdio(session: TodoState | None = None, **given: Unpack[ServeOptions]) -> None:
    """Serve over this process's stdin and stdout until the client closes them.

    Its keywords are those of :class:`ServeOptions`.
    """
    await _serve_stdio(*_serving(session, given, "serve_stdio"))


async def _serve_stdio(tool: TodoWriteTool, bounds: _Bounds) -> None:
    gate = _Gate(bounds.max_queued)
    server = _server(tool, gate, bounds, gated=True)
    # The SDK writes stdout (keeping stray prints off the wire); _mcp_lines reads stdin, so that
    # each line it cannot pass on is answered instead of dropped.
    async with stdio_server(stdin=anyio.wrap_file(io.StringIO())) as (unused, write_stream):
        await unused.aclose()
        sender, receiver = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        in_flight = InFlight()
        writes: Any = _GatedWrites(write_stream, gate, in_flight)
        async with anyio.create_task_group() as group:
            group.start_soon(relay, anyio.wrap_file(sys.stdin.buffer), sender, write_stream, in_flight)
            await server.run(receiver, writes, server.create_initialization_options())
            group.cancel_scope.cancel()


def serve(session: TodoState | None = None, **given: Unpack[ServeOptions]) -> None:
    """Serve over stdio, blocking until the client disconnects.

    ``session`` holds the list (a ``phasetodo.Session`` for a durable one);
    ``None`` starts a fresh session in memory. Its keywords are those of
    :class:`ServeOptions`: the options of the calls, and the bounds on the
    calls waiting and the size of one reply.
    """
    if session is None:
        from ..session import Session
        from ..stores import store_from_url

        session = Session.open("mcp", store=store_from_url("memory:"))
    anyio.run(functools.partial(_serve_stdio, *_serving(session, given, "serve")))


if __name__ == "__main__":
    serve()
