"""What grants rights on a plan is chained (issue 32 item 10) and the profile is recorded in the log
(issue 33 item 1): on real JSONL files, real SQLite files, the real PostgreSQL server and the command."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import phasetodo
from phasetodo import errors
from phasetodo.errors import TamperedLogWarning
from phasetodo.stores.sqlite import APPLICATION_ID

from .test_chain import _Log

INIT = {"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]}


class _Plan(_Log):
    """A plan in a real store (placed as test_chain's logs are), and the owner a tamperer
    writes outside the chain."""

    def make_team(self) -> None:
        store = self.store()
        with phasetodo.Session.open("s", store, profile="team", agent="lead") as lead:
            lead.todo_write(INIT)
            lead.todo_write({"ops": [{"op": "start", "task": "a"}]})
        store.close()

    def set_owner(self, owner: str) -> None:
        if self.kind == "jsonl":
            lines = self.path.read_text().splitlines()
            header = json.loads(lines[0])
            header["owner"] = owner
            lines[0] = json.dumps(header, separators=(",", ":"))
            self.path.write_text("\n".join(lines) + "\n")
        elif self.kind == "sqlite":
            with sqlite3.connect(self.path) as conn:
                conn.execute("UPDATE sessions SET owner = ? WHERE id = 's'", (owner,))
            conn.close()
        else:
            import psycopg

            with psycopg.connect(self.dsn, autocommit=True) as conn:
                conn.execute("UPDATE phasetodo_sessions SET owner = %s WHERE id = 's'", (owner,))


@pytest.fixture(params=["jsonl", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def plan(request: pytest.FixtureRequest, tmp_path: Path) -> _Plan:
    """A team plan led by 'lead', w1 working on 'a', on each durable store."""
    made = _Plan(request.param, tmp_path, request)
    made.make_team()
    return made


def _command(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "phasetodo", *argv], capture_output=True, text=True, timeout=60,
        env={**os.environ, **(env or {})},
    )


class TestTheOwnerIsChained:
    def test_an_owner_rewritten_outside_the_chain_fails_verify_and_warns(self, plan: _Plan) -> None:
        """The header's or sessions row's owner rewritten: verify fails at version 1, opening warns,
        and the session keeps the owner its chained first record names."""
        plan.set_owner("mallory")
        store = plan.store()
        found = store.verify("s")  # type: ignore[attr-defined]
        assert (found.ok, found.version) == (False, 1)
        assert "mallory" in str(found.reason)
        with pytest.warns(TamperedLogWarning, match="version 1: .*'mallory' is not the owner"):
            session = phasetodo.Session.open("s", store)
        assert session.owner == "lead"
        session.close()
        store.close()

    def test_the_command_says_not_verified_for_a_rewritten_owner(self, plan: _Plan) -> None:
        """``phasetodo verify`` on a plan whose owner was rewritten exits 1 naming version 1."""
        assert _command("--store", plan.spec, "--session", "s", "verify").returncode == 0
        plan.set_owner("mallory")
        done = _command("--store", plan.spec, "--session", "s", "verify")
        assert done.returncode == 1
        assert "NOT VERIFIED: version 1" in done.stdout


class TestStrippedHashes:
    @pytest.mark.slow
    def test_a_log_whose_hashes_were_stripped_is_not_verified_by_the_command(self, tmp_path: Path) -> None:
        """Every hash stripped and a record edited: ``phasetodo verify`` exits 1 (it used to say 0)."""
        logs = tmp_path / "logs"
        with phasetodo.Session.open("s", phasetodo.JsonlStore(logs)) as session:
            session.todo_write(INIT)
            session.todo_write({"ops": [{"op": "start", "task": "a"}]})
        path = logs / "s.jsonl"
        text = re.sub(r',"hash":"[0-9a-f]{64}"', "", path.read_text()).replace('"a"', '"z"')
        path.write_text(text)
        done = _command("--store", f"jsonl:{logs}", "--session", "s", "verify")
        assert done.returncode == 1, done.stdout
        assert "carries no hash" in done.stdout
        with pytest.warns(TamperedLogWarning, match="carries no hash"):
            phasetodo.Session.open("s", phasetodo.JsonlStore(logs)).close()


class TestVerifyExpect:
    @pytest.mark.slow
    def test_expect_checks_the_head_against_a_hash_kept_elsewhere(self, tmp_path: Path) -> None:
        """verify prints the newest hash; --expect with it exits 0; after the newest record is removed
        (a shorter chain that still holds) --expect exits 1."""
        logs = tmp_path / "logs"
        with phasetodo.Session.open("s", phasetodo.JsonlStore(logs)) as session:
            session.todo_write(INIT)
            session.todo_write({"ops": [{"op": "start", "task": "a"}]})
        spec = ["--store", f"jsonl:{logs}", "--session", "s", "verify"]
        first = _command(*spec)
        head = re.search(r"newest hash ([0-9a-f]{64})", first.stdout)
        assert first.returncode == 0
        assert head is not None
        assert _command(*spec, "--expect", head.group(1)).returncode == 0
        path = logs / "s.jsonl"
        path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))
        assert _command(*spec).returncode == 0  # the shorter chain holds by itself
        done = _command(*spec, "--expect", head.group(1))
        assert done.returncode == 1
        assert "not the expected" in done.stdout


class TestTheProfileIsRecorded:
    def test_a_team_plan_opened_without_a_profile_is_a_team_plan(self, plan: _Plan) -> None:
        """Session.open with no profile on a team plan: the team profile, and w5 may claim a task."""
        store = plan.store()
        with phasetodo.Session.open("s", store, agent="w5") as w5:
            assert w5.profile.name == "team"
            w5.todo_write({"ops": [{"op": "start", "task": "b"}]})
            assert any(t.owner == "w5" for p in w5.phases for t in p.tasks)
        store.close()

    def test_naming_another_profile_is_a_clear_error(self, plan: _Plan) -> None:
        """Opening a team plan with profile='parity' raises ProfileMismatch naming 'team'."""
        store = plan.store()
        with pytest.raises(errors.ProfileMismatch, match="'team' plan") as caught:
            phasetodo.Session.open("s", store, profile="parity", agent="w5")
        assert (caught.value.recorded, caught.value.asked) == ("team", "parity")
        store.close()

    def test_a_parity_plan_records_parity(self, tmp_path: Path) -> None:
        """A plan made without a profile records parity: opening it as team is refused."""
        store = phasetodo.JsonlStore(tmp_path)
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
        with pytest.raises(errors.ProfileMismatch, match="'parity' plan"):
            phasetodo.Session.open("s", store, profile="team")
        assert phasetodo.Session.open("s", store).profile.name == "parity"

    @pytest.mark.slow
    def test_the_command_writes_a_team_plan_as_the_agent_named(self, plan: _Plan) -> None:
        """``phasetodo apply --agent w5`` on a team plan with no --profile claims the task for w5
        (it said the session belongs to 'lead')."""
        start = json.dumps({"ops": [{"op": "start", "task": "b"}]})
        done = _command("--store", plan.spec, "--session", "s", "apply", start, "--agent", "w5")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "belongs to" not in done.stdout + done.stderr
        store = plan.store()
        with phasetodo.Session.open("s", store) as session:
            assert [t.owner for p in session.phases for t in p.tasks] == ["lead", "w5"]
        store.close()


#: Logs written by the code before the profile was recorded (bb82b57): a lead's team plan of
#: two tasks, "a" started by the lead; the SQLite one as its SQL dump.
OLD_LOGS = Path(__file__).parent / "old_logs"


class TestOldLogs:
    @pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
    def test_an_old_team_plan_opens_as_a_team_plan(self, kind: str, tmp_path: Path) -> None:
        """A team plan written by the old code (no recorded profile) reads, is inferred a team plan
        once, in one place, and takes a new agent's claim."""
        if kind == "sqlite":
            spec = f"sqlite:{tmp_path / 's.db'}"
            made = sqlite3.connect(tmp_path / "s.db")
            made.executescript((OLD_LOGS / "team_plan.sql").read_text(encoding="utf-8"))
            made.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            made.close()
        else:
            spec = f"jsonl:{tmp_path / 'logs'}"
            (tmp_path / "logs").mkdir()
            shutil.copy(OLD_LOGS / "team_plan.jsonl", tmp_path / "logs" / "s.jsonl")
        store = phasetodo.stores.store_from_url(spec)
        with warnings.catch_warnings():
            warnings.simplefilter("error", TamperedLogWarning)  # the old code chained every record
            with phasetodo.Session.open("s", store, agent="w5") as w5:
                assert w5.profile.name == "team"
                assert w5.owner == "lead"
                w5.todo_write({"ops": [{"op": "start", "task": "b"}]})
                assert [t.owner for p in w5.phases for t in p.tasks] == ["lead", "w5"]
        store.close()
