"""The team summary fits a context window: at most ``TEXT_LIMIT`` characters whatever the
plan, opening with what changed since the caller's last look; the whole plan stays in
``details.phases``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import Phase, Status, Task
from phasetodo._profiles.team import team_text
from phasetodo._profiles.team.engine import apply_team, team_problems
from phasetodo._profiles.team.schema import parse_team_params
from phasetodo._profiles.team.summary import TEXT_LIMIT, format_team_summary

from ..budget import examples

AGENTS = ["w1", "w2", "w3", None]
TEXT = st.text(min_size=1, max_size=3000)


@st.composite
def plans(draw: st.DrawFn) -> tuple[Phase, ...]:
    """Any team plan: long or short names, contents, reasons and notes; owners, blocks, afters."""
    size = draw(st.integers(0, 40))
    contents = draw(st.lists(TEXT, min_size=size, max_size=size, unique=True))
    phases: list[Phase] = []
    cut = 0
    while cut < len(contents) or not phases:
        take = draw(st.integers(0, max(0, len(contents) - cut)))
        tasks = []
        for content in contents[cut : cut + take]:
            status = draw(st.sampled_from(list(Status)))
            owner = draw(st.sampled_from(AGENTS))
            reason = draw(TEXT) if status is Status.BLOCKED else None
            notes = tuple(draw(st.lists(TEXT, max_size=3)))
            after = tuple(draw(st.lists(st.sampled_from(contents), max_size=3))) if contents else ()
            tasks.append(Task(content, status, notes, owner, reason, after))
        phases.append(Phase(draw(TEXT), tuple(tasks)))
        cut += take
        if not take and phases and cut >= len(contents):
            break
    return tuple(phases)


class TestBound:
    @given(plans(), st.sampled_from(AGENTS), st.lists(TEXT, max_size=30))
    @settings(max_examples=examples(60), deadline=None)
    def test_any_plan_any_caller_fits(
        self, phases: tuple[Phase, ...], agent: str | None, errors: list[str]
    ) -> None:
        """Whatever the plan, the caller and the errors, the summary has at most TEXT_LIMIT characters."""
        fixed = phasetodo.profiles.TEAM.repair(phases) if not _has_problems(phases) else phases
        assert len(format_team_summary(fixed, agent, errors, now=0.0)) <= TEXT_LIMIT

    @given(plans(), plans())
    @settings(max_examples=examples(40), deadline=None)
    def test_with_the_changes_since_the_last_look(
        self, seen: tuple[Phase, ...], now: tuple[Phase, ...]
    ) -> None:
        """A call that tells many changes still fits."""
        if _has_problems(seen) or _has_problems(now):
            return
        seen, now = phasetodo.profiles.TEAM.repair(seen), phasetodo.profiles.TEAM.repair(now)
        result = phasetodo.todo_write(
            {"ops": [{"op": "start"}]}, phasetodo.dump_phases(now), profile="team", agent="w1"
        )
        assert len(result["content"][0]["text"]) <= TEXT_LIMIT
        outcome = apply_team(now, parse_team_params({"ops": [{"op": "start"}]}), agent="w1", seen=seen)
        assert len(team_text(outcome, "w1")) <= TEXT_LIMIT


def _has_problems(phases: tuple[Phase, ...]) -> bool:
    return bool(team_problems(phases))


def _big_plan(tasks: int) -> list[dict[str, Any]]:
    """``tasks`` tasks in 1,000 phases: a quarter done, 500 agents on one each, 300 blocked,
    every tenth pending task waiting for the task before it."""
    per = tasks // 1000
    phases = []
    number = 0
    for p in range(1000):
        items: list[dict[str, Any]] = []
        for t in range(per):
            task: dict[str, Any] = {"content": f"Phase {p} task {t}: do the thing", "status": "pending"}
            if number < tasks // 4:
                task["status"] = "completed"
            elif number % 97 == 0 and number // 97 < 500:
                task.update(status="in_progress", owner=f"agent-{number // 97}")
            elif number % 89 == 0 and number // 89 < 300:
                task.update(status="blocked", reason="waiting for a review " * 5)
            elif number % 10 == 0 and t:
                task["after"] = [items[-1]["content"]]
            items.append(task)
            number += 1
        phases.append({"name": f"Phase {p}", "tasks": items})
    return phases


class TestHundredThousand:
    @pytest.mark.slow  # works a 100,000-task plan
    def test_a_100000_task_plan_reads_in_under_4000_characters(self) -> None:
        """On 100,000 tasks the summary stays bounded and details.phases holds every task."""
        plan = phasetodo.tool.call({"ops": [{"op": "note", "task": "t30000", "text": "x"}]},
                                   phasetodo.load_phases(_big_plan(100_000)), profile="team",
                                   agent="agent-1", limits=None).to_json()
        phases = plan["details"]["phases"]
        assert sum(len(p["tasks"]) for p in phases) == 100_000
        text = phasetodo.tool.call({"ops": [{"op": "start"}]}, phasetodo.load_phases(phases),
                                   profile="team", agent="w-new", limits=None).text
        assert len(text) <= TEXT_LIMIT
        assert text.startswith("You (w-new) are on t")
        for section in ("Ready (", "On it:", "Blocked ("):
            assert section in text
        assert "the whole plan is in details.phases" in text


class TestChanges:
    def test_the_summary_opens_with_what_others_did(self, tmp_path: Any) -> None:
        """What other agents did since this agent's last call comes first, by task id."""
        store = phasetodo.SqliteStore(tmp_path / "plans.db")
        lead = phasetodo.Session.open("p", store=store, profile="team", agent="lead")
        items = ["A", "B", "C", "D"]
        lead.todo_write({"ops": [{"op": "init", "list": [{"phase": "Build", "items": items}]}]})
        w1 = phasetodo.Session.open("p", store=store, profile="team", agent="w1")
        w2 = phasetodo.Session.open("p", store=store, profile="team", agent="w2")
        w1.todo_write({"ops": [{"op": "start", "task": "A"}]})
        w2.todo_write({"ops": [{"op": "start", "task": "B"}]})
        w2.todo_write({"ops": [{"op": "done", "task": "B"}, {"op": "block", "task": "C", "reason": "spec"}]})
        lead.todo_write({"ops": [{"op": "append", "phase": "Ship", "items": ["E"]}]})
        text = w1.todo_write({"ops": [{"op": "note", "task": "A", "text": "half"}]})["content"][0]["text"]
        assert text.splitlines()[:5] == [
            "Since your last look (4):",
            '  w2 completed t2 "B"',
            '  blocked t3 "C": spec',
            '  w2 claimed t4 "D"',
            '  added t5 "E" (Ship)',
        ]
        again = w1.todo_write({"ops": [{"op": "note", "task": "A", "text": "more"}]})["content"][0]["text"]
        assert not again.startswith("Since your last look")
        store.close()
