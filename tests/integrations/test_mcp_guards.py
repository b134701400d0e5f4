"""The MCP server run as ``phasetodo mcp`` and driven by the real ``mcp`` client over stdio:
an op given a key it does not take is refused, and every applied write is answered."""

from __future__ import annotations

import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import CallToolResult

import phasetodo

INIT = {"ops": [{"op": "init", "list": [{"phase": "Build", "items": ["Parser", "Printer"]}]}]}
TYPO = {"ops": [{"op": "done", "taks": "Parser"}]}


@asynccontextmanager
async def _client(store: Path, *flags: str) -> Any:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "phasetodo.cli", "mcp", "--store", str(store), "--session", "s", *flags],
        env=dict(os.environ),  # the client passes only a few variables by default: keep PYTHONPATH
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _text(result: CallToolResult) -> str:
    return "".join(part.text for part in result.content if part.type == "text")


def _statuses(store: Path) -> dict[str, str]:
    with phasetodo.Session.open("s", store=phasetodo.JsonlStore(store)) as session:
        return {t.content: t.status.value for p in session.phases for t in p.tasks}


@pytest.mark.slow
class TestUnknownKeys:
    def test_typo_is_refused(self, tmp_path: Path) -> None:
        """A misspelled key comes back as an error naming it and the keys done takes; nothing applied."""

        async def run() -> CallToolResult:
            async with _client(tmp_path) as client:
                await client.call_tool("todo_write", INIT)
                return await client.call_tool("todo_write", TYPO)

        result = anyio.run(run)
        assert result.is_error is True
        assert "ops[0].taks: done takes no key 'taks'; it takes op, phase, task" in _text(result)
        assert _statuses(tmp_path) == {"Parser": "in_progress", "Printer": "pending"}

    def test_typo_is_refused_by_the_todo_tool(self, tmp_path: Path) -> None:
        """With --tool todo, a key the todo tool does not take is refused the same way."""

        async def run() -> CallToolResult:
            async with _client(tmp_path, "--tool", "todo") as client:
                await client.call_tool("todo", {"op": "init", "items": ["Parser", "Printer"]})
                return await client.call_tool("todo", {"op": "done", "taks": "Parser"})

        result = anyio.run(run)
        assert result.is_error is True
        assert "taks: the todo tool takes no key 'taks'" in _text(result)
        assert _statuses(tmp_path) == {"Parser": "in_progress", "Printer": "pending"}

    def test_option_turns_the_guard_off(self, tmp_path: Path) -> None:
        """--allow-unknown-keys ignores the key as the reference does: done with no target completes all."""

        async def run() -> CallToolResult:
            async with _client(tmp_path, "--allow-unknown-keys") as client:
                await client.call_tool("todo_write", INIT)
                return await client.call_tool("todo_write", TYPO)

        result = anyio.run(run)
        assert result.is_error is False
        tasks = [t for p in (result.structured_content or {})["phases"] for t in p["tasks"]]
        assert {t["content"]: t["status"] for t in tasks} == {"Parser": "completed", "Printer": "completed"}
