"""Events as JSON (``phasetodo.stores.event_from_json``) and the agent a session is opened for:
bad input raises an error naming the field, never a stray exception."""

from __future__ import annotations

from typing import Any

import pytest

import phasetodo
from phasetodo.errors import InvalidEvent, InvalidOption
from phasetodo.stores import event_from_json, event_to_json

GOOD: dict[str, Any] = {"version": 1, "kind": "write", "time": 1.5, "phases": []}


class TestEventFromJson:
    @pytest.mark.parametrize("data", [[], "event", None])
    def test_data_that_is_not_an_object_is_refused(self, data: object) -> None:
        """Anything but a mapping is refused as ``event``."""
        with pytest.raises(InvalidEvent, match=r"^event: must be an object$"):
            event_from_json(data)

    @pytest.mark.parametrize("version", [0, -1, True, 1.0, "1", None])
    def test_a_version_that_is_not_a_positive_integer_is_named(self, version: object) -> None:
        """Zero, a negative number, a bool, a float or text as the version names ``event.version``."""
        with pytest.raises(InvalidEvent, match=r"^event\.version: must be an integer >= 1$"):
            event_from_json({**GOOD, "version": version})

    def test_an_unknown_kind_is_named_with_the_kinds_there_are(self) -> None:
        """A kind outside the three names ``event.kind`` and lists them."""
        with pytest.raises(InvalidEvent, match=r"^event\.kind: must be one of write, user_edit, clear$"):
            event_from_json({**GOOD, "kind": "edit"})

    @pytest.mark.parametrize("time", [float("nan"), float("inf"), True, "1", None])
    def test_a_time_that_is_not_a_finite_number_is_named(self, time: object) -> None:
        """NaN, infinity, a bool, text or nothing as the time names ``event.time``."""
        with pytest.raises(InvalidEvent, match=r"^event\.time: must be a finite number$"):
            event_from_json({**GOOD, "time": time})

    @pytest.mark.parametrize("key", ["source", "agent"])
    def test_a_source_or_agent_that_is_not_text_is_named(self, key: str) -> None:
        """``source`` and ``agent``, when set, must be text; the error names which."""
        with pytest.raises(InvalidEvent, match=rf"^event\.{key}: must be a string$"):
            event_from_json({**GOOD, key: 3})

    def test_bad_phases_are_named_under_event_phases(self) -> None:
        """A malformed list is refused under ``event.phases``, with each of its problems."""
        with pytest.raises(InvalidEvent, match=r"^event\.phases: .*\[0\]\.name: must be a string") as raised:
            event_from_json({**GOOD, "phases": [{"name": 1, "tasks": []}]})
        assert isinstance(raised.value, ValueError)

    def test_an_event_reads_back_as_written(self) -> None:
        """``event_to_json`` and ``event_from_json`` round-trip, source and agent included."""
        data = {**GOOD, "kind": "user_edit", "source": "board", "agent": "w1"}
        event = event_from_json(data)
        assert (event.version, event.kind, event.time, event.source, event.agent) == (
            1, "user_edit", 1.5, "board", "w1",
        )
        assert event_to_json(event) == data

    def test_unset_source_and_agent_are_left_out(self) -> None:
        """An event without source or agent writes neither key."""
        assert set(event_to_json(event_from_json(GOOD))) == {"version", "kind", "time", "phases"}


class TestTheAgentASessionIsOpenedFor:
    def test_an_agent_that_is_not_text_is_named(self) -> None:
        """A number as the agent is a TypeError naming ``agent`` and the type given."""
        with pytest.raises(TypeError, match=r"^agent: must be a string or None, not int$"):
            phasetodo.Session.open("s", "memory:", agent=5)  # type: ignore[arg-type]

    def test_an_agent_with_a_lone_surrogate_is_named(self) -> None:
        """An agent name that cannot be written as UTF-8 is refused before anything is stored."""
        with pytest.raises(ValueError, match=r"^agent: .* holds a lone surrogate$"):
            phasetodo.Session.open("s", "memory:", agent="w\udc80")


class TestRequestIds:
    def test_a_request_id_with_a_lone_surrogate_is_named(self) -> None:
        """A request id that cannot be written as UTF-8 is refused, naming ``request_id``."""
        with phasetodo.Session.open("s", "memory:") as session:
            with pytest.raises(InvalidOption, match=r"^request_id: .* holds a lone surrogate$"):
                session.todo_write({"ops": [{"op": "init", "list": ["a"]}]}, request_id="r\udc80")
            assert session.version == 0
