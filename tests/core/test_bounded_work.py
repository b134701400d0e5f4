"""Inputs that once made a call hang now cost work linear in their size (hardening 5-7).

Work is counted, never timed: ``python_steps`` counts the Python lines a call
runs. Each test compares the count for an input with the count for one many
times larger, or for the same call without the costly part. The inputs are
large enough that the old code (backtracking patterns, a scan of the whole
list per miss or per whole-list op) ran for minutes on them.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import attrs
import pytest
from hypothesis import given, settings

import phasetodo
from phasetodo import testing
from phasetodo._core import schema
from phasetodo._core.columns import Columns
from phasetodo._profiles import hints
from phasetodo._profiles.parity import parity_report

from ..budget import examples, sample
from ..conftest import read_vectors


def python_steps(call: Callable[[], object]) -> int:
    """How many Python lines ``call`` runs (each loop pass counts), after one untraced warm-up call."""
    call()
    steps = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal steps
        if event == "line":
            steps += 1
        return trace

    previous = sys.gettrace()  # a coverage run's tracer: put back, or the rest of the run goes unmeasured
    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(previous)
    return steps


def tasks_list(size: int, phases: int = 10) -> list[dict[str, Any]]:
    """``size`` pending tasks with distinct contents, spread over ``phases`` phases."""
    per = size // phases
    return [
        {
            "name": f"P{p}",
            "tasks": [{"content": f"task {p}-{t} do it", "status": "pending"} for t in range(per)],
        }
        for p in range(phases)
    ]


#: Steps a call may take beyond another's for reasons unrelated to input size (first-use caches).
SLACK = 20

SPACES = ["    ", "\t", "\u3000", " \t\u00a0"]


def _read(text: str) -> tuple[tuple[phasetodo.Phase, ...], list[str]]:
    """``markdown_to_phases`` without limits: these texts are over max_name and max_content on purpose."""
    return phasetodo.markdown_to_phases(text, limits=None)


class TestMarkdownReaderIsLinear:
    @pytest.mark.parametrize("space", SPACES)
    @pytest.mark.parametrize("end", ["", "\r", "\n", "\r\n"])
    def test_long_space_run_in_a_heading(self, space: str, end: str) -> None:
        """A heading with a 1 MB space run inside reads back whole, at the cost of a short one."""
        small = "# a" + space * 4 + "b" + end
        large = "# a" + space * 250_000 + "b" + end
        phases, errors = _read(large)
        assert (phases[0].name, errors) == ("a" + space * 250_000 + "b", [])
        assert python_steps(lambda: _read(large)) <= SLACK + python_steps(
            lambda: _read(small)
        )

    @pytest.mark.parametrize("space", SPACES)
    @pytest.mark.parametrize("end", ["", "\r", "\n"])
    def test_long_space_run_in_a_task(self, space: str, end: str) -> None:
        """A task line with a 1 MB space run inside reads back whole, at the cost of a short one."""
        small = "- [x] a" + space * 4 + "b" + end
        large = "- [x] a" + space * 250_000 + "b" + end
        phases, errors = _read(large)
        assert (phases[0].tasks[0].content, errors) == ("a" + space * 250_000 + "b", [])
        assert python_steps(lambda: _read(large)) <= SLACK + python_steps(
            lambda: _read(small)
        )

    @pytest.mark.parametrize("line", ["# a{}", "- [ ]{}b", "-{}[x]", "  >{}\u2028", "# {}\u2028b"])
    def test_lines_that_do_not_match(self, line: str) -> None:
        """Lines that fail a pattern after a long space run fail at the cost of a short one."""
        small = "- [/] t\n" + line.format(" " * 4) + " x\n"
        large = "- [/] t\n" + line.format(" " * 1_000_000) + " x\n"
        assert python_steps(lambda: _read(large)) <= SLACK + python_steps(
            lambda: _read(small)
        )

    def test_many_lines_cost_in_proportion(self) -> None:
        """Twice the lines of a mixed document cost at most twice the work."""
        block = "# Phase\n- [x] done\n- [ ]  spaced  \n  > a note\nnot markdown\n\n"
        one = python_steps(lambda: _read(block * 200))
        two = python_steps(lambda: _read(block * 400))
        assert two <= 2 * one + 50


class TestStrictHintsAreBounded:
    @pytest.mark.parametrize("query", ["task", "Task -", "#", "step_", "t"])
    def test_id_reader_is_linear(self, query: str) -> None:
        """An id-like query with a 1 MB space run is read in one pass, as a short one is."""
        small, large = query + " " * 4 + "x", query + " " * 1_000_000 + "x"
        assert hints.id_number(large) is None
        assert python_steps(lambda: hints.id_number(large)) <= SLACK + python_steps(
            lambda: hints.id_number(small)
        )

    @pytest.mark.parametrize(
        ("query", "number"),
        [("task-3", "3"), ("Task 3", "3"), ("#3", "3"), ("3", "3"), ("t3", "3"), ("item_12 ", "12"),
         ("STEP: 7", "7"), ("phase #2", "2"), ("p.4", "4"), ("task##5", "5"), ("todo 5 x", None),
         ("tasks 3", None), ("task-", None), ("- 3", None), (" 42 ", "42")],
    )
    def test_id_reader_reads_ids(self, query: str, number: str | None) -> None:
        """The one-pass reader finds the number in the id shapes the strict hint names."""
        assert hints.id_number(query) == number

    def test_misses_on_a_large_list_stay_within_the_budget(self) -> None:
        """1,000 misses on 10,000 names read at most the budget, however many names there are."""
        names = [f"Phase {p} task {t} do the thing" for p in range(100) for t in range(100)]
        index = hints.Hints(names)
        for number in range(1_000):
            index.closest(f"Phase {number % 100} tsak {number} do teh thing")
        assert 0 < index.spent <= hints.HINT_BUDGET

    def test_suggestions_still_found_on_a_large_list(self) -> None:
        """The index still finds a close name among 10,000."""
        names = [f"Phase {p} task {t} do the thing" for p in range(100) for t in range(100)]
        assert hints.Hints(names).closest("Phase 42 task 17 do teh thing") == "Phase 42 task 17 do the thing"

    def test_strict_call_with_many_misses_costs_a_small_multiple(self) -> None:
        """A strict call of 400 misses costs a small multiple of the same call with hits."""
        before = tasks_list(4_000)
        contents = [t["content"] for p in before for t in p["tasks"]]
        hit = {"ops": [{"op": "done", "task": c} for c in contents[:400]]}
        miss = {"ops": [{"op": "done", "task": c.replace("do it", "do tI") + "x"} for c in contents[:400]]}
        hits = python_steps(lambda: phasetodo.todo_write(hit, before, profile="strict"))
        misses = python_steps(lambda: phasetodo.todo_write(miss, before, profile="strict"))
        more = {"ops": miss["ops"] * 2}
        twice = python_steps(lambda: phasetodo.todo_write(more, before, profile="strict"))
        assert misses <= 10 * hits
        assert twice <= misses + 2 * hits


class TestWholeListOpsAreCheap:
    @pytest.mark.parametrize("profile", ["parity", "strict"])
    @pytest.mark.parametrize(
        "op", [{"op": "drop"}, {"op": "done"}, {"op": "rm"}, {"op": "done", "phase": "P3"}]
    )
    def test_repeated_whole_list_ops_do_not_multiply(self, profile: str, op: dict[str, str]) -> None:
        """1,000 repeats of an untargeted op cost the same on 2,000 tasks as on 4,000 (beyond loading)."""

        def cost(size: int, repeats: int) -> int:
            before = phasetodo.load_phases(tasks_list(size))
            params = {"ops": [op] * repeats}
            ops = phasetodo.profiles.parse_params(params)
            if profile == "parity":
                return python_steps(lambda: phasetodo.apply(before, ops))
            return python_steps(lambda: phasetodo.profiles.apply_strict(before, ops))

        small = cost(2_000, 1_000) - cost(2_000, 1)
        large = cost(4_000, 1_000) - cost(4_000, 1)
        assert large <= small + 100
        assert small <= 1_000 * 60  # a constant per op, whatever the list size

    def test_result_is_unchanged_by_repeats(self) -> None:
        """Repeating whole-list or whole-phase ops gives what one of each gives."""
        before = tasks_list(100)
        start = {"op": "start", "task": "task 2-3 do it"}
        once = {"ops": [{"op": "done"}, {"op": "drop", "phase": "P1"}, start]}
        many = {"ops": [{"op": "done"}] * 50 + [{"op": "drop", "phase": "P1"}] * 50 + [start]}
        assert phasetodo.todo_write(many, before) == phasetodo.todo_write(once, before)
        # strict names a target in every op: repeat whole phases there
        once = {"ops": [{"op": "done", "phase": "P0"}, {"op": "drop", "phase": "P1"}, start]}
        many = {"ops": [{"op": "done", "phase": "P0"}] * 50 + [{"op": "drop", "phase": "P1"}] * 50 + [start]}
        assert phasetodo.todo_write(many, before, profile="strict") == phasetodo.todo_write(
            once, before, profile="strict"
        )

APPLY = read_vectors("apply.jsonl.gz")


@attrs.frozen
class _OddPhase(phasetodo.Phase):
    """A phase of a host's own type: loaded task by task, kept as it is where unchanged."""


class TestBothWorkingCopies:
    @pytest.mark.parametrize("vector", sample(APPLY[::7]), ids=lambda v: v["id"])
    def test_the_task_by_task_loader_gives_the_reference_result(self, vector: dict[str, Any]) -> None:
        """Values the bulk loader does not take (here a ``Phase`` subclass) load task by
        task into the same working copy and give the vectors' phases and errors."""
        values = [_OddPhase(p.name, p.tasks) for p in phasetodo.load_phases(vector["before"])]
        work = Columns(values)
        assert all(col.keep for col in work.cols)
        work.apply(phasetodo.profiles.parse_params(vector["params"]))
        assert (phasetodo.dump_phases(work.phases()), work.errors) == (
            vector["expect"]["phases"],
            vector["expect"]["errors"],
        )

    @pytest.mark.parametrize("vector", sample(APPLY[::7]), ids=lambda v: v["id"])
    def test_values_and_dicts_give_one_result_and_leave_input_alone(self, vector: dict[str, Any]) -> None:
        """todo_write on dicts and on values gives the same result; neither input changes."""
        before = copy.deepcopy(vector["before"])
        values = phasetodo.load_phases(before)
        on_dicts = phasetodo.todo_write(vector["params"], before)
        on_values = phasetodo.todo_write(vector["params"], values)
        assert on_dicts == on_values
        assert on_dicts["details"]["phases"] == vector["expect"]["phases"]
        assert before == vector["before"]
        assert values == phasetodo.load_phases(vector["before"])

    def test_result_shares_nothing_with_the_input(self) -> None:
        """Changing the result's lists and dicts leaves the caller's list as it was."""
        before = [{"name": "P", "tasks": [{"content": "a", "status": "pending", "notes": ["n"]}]}]
        kept = copy.deepcopy(before)
        result = phasetodo.todo_write({"ops": [{"op": "append", "phase": "Q", "items": ["b"]}]}, before)
        result["details"]["phases"][0]["tasks"][0]["notes"].append("x")
        result["details"]["phases"][0]["tasks"][0]["status"] = "completed"
        assert before == kept


    @pytest.mark.parametrize("vector", sample(APPLY[::7]), ids=lambda v: v["id"])
    def test_result_of_an_outcome_equals_its_phases_result(self, vector: dict[str, Any]) -> None:
        """The result of an engine outcome is the summary and dump of its phases, however it was built."""
        values = phasetodo.load_phases(vector["before"])
        outcome = phasetodo.apply(values, phasetodo.profiles.parse_params(vector["params"]))
        expected = {
            "content": [{"type": "text", "text": phasetodo.format_summary(outcome.phases, outcome.errors)}],
            "details": {"phases": phasetodo.dump_phases(outcome.phases), "storage": "memory"},
        }
        assert parity_report(outcome, "memory").to_json() == expected
        assert parity_report(attrs.evolve(outcome), "memory").to_json() == expected

class TestQuickSchemaCheck:
    @given(testing.params(valid=None))
    @settings(max_examples=examples(300))
    def test_quick_check_never_accepts_what_the_schema_rejects(self, params: object) -> None:
        """The quick shape check says valid only where the compiled schema does too."""
        for check in (schema.PARAMS_CHECK, schema.STRICT_PARAMS_CHECK):
            if schema._plainly_valid(params, check.ops):
                check.compiled()(params)

    @pytest.mark.parametrize("vector", read_vectors("params.jsonl"), ids=lambda v: v["id"])
    def test_params_vectors(self, vector: dict[str, Any]) -> None:
        """Every params vector is accepted or rejected as the reference's schema says."""
        assert schema.is_valid(vector["params"]) == vector["valid"]

