"""``phasetodo mcp --tool todo``: the reference's current tool over MCP, driven by the real MCP client."""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import jsonschema
from mcp import ClientSession, StdioServerParameters, stdio_client

import phasetodo
from phasetodo import todo
from phasetodo.profiles import TODO_PARAMS_SCHEMA

from .test_mcp import _command, _text

#: Every op, an inferred op, a rejected call and op errors, in an order that reaches them all.
CALLS: list[Any] = [
    {"list": [
        {"phase": "Build", "items": ["Parser", "Lexer", "Tests"]}, {"phase": "Ship", "items": ["Tag"]},
    ]},
    {"op": "view"},
    {"op": "start", "task": "Lexer"},
    {"op": "block", "task": "Lexer", "reason": "waiting on\nthe grammar"},
    {"op": "done", "task": "Parser"},
    {"op": "done", "task": "No such task"},
    {"op": "note", "task": "Parser", "text": "gone from the tool"},
    {"op": "unblock", "phase": "Build"},
    {"op": "rm", "task": "Tests"},
    {"op": "drop", "phase": "Ship"},
    {"items": ["Docs"], "phase": "Ship"},
    {"op": "append", "phase": "Ship", "items": ["Docs"]},
    {"task": "Lexer"},
    {"op": "done"},
]


def _server(store: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=_command(),
        args=["mcp", "--store", f"jsonl:{store}", "--session", "plan", *extra],
        env=dict(os.environ),  # the client would pass HOME, PATH, SHELL, TERM only (coverage lost)
    )


@asynccontextmanager
async def _client(store: Path, *extra: str) -> Any:
    async with stdio_client(_server(store, *extra)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


class TestTodoOverMcp:
    def test_each_call_agrees_with_apply(self, tmp_path: Path) -> None:
        """Over stdio, every call's text, details and error flag are apply's, on a plan the log keeps."""
        store = tmp_path / "logs"

        async def run() -> None:
            async with _client(store, "--tool", "todo") as client:
                listed = {t.name: t for t in (await client.list_tools()).tools}
                assert list(listed) == ["todo"]
                assert listed["todo"].input_schema == TODO_PARAMS_SCHEMA
                phases: list[dict[str, Any]] = []
                for params in CALLS:
                    expected = todo.apply(params, phases, storage="session")
                    got = await client.call_tool("todo", params)
                    assert _text(got) == expected["content"][0]["text"], params
                    assert got.structured_content == expected["details"], params
                    assert got.is_error is expected.get("isError", False), params
                    jsonschema.validate(got.structured_content, listed["todo"].output_schema)
                    phases = expected["details"]["phases"]
                wrong = await client.call_tool("todo_write", {"ops": []})
                assert wrong.is_error is True
                assert "the tool is todo" in _text(wrong)

        anyio.run(run)
        logs = phasetodo.JsonlStore(store, fsync=False)
        with phasetodo.Session.open("plan", logs) as session:
            assert session.profile.name == "todo"
        logs.close()

    def test_a_todo_plan_is_served_as_todo_without_the_flag(self, tmp_path: Path) -> None:
        """A plan made in the todo profile is served with its tool when reopened."""
        store = tmp_path / "logs"

        async def run() -> None:
            async with _client(store, "--tool", "todo") as client:
                await client.call_tool("todo", {"op": "init", "items": ["a", "b"]})
            async with _client(store) as client:
                listed = [t.name for t in (await client.list_tools()).tools]
                assert listed == ["todo"]
                seen = await client.call_tool("todo", {"op": "view"})
                assert seen.structured_content is not None
                assert [t["content"] for t in seen.structured_content["phases"][0]["tasks"]] == ["a", "b"]

        anyio.run(run)
