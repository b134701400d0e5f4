"""The MCP server under pressure and in odd setups, as a real ``phasetodo mcp`` subprocess.

Pipelined calls on a large list, a session owned by an agent, a person editing the
list while the server runs, and errors that name the tool the client called.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

import phasetodo

from .test_mcp import INIT, _command

#: The address space the server may use in the pressure test: a few replies of a 5 MB
#: list fit, a thousand (about 15 MB each) do not.
_MEMORY_LIMIT = 1_500_000_000


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_LIMIT, _MEMORY_LIMIT))


class Server:
    """A ``phasetodo mcp`` process spoken to in raw JSON-RPC lines."""

    def __init__(self, args: list[str], preexec: Callable[[], None] | None = None) -> None:
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=preexec,
            env={"MALLOC_ARENA_MAX": "2", "PATH": "/usr/bin:/bin"},
        )
        self.stdin: IO[bytes] = self.process.stdin  # type: ignore[assignment]
        self.stdout: IO[bytes] = self.process.stdout  # type: ignore[assignment]

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(message).encode() + b"\n")
        self.stdin.flush()

    def receive(self) -> dict[str, Any]:
        line = self.stdout.readline()
        assert line, "the server closed its output"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def hello(self) -> None:
        client = {"name": "t", "version": "0"}
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        assert self.receive()["result"]["serverInfo"]["name"] == "phasetodo"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, ident: int, name: str, arguments: object) -> dict[str, Any]:
        params = {"name": name, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params})
        answer = self.receive()
        assert answer["id"] == ident
        return answer

    def finish(self) -> tuple[int, str]:
        """Close the input; the exit status and what the server wrote on stderr."""
        self.stdin.close()
        self.process.stdin = None  # closed: communicate() must not flush it
        leftover = self.process.communicate(timeout=120)
        return self.process.returncode, leftover[1].decode("utf-8", "replace")


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """Start ``phasetodo mcp`` on the store in tmp_path; every server is stopped afterwards."""
    started: list[Server] = []

    def start(*extra: str, session: str = "s", preexec: Callable[[], None] | None = None) -> Server:
        args = [_command(), "mcp", "--store", str(tmp_path / "store"), "--session", session, *extra]
        server = Server(args, preexec)
        started.append(server)
        server.hello()
        return server

    yield start
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait(timeout=30)


def _text(answer: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in answer["result"]["content"])


def _store(tmp_path: Path) -> phasetodo.JsonlStore:
    return phasetodo.JsonlStore(tmp_path / "store", fsync=False)


def _big_list(tmp_path: Path) -> int:
    """Write a list of about 5 MB (50,000 tasks of 100 characters) to session "big"; returns its size."""
    def item(p: int, t: int) -> str:
        return f"task {p}-{t} " + "x" * (90 - len(f"{p}-{t}"))

    phases = [{"phase": f"Phase {p}", "items": [item(p, t) for t in range(1000)]} for p in range(50)]
    with phasetodo.Session.open("big", store=_store(tmp_path)) as session:
        session.todo_write({"ops": [{"op": "init", "list": phases}]})
        return len(json.dumps(phasetodo.dump_phases(session.phases)))


class TestPipelinedPressure:
    def test_thousand_pipelined_reads_of_a_5mb_list(
        self, tmp_path: Path, serve: Callable[..., Server]
    ) -> None:
        """1,000 pipelined todo_read calls on a 5 MB list, under a 1.5 GB address-space limit,
        all get an answer (the list, or a busy error saying to wait), and the server lives on."""
        size = _big_list(tmp_path)
        assert size > 5_000_000
        server = serve(session="big", preexec=_limit_memory)
        calls = 1000

        def pipeline() -> None:
            for ident in range(1, calls + 1):
                message = {"name": "todo_read", "arguments": {}}
                server.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": message})

        writer = threading.Thread(target=pipeline)
        writer.start()
        writer.join(timeout=600)
        assert not writer.is_alive()
        answered: dict[int, dict[str, Any]] = {}
        for _ in range(calls):
            answer = server.receive()
            answered[answer["id"]] = answer
        assert sorted(answered) == list(range(1, calls + 1))
        full = [a for a in answered.values() if not a["result"]["isError"]]
        busy = [a for a in answered.values() if a["result"]["isError"]]
        assert full, "no call got the list"
        assert all(len(a["result"]["structuredContent"]["phases"]) == 50 for a in full)
        for answer in busy:
            assert "busy" in _text(answer), _text(answer)[:300]
        # Still serving, and a call after the burst gets the whole list.
        after = server.call(calls + 1, "todo_read", {})
        assert after["result"]["isError"] is False
        status, stderr = server.finish()
        assert status == 0, stderr[-2000:]
        assert "MemoryError" not in stderr

    def test_reply_over_the_size_limit(self, tmp_path: Path) -> None:
        """A reply over the server's size limit is a short error naming the limit; a write still applies."""
        _big_list(tmp_path)
        code = (
            "import sys\n"
            "from phasetodo import JsonlStore, Session\n"
            "from phasetodo.integrations.mcp import serve\n"
            "store = JsonlStore(sys.argv[1], fsync=False)\n"
            "serve(Session.open('big', store=store), max_reply=1_000_000)\n"
        )
        server = Server([sys.executable, "-c", code, str(tmp_path / "store")])
        try:
            server.hello()
            read = server.call(1, "todo_read", {})
            assert read["result"]["isError"] is True
            assert "over this server's limit of 1,000,000" in _text(read)
            assert len(json.dumps(read)) < 10_000
            append = {"ops": [{"op": "append", "phase": "Phase 0", "items": ["new"]}]}
            write = server.call(2, "todo_write", append)
            assert "was applied" in _text(write)
            assert len(json.dumps(write)) < 10_000
        finally:
            status, stderr = server.finish()
        assert status == 0, stderr[-2000:]
        with phasetodo.Session.open("big", store=_store(tmp_path)) as session:
            assert session.version == 2


class TestModelSide:
    def test_read_sees_a_persons_edit(self, tmp_path: Path, serve: Callable[..., Server]) -> None:
        """todo_read and error results show the newest list, though a person edited it meanwhile."""
        server = serve()
        assert server.call(1, "todo_write", INIT)["result"]["isError"] is False
        with phasetodo.Session.open("s", store=_store(tmp_path), resume="keep") as person:
            edited = phasetodo.markdown_to_phases("# Fix\n- [ ] Edited by a person\n")[0]
            person.user_edit(edited, source="cli")
        read = server.call(2, "todo_read", {})
        assert "Edited by a person" in _text(read)
        assert read["result"]["structuredContent"]["phases"][0]["tasks"][0]["content"] == "Edited by a person"
        markdown = server.call(3, "todo_read", {"format": "markdown"})
        assert "Edited by a person" in _text(markdown)
        with phasetodo.Session.open("s", store=_store(tmp_path), resume="keep") as person:
            edited = phasetodo.markdown_to_phases("# Fix\n- [ ] Edited again\n")[0]
            person.user_edit(edited, source="cli")
        refused = server.call(4, "todo_write", {"ops": [{"op": "pending"}]})
        assert refused["result"]["isError"] is True
        assert refused["result"]["structuredContent"]["phases"][0]["tasks"][0]["content"] == "Edited again"
        server.finish()

    @pytest.mark.parametrize(
        ("name", "arguments", "called"),
        [("todo_read", {"format": "xml"}, "todo_read"), ("todo_frobnicate", {}, "todo_frobnicate")],
    )
    def test_errors_name_the_tool_called(
        self, serve: Callable[..., Server], name: str, arguments: object, called: str
    ) -> None:
        """An error result names the tool the client called, not todo_write."""
        server = serve()
        answer = server.call(1, name, arguments)
        assert answer["result"]["isError"] is True
        assert _text(answer).startswith(f"Invalid {called} call")
        assert "todo_write call" not in _text(answer)
        server.finish()

    def test_owned_session_is_a_server_error(self, tmp_path: Path, serve: Callable[..., Server]) -> None:
        """On a session owned by an agent, with no agent configured, a write is a server-side
        JSON-RPC error that says what the host must configure; the model is not asked to fix its call."""
        phasetodo.Session.open("owned", store=_store(tmp_path), agent="main").close()
        server = serve(session="owned")
        answer = server.call(1, "todo_write", INIT)
        assert "result" not in answer
        assert answer["error"]["code"] == -32603
        message = answer["error"]["message"]
        assert "--agent main" in message
        assert "internal error" not in message
        server.finish()
