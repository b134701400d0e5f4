"""The ``todo`` profile: the reference's current one-op tool on a durable session."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import person, todo
from phasetodo.profiles import CallContext
from phasetodo.reminders import StopGuard, stop_reminder
from phasetodo.session import Session

from ..budget import examples
from ..todo.test_todo_properties import calls, phases_json


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def jsonl(tmp_path: Path) -> Iterator[phasetodo.JsonlStore]:
    store = phasetodo.JsonlStore(tmp_path / "logs", fsync=False)
    yield store
    store.close()


def _open(store: phasetodo.Store, **given: Any) -> Session:
    return Session.open("plan", store, profile="todo", **given)


INIT = {"op": "init", "list": [{"phase": "Build", "items": ["Parser", "Tests", "Docs"]}]}


class TestResults:
    def test_each_call_gives_what_todo_apply_gives(self, jsonl: phasetodo.JsonlStore) -> None:
        """init, block, done and a flat append give apply's result, storage "session" on a JSONL store."""
        phases: list[dict[str, Any]] = []
        with _open(jsonl) as session:
            for params in (
                INIT,
                {"op": "block", "task": "Parser", "reason": "waiting on\nthe spec"},
                {"op": "done", "task": "Tests"},
                {"items": ["Release"], "phase": "Ship"},
            ):
                expected = todo.apply(params, phases, storage="session")
                assert session.todo_write(params) == expected
                phases = expected["details"]["phases"]

    def test_a_failed_call_appends_nothing(self, jsonl: phasetodo.JsonlStore) -> None:
        """An op error and a rejected call are error results; the log does not grow."""
        with _open(jsonl) as session:
            session.todo_write(INIT)
            for params in ({"op": "done", "task": "Nope"}, {"op": "start"}, {"task": "Parser"}):
                result = session.todo_write(params)
                assert result["isError"] is True
                assert session.version == 1

    def test_a_new_plan_records_the_profile(self, jsonl: phasetodo.JsonlStore) -> None:
        """Reopened without naming a profile, the plan runs in todo again."""
        with _open(jsonl) as session:
            session.todo_write(INIT)
        with Session.open("plan", jsonl) as again:
            assert again.profile.name == "todo"
            assert again.todo_write({"op": "view"})["details"]["op"] == "view"

    def test_a_retry_answers_with_the_first_result(self, jsonl: phasetodo.JsonlStore) -> None:
        """A request id answers a retry with the first call's result, blocker and all."""
        with _open(jsonl) as session:
            session.todo_write(INIT)
            params = {"op": "block", "task": "Parser", "reason": "spec"}
            first = session.todo_write(params, request_id="r1")
        with Session.open("plan", jsonl) as again:
            assert again.todo_write(params, request_id="r1") == first
            assert again.version == 2

    def test_the_read_view_is_the_view_text(self) -> None:
        """The profile's read hook shows what the view op shows."""
        with _open(phasetodo.MemoryStore()) as session:
            session.todo_write(INIT)
            expected = session.todo_write({"op": "view"})["content"][0]["text"]
            read = session.profile.read
            assert read is not None
            assert read(session.phases, CallContext()) == expected


#: A list in the tool's JSON with a blocker and a person's drop.
BLOCKED: list[dict[str, Any]] = [{"name": "P", "tasks": [
    {"content": "a", "status": "blocked", "blocker": "why"},
    {"content": "b", "status": "abandoned", "droppedBy": "user"},
    {"content": "c", "status": "in_progress"},
]}]


class TestTheToolsJson:
    def test_todo_write_reads_the_tools_json(self) -> None:
        """phasetodo.todo_write in the todo profile keeps a given list's blockers and drops."""
        result = phasetodo.todo_write({"op": "view"}, BLOCKED, profile="todo")
        assert result == todo.apply({"op": "view"}, BLOCKED)

    def test_a_memory_state_and_a_persons_edit_read_it_too(self) -> None:
        """A MemoryState and Session.user_edit given the tool's JSON keep blocker and droppedBy."""
        from phasetodo.tool import MemoryState

        state = MemoryState(BLOCKED, profile="todo")
        assert state.todo_write({"op": "view"})["details"]["phases"] == BLOCKED
        with _open(phasetodo.MemoryStore()) as session:
            session.user_edit(BLOCKED, source="import")
            assert session.todo_write({"op": "view"})["details"]["phases"] == BLOCKED

    def test_a_malformed_list_names_the_place(self) -> None:
        """A list the tool cannot read raises InvalidPhases naming where."""
        with pytest.raises(phasetodo.InvalidPhases, match=r"phases\[0\]\.tasks\[0\]\.status"):
            phasetodo.todo_write({"op": "view"}, [{"name": "P", "tasks": [{"content": "a", "status": "x"}]}],
                                 profile="todo")


class TestHistoryAndResume:
    def test_the_log_keeps_every_write_and_a_person_can_go_back(self, jsonl: phasetodo.JsonlStore) -> None:
        """Each write is an event with its list; an earlier list restored is the list again."""
        with _open(jsonl) as session:
            session.todo_write(INIT)
            session.todo_write({"op": "block", "task": "Parser", "reason": "spec"})
            events = list(session.events())
            assert [e.version for e in events] == [1, 2]
            session.user_edit(events[0].phases, source="undo")
            assert session.todo_write({"op": "view"})["details"]["phases"] == (
                todo.apply(INIT)["details"]["phases"]
            )

    def test_resume_strips_completed_and_abandoned_and_keeps_blocked(
        self, jsonl: phasetodo.JsonlStore
    ) -> None:
        """A reopened plan keeps open and blocked work (with its blocker), nothing closed."""
        with _open(jsonl) as session:
            session.todo_write({"op": "init", "items": ["a", "b", "c", "d"]})
            session.todo_write({"op": "done", "task": "a"})
            session.todo_write({"op": "rm", "task": "b"})
            session.todo_write({"op": "block", "task": "c", "reason": "x"})
        with Session.open("plan", jsonl) as again:
            phases = again.todo_write({"op": "view"})["details"]["phases"]
            assert phases == [
                {"name": "Tasks", "tasks": [
                    {"content": "c", "status": "blocked", "blocker": "x"},
                    {"content": "d", "status": "in_progress"},
                ]},
            ]


class TestSettling:
    def _plan(self, clock: Clock) -> Session:
        session = _open(phasetodo.MemoryStore(), clock=clock, clear_delay=10)
        session.todo_write({"op": "init", "items": ["done", "model", "person", "open"]})
        session.todo_write({"op": "done", "task": "done"})
        session.todo_write({"op": "drop", "task": "model"})
        person.apply_edit(session, [{"op": "drop", "task": "person"}], source="cli")
        return session

    def test_auto_clear_takes_completed_and_a_persons_drop_only(self) -> None:
        """Once the delay passes, completed tasks and a person's drops go; the model's abandon stays."""
        clock = Clock()
        with self._plan(clock) as session:
            clock.now += 11
            assert session.tick() is not None
            left = [t.content for p in session.phases for t in p.tasks]
            assert left == ["model", "open"]

    def test_the_stop_reminder_lists_the_models_abandon_but_not_blocked_work(self) -> None:
        """Unsettled work is listed; a person's drop, completed and blocked tasks are not."""
        with self._plan(Clock()) as session:
            session.todo_write({"op": "append", "phase": "Tasks", "items": ["waiting"]})
            session.todo_write({"op": "block", "task": "waiting", "reason": "CI"})
            text = StopGuard().before_stop(session.phases, profile=session.profile)
            assert text is not None
            for listed in ("model [abandoned]", "open [in_progress]"):
                assert listed in text
            for left_out in ("person", "waiting", "- done"):
                assert left_out not in text
            assert "record with todo that they are done or dropped" in text  # the tool it has

    def test_the_default_profile_still_settles_every_abandon(self) -> None:
        """In parity an abandoned task is settled: the reminder does not list it."""
        phases = phasetodo.load_phases([{"name": "P", "tasks": [{"content": "x", "status": "abandoned"}]}])
        assert stop_reminder(phases, 1) is None
        assert stop_reminder(phases, 1, profile="todo") is not None


class TestPersonEdits:
    def test_a_persons_rm_removes_and_a_failed_edit_records_nothing(self) -> None:
        """rm by a person takes the task out; an edit with an error changes nothing."""
        with _open(phasetodo.MemoryStore()) as session:
            session.todo_write(INIT)
            outcome = person.apply_edit(session, [{"op": "rm", "task": "Tests"}], source="cli")
            assert [t.content for t in outcome.phases[0].tasks] == ["Parser", "Docs"]
            failed = person.apply_edit(
                session, [{"op": "done", "task": "Parser"}, {"op": "done", "task": "Nope"}], source="cli"
            )
            assert failed.errors == ('Task "Nope" not found',)
            assert not failed.changed
            assert session.version == 2


def _agree(store: phasetodo.Store, data: st.DataObject) -> None:
    """Drawn calls, one by one: the session's result is apply's every time."""
    phases = data.draw(phases_json())
    with _open(store) as session:
        if phases:
            session.user_edit(todo_values(phases), source="seed")
        for _ in range(data.draw(st.integers(1, 6))):
            params = data.draw(calls(phases))
            expected = todo.apply(params, phases, storage=store.storage)
            assert session.todo_write(params) == expected
            phases = expected["details"]["phases"]


def todo_values(phases: list[dict[str, Any]]) -> tuple[phasetodo.Phase, ...]:
    """The stored list for the tool's JSON (blocker as reason, a person's drop as owner "user")."""
    from phasetodo._profiles.todo import from_todo
    from phasetodo._todo.values import phases_from_json

    return from_todo(phases_from_json(phases))


class TestAgreesWithApply:
    @settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_a_memory_session(self, data: st.DataObject) -> None:
        """Over generated single-op calls, a memory session agrees with apply call by call."""
        _agree(phasetodo.MemoryStore(), data)

    @settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_a_jsonl_session(self, data: st.DataObject) -> None:
        """Over generated single-op calls, a JSONL session agrees with apply call by call."""
        with tempfile.TemporaryDirectory() as folder:
            store = phasetodo.JsonlStore(Path(folder), fsync=False)
            try:
                _agree(store, data)
            finally:
                store.close()
