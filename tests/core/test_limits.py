"""Size limits: each one at its bound passes, one past it raises naming the limit."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo import DEFAULT_LIMITS, InvalidParams, Limits

PROFILES = pytest.mark.parametrize("profile", ["parity", "strict"])
BEFORE = [{"name": "P", "tasks": [{"content": "A", "status": "in_progress"}]}]


def call(ops: list[dict[str, Any]], limits: Limits, profile: str, before: Any = None) -> dict[str, Any]:
    """One call with ``limits`` on a copy of ``before`` (BEFORE by default)."""
    phases = copy.deepcopy(BEFORE if before is None else before)
    return phasetodo.todo_write({"ops": ops}, phases, profile=profile, limits=limits)  # type: ignore[arg-type]


def refused(ops: list[dict[str, Any]], limits: Limits, profile: str, before: Any = None) -> tuple[str, ...]:
    """The problems of a call that must be refused, checking nothing changed."""
    phases = copy.deepcopy(BEFORE if before is None else before)
    kept = copy.deepcopy(phases)
    with pytest.raises(InvalidParams) as caught:
        phasetodo.todo_write({"ops": ops}, phases, profile=profile, limits=limits)  # type: ignore[arg-type]
    assert phases == kept
    return caught.value.problems


@PROFILES
class TestPerCallLimits:
    def test_max_ops(self, profile: str) -> None:
        """max_ops allows that many ops and refuses one more."""
        limits = Limits(max_ops=3)
        call([{"op": "done", "task": "A"}] * 3, limits, profile)
        assert refused([{"op": "done", "task": "A"}] * 4, limits, profile) == (
            "ops: 4 operations, over the limit max_ops=3",
        )

    def test_max_content_in_append(self, profile: str) -> None:
        """max_content bounds each appended task."""
        limits = Limits(max_content=5)
        call([{"op": "append", "phase": "P", "items": ["x" * 5]}], limits, profile)
        assert refused([{"op": "append", "phase": "P", "items": ["ok", "x" * 6]}], limits, profile) == (
            "ops[0].items[1]: 6 characters, over the limit max_content=5",
        )

    def test_max_content_in_init(self, profile: str) -> None:
        """max_content bounds each task of an init list."""
        limits = Limits(max_content=5)
        call([{"op": "init", "list": [{"phase": "P", "items": ["x" * 5]}]}], limits, profile)
        problems = refused([{"op": "init", "list": [{"phase": "P", "items": ["x" * 6]}]}], limits, profile)
        assert problems == ("ops[0].list[0].items[0]: 6 characters, over the limit max_content=5",)

    def test_max_content_in_task_reference(self, profile: str) -> None:
        """A task reference longer than max_content is refused before it is looked up."""
        limits = Limits(max_content=5)
        assert refused([{"op": "done", "task": "x" * 6}], limits, profile) == (
            "ops[0].task: 6 characters, over the limit max_content=5",
        )

    def test_max_name(self, profile: str) -> None:
        """max_name bounds phase names in append, init and targets."""
        limits = Limits(max_name=4)
        call([{"op": "append", "phase": "abcd", "items": ["B"]}], limits, profile)
        assert refused([{"op": "append", "phase": "abcde", "items": ["B"]}], limits, profile) == (
            "ops[0].phase: 5 characters, over the limit max_name=4",
        )
        problems = refused([{"op": "init", "list": [{"phase": "abcde", "items": ["B"]}]}], limits, profile)
        assert problems == ("ops[0].list[0].phase: 5 characters, over the limit max_name=4",)
        assert refused([{"op": "drop", "phase": "abcde"}], limits, profile) == (
            "ops[0].phase: 5 characters, over the limit max_name=4",
        )

    def test_max_note(self, profile: str) -> None:
        """max_note bounds one note's text."""
        limits = Limits(max_note=10)
        call([{"op": "note", "task": "A", "text": "n" * 10}], limits, profile)
        assert refused([{"op": "note", "task": "A", "text": "n" * 11}], limits, profile) == (
            "ops[0].text: 11 characters, over the limit max_note=10",
        )

    def test_max_payload(self, profile: str) -> None:
        """max_payload bounds all the text of one call together."""
        limits = Limits(max_payload=10)
        call([{"op": "append", "phase": "P", "items": ["bbbb", "cccc"]}], limits, profile)  # 1+4+4 = 9
        call([{"op": "append", "phase": "P", "items": ["bbbb", "ccccc"]}], limits, profile)  # 10
        assert refused([{"op": "append", "phase": "P", "items": ["bbbbb", "ccccc"]}], limits, profile) == (
            "ops: 11 characters of text in all, over the limit max_payload=10",
        )

    def test_every_breach_listed(self, profile: str) -> None:
        """Several breaches in one call are all named."""
        limits = Limits(max_ops=1, max_note=1)
        problems = refused([{"op": "note", "task": "A", "text": "nn"}] * 2, limits, profile)
        assert problems == (
            "ops: 2 operations, over the limit max_ops=1",
            "ops[0].text: 2 characters, over the limit max_note=1",
            "ops[1].text: 2 characters, over the limit max_note=1",
        )


@PROFILES
class TestListLimits:
    def test_max_tasks(self, profile: str) -> None:
        """max_tasks allows a list of that size and refuses growing past it."""
        limits = Limits(max_tasks=3)
        call([{"op": "append", "phase": "P", "items": ["B", "C"]}], limits, profile)
        assert refused([{"op": "append", "phase": "P", "items": ["B", "C", "D"]}], limits, profile) == (
            "phases: the list would hold 4 tasks, over the limit max_tasks=3",
        )

    def test_max_phases(self, profile: str) -> None:
        """max_phases allows that many phases and refuses one more."""
        limits = Limits(max_phases=2)
        call([{"op": "append", "phase": "Q", "items": ["B"]}], limits, profile)
        ops = [{"op": "append", "phase": "Q", "items": ["B"]}, {"op": "append", "phase": "R", "items": ["C"]}]
        assert refused(ops, limits, profile) == (
            "phases: the list would hold 3 phases, over the limit max_phases=2",
        )

    def test_oversized_list_can_shrink(self, profile: str) -> None:
        """A stored list already past the limit may still be worked down."""
        big = [{"name": "P", "tasks": [{"content": c, "status": "pending"} for c in "ABCD"]}]
        result = call([{"op": "rm", "task": "D"}], Limits(max_tasks=2), profile, big)
        assert len(result["details"]["phases"][0]["tasks"]) == 3

    def test_oversized_list_cannot_grow(self, profile: str) -> None:
        """A stored list past the limit cannot grow further."""
        big = [{"name": "P", "tasks": [{"content": c, "status": "pending"} for c in "ABCD"]}]
        refused([{"op": "append", "phase": "P", "items": ["E"]}], Limits(max_tasks=2), profile, big)


class TestConfiguration:
    def test_no_limits(self) -> None:
        """limits=None turns every limit off."""
        ops = [{"op": "append", "phase": "P", "items": ["x" * 20_000]}]
        with pytest.raises(InvalidParams):
            phasetodo.todo_write({"ops": ops}, BEFORE)
        assert phasetodo.todo_write({"ops": ops}, BEFORE, limits=None)["details"]["phases"]

    @pytest.mark.parametrize("value", [0, -1, 1.5, True, "3"])
    def test_bad_limit_rejected(self, value: object) -> None:
        """A limit must be a positive integer, and the error names it."""
        with pytest.raises(ValueError, match=r"Limits\.max_ops: must be a positive integer"):
            Limits(max_ops=value)  # type: ignore[arg-type]

    def test_limits_apply_in_execute(self) -> None:
        """The typed call, phasetodo.tool.call(), enforces limits too."""
        with pytest.raises(InvalidParams, match="max_ops=1"):
            phasetodo.tool.call({"ops": [{"op": "done"}] * 2}, (), limits=Limits(max_ops=1))

    def test_defaults_cover_the_bench_workloads(self) -> None:
        """Every shared benchmark workload runs under the default limits."""
        workloads = Path(__file__).parents[2] / "benchmarks" / "workloads"
        for path in sorted(workloads.glob("w*.json")):
            work = json.loads(path.read_text(encoding="utf-8"))
            if "calls" in work:
                phases: list[dict[str, Any]] = []
                for params in work["calls"]:
                    phases = phasetodo.todo_write(params, phases, limits=DEFAULT_LIMITS)["details"]["phases"]
            elif "params" in work:
                phasetodo.todo_write(work["params"], work["before"], limits=DEFAULT_LIMITS)
            tasks = sum(len(p["tasks"]) for p in work.get("before", []))
            assert tasks <= DEFAULT_LIMITS.max_tasks
