"""Durable sessions: the pinned API, replay, policies, ownership and locking."""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import phasetodo
from phasetodo import testing
from phasetodo.session import default_directory, run_auto_clear
from phasetodo.session_changes import strip_closed

from ..budget import examples

INIT = {
    "ops": [
        {"op": "init", "list": [{"phase": "Explore", "items": ["Read", "Find"]},
                                {"phase": "Fix", "items": ["Patch"]}]}
    ]
}


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _make_store(kind: str, where: Path) -> phasetodo.Store:
    if kind == "jsonl":
        return phasetodo.JsonlStore(where / "logs", fsync=False)
    if kind == "sqlite":
        return phasetodo.SqliteStore(where / "s.db")
    return phasetodo.MemoryStore()


def _fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[phasetodo.Store]:
    """The store kind ``request.param``, fresh (PostgreSQL on a real server), closed afterwards."""
    if request.param == "postgres":
        yield request.getfixturevalue("postgres_store")
        return
    made = _make_store(request.param, tmp_path)
    yield made
    made.close()


@pytest.fixture(params=["jsonl", "sqlite", "memory", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[phasetodo.Store]:
    """Each store kind, fresh (PostgreSQL on a real server)."""
    yield from _fresh(request, tmp_path)


@pytest.fixture
def jsonl(tmp_path: Path) -> phasetodo.JsonlStore:
    """A durable JSONL store in a temporary directory."""
    return phasetodo.JsonlStore(tmp_path)


def _contents(phases: tuple[phasetodo.Phase, ...]) -> list[str]:
    return [t.content for p in phases for t in p.tasks]


class TestTodoWrite:
    def test_a_call_returns_what_todo_write_returns_with_session_storage(
        self, store: phasetodo.Store
    ) -> None:
        """session.todo_write gives phasetodo.todo_write's dict; storage names the store kind."""
        with phasetodo.Session.open("s", store) as session:
            got = session.todo_write(INIT)
            want = phasetodo.todo_write(INIT)
            want["details"]["storage"] = store.storage
            assert got == want
            assert got["details"]["storage"] == (
                "memory" if isinstance(store, phasetodo.MemoryStore) else "session"
            )

    def test_each_call_appends_one_event(self, store: phasetodo.Store) -> None:
        """version counts the events; each holds the snapshot after its call."""
        with phasetodo.Session.open("s", store) as session:
            assert session.version == 0
            session.todo_write(INIT)
            session.todo_write({"ops": [{"op": "done", "task": "Read"}]})
            events = list(session.events())
            assert [(e.version, e.kind) for e in events] == [(1, "write"), (2, "write")]
            assert events[-1].phases == session.phases
            assert session.version == 2

    def test_a_call_with_only_op_errors_still_appends(self, store: phasetodo.Store) -> None:
        """Non-fatal op errors are a successful call, so the event is written."""
        with phasetodo.Session.open("s", store) as session:
            result = session.todo_write({"ops": [{"op": "done", "task": "Nope"}]})
            assert result["content"][0]["text"].startswith("Errors:")
            assert session.version == 1

    def test_invalid_params_propagate_and_append_nothing(self, store: phasetodo.Store) -> None:
        """InvalidParams escapes unchanged and the log stays as it was."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
            with pytest.raises(phasetodo.InvalidParams) as caught:
                session.todo_write({"ops": [{"op": "bogus"}]})
            assert caught.value.problems
            assert session.version == 1
            assert [e.version for e in session.events()] == [1]

    def test_a_closed_session_refuses_work(self, store: phasetodo.Store) -> None:
        """After close(), writes and reads raise SessionClosed; close is idempotent."""
        session = phasetodo.Session.open("s", store)
        session.close()
        session.close()
        assert session.closed
        with pytest.raises(phasetodo.errors.SessionClosed):
            session.todo_write(INIT)
        with pytest.raises(phasetodo.errors.SessionClosed):
            session.events()

    def test_the_default_store_is_jsonl_under_phasetodo_home(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without a store, a session is a JSONL file under $PHASETODO_HOME/sessions."""
        monkeypatch.setenv("PHASETODO_HOME", str(tmp_path))
        with phasetodo.Session.open("s") as session:
            assert session.todo_write(INIT)["details"]["storage"] == "session"
        assert default_directory() == tmp_path / "sessions"
        assert (tmp_path / "sessions" / "s.jsonl").exists()

    @pytest.mark.parametrize(
        ("option", "value", "message"),
        [("resume", "drop", "resume"), ("clear_delay", "60", "clear_delay"),
         ("clear_delay", float("nan"), "clear_delay")],
    )
    def test_bad_policy_options_name_the_field(
        self, store: phasetodo.Store, option: str, value: object, message: str
    ) -> None:
        """A bad resume or clear_delay raises an error naming it."""
        with pytest.raises((ValueError, TypeError), match=message):
            phasetodo.Session.open("s", store, **{option: value})  # type: ignore[arg-type]


class TestUserEdit:
    def test_an_edit_appends_a_distinct_event_and_says_what_changed(
        self, store: phasetodo.Store
    ) -> None:
        """user_edit appends a user_edit event with its source and returns the change."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
            edited = [{"name": "Fix", "tasks": [{"content": "Patch", "status": "completed"},
                                                 {"content": "Test", "status": "pending"}]}]
            change = session.user_edit(edited, source="cli")
            last = list(session.events())[-1]
            assert (last.kind, last.source, last.version) == ("user_edit", "cli", 2)
            assert phasetodo.dump_phases(session.phases) == edited
            assert change.diff.phases_removed == ("Explore",)
            assert [t.content for t in change.diff.added] == ["Test"]
            assert [c.content for c in change.completed] == ["Patch"]

    def test_an_edit_needs_a_source(self, store: phasetodo.Store) -> None:
        """An empty source is rejected, naming the field."""
        with phasetodo.Session.open("s", store) as session, pytest.raises(
            ValueError, match="source"
        ):
            session.user_edit([], source="")


class TestCompletions:
    def test_last_change_lists_tasks_that_just_became_completed(
        self, store: phasetodo.Store
    ) -> None:
        """Completion transitions name only the tasks completed by the newest call."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
            assert session.last_change is not None
            assert session.last_change.completed == ()
            session.todo_write({"ops": [{"op": "done", "phase": "Explore"}]})
            assert [c.content for c in session.last_change.completed] == ["Read", "Find"]
            session.todo_write({"ops": [{"op": "note", "task": "Patch", "text": "x"}]})
            assert session.last_change.completed == ()


class TestResume:
    def test_strip_drops_closed_tasks_and_emptied_phases(self, store: phasetodo.Store) -> None:
        """The default resume keeps open tasks only and drops phases left empty."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
            session.todo_write({"ops": [{"op": "done", "task": "Read"},
                                        {"op": "drop", "task": "Find"}]})
        with phasetodo.Session.open("s", store) as again:
            assert phasetodo.dump_phases(again.phases) == [
                {"name": "Fix", "tasks": [{"content": "Patch", "status": "in_progress"}]}
            ]
            assert again.version == 2
            assert len(again.logged_phases()) == 2

    def test_keep_resumes_the_snapshot_as_it_is(self, store: phasetodo.Store) -> None:
        """resume='keep' gives back the newest snapshot unchanged."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
            session.todo_write({"ops": [{"op": "done", "task": "Read"}]})
            live = session.phases
        with phasetodo.Session.open("s", store, resume="keep") as again:
            assert again.phases == live

    def test_the_next_write_builds_on_the_resumed_list(self, store: phasetodo.Store) -> None:
        """After a stripped resume, a write applies to the stripped list."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
            session.todo_write({"ops": [{"op": "done", "task": "Read"}]})
        with phasetodo.Session.open("s", store) as again:
            result = again.todo_write({"ops": [{"op": "done", "task": "Read"}]})
            assert result["content"][0]["text"].startswith('Errors: Task "Read" not found')


def change_counts(before: tuple[phasetodo.Phase, ...], after: tuple[phasetodo.Phase, ...]) -> tuple[int, int]:
    """Tasks removed and added between two lists, by content."""
    old = {t.content for p in before for t in p.tasks}
    new = {t.content for p in after for t in p.tasks}
    return len(old - new), len(new - old)


class TestStrippedResume:
    """What a stripped resume removes is its own ``clear`` event, not part of the next write."""

    def _reopened(self, store: phasetodo.Store) -> phasetodo.Session:
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
            session.todo_write({"ops": [{"op": "done", "task": "Read"}]})
        return phasetodo.Session.open("s", store)

    def test_opening_appends_nothing(self, store: phasetodo.Store) -> None:
        """Reopening strips what the session shows, and the log stays as it was until a change."""
        with self._reopened(store) as again:
            assert again.version == 2
            assert [e.kind for e in again.events()] == ["write", "write"]

    def test_the_next_write_is_preceded_by_the_resumes_clear(self, store: phasetodo.Store) -> None:
        """The first write after a stripped resume appends the resume's clear, then itself."""
        with self._reopened(store) as again:
            stripped = again.phases
            again.todo_write({"ops": [{"op": "note", "task": "Find", "text": "draft"}]})
            clear, write = list(again.events(after=2))
            assert (clear.kind, clear.source, clear.version, clear.phases) == ("clear", "resume", 3, stripped)
            assert (write.kind, write.version) == ("write", 4)
            removed, added = change_counts(clear.phases, write.phases)
            assert (removed, added) == (0, 0)  # the write only added a note to a kept task

    def test_a_refused_call_appends_neither(self, store: phasetodo.Store) -> None:
        """A strict call that is refused appends nothing, the resume's clear included."""
        with self._reopened(store) as again:
            again.todo_write({"ops": [{"op": "done", "task": "Nope"}]}, profile="strict")
            assert again.version == 2
            again.todo_write({"ops": [{"op": "note", "task": "Find", "text": "x"}]})
            assert [e.kind for e in again.events(after=2)] == ["clear", "write"]

    def test_a_newer_list_from_another_writer_is_not_stripped(self, store: phasetodo.Store) -> None:
        """When another writer appended since the reopen, the next write builds on that list."""
        with self._reopened(store) as again, phasetodo.Session.open("s", store, resume="keep") as other:
            other.todo_write({"ops": [{"op": "append", "phase": "Docs", "items": ["Later"]}]})
            again.todo_write({"ops": [{"op": "note", "task": "Find", "text": "x"}]})
            assert [e.kind for e in again.events(after=2)] == ["write", "write"]
            assert any(t.content == "Read" for p in again.phases for t in p.tasks)


class TestOwnership:
    def test_another_agent_cannot_open_an_owned_session(self, store: phasetodo.Store) -> None:
        """A session belongs to the agent that created it."""
        phasetodo.Session.open("s", store, agent="main").close()
        with pytest.raises(phasetodo.errors.NotSessionOwner, match="'main'"):
            phasetodo.Session.open("s", store, agent="sub")

    def test_a_write_without_the_agent_session_is_rejected(self, store: phasetodo.Store) -> None:
        """On an owned session, a tool write with no agent raises NoAgentSession and appends nothing."""
        phasetodo.Session.open("s", store, agent="main").close()
        with phasetodo.Session.open("s", store) as viewer:
            with pytest.raises(phasetodo.errors.NoAgentSession, match="agent='main'"):
                viewer.todo_write(INIT)
            with pytest.raises(phasetodo.errors.NotSessionOwner):
                viewer.todo_write(INIT, agent="sub")
            assert viewer.version == 0
            viewer.todo_write(INIT, agent="main")
            viewer.user_edit([], source="cli")  # a person's edit needs no agent
            assert viewer.version == 2

    def test_the_owner_writes_freely(self, store: phasetodo.Store) -> None:
        """The owning agent's session writes and records the agent on the event."""
        with phasetodo.Session.open("s", store, agent="main") as session:
            session.todo_write(INIT)
            assert session.owner == "main"
            assert next(iter(session.events())).agent == "main"

    def test_todo_events_are_not_conversation(self, store: phasetodo.Store) -> None:
        """Events carry state only: no role or message content for a model."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
            event = next(iter(session.events()))
            assert not hasattr(event, "role")
            assert not hasattr(event, "content")


class TestOneWriter:
    def test_expected_version_guards_against_overwriting(self, store: phasetodo.Store) -> None:
        """A stale expected_version raises VersionConflict and appends nothing."""
        first = phasetodo.Session.open("s", store)
        second = phasetodo.Session.open("s", store)
        first.todo_write(INIT, expected_version=0)
        with pytest.raises(phasetodo.VersionConflict) as caught:
            second.user_edit([], expected_version=0)
        assert (caught.value.expected, caught.value.actual) == (0, 1)
        assert first.refresh() == second.phases  # the conflict caught the reader up
        second.user_edit([], expected_version=1)
        assert first.refresh() == ()
        assert first.version == second.version == 2
        first.close()
        second.close()

    def test_a_write_builds_on_another_writers_newer_state(self, store: phasetodo.Store) -> None:
        """Two sessions on one log never lose each other's writes (last-write-wins per call)."""
        first = phasetodo.Session.open("s", store)
        second = phasetodo.Session.open("s", store)
        first.todo_write(INIT)
        second.todo_write({"ops": [{"op": "append", "phase": "Fix", "items": ["Test"]}]})
        first.todo_write({"ops": [{"op": "append", "phase": "Fix", "items": ["Ship"]}]})
        assert _contents(first.phases) == ["Read", "Find", "Patch", "Test", "Ship"]
        first.close()
        second.close()

    def test_threads_writing_one_session_lose_nothing(self, store: phasetodo.Store) -> None:
        """4 threads x 25 writes (each with its own session object) reach version 100."""
        phasetodo.Session.open("s", store).close()

        def work(tag: str) -> None:
            with phasetodo.Session.open("s", store, resume="keep") as session:
                for k in range(25):
                    session.todo_write({"ops": [{"op": "append", "phase": tag,
                                                 "items": [f"{tag}-{k}"]}]})

        threads = [threading.Thread(target=work, args=(f"t{i}",)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with phasetodo.Session.open("s", store, resume="keep") as session:
            assert session.version == 100
            assert sorted(_contents(session.phases)) == sorted(
                f"t{i}-{k}" for i in range(4) for k in range(25)
            )

    def test_threads_sharing_one_session_object_lose_nothing(self, store: phasetodo.Store) -> None:
        """One Session shared by 4 threads: every write lands, version never goes back."""
        session = phasetodo.Session.open("s", store)
        seen: list[int] = []

        def work(tag: str) -> None:
            for k in range(10):
                session.todo_write({"ops": [{"op": "append", "phase": tag,
                                             "items": [f"{tag}-{k}"]}]})
                seen.append(session.version)

        threads = [threading.Thread(target=work, args=(f"t{i}",)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert session.version == 40
        assert len(_contents(session.phases)) == 40
        session.close()


@pytest.fixture(params=["jsonl", "sqlite", "postgres"])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[phasetodo.Store]:
    """Each store whose logs are read by several processes (each open is its own log object)."""
    yield from _fresh(request, tmp_path)


class TestOpeningWhileOthersWrite:
    def test_a_write_landing_while_a_session_opens_is_adopted(
        self, shared: phasetodo.Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Writes that land between the looks of an opening session (its newest event, then the
        log's head) leave it on one version and its list: its first write builds on the newest
        list, with no VersionConflict (none was asked for). (These stores' logs read both in
        one look, ``newest()``; the looks apart are those of a log that has no such read.)"""
        with phasetodo.Session.open("s", shared) as setup:
            setup.todo_write(INIT)
        log = shared.open("s")
        writer = phasetodo.Session.open("s", shared)
        latest = log.latest
        landed: list[str] = []

        def a_write_lands_meanwhile() -> Any:
            found = latest()
            if len(landed) < 2:  # after each of the first two looks at the newest event
                landed.append(f"w{len(landed)}")
                writer.todo_write({"ops": [{"op": "append", "phase": "Fix", "items": [landed[-1]]}]})
            return found

        monkeypatch.setattr(log, "latest", a_write_lands_meanwhile)
        monkeypatch.setattr(log, "newest", None)  # looks apart, as a log without newest() makes them
        opened = phasetodo.Session(log, resume="keep")
        monkeypatch.undo()
        opened.todo_write({"ops": [{"op": "append", "phase": "Fix", "items": ["mine"]}]})
        assert _contents(opened.phases)[-3:] == ["w0", "w1", "mine"]
        assert opened.version == 4
        opened.close()
        writer.close()


def _done_read(session: phasetodo.Session) -> None:
    session.todo_write(INIT)
    session.todo_write({"ops": [{"op": "done", "task": "Read"}]})


class TestAutoClear:
    def test_closed_tasks_clear_after_the_delay(self, store: phasetodo.Store) -> None:
        """With the default 60 s, a done task stays at 59 s and is cleared at 60 s."""
        clock = FakeClock()
        with phasetodo.Session.open("s", store, clock=clock) as session:
            _done_read(session)
            clock.now += 59
            assert session.tick() is None
            clock.now += 1
            change = session.tick()
            assert change is not None
            assert [t.content for t in change.diff.removed] == ["Read"]
            assert _contents(session.phases) == ["Find", "Patch"]
            assert list(session.events())[-1].kind == "clear"

    def test_zero_clears_at_the_next_tick(self, store: phasetodo.Store) -> None:
        """clear_delay=0 clears at the next tick without the clock moving."""
        with phasetodo.Session.open("s", store, clear_delay=0, clock=FakeClock()) as session:
            _done_read(session)
            assert session.next_deadline() == 1000.0
            assert session.tick() is not None
            assert _contents(session.phases) == ["Find", "Patch"]
            assert session.next_deadline() is None

    def test_negative_never_clears(self, store: phasetodo.Store) -> None:
        """clear_delay below 0 disables auto-clear."""
        clock = FakeClock()
        with phasetodo.Session.open("s", store, clear_delay=-1, clock=clock) as session:
            _done_read(session)
            clock.now += 10**9
            assert session.tick() is None
            assert session.next_deadline() is None
            assert session.version == 2

    def test_reverting_a_status_cancels_the_clear(self, store: phasetodo.Store) -> None:
        """A task started again before its deadline is not cleared; completing it restarts the wait."""
        clock = FakeClock()
        with phasetodo.Session.open("s", store, clock=clock) as session:
            _done_read(session)
            clock.now += 30
            session.todo_write({"ops": [{"op": "start", "task": "Read"}]})
            clock.now += 40
            assert session.tick() is None
            session.todo_write({"ops": [{"op": "done", "task": "Read"}]})
            clock.now += 59
            assert session.tick() is None
            clock.now += 1
            assert session.tick() is not None
            assert "Read" not in _contents(session.phases)

    def test_a_phase_emptied_by_clearing_is_dropped(self, store: phasetodo.Store) -> None:
        """When every task of a phase is cleared, the phase goes too."""
        with phasetodo.Session.open("s", store, clear_delay=0, clock=FakeClock()) as session:
            session.todo_write(INIT)
            session.todo_write({"ops": [{"op": "drop", "phase": "Explore"}]})
            session.tick()
            assert [p.name for p in session.phases] == ["Fix"]

    def test_the_asyncio_helper_ticks_until_close(self, store: phasetodo.Store) -> None:
        """run_auto_clear clears due tasks and returns once the session closes."""
        session = phasetodo.Session.open("s", store, clear_delay=0, clock=FakeClock())
        _done_read(session)

        async def main() -> None:
            runner = asyncio.create_task(run_auto_clear(session, poll=0.001))
            while "Read" in _contents(session.phases):
                await asyncio.sleep(0)
            session.close()
            await runner

        asyncio.run(main())
        assert session.closed


# -- properties -------------------------------------------------------------------------------

_SETTINGS = settings(
    max_examples=examples(25),
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class ReplayMachine(RuleBasedStateMachine):
    """Tool writes and user edits on a session; reopening always gives the live state."""

    def __init__(self) -> None:
        super().__init__()
        self.store: phasetodo.Store | None = None
        self.session: phasetodo.Session | None = None

    @initialize(kind=st.sampled_from(["jsonl", "sqlite", "memory"]))
    def open_store(self, kind: str) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.store = _make_store(kind, Path(self.tmp.name))
        self.session = phasetodo.Session.open("s", self.store, resume="keep", clear_delay=-1)

    @rule(data=st.data())
    def tool_write(self, data: st.DataObject) -> None:
        assert self.session is not None
        params = data.draw(testing.params(self.session.phases, valid=None))
        before = self.session.version
        try:
            self.session.todo_write(params)
        except phasetodo.InvalidParams:
            assert self.session.version == before
        else:
            assert self.session.version == before + 1

    @rule(phases=testing.phases(max_size=3, max_tasks=3))
    def user_edit(self, phases: tuple[phasetodo.Phase, ...]) -> None:
        assert self.session is not None
        self.session.user_edit(phases, source="test")
        assert self.session.phases == phases

    @rule()
    def reopen(self) -> None:
        assert self.session is not None
        assert self.store is not None
        live, version = self.session.phases, self.session.version
        self.session.close()
        stripped = phasetodo.Session.open("s", self.store)
        assert stripped.phases == strip_closed(live)
        assert stripped.version == version
        stripped.close()
        self.session = phasetodo.Session.open("s", self.store, resume="keep", clear_delay=-1)

    @invariant()
    def replay_equals_live(self) -> None:
        if self.session is None or self.store is None:
            return
        with phasetodo.Session.open("s", self.store, resume="keep") as replayed:
            assert replayed.phases == self.session.phases
            assert replayed.version == self.session.version
        events = list(self.session.events())
        assert [e.version for e in events] == list(range(1, self.session.version + 1))

    def teardown(self) -> None:
        if self.session is not None:
            self.session.close()
        if self.store is not None:
            self.store.close()
            self.tmp.cleanup()


TestReplay = ReplayMachine.TestCase
TestReplay.settings = _SETTINGS


_TASKS = ["a", "b", "c"]
_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("wait"), st.sampled_from([0, 1, 30, 59, 60, 61])),
        st.tuples(st.sampled_from(["start", "done", "drop"]), st.sampled_from(_TASKS)),
        st.tuples(st.just("tick"), st.just("")),
    ),
    max_size=20,
)


class TestAutoClearModel:
    @given(delay=st.sampled_from([60, 0, -1]), steps=_STEPS)
    @settings(max_examples=examples(60), deadline=None)
    def test_auto_clear_matches_a_simple_model(self, delay: int, steps: list[tuple[str, Any]]) -> None:
        """Under a fake clock, clears happen exactly when a task stayed closed for the delay."""
        clock = FakeClock()
        session = phasetodo.Session.open(
            "s", phasetodo.MemoryStore(), clear_delay=delay, clock=clock
        )
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": _TASKS}]}]})
        closed_since: dict[str, float] = {}
        for action, arg in steps:
            if action == "wait":
                clock.now += arg
            elif action == "tick":
                before = _contents(session.phases)
                session.tick()
                due = {t for t, since in closed_since.items() if 0 <= delay <= clock.now - since}
                assert _contents(session.phases) == [t for t in before if t not in due]
            else:
                session.todo_write({"ops": [{"op": action, "task": arg}]})
            for phase in session.phases:
                for task in phase.tasks:
                    if task.status.is_open:
                        closed_since.pop(task.content, None)
                    else:
                        closed_since.setdefault(task.content, clock.now)
            present = set(_contents(session.phases))
            closed_since = {t: s for t, s in closed_since.items() if t in present}
        if delay < 0:
            assert session.next_deadline() is None
        session.close()
