"""The reference's vectors, compared whole: text, phases and errors."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

import phasetodo

from ..budget import batch_id, batches
from ..conftest import read_vectors

APPLY = read_vectors("apply.jsonl.gz")
RENDER = read_vectors("render.jsonl.gz")
PARSE = read_vectors("parse.jsonl.gz")
PARAMS = read_vectors("params.jsonl")


Vectors = list[dict[str, Any]]


def _each(vectors: Vectors) -> pytest.MarkDecorator:
    """Parametrize ``batch`` over every vector: one a test in a full run, a hundred in the fast
    loop. A batch checks all of its vectors and names every one that failed."""
    groups = batches(vectors)
    return pytest.mark.parametrize("batch", groups, ids=[batch_id(g) for g in groups])


def _check_all(batch: Vectors, check: Callable[[dict[str, Any]], None]) -> None:
    failed = []
    for vector in batch:
        try:
            check(vector)
        except (Exception, pytest.fail.Exception) as error:  # a failed check, or a raise
            failed.append(f"{vector['id']}: {error}")
    assert not failed, "\n".join(failed)


class TestCounts:
    def test_every_vector_is_present(self) -> None:
        """The shipped vector files hold the counts the reference produced."""
        assert (len(APPLY), len(RENDER), len(PARSE), len(PARAMS)) == (5488, 400, 1000, 34)


class TestApply:
    @_each(APPLY)
    def test_tool_result_matches(self, batch: Vectors) -> None:
        """todo_write returns the reference's text, phases and errors."""
        _check_all(batch, self.check_result)

    @staticmethod
    def check_result(vector: dict[str, Any]) -> None:
        before = copy.deepcopy(vector["before"])
        result = phasetodo.todo_write(vector["params"], before)
        expect = vector["expect"]
        assert result["content"] == [{"type": "text", "text": expect["text"]}]
        assert result["details"] == {"phases": expect["phases"], "storage": "memory"}
        assert before == vector["before"]

    @_each(APPLY[::7])
    def test_errors_match(self, batch: Vectors) -> None:
        """apply() collects exactly the reference's non-fatal errors."""
        _check_all(batch, self.check_errors)

    @staticmethod
    def check_errors(vector: dict[str, Any]) -> None:
        ops = phasetodo.profiles.parse_params(vector["params"])
        outcome = phasetodo.apply(phasetodo.load_phases(vector["before"]), ops)
        assert list(outcome.errors) == vector["expect"]["errors"]


class TestMarkdown:
    @_each(RENDER)
    def test_render_matches(self, batch: Vectors) -> None:
        """phases_to_markdown renders the reference's Markdown."""
        _check_all(batch, self.check_render)

    @staticmethod
    def check_render(vector: dict[str, Any]) -> None:
        assert phasetodo.phases_to_markdown(vector["phases"]) == vector["expect"]["markdown"]

    @_each(PARSE)
    def test_parse_matches(self, batch: Vectors) -> None:
        """markdown_to_phases returns the reference's phases and line errors."""
        _check_all(batch, self.check_parse)

    @staticmethod
    def check_parse(vector: dict[str, Any]) -> None:
        phases, errors = phasetodo.markdown_to_phases(vector["markdown"])
        assert phasetodo.dump_phases(phases) == vector["expect"]["phases"]
        assert errors == vector["expect"]["errors"]


class TestParams:
    @_each(PARAMS)
    def test_schema_verdict_matches(self, batch: Vectors) -> None:
        """Accepted params apply; rejected ones raise InvalidParams and change nothing."""
        _check_all(batch, self.check_verdict)

    @staticmethod
    def check_verdict(vector: dict[str, Any]) -> None:
        before = [{"name": "P", "tasks": [{"content": "A", "status": "pending"}]}]
        if vector["valid"]:
            phasetodo.todo_write(vector["params"], before)
            return
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.todo_write(vector["params"], before)
        assert caught.value.problems
        assert before == [{"name": "P", "tasks": [{"content": "A", "status": "pending"}]}]
