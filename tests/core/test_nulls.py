"""One rule for ``null`` op fields, at every entry point.

Plain payloads: a ``null`` op field is rejected, as the reference does (a
conformance vector says so). Strict-mode payloads (``nulls_are_absent=True``, the
adapters that send the strict spec), whose models send every unused field as
``null``: a ``null`` field reads as left out, except that ``null`` never means
"every task": a ``done``, ``drop`` or ``rm`` whose ``task`` and ``phase`` are
missing, with at least one of them ``null``, is refused and changes nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo import MemoryStore, Session
from phasetodo.tool import MemoryState, TodoWriteTool

INIT = {"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Find it", "Patch it"]}]}]}
PHASES = phasetodo.todo_write(INIT)["details"]["phases"]
NULL_WHOLE_LIST = [
    {"op": "done", "task": None, "phase": None},
    {"op": "drop", "task": None},
    {"op": "rm", "phase": None},
    {"op": "rm", "task": None, "phase": None, "items": None, "text": None, "list": None},
]


def _statuses(phases: list[dict[str, Any]]) -> list[str]:
    return [t["status"] for p in phases for t in p["tasks"]]


class TestEveryEntryPoint:
    @pytest.mark.parametrize("op", NULL_WHOLE_LIST)
    @pytest.mark.parametrize("profile", ["parity", "strict"])
    def test_plain_payload_refuses_null(self, op: dict[str, Any], profile: str) -> None:
        """todo_write rejects null fields as the reference does; nothing is applied."""
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.todo_write({"ops": [op]}, PHASES, profile=profile)  # type: ignore[arg-type]
        assert any("null" in p for p in caught.value.problems)

    @pytest.mark.parametrize("op", NULL_WHOLE_LIST)
    @pytest.mark.parametrize("profile", ["parity", "strict"])
    def test_strict_mode_null_target_is_not_everything(self, op: dict[str, Any], profile: str) -> None:
        """With nulls_are_absent a null-only target is refused, naming the rule; the list is unchanged."""
        tool = TodoWriteTool(MemoryState(PHASES), profile=profile)  # type: ignore[arg-type]
        result = tool.execute({"ops": [op]}, nulls_are_absent=True)
        assert result.is_error is True
        assert any("null never means every task" in p for p in result.problems)
        assert "leave both out" in result.text
        assert phasetodo.dump_phases(tool.phases) == PHASES

    @pytest.mark.parametrize("op", NULL_WHOLE_LIST)
    def test_session_and_tool_refuse_too(self, op: dict[str, Any]) -> None:
        """A session and the tool (also with nulls_are_absent) refuse it; the list is unchanged."""
        with Session.open("n", store=MemoryStore()) as session:
            session.todo_write(INIT)
            with pytest.raises(phasetodo.InvalidParams):
                session.todo_write({"ops": [op]})
            assert session.version == 1
            tool = TodoWriteTool(session)
            for nulls in (False, True):
                result = tool.execute({"ops": [op]}, nulls_are_absent=nulls)
                assert result.is_error is True
            assert session.version == 1

    def test_strict_mode_null_fields_read_as_absent(self) -> None:
        """Elsewhere, in a strict-mode payload, a null field is the same as leaving it out."""
        call = {"ops": [{"op": "done", "task": "Find it", "phase": None, "items": None, "text": None}]}
        plain = {"ops": [{"op": "done", "task": "Find it"}]}
        nulled = TodoWriteTool(MemoryState(PHASES)).execute(call, nulls_are_absent=True)
        assert nulled == TodoWriteTool(MemoryState(PHASES)).execute(plain)
        assert nulled.is_error is False

    def test_leaving_both_out_still_means_everything_in_parity(self) -> None:
        """The reference's whole-list done (no target fields at all) is unchanged in parity."""
        result = phasetodo.todo_write({"ops": [{"op": "done"}]}, PHASES)
        assert set(_statuses(result["details"]["phases"])) == {"completed"}

    @pytest.mark.slow
    def test_command_apply(self, tmp_path: Path) -> None:
        """phasetodo apply refuses it with exit 2 and the list stays as it was."""
        def run(params: object) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "phasetodo.cli", "--store", "s", "apply", json.dumps(params)],
                cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
            )

        assert run(INIT).returncode == 0
        done = run({"ops": [{"op": "done", "task": None, "phase": None}]})
        assert done.returncode == 2
        assert "null" in done.stderr


class TestStrictProfile:
    @pytest.mark.parametrize("op", ["done", "drop", "rm"])
    def test_whole_list_needs_an_explicit_target(self, op: str) -> None:
        """In the strict profile a done/drop/rm must name a task or a phase; nothing is applied."""
        result = phasetodo.todo_write({"ops": [{"op": op}]}, PHASES, profile="strict")
        assert result["isError"] is True
        assert "name a task or a phase" in result["details"]["errors"][0]
        assert result["details"]["phases"] == PHASES
