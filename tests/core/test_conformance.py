"""The reference's vectors, compared whole: text, phases and errors."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import phasetodo

from ..conftest import read_vectors

APPLY = read_vectors("apply.jsonl.gz")
RENDER = read_vectors("render.jsonl.gz")
PARSE = read_vectors("parse.jsonl.gz")
PARAMS = read_vectors("params.jsonl")


def _ids(vectors: list[dict[str, Any]]) -> list[str]:
    return [v["id"] for v in vectors]


class TestCounts:
    def test_every_vector_is_present(self) -> None:
        """The shipped vector files hold the counts the reference produced."""
        assert (len(APPLY), len(RENDER), len(PARSE), len(PARAMS)) == (5488, 400, 1000, 34)


class TestApply:
    @pytest.mark.parametrize("vector", APPLY, ids=_ids(APPLY))
    def test_tool_result_matches(self, vector: dict[str, Any]) -> None:
        """todo_write returns the reference's text, phases and errors."""
        before = copy.deepcopy(vector["before"])
        result = phasetodo.todo_write(vector["params"], before)
        expect = vector["expect"]
        assert result["content"] == [{"type": "text", "text": expect["text"]}]
        assert result["details"] == {"phases": expect["phases"], "storage": "memory"}
        assert before == vector["before"]

    @pytest.mark.parametrize("vector", APPLY[::7], ids=_ids(APPLY[::7]))
    def test_errors_match(self, vector: dict[str, Any]) -> None:
        """apply() collects exactly the reference's non-fatal errors."""
        ops = phasetodo.profiles.parse_params(vector["params"])
        outcome = phasetodo.apply(phasetodo.load_phases(vector["before"]), ops)
        assert list(outcome.errors) == vector["expect"]["errors"]


class TestMarkdown:
    @pytest.mark.parametrize("vector", RENDER, ids=_ids(RENDER))
    def test_render_matches(self, vector: dict[str, Any]) -> None:
        """phases_to_markdown renders the reference's Markdown."""
        assert phasetodo.phases_to_markdown(vector["phases"]) == vector["expect"]["markdown"]

    @pytest.mark.parametrize("vector", PARSE, ids=_ids(PARSE))
    def test_parse_matches(self, vector: dict[str, Any]) -> None:
        """markdown_to_phases returns the reference's phases and line errors."""
        phases, errors = phasetodo.markdown_to_phases(vector["markdown"])
        assert phasetodo.dump_phases(phases) == vector["expect"]["phases"]
        assert errors == vector["expect"]["errors"]


class TestParams:
    @pytest.mark.parametrize("vector", PARAMS, ids=_ids(PARAMS))
    def test_schema_verdict_matches(self, vector: dict[str, Any]) -> None:
        """Accepted params apply; rejected ones raise InvalidParams and change nothing."""
        before = [{"name": "P", "tasks": [{"content": "A", "status": "pending"}]}]
        if vector["valid"]:
            phasetodo.todo_write(vector["params"], before)
            return
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.todo_write(vector["params"], before)
        assert caught.value.problems
        assert before == [{"name": "P", "tasks": [{"content": "A", "status": "pending"}]}]
