"""The reference's current ``todo`` tool's vectors, compared whole: result, errors, what was kept."""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from phasetodo import todo
from phasetodo._todo.tool import run
from phasetodo._todo.values import phases_from_json

from ..budget import batch_id, batches

VECTORS = Path(__file__).resolve().parent.parent / "conformance_todo"
Vectors = list[dict[str, Any]]


def _read(name: str) -> Vectors:
    with gzip.open(VECTORS / name, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


APPLY = _read("apply.jsonl.gz")
RENDER = _read("render.jsonl.gz")
PARSE = _read("parse.jsonl.gz")


def _each(vectors: Vectors) -> pytest.MarkDecorator:
    groups = batches(vectors)
    return pytest.mark.parametrize("batch", groups, ids=[batch_id(g) for g in groups])


def _check_all(batch: Vectors, check: Callable[[dict[str, Any]], None]) -> None:
    failed = []
    for vector in batch:
        try:
            check(vector)
        except (Exception, pytest.fail.Exception) as error:
            failed.append(f"{vector['id']}: {error}")
    assert not failed, "\n".join(failed)


def _storage(vector: dict[str, Any]) -> str:
    return "session" if "sessionFile" in vector else "memory"


def _expected_result(expect: dict[str, Any]) -> dict[str, Any]:
    details = {key: expect[key] for key in ("op", "phases", "storage", "completedTasks") if key in expect}
    result: dict[str, Any] = {"content": [{"type": "text", "text": expect["text"]}], "details": details}
    if expect.get("isError"):
        result["isError"] = True
    return result


class TestCounts:
    def test_every_vector_is_present(self) -> None:
        """The copied vector files hold the counts the reference produced."""
        assert (len(APPLY), len(RENDER), len(PARSE)) == (3582, 362, 884)


class TestApply:
    @_each(APPLY)
    def test_result_matches(self, batch: Vectors) -> None:
        """apply returns the reference's whole result, keys in its order."""
        _check_all(batch, self.check_result)

    @staticmethod
    def check_result(vector: dict[str, Any]) -> None:
        before = copy.deepcopy(vector["before"])
        result = todo.apply(vector.get("params"), before, storage=_storage(vector))
        expected = _expected_result(vector["expect"])
        assert json.dumps(result) == json.dumps(expected)
        assert before == vector["before"]

    @_each(APPLY)
    def test_errors_and_persistence_match(self, batch: Vectors) -> None:
        """The op's error list and whether a new list was kept match the reference's."""
        _check_all(batch, self.check_outcome)

    @staticmethod
    def check_outcome(vector: dict[str, Any]) -> None:
        outcome = run(vector.get("params"), phases_from_json(vector["before"]), _storage(vector))
        expect = vector["expect"]
        assert outcome.persisted is expect["persisted"]
        assert (None if outcome.errors is None else list(outcome.errors)) == expect.get("errors")


class TestRender:
    @_each(RENDER)
    def test_markdown_matches(self, batch: Vectors) -> None:
        """to_markdown writes the reference's checklist, byte for byte."""
        _check_all(batch, lambda v: _equal(todo.to_markdown(v["phases"]), v["expect"]["markdown"]))


class TestParse:
    @_each(PARSE)
    def test_phases_and_errors_match(self, batch: Vectors) -> None:
        """from_markdown gives the reference's phases and line errors."""
        _check_all(batch, self.check_parse)

    @staticmethod
    def check_parse(vector: dict[str, Any]) -> None:
        phases, errors = todo.from_markdown(vector["markdown"])
        expect = vector["expect"]
        assert json.dumps([phases, errors]) == json.dumps([expect["phases"], expect["errors"]])


def _equal(got: object, expected: object) -> None:
    assert got == expected
