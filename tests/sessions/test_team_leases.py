"""Leases on team claims: a claim lapses ``lease`` seconds after its holder's last write or
heartbeat, another agent takes the task over, and the former holder is fenced off.

Every time is the session clock's (injected here), as the log's events record it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo._profiles.team.summary import format_team_head
from phasetodo.stores import Renewal

PLAN = {"ops": [{"op": "init", "list": [{"phase": "Build", "items": ["Parser", "Lexer"]}]}]}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "jsonl", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    kind = request.param
    made: Any = (
        phasetodo.MemoryStore()
        if kind == "memory"
        else phasetodo.JsonlStore(tmp_path / "logs")
        if kind == "jsonl"
        else phasetodo.SqliteStore(tmp_path / "plans.db")
    )
    yield made
    made.close()


def agent(store: Any, name: str, clock: Clock, lease: float | None = 10.0) -> phasetodo.Session:
    return phasetodo.Session.open(
        "plan", store=store, profile="team", agent=name, clock=clock, lease=lease, lead="lead"
    )


def owner_of(session: phasetodo.Session, content: str) -> str | None:
    return next(t.owner for p in session.refresh() for t in p.tasks if t.content == content)


class TestLapse:
    def test_a_claim_lapses_and_another_agent_takes_it(self, store: Any) -> None:
        """After the lease, start {} by another agent takes the lapsed task, with a new epoch."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock), agent(store, "w2", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        w2.todo_write({"ops": [{"op": "start", "task": "Lexer"}]})
        w2.todo_write({"ops": [{"op": "done", "task": "Lexer"}]})  # nothing else is ready
        assert w2.todo_write({"ops": [{"op": "start"}]})["details"]["task"] is None
        clock.now = 1011.0
        result = w2.todo_write({"ops": [{"op": "start"}]})
        assert result["details"]["task"] == "Parser"
        task = w2.phases[0].tasks[0]
        assert task.owner == "w2"
        assert task.lease == phasetodo.Lease(2, 1021.0, "w1", 1010.0)

    def test_the_view_says_whose_lease_lapsed_and_when(self, store: Any) -> None:
        """Summary, details and ready list a lapsed claim with its holder and time."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock), agent(store, "w2", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1010.0
        result = w2.todo_write({"ops": [{"op": "note", "task": "Lexer", "text": "soon"}]})
        assert result["details"]["lapsed"] == [{"task": "Parser", "id": "t1", "agent": "w1", "at": 1010.0}]
        assert "Parser" in result["details"]["ready"]
        text = result["content"][0]["text"]
        assert "t1 \"Parser\" (Build) — w1's lease lapsed at 1970-01-01T00:16:50Z" in text
        head = format_team_head(w2.refresh(), "w2", now=clock.now)
        assert "w1's lease lapsed" in head

    def test_a_write_renews_the_lease(self, store: Any) -> None:
        """Every write by the holder starts its lease again."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock), agent(store, "w2", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1008.0
        w1.todo_write({"ops": [{"op": "note", "task": "Parser", "text": "half way"}]})
        clock.now = 1015.0
        result = w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        assert result["isError"] is True
        assert 'Task "Parser" is in progress for agent "w1"' in result["content"][0]["text"]

    def test_heartbeat_renews_the_lease_beside_the_log(self, store: Any) -> None:
        """heartbeat() keeps the new deadline beside the log (nothing appended); a handle in
        another session counts it."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock), agent(store, "w2", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        version = w1.version
        clock.now = 1009.0
        assert w1.heartbeat() == 1019.0
        assert w1.version == version
        assert w2.renewals == {"t1": Renewal("t1", "w1", 1, 1019.0)}
        clock.now = 1015.0
        refused = w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        assert refused["isError"] is True
        assert 'in progress for agent "w1"' in refused["details"]["errors"][0]
        clock.now = 1019.5
        assert w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is False
        assert w2.phases[0].tasks[0].lease == phasetodo.Lease(2, 1029.5, "w1", 1019.0)

    def test_the_views_show_the_renewed_deadline(self, store: Any) -> None:
        """details.lapsed, the summary and the ready list give the heartbeat's deadline, not
        the last write's."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock), agent(store, "w2", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1005.0
        w1.heartbeat()
        clock.now = 1016.0
        result = w2.todo_write({"ops": [{"op": "note", "task": "Lexer", "text": "later"}]})
        assert result["details"]["lapsed"] == [{"task": "Parser", "id": "t1", "agent": "w1", "at": 1015.0}]
        assert "w1's lease lapsed at 1970-01-01T00:16:55Z" in result["content"][0]["text"]
        head = format_team_head(w2.refresh(), "w2", now=clock.now, renewals=w2.renewals)
        assert "w1's lease lapsed at 1970-01-01T00:16:55Z" in head

    def test_a_renewal_counts_only_for_the_claim_it_renewed(self, store: Any) -> None:
        """After a takeover the old holder's renewal extends nothing, and its heartbeat renews
        nothing; one entry per agent stays in the table."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock), agent(store, "w2", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        assert w1.heartbeat() == 1010.0
        clock.now = 1011.0
        assert w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is False
        assert w1.heartbeat() is None  # fenced: it holds nothing now
        clock.now = 1012.0
        assert w2.heartbeat() == 1022.0
        assert w2.heartbeat() == 1022.0
        assert w1.renewals == {"t1": Renewal("t1", "w2", 2, 1022.0)}
        clock.now = 1021.0
        w3 = agent(store, "w3", clock)
        assert w3.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is True
        clock.now = 1022.5
        assert w3.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is False

    def test_a_scoped_handle_renews_its_own_agents_claim(self, store: Any) -> None:
        """A subagent's scoped handle heartbeats for that subagent, not for the session's agent."""
        clock = Clock()
        lead = agent(store, "lead", clock)
        lead.todo_write(PLAN)
        sub = lead.scoped(agent="sub-1", phase="Build")
        sub.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        assert lead.heartbeat() is None  # the lead holds nothing
        clock.now = 1009.0
        assert sub.heartbeat() == 1019.0
        assert lead.renewals == {"t1": Renewal("t1", "sub-1", 1, 1019.0)}
        clock.now = 1015.0
        w2 = agent(store, "w2", clock)
        assert w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is True

    def test_a_scoped_handle_retry_with_a_request_id_applies_once(self, store: Any) -> None:
        """A subagent's retried call with the same request id returns the first result again."""
        clock = Clock()
        lead = agent(store, "lead", clock)
        lead.todo_write(PLAN)
        sub = lead.scoped(agent="sub-1", phase="Build")
        note = {"ops": [{"op": "note", "task": "Parser", "text": "found it"}]}
        first = sub.todo_write(note, request_id="r-1")
        version = lead.version
        again = sub.todo_write(note, request_id="r-1")
        assert again == first
        assert lead.version == version
        assert lead.phases[0].tasks[0].notes == ("found it",)

    def test_heartbeat_without_a_claim_appends_nothing(self, store: Any) -> None:
        """An agent that holds nothing has no lease to renew."""
        clock = Clock()
        w1 = agent(store, "w1", clock)
        w1.todo_write(PLAN)
        version = w1.version
        assert w1.heartbeat() is None
        assert w1.version == version

    def test_the_holder_may_renew_a_lapsed_claim_nobody_took(self, store: Any) -> None:
        """A lapsed claim stays its holder's until another agent takes it over."""
        clock = Clock()
        w1 = agent(store, "w1", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1050.0
        result = w1.todo_write({"ops": [{"op": "note", "task": "Parser", "text": "back"}]})
        assert result["isError"] is False
        assert w1.phases[0].tasks[0].lease == phasetodo.Lease(1, 1060.0)


class TestDetails:
    def test_details_phases_carry_each_claims_lease(self, store: Any) -> None:
        """``details.phases`` holds what the log holds: a claim's lease (epoch and deadline),
        and a closed task's, as the plan's values dump them."""
        clock = Clock()
        w1 = agent(store, "w1", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        result = w1.write({"ops": [{"op": "done", "task": "Parser"}]})
        assert result.details["phases"] == phasetodo.dump_phases(result.phases)
        leases = [t["lease"] for p in result.details["phases"] for t in p["tasks"] if "lease" in t]
        assert leases
        assert all(lease["epoch"] >= 1 for lease in leases)
        assert any("until" in lease for lease in leases)  # the task done moved the claim on


class TestFencing:
    def test_the_former_holder_is_refused_naming_the_new_one(self, store: Any) -> None:
        """A write by the holder whose lease lapsed, on the task taken over, changes nothing."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock), agent(store, "w2", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1020.0
        w2.todo_write({"ops": [{"op": "start", "task": "t1"}]})
        version = w2.version
        for op in ({"op": "done", "task": "Parser"}, {"op": "note", "task": "t1", "text": "x"},
                   {"op": "start", "task": "Parser"}):
            result = w1.todo_write({"ops": [op]})
            assert result["isError"] is True
            error = result["details"]["errors"][0]
            assert error == (
                'Task "Parser" was taken over by agent "w2" (claim 2) after your lease lapsed at '
                "1970-01-01T00:16:50Z: your claim on it is void"
            )
        assert w1.version == version
        assert owner_of(w1, "Parser") == "w2"

    def test_the_lead_is_fenced_too(self, store: Any) -> None:
        """The lead may change others' tasks, but not one it lost when its lease lapsed."""
        clock = Clock()
        lead, w2 = agent(store, "lead", clock), agent(store, "w2", clock)
        lead.todo_write(PLAN)
        lead.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1020.0
        w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        result = lead.todo_write({"ops": [{"op": "done", "task": "Parser"}]})
        assert result["isError"] is True
        assert 'taken over by agent "w2"' in result["details"]["errors"][0]


class TestWithoutLease:
    def test_claims_never_lapse(self, store: Any) -> None:
        """Without lease, today's rules: a claim is held however long ago its holder wrote."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock, None), agent(store, "w2", clock, None)
        w1.todo_write(PLAN)
        result = w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        assert result["details"]["phases"][0]["tasks"][0] == {
            "content": "Parser", "status": "in_progress", "owner": "w1", "id": "t1"
        }
        clock.now = 10.0**9
        assert w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is True
        assert w2.heartbeat() is None


class TestReplay:
    def test_a_reopened_log_gives_the_same_plan_whatever_the_clock(self, store: Any) -> None:
        """The deadlines are the events' times plus the lease, read back as written."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock), agent(store, "w2", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1020.0
        w2.todo_write({"ops": [{"op": "start"}]})
        events = list(w2.events())
        assert events[-1].time == 1020.0
        assert events[-1].phases[0].tasks[0].lease == phasetodo.Lease(2, 1030.0, "w1", 1010.0)
        with phasetodo.Session.open(
            "plan", store=store, profile="team", clock=lambda: 10.0**9
        ) as later:
            assert later.phases == w2.phases


WORKER = textwrap.dedent(
    """
    import sys, time
    import phasetodo
    store, name, lease, mode = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    s = phasetodo.Session.open("plan", store=phasetodo.stores.store_from_url(store),
                               profile="team", agent=name, lease=lease, lead="lead")
    result = s.todo_write({"ops": [{"op": "start"}]})
    print(result["details"]["task"], flush=True)
    if mode == "hold":
        while True:
            time.sleep(0.05)
    while mode == "beat":
        time.sleep(lease / 5)
        s.heartbeat()
    """
)


def _holding(url: str, mode: str) -> tuple[Any, dict[str, str], subprocess.Popen[str]]:
    """A one-task plan at ``url``, and a WORKER process (agent w1, 1 s lease) that has claimed
    it and goes on in ``mode``: the store, the children's environment and the process."""
    store = phasetodo.stores.store_from_url(url)
    with phasetodo.Session.open("plan", store=store, profile="team", agent="lead") as lead:
        lead.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["Only"]}]}]})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    holder = subprocess.Popen(
        [sys.executable, "-c", WORKER, url, "w1", "1.0", mode], stdout=subprocess.PIPE, text=True, env=env
    )
    assert holder.stdout is not None
    if holder.stdout.readline().strip() != "Only":
        holder.kill()
        holder.wait()
        raise AssertionError("the holder did not claim the plan's task")
    return store, env, holder


def _w2_starts(url: str, env: dict[str, str]) -> str:
    """What a WORKER process of agent w2 (1 s lease) claims with ``start {}``: a task, or "None"."""
    done = subprocess.run(
        [sys.executable, "-c", WORKER, url, "w2", "1.0", "once"],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _stop(holder: subprocess.Popen[str]) -> None:
    if holder.poll() is None:
        holder.kill()
        holder.wait()


def _taken_over(store: Any) -> phasetodo.Lease:
    """The plan's task's lease, checked to be w2's takeover of w1's claim; the store is closed."""
    with phasetodo.Session.open("plan", store=store, profile="team") as person:
        task = person.phases[0].tasks[0]
    store.close()
    assert task.owner == "w2"
    assert task.lease is not None
    assert (task.lease.epoch, task.lease.lapsed) == (2, "w1")
    return task.lease


@pytest.mark.slow  # child processes, as the other process tests
class TestProcesses:
    @pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
    def test_a_killed_holder_loses_its_task_to_another_process(self, tmp_path: Path, kind: str) -> None:
        """An agent process holding a claim is SIGKILLed; after its lease another process takes it."""
        url = f"jsonl:{tmp_path / 'logs'}" if kind == "jsonl" else f"sqlite:{tmp_path / 'plans.db'}"
        store, env, holder = _holding(url, "hold")
        try:
            holder.send_signal(signal.SIGKILL)
            holder.wait(timeout=30)
            early = _w2_starts(url, env)
            started = time.time()
            if early != "Only":  # the lease had not lapsed yet: wait it out
                time.sleep(max(0.0, 1.2 - (time.time() - started)))
                assert _w2_starts(url, env) == "Only"
        finally:
            _stop(holder)
        _taken_over(store)

    @pytest.mark.parametrize("kind", ["jsonl", "sqlite", "postgres"])
    def test_a_beating_holder_keeps_its_claim_without_growing_the_log(
        self, tmp_path: Path, kind: str, request: pytest.FixtureRequest
    ) -> None:
        """A process that heartbeats keeps its claim past its lease, other processes see it,
        and the log gains nothing from the beats; once it is killed, its claim lapses at its
        last beat's deadline and another process takes the task over."""
        url = (
            f"jsonl:{tmp_path / 'logs'}" if kind == "jsonl"
            else f"sqlite:{tmp_path / 'plans.db'}" if kind == "sqlite"
            else request.getfixturevalue("postgres_store").dsn
        )
        store, env, holder = _holding(url, "beat")
        try:
            started = time.time()
            while time.time() - started < 2.5:  # well past the 1 s lease of its start
                assert _w2_starts(url, env) == "None"
            holder.send_signal(signal.SIGKILL)
            holder.wait(timeout=30)
            with phasetodo.Session.open("plan", store=store, profile="team") as person:
                renewed = person.renewals["t1"]
                logged = person.phases[0].tasks[0].lease
                assert logged is not None
                assert logged.until is not None
                assert renewed.agent == "w1"
                assert renewed.until > logged.until + 1.0
                assert [e.agent for e in person.events()].count("w1") == 1  # its start only
            time.sleep(max(0.0, renewed.until - time.time()) + 0.2)
            assert _w2_starts(url, env) == "Only"
        finally:
            _stop(holder)
        assert _taken_over(store).lapsed_at == renewed.until


class TestOnPostgres:
    def test_lapse_takeover_heartbeat_and_fencing(self, postgres_store: Any) -> None:
        """The same rules on PostgreSQL: a heartbeat holds the claim, then it lapses, is taken
        over, and the former holder is refused (the sessions' clock, not the server's, drives time)."""
        clock = Clock()
        postgres_store = phasetodo.PostgresStore(postgres_store.dsn, server_clock=False)
        w1, w2 = agent(postgres_store, "w1", clock), agent(postgres_store, "w2", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1009.0
        assert w1.heartbeat() == 1019.0
        clock.now = 1015.0
        assert w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is True
        clock.now = 1020.0
        assert w2.todo_write({"ops": [{"op": "start", "task": "t1"}]})["isError"] is False
        refused = w1.todo_write({"ops": [{"op": "done", "task": "t1"}]})
        assert refused["isError"] is True
        assert 'taken over by agent "w2"' in refused["details"]["errors"][0]
        with phasetodo.Session.open("plan", store=postgres_store, profile="team") as fresh:
            assert fresh.phases == w2.refresh()
            assert fresh.phases[0].tasks[0].lease == phasetodo.Lease(2, 1030.0, "w1", 1019.0)
        postgres_store.close()


class TestFencingByEpoch:
    def test_a_claim_voided_two_takeovers_ago_stays_void(self, store: Any) -> None:
        """w1 stalls, w2 takes over, w3 takes over from w2 and lapses: w1's done is refused."""
        clock = Clock()
        w1, w2, w3 = agent(store, "w1", clock), agent(store, "w2", clock), agent(store, "w3", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1020.0
        assert w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is False
        clock.now = 1040.0
        assert w3.todo_write({"ops": [{"op": "start", "task": "Parser"}]})["isError"] is False
        clock.now = 1060.0  # w3's lease lapsed too
        version = w3.refresh() and w3.version
        for name, stale in (("w1", w1), ("w2", w2)):
            result = stale.todo_write({"ops": [{"op": "done", "task": "Parser"}]})
            assert result["isError"] is True, name
            assert 'taken over by agent "w3" (claim 3)' in result["details"]["errors"][0]
        assert w3.version == version
        task = w3.refresh()[0].tasks[0]
        assert (task.status, task.owner) == (phasetodo.Status.IN_PROGRESS, "w3")

    def test_the_void_survives_a_reopen_and_another_claim(self, store: Any) -> None:
        """Read again from the log, and after the task changed hands normally, w1 stays fenced."""
        clock = Clock()
        w1, w2, w3 = agent(store, "w1", clock), agent(store, "w2", clock), agent(store, "w3", clock)
        w1.todo_write(PLAN)
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1020.0
        w2.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        w2.todo_write({"ops": [{"op": "start", "task": "Lexer"}]})  # Parser goes back to pending
        w3.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        clock.now = 1060.0
        reopened = agent(store, "w1", clock)
        result = reopened.todo_write({"ops": [{"op": "drop", "task": "Parser"}]})
        assert result["isError"] is True
        assert 'taken over by agent "w3"' in result["details"]["errors"][0]
        lease = reopened.phases[0].tasks[0].lease
        assert lease is not None
        assert "w1" in lease.voided
        assert lease.epoch == 3

    def test_an_agent_that_claims_the_task_anew_may_write_on_it(self, store: Any) -> None:
        """A voided agent that claims the task again (start {}) holds a live claim, not a void one."""
        clock = Clock()
        w1, w2 = agent(store, "w1", clock), agent(store, "w2", clock)
        w1.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["Only"]}]}]})
        w1.todo_write({"ops": [{"op": "start"}]})
        clock.now = 1020.0
        w2.todo_write({"ops": [{"op": "start", "task": "Only"}]})
        clock.now = 1040.0
        assert w1.todo_write({"ops": [{"op": "start"}]})["details"]["task"] == "Only"
        assert w1.todo_write({"ops": [{"op": "done", "task": "Only"}]})["isError"] is False


FENCED_WORKER = textwrap.dedent(
    """
    import json, sys
    import phasetodo
    store, name, lease = sys.argv[1], sys.argv[2], float(sys.argv[3])
    s = phasetodo.Session.open("plan", store=phasetodo.stores.store_from_url(store),
                               profile="team", agent=name, lease=lease, lead="lead")
    for line in sys.stdin:
        result = s.todo_write(json.loads(line))
        print(json.dumps([result["isError"], result["details"].get("errors", [])]), flush=True)
    """
)


@pytest.mark.slow
class TestFencingProcesses:
    @pytest.mark.parametrize("kind", ["jsonl", "sqlite", "postgres"])
    def test_a_stalled_holder_two_takeovers_later_is_refused(
        self, tmp_path: Path, kind: str, request: pytest.FixtureRequest
    ) -> None:
        """w1's process claims and is SIGSTOPped; w2 and then w3 take the task over; w1 resumed is fenced."""
        if kind == "postgres":
            url = request.getfixturevalue("postgres_store").dsn
        else:
            url = f"jsonl:{tmp_path / 'logs'}" if kind == "jsonl" else f"sqlite:{tmp_path / 'plans.db'}"
        store = phasetodo.stores.store_from_url(url)
        with phasetodo.Session.open("plan", store=store, profile="team", agent="lead") as lead:
            lead.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["Only"]}]}]})
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

        def worker(name: str) -> subprocess.Popen[str]:
            return subprocess.Popen(
                [sys.executable, "-c", FENCED_WORKER, url, name, "0.5"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
            )

        def call(proc: subprocess.Popen[str], op: dict[str, Any]) -> list[Any]:
            assert proc.stdin is not None
            assert proc.stdout is not None
            proc.stdin.write(json.dumps({"ops": [op]}) + "\n")
            proc.stdin.flush()
            answer: list[Any] = json.loads(proc.stdout.readline())
            return answer

        procs = [worker(name) for name in ("w1", "w2", "w3")]
        w1, w2, w3 = procs
        try:
            assert call(w1, {"op": "start", "task": "Only"})[0] is False
            w1.send_signal(signal.SIGSTOP)
            time.sleep(0.8)
            assert call(w2, {"op": "start", "task": "Only"})[0] is False
            time.sleep(0.8)
            assert call(w3, {"op": "start", "task": "Only"})[0] is False
            time.sleep(0.8)  # w3's lease lapses too
            w1.send_signal(signal.SIGCONT)
            refused, errors = call(w1, {"op": "done", "task": "Only"})
            assert refused is True
            assert 'taken over by agent "w3"' in errors[0]
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGCONT)
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(timeout=60)
        with phasetodo.Session.open("plan", store=store, profile="team") as person:
            task = person.phases[0].tasks[0]
            assert (task.status, task.owner) == (phasetodo.Status.IN_PROGRESS, "w3")
        store.close()


SKEWED_WORKER = textwrap.dedent(
    """
    import json, sys, time
    import phasetodo
    store, name, lease, skew = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    s = phasetodo.Session.open("plan", store=phasetodo.stores.store_from_url(store), profile="team",
                               agent=name, lease=lease, lead="lead", clock=lambda: time.time() + skew)
    result = s.todo_write(json.loads(sys.argv[5]))
    print(json.dumps([result["isError"], result["details"].get("errors", [])]), flush=True)
    """
)


@pytest.mark.slow
class TestSkewedClocks:
    def run(self, url: str, name: str, skew: float, op: dict[str, Any]) -> list[Any]:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        done = subprocess.run(
            [sys.executable, "-c", SKEWED_WORKER, url, name, "300", str(skew), json.dumps({"ops": [op]})],
            capture_output=True, text=True, env=env, timeout=120, check=True,
        )
        answer: list[Any] = json.loads(done.stdout)
        return answer

    @pytest.fixture(params=["jsonl", "sqlite", "postgres"])
    def url(self, request: pytest.FixtureRequest, tmp_path: Path) -> Any:
        if request.param == "postgres":
            url = request.getfixturevalue("postgres_store").dsn
        else:
            url = f"jsonl:{tmp_path / 'logs'}" if request.param == "jsonl" else f"sqlite:{tmp_path / 'p.db'}"
        store = phasetodo.stores.store_from_url(url)
        with phasetodo.Session.open("plan", store=store, profile="team", agent="lead") as lead:
            lead.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["A", "B", "C"]}]}]})
        store.close()
        return url

    def test_event_times_never_go_backwards(self, url: str) -> None:
        """A writer an hour fast, then writers on time and an hour slow: the log's times only grow."""
        self.run(url, "fast", 3600.0, {"op": "start", "task": "A"})
        self.run(url, "even", 0.0, {"op": "start", "task": "B"})
        self.run(url, "slow", -3600.0, {"op": "start", "task": "C"})
        store = phasetodo.stores.store_from_url(url)
        with phasetodo.Session.open("plan", store=store, profile="team") as person:
            times = [event.time for event in person.events()]
        store.close()
        assert times == sorted(times)

    def test_a_slow_writers_claim_is_not_lapsed_at_birth(self, url: str) -> None:
        """A writer an hour slow claims with a 300 s lease: a writer on time cannot take it over at once."""
        self.run(url, "even", 0.0, {"op": "note", "task": "A", "text": "seen"})
        assert self.run(url, "slow", -3600.0, {"op": "start", "task": "A"})[0] is False
        refused, errors = self.run(url, "even", 0.0, {"op": "start", "task": "A"})
        assert refused is True
        assert 'in progress for agent "slow"' in errors[0]


@pytest.mark.slow
@pytest.mark.postgres
class TestServerClock:
    def test_a_fast_writer_cannot_take_over_early_on_postgresql(self, postgres_store: Any) -> None:
        """On PostgreSQL every write runs at the server's clock: a writer 400 s fast neither takes
        over a claim made a moment ago with a 300 s lease nor moves the plan's time ahead."""
        url = postgres_store.dsn
        with phasetodo.Session.open("plan", store=postgres_store, profile="team", agent="lead") as lead:
            lead.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["A", "B"]}]}]})
        skewed = TestSkewedClocks()
        assert skewed.run(url, "even", 0.0, {"op": "start", "task": "A"})[0] is False
        refused, errors = skewed.run(url, "fast", 400.0, {"op": "start", "task": "A"})
        assert refused is True
        assert 'in progress for agent "even"' in errors[0]
        assert skewed.run(url, "fast", 400.0, {"op": "start", "task": "B"})[0] is False
        with phasetodo.Session.open("plan", store=postgres_store, profile="team") as person:
            times = [event.time for event in person.events()]
        assert abs(times[-1] - time.time()) < 60
