"""Profile names and a result's storage: rules the mutation check found untested."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo import ToolResult
from phasetodo.errors import UnknownProfile


class TestProfileNames:
    @pytest.mark.parametrize("value", [42, None, ["parity"], "Parity", "team "])
    def test_anything_else_is_unknown(self, value: object) -> None:
        """A value that is not a built-in profile's name is an UnknownProfile naming it."""
        with pytest.raises(UnknownProfile) as caught:
            phasetodo.profiles.resolve(value)  # type: ignore[arg-type]
        assert caught.value.name == value
        assert str(caught.value) == f"profile: must be one of parity, strict, team, todo, not {value!r}"

    def test_names_and_values(self) -> None:
        """A name gives its profile; a profile is returned as it is."""
        strict = phasetodo.profiles.resolve("strict")
        assert strict.name == "strict"
        assert phasetodo.profiles.resolve(strict) is strict


DETAILS: dict[str, Any] = {"phases": [], "storage": "memory"}


class TestStorage:
    def test_with_storage(self) -> None:
        """A result moved to another storage says so in details; the rest is unchanged."""
        result = ToolResult("text", DETAILS, errors=("e",))
        moved = result.with_storage("session")
        assert moved.details == {"phases": [], "storage": "session"}
        assert (moved.text, moved.errors, moved.is_error) == ("text", ("e",), False)
        assert result.details == {"phases": [], "storage": "memory"}

    def test_same_storage_is_the_same_result(self) -> None:
        """A result already in that storage is returned as it is."""
        result = ToolResult("text", DETAILS)
        assert result.with_storage("memory") is result

    def test_durable_sessions_say_session(self, tmp_path: Path) -> None:
        """A write to a durable store reports ``storage: session``, one kept in memory ``memory``."""
        params = {"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a"]}]}]}
        durable = phasetodo.Session.open("gaps", store=phasetodo.SqliteStore(str(tmp_path / "todo.db")))
        assert durable.todo_write(params)["details"]["storage"] == "session"
        in_memory = phasetodo.Session.open("gaps", store=phasetodo.MemoryStore())
        assert in_memory.todo_write(params)["details"]["storage"] == "memory"
