"""A JSONL log whose records were changed and sealed again (the chain holds, as another tool or a
careful hand would leave it): opening names the line and the field that cannot be read."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo.errors import CorruptLog
from phasetodo.stores._chain import seal
from phasetodo.stores._records import dumps

Change = Callable[[dict[str, Any]], object]

INIT = {
    "ops": [{"op": "init", "list": [{"phase": "A", "items": ["a", "b"]}, {"phase": "B", "items": ["c"]}]}],
}
DONE = {"ops": [{"op": "done", "task": "a"}]}


def _log(folder: Path) -> Path:
    """Session ``s``: version 1 (init, the plan's first record) and 2 (a done, an edit of phase A)."""
    store = phasetodo.JsonlStore(folder)
    with phasetodo.Session.open("s", store) as session:
        session.todo_write(INIT)
        session.todo_write(DONE)
    store.close()
    return folder / "s.jsonl"


def _reseal(path: Path, version: int, change: Change) -> None:
    """Apply ``change`` to the record of ``version`` and seal every record again, in order."""
    header, *records = path.read_text().splitlines()
    lines, previous = [header], None
    for line in records:
        data = json.loads(line)
        del data["hash"]
        if data["version"] == version:
            change(data)
        text, previous = seal(dumps(data), previous)
        lines.append(text)
    path.write_text("\n".join(lines) + "\n")


def _opening_fails(folder: Path, line: int, message: str) -> None:
    store = phasetodo.JsonlStore(folder)
    try:
        with pytest.raises(CorruptLog, match=rf"s\.jsonl:{line}: .*{re.escape(message)}"):
            phasetodo.Session.open("s", store)
    finally:
        store.close()


def _set(key: str, value: object) -> Change:
    return lambda data: data.update({key: value})


def _in_first_phase(key: str, value: object) -> Change:
    return lambda data: data["edit"][0].update({key: value})


def _first_new_task(key: str, value: object) -> Change:
    return lambda data: data["edit"][0]["tasks"][0].update({key: value})


def _second_entry(value: object) -> Change:
    return lambda data: data["edit"].__setitem__(1, value)


class TestADamagedEdit:
    @pytest.mark.parametrize(
        ("change", "message"),
        [
            (_set("edit", {}), "event.edit: must be a list"),
            (_in_first_phase("at", 5), "event.edit.at: not a phase of the list before"),
            (_in_first_phase("name", None), "event.edit: a changed phase needs a name and a list of tasks"),
            (_second_entry([1, 5]), "event.edit: [1, 5] is not a range of the list before"),
            (_in_first_phase("tasks", [[0, 9]]), "event.edit.tasks: [0, 9] is not a range of the list"),
            (_in_first_phase("last_id", -1), "event.edit.last_id: must be an integer >= 0"),
            (_second_entry({"name": 3}), "[0].name: must be a string, not a number"),
            (_first_new_task("status", "lost"), "event.edit: [0].tasks[0].status: must be one of"),
            (_first_new_task("owner", 7), "event.edit: [0].tasks[0].owner: must be a string"),
        ],
        ids=["not-a-list", "at", "name", "range", "task-range", "last-id", "phase", "task", "team-field"],
    )
    def test_the_edit_field_is_named(self, tmp_path: Path, change: Change, message: str) -> None:
        """Each way the edit of a write can be wrong names its field, on the record's line."""
        _reseal(_log(tmp_path), 2, change)
        _opening_fails(tmp_path, 3, message)


class TestADamagedWrite:
    def test_a_record_with_nothing_to_build_the_list_from_is_named(self, tmp_path: Path) -> None:
        """A delta with neither phases, ops nor edit cannot be read."""
        _reseal(_log(tmp_path), 2, lambda data: (data.pop("edit"), data.pop("ops")))
        _opening_fails(tmp_path, 3, "event: has neither phases, ops nor edit")

    def test_ops_that_are_not_a_list_are_named(self, tmp_path: Path) -> None:
        """The ops of a write must be a list."""
        _reseal(_log(tmp_path), 2, lambda data: (data.pop("edit"), data.update(ops={})))
        _opening_fails(tmp_path, 3, "event.ops: must be a list")

    def test_a_profile_this_version_does_not_know_is_named(self, tmp_path: Path) -> None:
        """A write made under a profile this version lacks is refused, naming the profile."""
        _reseal(_log(tmp_path), 2, _set("profile", "nope"))
        _opening_fails(tmp_path, 3, "event.profile: 'nope' is not a profile this version knows")

    def test_ops_the_profile_refuses_are_named(self, tmp_path: Path) -> None:
        """Ops replayed without their edit go through the profile's check, whose problem is named."""
        _reseal(_log(tmp_path), 2, lambda data: (data.pop("edit"), data.update(ops=[{"op": "fly"}])))
        _opening_fails(
            tmp_path, 3, "event.ops: ops[0].op: must be one of init, start, done, drop, rm, append, note"
        )

    def test_a_write_without_its_edit_is_replayed_from_its_ops(self, tmp_path: Path) -> None:
        """A write that kept only its ops reads as the same list: the ops are applied again."""
        path = _log(tmp_path)
        store = phasetodo.JsonlStore(tmp_path)
        want = store.open("s").latest()
        store.close()
        _reseal(path, 2, lambda data: data.pop("edit"))
        store = phasetodo.JsonlStore(tmp_path)
        got = store.open("s").latest()
        store.close()
        assert want is not None
        assert got is not None
        assert (got.version, got.phases) == (2, want.phases)

    def test_a_version_out_of_order_is_named(self, tmp_path: Path) -> None:
        """A record numbered past the next version names both numbers."""
        _reseal(_log(tmp_path), 2, _set("version", 3))
        _opening_fails(tmp_path, 3, "version 3 follows version 1")


class TestADamagedPlan:
    @pytest.mark.parametrize(
        ("change", "message"),
        [
            (lambda data: data["plan"].update(session="t"), "event.plan.session: names 't', not 's'"),
            (_set("plan", []), "event.plan: must be an object"),
            (lambda data: data["plan"].update(owner=5), "event.plan.owner: must be a string"),
            (lambda data: data["plan"].update(profile=["parity"]), "event.plan.profile: must be a string"),
        ],
        ids=["session", "not-an-object", "owner", "profile"],
    )
    def test_the_plan_field_is_named(self, tmp_path: Path, change: Change, message: str) -> None:
        """The plan the first record chains (session, owner, profile) is checked field by field."""
        _reseal(_log(tmp_path), 1, change)
        _opening_fails(tmp_path, 2, message)


def _request_log(folder: Path) -> Path:
    """Session ``s`` whose version 2 was written with request id ``r1`` (its reply kept in the record)."""
    store = phasetodo.JsonlStore(folder)
    with phasetodo.Session.open("s", store) as session:
        session.todo_write(INIT)
        session.todo_write(DONE, request_id="r1")
    store.close()
    return folder / "s.jsonl"


def _in_request(key: str, value: object) -> Change:
    return lambda data: data["request"].update({key: value})


class TestADamagedRequest:
    @pytest.mark.parametrize(
        ("change", "message"),
        [
            (_set("request", "r1"), "event.request: must be an object"),
            (_in_request("id", ""), "event.request.id: must be a non-empty string"),
            (_in_request("params", 7), "event.request.params: must be a string"),
            (_in_request("reply", {"details": {}}), "event.request.reply: must be an object with a text"),
            (_in_request("reply", {"text": "ok", "details": 1}), "event.request.reply.details: must be an"),
            (_in_request("scope", ""), "event.request.scope: must be a non-empty string"),
        ],
        ids=["not-an-object", "id", "params", "reply", "details", "scope"],
    )
    def test_the_request_field_is_named(self, tmp_path: Path, change: Change, message: str) -> None:
        """The request a write kept (id, params digest, reply, scope) is checked field by field."""
        _reseal(_request_log(tmp_path), 2, change)
        _opening_fails(tmp_path, 3, message)
