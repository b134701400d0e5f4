"""Eight agent processes race through one 200-task plan on a real store file.

Each worker loops "claim the next ready task, then complete it" until nothing
is open. The log must show every task completed exactly once, no task ever
passing from one agent to another while in progress, and no agent ever holding
two active tasks.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo import Status

from .. import postgres_support

WORKER = Path(__file__).parents[1] / "session_helpers" / "team_worker.py"
AGENTS = [f"agent-{i}" for i in range(8)]
PHASES, PER_PHASE = 10, 20


def plan() -> dict[str, Any]:
    """200 tasks in 10 phases; each task after phase 0 waits for its twin in the phase before."""
    phases = []
    for p in range(PHASES):
        items: list[Any] = []
        for t in range(PER_PHASE):
            content = f"p{p}-t{t}"
            items.append(content if p == 0 else {"content": content, "after": [f"p{p - 1}-t{t}"]})
        phases.append({"phase": f"Phase {p}", "items": items})
    return {"ops": [{"op": "init", "list": phases}]}


def store_for(kind: str, where: Path | str) -> phasetodo.Store:
    if kind == "postgres":
        return phasetodo.PostgresStore(str(where))
    return phasetodo.JsonlStore(where) if kind == "jsonl" else phasetodo.SqliteStore(where)


def place(request: pytest.FixtureRequest, kind: str, tmp_path: Path) -> Path | str:
    """Where the store lives: a directory, a SQLite file, or an emptied PostgreSQL database's DSN."""
    if kind == "postgres":
        dsn: str = request.getfixturevalue("postgres_dsn")
        postgres_support.reset(dsn)
        return dsn
    return tmp_path / ("logs" if kind == "jsonl" else "plans.db")


@pytest.fixture(scope="module", params=["jsonl", "sqlite", "postgres"])
def raced(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, list[str]]:
    """The plan made by the lead, then raced by eight worker processes; their output lines."""
    kind = request.param
    tmp_path = tmp_path_factory.mktemp(f"race-{kind}")
    where = place(request, kind, tmp_path)
    store = store_for(kind, where)
    with phasetodo.Session.open("race", store=store, profile="team", agent="lead") as lead:
        assert not lead.todo_write(plan()).get("isError")
    store.close()
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), kind, str(where), "race", agent, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for agent in AGENTS
    ]
    go.touch()
    lines: list[str] = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        lines += out.splitlines()
    return kind, where, lines


class TestRace:
    def test_every_task_completed_exactly_once(self, raced: tuple[str, Path | str, list[str]]) -> None:
        """The workers' completions name all 200 tasks, none twice, and the plan agrees."""
        kind, where, lines = raced
        done = Counter(line.split()[1] for line in lines if line.startswith("done "))
        assert len(done) == PHASES * PER_PHASE
        assert set(done.values()) == {1}
        store = store_for(kind, where)
        with phasetodo.Session.open("race", store=store, profile="team", resume="keep") as session:
            statuses = {t.status for p in session.phases for t in p.tasks}
        store.close()
        assert statuses == {Status.COMPLETED}

    def test_no_event_shows_a_double_claim(self, raced: tuple[str, Path | str, list[str]]) -> None:
        """Across the log: no task changes hands in progress, no agent holds two, no task closes twice."""
        kind, where, _ = raced
        store = store_for(kind, where)
        with phasetodo.Session.open("race", store=store, profile="team", resume="keep") as session:
            events = list(session.events())
        store.close()
        holder: dict[str, str] = {}
        completions: Counter[str] = Counter()
        closed: set[str] = set()
        for event in events:
            active = [
                (t.content, t.owner) for p in event.phases for t in p.tasks if t.status is Status.IN_PROGRESS
            ]
            owners = [owner for _, owner in active]
            assert None not in owners, f"version {event.version}: an active task without owner"
            assert len(owners) == len(set(owners)), f"version {event.version}: an agent with two tasks"
            for content, owner in active:
                assert owner is not None
                assert holder.setdefault(content, owner) == owner, f"{content} claimed by two agents"
            now_closed = {t.content for p in event.phases for t in p.tasks if t.status is Status.COMPLETED}
            completions.update(now_closed - closed)
            closed = now_closed
        assert len(completions) == PHASES * PER_PHASE
        assert set(completions.values()) == {1}
        assert {e.agent for e in events[1:]} <= set(AGENTS)


CLAIM = Path(__file__).parents[1] / "session_helpers" / "team_claim.py"


class TestOneTaskManyClaimants:
    @pytest.mark.parametrize("kind", ["jsonl", "sqlite", "postgres"])
    def test_exactly_one_agent_gets_it(
        self, kind: str, tmp_path: Path, request: pytest.FixtureRequest
    ) -> None:
        """Eight processes start the same task at once: one wins, seven are told who has it."""
        where = place(request, kind, tmp_path)
        store = store_for(kind, where)
        with phasetodo.Session.open("prize", store=store, profile="team", agent="lead") as lead:
            lead.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["Prize", "Other"]}]}]})
        store.close()
        go = tmp_path / "go"
        procs = [
            subprocess.Popen(
                [sys.executable, str(CLAIM), kind, str(where), "prize", agent, "Prize", str(go)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for agent in AGENTS
        ]
        go.touch()
        answers = {}
        for agent, proc in zip(AGENTS, procs, strict=True):
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            answers[agent] = out.strip()
        winners = [agent for agent, answer in answers.items() if answer == "won"]
        assert len(winners) == 1
        (winner,) = winners
        lost = {answer for agent, answer in answers.items() if agent != winner}
        assert lost == {f'lost Task "Prize" is in progress for agent "{winner}"'}
