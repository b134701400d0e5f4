"""Two ``phasetodo mcp --profile team`` servers on one SQLite store, driven by the real MCP client."""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import jsonschema
from mcp import ClientSession, StdioServerParameters, stdio_client

import phasetodo

from .test_mcp import _command, _text

PLAN = {
    "ops": [
        {
            "op": "init",
            "list": [
                {"phase": "Build", "items": ["Parser", "Lexer", {"content": "Tests", "after": ["Parser"]}]},
            ],
        },
        {"op": "start"},
    ]
}


@asynccontextmanager
async def _agent(store: Path, agent: str) -> Any:
    server = StdioServerParameters(
        command=_command(),
        args=[
            "mcp",
            "--store",
            f"sqlite:{store}",
            "--session",
            "plan",
            "--profile",
            "team",
            "--agent",
            agent,
        ],
        env=dict(os.environ),  # the client would pass HOME, PATH, SHELL, TERM only (coverage lost)
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


class TestTwoServers:
    def test_agents_share_the_plan(self, tmp_path: Path) -> None:
        """Each server answers as its agent: claims are exclusive and each sees the other's."""
        store = tmp_path / "plans.db"

        async def run() -> None:
            async with _agent(store, "w1") as one, _agent(store, "w2") as two:
                listed = {t.name: t for t in (await one.list_tools()).tools}
                assert listed["todo_write"].input_schema == phasetodo.profiles.TEAM_PARAMS_SCHEMA
                first = await one.call_tool("todo_write", PLAN)
                assert first.is_error is False
                assert first.structured_content is not None
                assert first.structured_content["task"] == "Parser"
                jsonschema.validate(first.structured_content, listed["todo_write"].output_schema)

                taken = await two.call_tool("todo_write", {"ops": [{"op": "start", "task": "Parser"}]})
                assert taken.is_error is True
                assert 'Task "Parser" is in progress for agent "w1"' in _text(taken)
                mine = await two.call_tool("todo_write", {"ops": [{"op": "start"}]})
                assert mine.structured_content is not None
                assert mine.structured_content["task"] == "Lexer"

                seen = _text(await one.call_tool("todo_read", {}))
                assert seen.startswith('You (w1) are on t1 "Parser" (Build).')
                assert '  w2 → t2 "Lexer" (Build)' in seen

                refused = await two.call_tool("todo_write", {"ops": [{"op": "done", "task": "Parser"}]})
                assert refused.is_error is True  # w1 holds it and w2 is not the lead
                done = await one.call_tool("todo_write", {"ops": [{"op": "done", "task": "Parser"}]})
                assert done.structured_content is not None
                assert done.structured_content["task"] == "Tests"  # picked up: its after is closed

        anyio.run(run)
        store_ = phasetodo.SqliteStore(store)
        with phasetodo.Session.open("plan", store=store_, profile="team") as session:
            events = list(session.events())
            owners = {t.content: t.owner for p in session.phases for t in p.tasks}
        store_.close()
        assert [e.agent for e in events] == ["w1", "w2", "w1"]
        assert owners == {"Parser": "w1", "Lexer": "w2", "Tests": "w1"}
