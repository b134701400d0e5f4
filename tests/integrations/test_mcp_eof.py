"""A client that closes stdin right after its last call still gets every reply (real pipes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import phasetodo

pytestmark = pytest.mark.slow

HELLO = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}


def _line(ident: int | None, method: str, params: object) -> bytes:
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        message["id"] = ident
    return (json.dumps(message) + "\n").encode()


class TestEndOfInput:
    @pytest.mark.parametrize("run", range(12))
    def test_the_last_write_is_answered(self, tmp_path: Path, run: int) -> None:
        """initialize, initialized, one todo_write, then EOF at once: the write is applied and answered."""
        store = tmp_path / "store"
        ops = {"ops": [{"op": "init", "list": [{"phase": "P", "items": [f"task {run}"]}]}]}
        lines = (
            _line(0, "initialize", HELLO)
            + _line(None, "notifications/initialized", {})
            + _line(1, "tools/call", {"name": "todo_write", "arguments": ops})
        )
        done = subprocess.run(
            [sys.executable, "-m", "phasetodo", "mcp", "--store", str(store), "--session", "s"],
            input=lines, capture_output=True, timeout=120, check=False,
        )
        assert done.returncode == 0, done.stderr.decode()
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        assert [a.get("id") for a in answers] == [0, 1]
        assert answers[1]["result"]["isError"] is False
        with phasetodo.Session.open("s", phasetodo.JsonlStore(store), resume="keep") as session:
            assert session.phases[0].tasks[0].content == f"task {run}"
