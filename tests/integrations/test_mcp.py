"""The MCP server, run as ``phasetodo mcp`` and driven by the real ``mcp`` client over stdio."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import jsonschema
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp_types import CallToolResult

import phasetodo
from phasetodo import testing
from phasetodo.errors import InvalidOption
from phasetodo.integrations.mcp import READ_TOOL, build_server, mcp_tool
from phasetodo.tool import MemoryState, Options, TodoWriteTool


def _command() -> str:
    """The installed ``phasetodo`` script next to this interpreter."""
    beside = Path(sys.executable).with_name("phasetodo")
    found = str(beside) if beside.exists() else shutil.which("phasetodo")
    assert found, "the phasetodo command is not installed"
    return found


def _server(store: Path | str, session_id: str = "mcp-test") -> StdioServerParameters:
    return StdioServerParameters(
        command=_command(),
        args=["mcp", "--store", str(store), "--session", session_id],
        env=dict(os.environ),  # the client would pass HOME, PATH, SHELL, TERM only (coverage lost)
    )


@asynccontextmanager
async def _client(store: Path | str, session_id: str = "mcp-test") -> Any:
    async with (
        stdio_client(_server(store, session_id)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def _memory_client() -> Any:
    """A client of ``python -m phasetodo.integrations.mcp``: a fresh list in memory."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "phasetodo.integrations.mcp"], env=dict(os.environ)
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _text(result: CallToolResult) -> str:
    return "".join(part.text for part in result.content if part.type == "text")


INIT = {
    "ops": [
        {
            "op": "init",
            "list": [
                {"phase": "Explore", "items": ["Read the test", "Find the bug"]},
                {"phase": "Fix", "items": ["Patch it"]},
            ],
        }
    ]
}


class TestToolsOverStdio:
    def test_session(self, tmp_path: Path) -> None:
        """Tools are listed with our schemas; calls answer with summary text and valid details."""

        async def run() -> None:
            async with _client(tmp_path) as client:
                listed = {tool.name: tool for tool in (await client.list_tools()).tools}
                assert set(listed) == {"todo_write", "todo_read"}
                write = listed["todo_write"]
                assert write.input_schema == phasetodo.profiles.PARAMS_SCHEMA
                assert write.output_schema == phasetodo.DETAILS_SCHEMA
                assert write.description == TodoWriteTool.description
                assert listed["todo_read"].annotations is not None
                assert listed["todo_read"].annotations.read_only_hint is True

                expected: list[dict[str, Any]] = []
                for params in (
                    INIT,
                    {"ops": [{"op": "done", "task": "Read the test"}]},
                    {"ops": [{"op": "note", "task": "Find the bug", "text": "Off by one."}]},
                ):
                    # call_tool validates structured content against the output schema
                    result = await client.call_tool("todo_write", params)
                    reference = phasetodo.todo_write(params, expected)
                    expected = reference["details"]["phases"]
                    assert result.is_error is False
                    assert _text(result) == reference["content"][0]["text"]
                    assert result.structured_content == {"phases": expected, "storage": "session"}
                    jsonschema.validate(result.structured_content, write.output_schema)

                read = await client.call_tool("todo_read", {"format": "markdown"})
                assert read.is_error is False
                assert _text(read) == phasetodo.phases_to_markdown(expected)
                assert read.structured_content == {"phases": expected, "storage": "session"}

        anyio.run(run)

    def test_bad_arguments(self, tmp_path: Path) -> None:
        """Bad arguments come back as error results naming each problem; nothing changes."""

        async def run() -> None:
            async with _client(tmp_path) as client:
                await client.call_tool("todo_write", INIT)
                before = await client.call_tool("todo_read", {})
                cases = {
                    json.dumps({"ops": []}): "ops: must contain at least 1 item",
                    json.dumps({"ops": [{"op": "pending"}]}): (
                        "ops[0].op: must be one of init, start, done, drop, rm, append, note"
                    ),
                    json.dumps({}): "ops: is required",
                    json.dumps({"ops": [{"op": "append", "phase": "Fix", "items": []}]}): (
                        "ops[0].items: must contain at least 1 item"
                    ),
                }
                for arguments, problem in cases.items():
                    result = await client.call_tool("todo_write", json.loads(arguments))
                    assert result.is_error is True
                    assert f"- {problem}" in _text(result).splitlines()
                    assert result.structured_content == before.structured_content
                unknown = await client.call_tool("todo_delete", {})
                assert unknown.is_error is True
                assert "no tool 'todo_delete'" in _text(unknown)
                wrong_read = await client.call_tool("todo_read", {"format": "html"})
                assert wrong_read.is_error is True
                assert "format: must be one of summary, markdown" in _text(wrong_read)
                after = await client.call_tool("todo_read", {})
                assert after.structured_content == before.structured_content

        anyio.run(run)

    def test_state_survives_a_restart(self, tmp_path: Path) -> None:
        """With a store configured, a second server process resumes the same list."""

        async def first() -> Any:
            async with _client(tmp_path, "durable") as client:
                result = await client.call_tool("todo_write", INIT)
                return result.structured_content

        async def second() -> Any:
            async with _client(tmp_path, "durable") as client:
                return (await client.call_tool("todo_read", {})).structured_content

        written = anyio.run(first)
        assert anyio.run(second) == written
        assert written["phases"][0]["tasks"][0]["status"] == "in_progress"

    def test_module_serves_a_memory_list(self) -> None:
        """python -m phasetodo.integrations.mcp serves a fresh list that reports memory storage."""

        async def run() -> tuple[Any, Any]:
            async with _memory_client() as client:
                empty = await client.call_tool("todo_read", {})
                written = await client.call_tool("todo_write", INIT)
                return empty, written

        empty, written = anyio.run(run)
        assert _text(empty) == "The todo list is empty."
        assert empty.structured_content == {"phases": [], "storage": "memory"}
        assert written.structured_content["storage"] == "memory"
        assert written.structured_content["phases"] == phasetodo.todo_write(INIT)["details"]["phases"]


class TestRawProtocol:
    def test_malformed_messages_do_not_end_the_server(self, tmp_path: Path) -> None:
        """Broken JSON and non-object arguments get protocol answers; the server keeps serving."""
        server = _server(tmp_path, "raw")
        process = subprocess.Popen(
            [server.command, *server.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert process.stdin is not None
        assert process.stdout is not None

        def send(line: str) -> None:
            process.stdin.write(line + "\n")  # type: ignore[union-attr]
            process.stdin.flush()  # type: ignore[union-attr]

        def call(ident: int, arguments: object) -> dict[str, Any]:
            params = {"name": "todo_write", "arguments": arguments}
            send(json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}))
            answer: dict[str, Any] = json.loads(process.stdout.readline())  # type: ignore[union-attr]
            assert answer["id"] == ident
            return answer

        try:
            hello = {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            }
            send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}))
            assert json.loads(process.stdout.readline())["result"]["serverInfo"]["name"] == "phasetodo"
            send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            send("this is not JSON")
            parse_error = json.loads(process.stdout.readline())
            assert (parse_error["id"], parse_error["error"]["code"]) == (None, -32700)
            assert call(2, "not an object")["error"]["code"] == -32602
            rejected = call(3, {"ops": [{"op": "pending"}]})["result"]
            assert rejected["isError"] is True
            applied = call(4, INIT)["result"]
            assert applied["isError"] is False
            assert applied["structuredContent"]["phases"][0]["name"] == "Explore"
        finally:
            process.stdin.close()
            assert process.wait(timeout=30) == 0


_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
_LOOSE_OP = st.dictionaries(st.sampled_from(["op", "task", "list", "items", "x"]), _SCALARS, max_size=3)
#: JSON the schema mostly rejects: stray keys, scalars and loose ops where lists go.
_JUNK = st.dictionaries(
    st.sampled_from(["ops", "x"]), _SCALARS | st.lists(_SCALARS | _LOOSE_OP, max_size=3), max_size=2
) | st.lists(_SCALARS | _LOOSE_OP, max_size=3)


@pytest.fixture(scope="module")
def live_client(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, ClientSession, list[Any]]]:
    """One server process (on a SQLite store) and client kept open across many examples.

    The third item holds the list the server reported last.
    """
    store = f"sqlite:{tmp_path_factory.mktemp('fuzz-store') / 'todo.db'}"
    with (
        anyio.from_thread.start_blocking_portal() as portal,
        portal.wrap_async_context_manager(_client(store, "fuzz")) as client,
    ):
        yield portal, client, [[]]


class TestFuzzedCalls:
    @settings(
        max_examples=1000,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(data=st.data())
    def test_server_answers_every_call(
        self, live_client: tuple[Any, ClientSession, list[Any]], data: st.DataObject
    ) -> None:
        """Valid and invalid calls alike get an answer that matches the library's own result."""
        portal, client, last = live_client
        names = st.sampled_from(["Plan", "Read", "Fix", "Test", "Ship"])
        params = data.draw(
            st.one_of(
                testing.params(names=names),
                testing.params(names=names, max_ops=2),
                testing.params(valid=False, names=names),
                _JUNK,
            ),
            label="params",
        )
        current = last[0]
        arguments = params if isinstance(params, dict) else {"ops": params}
        result = portal.call(client.call_tool, "todo_write", arguments)
        try:
            reference = phasetodo.todo_write(arguments, current)
        except phasetodo.InvalidParams as error:
            reference = {"problems": error.problems}
        event("rejected call" if "problems" in reference else "applied call")
        if "problems" in reference:
            assert result.is_error is True
            assert _text(result).splitlines()[1:] == [f"- {p}" for p in reference["problems"]]
            assert result.structured_content["phases"] == current
        else:
            assert result.is_error is False
            assert _text(result) == reference["content"][0]["text"]
            assert result.structured_content["phases"] == reference["details"]["phases"]
        last[0] = result.structured_content["phases"]


class TestDefinitions:
    def test_mcp_tool_shape(self) -> None:
        """The MCP definition carries the wire names and our input and output schemas."""
        spec = TodoWriteTool().to_mcp()
        assert spec == mcp_tool(TodoWriteTool())
        assert spec["inputSchema"] == phasetodo.profiles.PARAMS_SCHEMA
        assert spec["outputSchema"] == phasetodo.DETAILS_SCHEMA
        assert spec["annotations"]["readOnlyHint"] is False
        assert READ_TOOL["annotations"]["readOnlyHint"] is True


class TestOpenAIAgentsClient:
    def test_agent_drives_the_server(self, tmp_path: Path) -> None:
        """openai-agents' MCPServerStdio and a scripted model use the server's tools."""
        from agents import Agent, Runner, set_tracing_disabled
        from agents.mcp import MCPServerStdio
        from agents.testing import ScriptedModel, assistant_message, function_call

        set_tracing_disabled(True)
        model = ScriptedModel(
            [
                [function_call("todo_write", INIT, call_id="c1")],
                [function_call("todo_write", {"ops": [{"op": "pending"}]}, call_id="c2")],
                [
                    function_call(
                        "todo_write", {"ops": [{"op": "done", "task": "Read the test"}]}, call_id="c3"
                    )
                ],
                [function_call("todo_read", {}, call_id="c4")],
                [assistant_message("Planned.")],
            ]
        )

        async def run() -> Any:
            params = _server(tmp_path, "agents")
            async with MCPServerStdio(
                {"command": params.command, "args": params.args}, cache_tools_list=True
            ) as server:
                agent = Agent(name="planner", model=model, mcp_servers=[server])
                return await Runner.run(agent, "Fix the bug.")

        result = anyio.run(run)
        outputs = [
            item.output["text"] if isinstance(item.output, dict) else str(item.output)
            for item in result.new_items
            if item.type == "tool_call_output_item"
        ]
        assert len(outputs) == 4
        assert "Remaining items (3):" in outputs[0]
        assert "ops[0].op: must be one of" in outputs[1]
        assert "✓ Read the test" in outputs[2]
        assert "→ Find the bug" in outputs[3]
        assert result.final_output == "Planned."
        tool_names = {tool.name for tool in model.calls[0].tools}
        assert tool_names == {"todo_write", "todo_read"}


class TestProfileOption:
    def test_mcp_profile_strict_serves_the_strict_schema(self, tmp_path: Path) -> None:
        """`phasetodo mcp --profile strict` lists the strict schema and refuses a bad batch whole."""
        server = StdioServerParameters(
            command=_command(),
            args=["mcp", "--store", str(tmp_path), "--session", "s", "--profile", "strict"],
            env=dict(os.environ),
        )

        async def run() -> tuple[Any, Any, Any]:
            async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                await session.call_tool("todo_write", INIT)
                bad = await session.call_tool(
                    "todo_write",
                    {"ops": [{"op": "done", "task": "Patch it"}, {"op": "done", "task": "Nope"}]},
                )
                read_back = await session.call_tool("todo_read", {})
                return tools, bad, read_back

        tools, bad, read_back = anyio.run(run)
        spec = next(t for t in tools.tools if t.name == "todo_write")
        assert spec.input_schema == phasetodo.STRICT.schema
        assert bad.is_error is True
        assert "○ Patch it" in _text(read_back)


def _in_process(server: Any, *calls: tuple[str, dict[str, Any]]) -> tuple[Any, list[CallToolResult]]:
    """The tools ``server`` lists and its answers to ``calls``, through an in-process MCP client."""

    async def run() -> tuple[Any, list[CallToolResult]]:
        async with Client(server) as client:
            return await client.list_tools(), [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(run)


class TestOptions:
    def test_options_give_profile_limits_and_agent(self, tmp_path: Path) -> None:
        """build_server(session, options=Options(...)) serves that profile, with its limits, as its agent."""
        store = phasetodo.SqliteStore(tmp_path / "plan.db")
        with phasetodo.Session.open("plan", store=store, profile="team") as session:
            options = Options(profile="team", limits=phasetodo.Limits(max_ops=2), agent="ann")
            start = {"ops": [{"op": "start", "task": "Patch it"}]}
            three = {"ops": [{"op": "start"}] * 3}
            tools, (_, claimed, refused) = _in_process(
                build_server(session, options=options),
                ("todo_write", INIT),
                ("todo_write", start),
                ("todo_write", three),
            )
            spec = next(t for t in tools.tools if t.name == "todo_write")
            assert spec.input_schema == phasetodo.TEAM.schema
            assert claimed.is_error is False
            assert session.refresh()[1].tasks[0].owner == "ann"
            assert refused.is_error is True
            assert "max_ops=2" in _text(refused)

    def test_the_old_keywords_are_refused(self) -> None:
        """profile= (it goes in options) or any unknown keyword is a TypeError before anything is served."""
        with pytest.raises(TypeError, match="unexpected keyword argument 'profile'"):
            build_server(options=Options(), profile="strict")  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="unexpected keyword argument 'strict'"):
            build_server(strict=True)  # type: ignore[call-arg]

    def test_an_agent_writes_through_a_session_only(self) -> None:
        """An agent other than the state's own is refused unless the state is a Session."""
        with pytest.raises(InvalidOption, match=r"options\.agent: 'ann' can write call by call to a Session"):
            build_server(MemoryState(agent="bob"), options=Options(agent="ann"))
        build_server(MemoryState(agent="ann"), options=Options(agent="ann"))


class TestRequestIds:
    def test_a_retried_call_with_its_meta_request_id_is_made_once(self, tmp_path: Path) -> None:
        """``_meta.request_id``: a retry, on the same server or a restarted one, gets the first reply."""
        server = _server(tmp_path, "once")

        def session_of_calls(calls: list[tuple[int, dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
            process = subprocess.Popen(
                [server.command, *server.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True,
            )
            assert process.stdin is not None
            assert process.stdout is not None
            hello = {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            }
            lines = [
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
            ]
            for ident, arguments, meta in calls:
                params = {"name": "todo_write", "arguments": arguments, "_meta": meta}
                lines.append({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params})
            out: list[dict[str, Any]] = []
            try:
                for line in lines:
                    process.stdin.write(json.dumps(line) + "\n")
                    process.stdin.flush()
                    if "id" in line:
                        out.append(json.loads(process.stdout.readline())["result"])
            finally:
                process.stdin.close()
                assert process.wait(timeout=30) == 0
            return out[1:]

        retry = {"request_id": "r1"}
        first, again, other = session_of_calls([(2, INIT, retry), (3, INIT, retry), (4, {"ops": []}, retry)])
        assert again == first
        assert other["isError"] is True
        assert "_meta.request_id" in _text(CallToolResult.model_validate(other))
        (restarted,) = session_of_calls([(2, INIT, {"request_id": "r1"})])  # a new server, ids from 2 again
        assert restarted == first
        with phasetodo.Session.open("once", phasetodo.JsonlStore(tmp_path)) as session:
            assert session.version == 1
