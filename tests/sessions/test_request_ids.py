"""Exactly-once writes: a call made again with its request id is answered from the log."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import InvalidParams
from phasetodo._core.codec import dump_phases
from phasetodo._profiles.builtin import BUILTIN
from phasetodo._profiles.options import Options
from phasetodo.cli import main
from phasetodo.errors import InvalidOption, RequestIdReused
from phasetodo.profiles import CallContext
from phasetodo.stores._requests import WINDOW
from phasetodo.testing import calls

from ..budget import examples
from ..store_kinds import fresh, same_place

INIT = {"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Find it", "Patch it"]}]}]}
DONE = {"ops": [{"op": "done", "task": "Find it"}]}


@pytest.fixture(params=["jsonl", "sqlite", "memory", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[phasetodo.Store]:
    """Each store kind, fresh (PostgreSQL on a real server)."""
    yield from fresh(request, tmp_path)


class TestRetries:
    def test_a_retry_returns_the_first_result_and_appends_nothing(self, store: phasetodo.Store) -> None:
        """The same id and params: the same text and details, and the log stays at one event."""
        with phasetodo.Session.open("s", store) as session:
            first = session.todo_write(INIT, request_id="call-1")
            again = session.todo_write(INIT, request_id="call-1")
            assert again == first
            assert session.version == 1

    def test_a_retry_after_other_writes_returns_the_first_result(
        self, store: phasetodo.Store, tmp_path: Path
    ) -> None:
        """Later writes do not change what a retry answers: the list as that call left it."""
        with phasetodo.Session.open("s", store) as session:
            first = session.todo_write(INIT, request_id="call-1")
            session.todo_write(DONE, request_id="call-2")
            other = same_place(store)
            with phasetodo.Session.open("s", other) as fresh:  # a new log object: nothing cached
                assert fresh.todo_write(INIT, request_id="call-1") == first
                assert fresh.version == 2
            if other is not store:
                other.close()

    def test_a_reused_id_with_other_params_is_refused_naming_it(self, store: phasetodo.Store) -> None:
        """RequestIdReused names the id and the version that holds it; nothing is appended."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT, request_id="call-1")
            with pytest.raises(RequestIdReused, match=r"'call-1'.*version 1") as caught:
                session.todo_write(DONE, request_id="call-1")
            assert (caught.value.request_id, caught.value.version) == ("call-1", 1)
            assert session.version == 1

    def test_a_reused_id_is_reported_before_the_arguments_are(self, store: phasetodo.Store) -> None:
        """Invalid arguments under an id already used: the reuse is what the caller is told
        (though arguments are parsed before the lock); under a new id, the arguments."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT, request_id="call-1")
            with pytest.raises(RequestIdReused):
                session.todo_write({"ops": []}, request_id="call-1")
            with pytest.raises(InvalidParams, match="ops"):
                session.todo_write({"ops": []}, request_id="call-2")
            assert session.version == 1

    def test_a_retry_wins_over_an_old_expected_version(self, store: phasetodo.Store) -> None:
        """A retry of a call made with expected_version answers, though the log has moved on."""
        with phasetodo.Session.open("s", store) as session:
            first = session.todo_write(INIT, request_id="call-1", expected_version=0)
            assert session.todo_write(INIT, request_id="call-1", expected_version=0) == first

    def test_calls_without_an_id_are_made_each_time(self, store: phasetodo.Store) -> None:
        """No request id: each call appends, as before."""
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
            session.todo_write(INIT)
            assert session.version == 2

    def test_a_refused_call_is_not_remembered(self, store: phasetodo.Store) -> None:
        """A strict call that fails appends nothing, so its id stays free for the fixed call."""
        with phasetodo.Session.open("s", store, profile="strict") as session:
            refused = session.todo_write({"ops": [{"op": "done", "task": "nothing"}]}, request_id="r")
            assert refused.get("isError") is True
            assert session.version == 0
            session.todo_write(INIT, request_id="r")
            assert session.version == 1

    @pytest.mark.parametrize("bad", ["", "x" * 201, 7])
    def test_a_bad_request_id_is_refused_naming_the_field(self, bad: Any) -> None:
        """request_id must be a string of 1 to 200 characters."""
        with (
            phasetodo.Session.open("s", phasetodo.MemoryStore()) as session,
            pytest.raises((InvalidOption, TypeError), match="request_id"),
        ):
            session.todo_write(INIT, request_id=bad)

    def test_the_record_keeps_the_id_and_not_the_list_twice(self, tmp_path: Path) -> None:
        """A JSONL record holds the id, the params' digest and the reply without a second copy of the list."""
        store = phasetodo.JsonlStore(tmp_path, fsync=False)
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT, request_id="call-1")
        record = json.loads((tmp_path / "s.jsonl").read_text().splitlines()[1])
        assert record["request"]["id"] == "call-1"
        assert record["request"]["reply"]["details"]["phases"] is None
        assert len(record["request"]["params"]) == 64


    @pytest.mark.parametrize("profile", ["team", "strict"])
    def test_a_team_or_scoped_retry_is_answered_with_its_own_list(
        self, profile: str, tmp_path: Path
    ) -> None:
        """Whole-list and one-phase results alike come back the same from the record."""
        store = phasetodo.JsonlStore(tmp_path, fsync=False)
        two = {"ops": [{"op": "init", "list": [
            {"phase": "Fix", "items": ["Find it", "Patch it"]}, {"phase": "Ship", "items": ["Tag"]}]}]}
        with phasetodo.Session.open("s", store, profile=profile, agent="lead") as session:
            session.todo_write(two)
            handle = session.scoped(agent="sub", phase="Ship") if profile == "team" else session
            note = {"ops": [{"op": "note", "task": "Tag", "text": "v1"}]}
            first = handle.todo_write(note, request_id="n-1")
            session.todo_write({"ops": [{"op": "note", "task": "Find it", "text": "later"}]})
            assert handle.todo_write(note, request_id="n-1") == first
            assert [p["name"] for p in first["details"]["phases"]] == (
                ["Ship"] if profile == "team" else ["Fix", "Ship"]
            )


#: The built-in profiles whose ``details.phases`` is the list's own JSON.
CORE_JSON = sorted(name for name, value in BUILTIN.items() if not value.own_json)


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(call=calls(valid=True), profile=st.sampled_from(CORE_JSON))
def test_a_builtin_profiles_details_list_is_its_list(call: tuple[Any, Any], profile: str) -> None:
    """What a record leaves out, it can rebuild: an unscoped call of a built-in profile shows
    its whole list, as JSON, in ``details.phases`` (so the record need not compare the two);
    a profile with JSON of its own (``todo``) has its details kept whole instead."""
    phases, params = call
    try:
        options = Options(BUILTIN[profile], agent="lead", lead="lead")
        result = options.run(params, phases, CallContext("lead", "lead", now=1.0))
    except InvalidParams:
        return
    assert result.details["phases"] == dump_phases(result.phases)

class TestOtherProcesses:
    @pytest.mark.slow
    @pytest.mark.parametrize("kind", ["jsonl", "sqlite", "postgres"])
    def test_a_retry_from_another_process_is_answered_from_the_log(
        self, kind: str, tmp_path: Path, request: pytest.FixtureRequest
    ) -> None:
        """A child process retries the call: same result, and the log holds one event."""
        if kind == "postgres":
            spec = request.getfixturevalue("postgres_store").dsn
        elif kind == "jsonl":
            spec = f"jsonl:{tmp_path / 'logs'}"
        else:
            spec = f"sqlite:{tmp_path / 's.db'}"
        store = phasetodo.stores.store_from_url(spec)
        with phasetodo.Session.open("s", store) as session:
            first = session.todo_write(INIT, request_id="call-1")
        store.close()
        code = (
            "import json, sys, phasetodo\n"
            "store = phasetodo.stores.store_from_url(sys.argv[1])\n"
            "s = phasetodo.Session.open('s', store)\n"
            "print(json.dumps([s.todo_write(json.loads(sys.argv[2]), request_id='call-1'), s.version]))\n"
        )
        child = subprocess.run(
            [sys.executable, "-c", code, spec, json.dumps(INIT)],
            capture_output=True, text=True, timeout=120, check=True,
        )
        again, version = json.loads(child.stdout)
        assert again == json.loads(json.dumps(first))
        assert version == 1


class TestWindow:
    @pytest.mark.slow
    @pytest.mark.parametrize("kind", ["jsonl", "sqlite", "memory"])
    def test_an_id_is_remembered_for_the_last_10000_events(self, kind: str, tmp_path: Path) -> None:
        """The oldest of the last WINDOW events is still answered by its id, by a fresh log object too."""
        store: phasetodo.Store
        if kind == "jsonl":
            store = phasetodo.JsonlStore(tmp_path, fsync=False)
        elif kind == "sqlite":
            store = phasetodo.SqliteStore(tmp_path / "s.db")
        else:
            store = phasetodo.MemoryStore()
        with phasetodo.Session.open("s", store, limits=None) as session:
            first = session.todo_write(INIT, request_id="old")
            log = store.open("s")
            with log.lock():
                latest = log.latest()
                assert latest is not None
                for version in range(2, WINDOW + 1):  # its event is the oldest of the last WINDOW
                    log.append(phasetodo.stores.Event(version, "clear", float(version), latest.phases))
            log.close()
            assert session.version == WINDOW
        again = same_place(store)
        with phasetodo.Session.open("s", again) as fresh:
            assert fresh.todo_write(INIT, request_id="old") == first
            assert fresh.version == WINDOW


class TestCommand:
    def test_apply_with_a_request_id_is_made_once(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """``apply --request-id`` twice prints the same result and leaves one event; reuse exits 2."""
        argv = ["--store", str(tmp_path), "--session", "s", "apply", json.dumps(INIT), "--request-id", "r1"]
        assert main([*argv, "--json"]) == 0
        first = capsys.readouterr().out
        assert main([*argv, "--json"]) == 0
        assert capsys.readouterr().out == first
        with phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path)) as session:
            assert session.version == 1
        reused = ["--store", str(tmp_path), "--session", "s", "apply", json.dumps(DONE), "--request-id", "r1"]
        assert main(reused) == 2
        assert "request_id 'r1'" in capsys.readouterr().err


class TestOlderTables:
    @pytest.mark.parametrize("kind", ["sqlite", "postgres"])
    def test_tables_without_the_new_columns_read_and_gain_them(
        self, kind: str, tmp_path: Path, request: pytest.FixtureRequest
    ) -> None:
        """A database from before request ids and hashes (no such columns, bodies without a hash)
        opens, reads, takes a write with a request id and verifies."""
        import re
        import sqlite3

        store: phasetodo.Store
        if kind == "sqlite":
            store = phasetodo.SqliteStore(tmp_path / "s.db")
        else:
            store = request.getfixturevalue("postgres_store")
        with phasetodo.Session.open("s", store) as session:
            first = session.todo_write(INIT)
        store.close()
        table = "events" if kind == "sqlite" else "phasetodo_events"
        statements = [
            f"DROP INDEX {'events_requests' if kind == 'sqlite' else 'phasetodo_requests'}",
            f"ALTER TABLE {table} DROP COLUMN request",
            f"ALTER TABLE {table} DROP COLUMN hash",
        ]
        if kind == "sqlite":
            conn = sqlite3.connect(tmp_path / "s.db")
            (body,) = conn.execute("SELECT body FROM events").fetchone()
            conn.execute("UPDATE events SET body = ?", (re.sub(r',"hash":"[0-9a-f]{64}"\}$', "}", body),))
            for statement in statements:
                conn.execute(statement)
            conn.commit()
            conn.close()
            store = phasetodo.SqliteStore(tmp_path / "s.db")
        else:
            import psycopg

            dsn = store.dsn  # type: ignore[attr-defined]
            with psycopg.connect(dsn, autocommit=True) as pg:
                (body,) = pg.execute("SELECT body FROM phasetodo_events").fetchone()  # type: ignore[misc]
                pg.execute(
                    "UPDATE phasetodo_events SET body = %s",
                    (re.sub(r',"hash":"[0-9a-f]{64}"\}$', "}", body),),
                )
                for statement in statements:
                    pg.execute(statement)  # type: ignore[arg-type]
            store = phasetodo.PostgresStore(dsn)
        with pytest.warns(phasetodo.errors.TamperedLogWarning, match="version 1: it carries no hash"):
            session = phasetodo.Session.open("s", store)
        with session:
            assert session.version == 1
            assert session.phases == tuple(phasetodo.load_phases(first["details"]["phases"]))
            done = session.todo_write(DONE, request_id="new")
            assert session.todo_write(DONE, request_id="new") == done
            assert session.version == 2
            found = session.verify()
            assert (found.ok, found.records, found.chained, found.version) == (False, 2, 1, 1)
        store.close()


TEAM_INIT = {"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Find it", "Patch it"]}]}]}
START = {"ops": [{"op": "start"}]}


class TestIdsPerCaller:
    def test_two_agents_with_the_same_id_and_params_make_two_calls(self, store: phasetodo.Store) -> None:
        """w1 and w2 both send call-1 with the same params: each gets its own reply and both apply."""
        with phasetodo.Session.open("plan", store, profile="team", agent="lead") as lead:
            lead.todo_write(TEAM_INIT)
        other = same_place(store)
        with (
            phasetodo.Session.open("plan", store, profile="team", agent="w1") as w1,
            phasetodo.Session.open("plan", other, profile="team", agent="w2") as w2,
        ):
            first = w1.write(START, request_id="call-1")
            second = w2.write(START, request_id="call-1")
            assert "You (w2) are on" in second.text
            assert "You (w1)" not in second.text
            assert w2.version == 3
            owners = {t.content: t.owner for t in w2.phases[0].tasks}
            assert owners == {"Find it": "w1", "Patch it": "w2"}
            assert w1.write(START, request_id="call-1").text == first.text  # each one's retry
            assert w2.write(START, request_id="call-1").text == second.text
            assert w2.version == 3
        if other is not store:
            other.close()

    def test_a_lead_and_a_scoped_handle_with_the_same_id_make_two_calls(self, store: phasetodo.Store) -> None:
        """The lead's call-1 and a scoped handle's call-1 (another agent, a phase) are two calls."""
        with phasetodo.Session.open("plan", store, profile="team", agent="lead") as lead:
            lead.todo_write(TEAM_INIT)
            note = {"ops": [{"op": "note", "task": "Find it", "text": "seen"}]}
            lead.write(note, request_id="call-1")
            scoped = lead.scoped(agent="sub", phase="Fix")
            scoped.write(note, request_id="call-1")
            assert lead.version == 3
            assert lead.phases[0].tasks[0].notes == ("seen", "seen")

    def test_the_same_agent_in_two_scopes_makes_two_calls(self, store: phasetodo.Store) -> None:
        """One agent's call-1 in phase A and its call-1 unscoped are remembered apart."""
        with phasetodo.Session.open("plan", store, profile="team", agent="lead") as lead:
            lead.todo_write(TEAM_INIT)
            note = {"ops": [{"op": "note", "task": "Find it", "text": "x"}]}
            lead.scoped(agent="lead", phase="Fix").write(note, request_id="call-1")
            lead.write(note, request_id="call-1")
            assert lead.version == 3

    def test_a_retry_of_an_agent_from_another_store_object_is_still_answered(
        self, store: phasetodo.Store
    ) -> None:
        """The caller's id is found again by a fresh log object (the key is kept by the store)."""
        with phasetodo.Session.open("plan", store, profile="team", agent="lead") as lead:
            lead.todo_write(TEAM_INIT)
        with phasetodo.Session.open("plan", store, profile="team", agent="w1") as w1:
            first = w1.todo_write(START, request_id="call-1")
        other = same_place(store)
        with phasetodo.Session.open("plan", other, profile="team", agent="w1") as again:
            assert again.todo_write(START, request_id="call-1") == first
            assert again.version == 2
        if other is not store:
            other.close()


class TestUndigestableParams:
    @pytest.mark.parametrize("request_id", [None, "call-1"])
    @pytest.mark.parametrize(
        ("params", "place"),
        [
            ({**INIT, 1: "x"}, "params: has a key 1"),
            (
                {"ops": [{"op": "note", "task": "Find it", "text": "x", ("a",): 1}]},
                "ops[0]: has a key ('a',)",
            ),
            ({**INIT, "extra": object()}, "extra: must be JSON data, not a object"),
            ({"ops": [{"op": "note", "task": "Find it", "text": "x", "more": {1.5}}]}, "ops[0].more:"),
        ],
    )
    def test_params_json_cannot_hold_are_invalid_params_naming_the_place(
        self, store: phasetodo.Store, params: dict[Any, Any], place: str, request_id: str | None
    ) -> None:
        """A non-string key or a value JSON cannot hold: InvalidParams naming it, id or not."""
        with phasetodo.Session.open("s", store) as session:
            with pytest.raises(InvalidParams) as caught:
                session.write(params, request_id=request_id)
            assert any(problem.startswith(place) for problem in caught.value.problems), caught.value.problems
            assert session.version == 0
