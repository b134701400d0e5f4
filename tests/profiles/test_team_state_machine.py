"""A team of agents and a person working one plan, checked by Hypothesis.

Every step is one call from one of them; after each, the plan keeps the team
invariants, and replaying every accepted call from the start gives the live plan.
"""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from phasetodo import Phase, Status
from phasetodo._profiles.team.engine import apply_team, find_cycle
from phasetodo._profiles.team.schema import parse_team_params

from ..budget import examples

AGENTS = ("lead", "w1", "w2", "w3")
CALLERS = (*AGENTS, None)  # None: a person
NAMES = st.sampled_from([f"t{i}" for i in range(12)])


class TeamPlan(RuleBasedStateMachine):
    """Random calls by agents and a person on one plan."""

    def __init__(self) -> None:
        super().__init__()
        self.phases: tuple[Phase, ...] = ()
        self.calls: list[tuple[str | None, dict[str, Any]]] = []

    def contents(self) -> list[str]:
        return [t.content for p in self.phases for t in p.tasks]

    def call(self, who: str | None, *ops: dict[str, Any]) -> tuple[str, ...]:
        params = {"ops": list(ops)}
        before = self.phases
        outcome = apply_team(before, parse_team_params(params), agent=who, lead="lead")
        if outcome.errors:
            assert outcome.phases == before, "a refused call changed the plan"
        else:
            self.calls.append((who, params))
            self.phases = outcome.phases
        self.check_claims(before)
        return outcome.errors

    def check_claims(self, before: tuple[Phase, ...]) -> None:
        """Nobody's active task was taken over by another agent."""
        old = {t.content: t.owner for p in before for t in p.tasks if t.status is Status.IN_PROGRESS}
        for phase in self.phases:
            for task in phase.tasks:
                if task.status is Status.IN_PROGRESS and task.content in old:
                    assert task.owner == old[task.content], f"{task.content} changed hands"

    @initialize(
        items=st.lists(st.tuples(NAMES, st.lists(st.integers(0, 11), max_size=3)), min_size=1, max_size=8),
    )
    def plan(self, items: list[tuple[str, list[int]]]) -> None:
        seen: list[str] = []
        out: list[Any] = []
        for content, deps in items:
            if content in seen:
                continue
            after = sorted({seen[d % len(seen)] for d in deps}) if seen else []
            out.append({"content": content, "after": after} if after else content)
            seen.append(content)
        assert not self.call(
            "lead",
            {
                "op": "init",
                "list": [{"phase": "A", "items": out[:4]}, {"phase": "B", "items": out[4:] or ["z"]}],
            },
        )

    @rule(who=st.sampled_from(AGENTS), name=st.none() | NAMES)
    def start(self, who: str, name: str | None) -> None:
        holder = {t.content: t for p in self.phases for t in p.tasks}.get(name or "")
        errors = self.call(who, {"op": "start", "task": name} if name else {"op": "start"})
        if holder is not None and holder.status is Status.IN_PROGRESS and holder.owner != who:
            assert errors == (f'Task "{name}" is in progress for agent "{holder.owner}"',)

    @rule(who=st.sampled_from(CALLERS), name=NAMES, verb=st.sampled_from(["done", "drop", "rm"]))
    def close(self, who: str | None, name: str, verb: str) -> None:
        self.call(who, {"op": verb, "task": name})

    @rule(who=st.sampled_from(AGENTS))
    def finish_own(self, who: str) -> None:
        mine = [
            t.content
            for p in self.phases
            for t in p.tasks
            if t.owner == who and t.status is Status.IN_PROGRESS
        ]
        if mine:
            assert not self.call(who, {"op": "done", "task": mine[0]})

    @rule(who=st.sampled_from(CALLERS), name=NAMES, reason=st.sampled_from(["waiting", "needs key"]))
    def block(self, who: str | None, name: str, reason: str) -> None:
        self.call(who, {"op": "block", "task": name, "reason": reason})

    @rule(who=st.sampled_from(CALLERS), name=NAMES)
    def unblock(self, who: str | None, name: str) -> None:
        self.call(who, {"op": "unblock", "task": name})

    @rule(
        who=st.sampled_from(CALLERS),
        content=st.sampled_from([f"n{i}" for i in range(6)]),
        deps=st.lists(NAMES, max_size=2),
    )
    def append(self, who: str | None, content: str, deps: list[str]) -> None:
        self.call(who, {"op": "append", "phase": "B", "items": [{"content": content, "after": deps}]})

    @rule(who=st.sampled_from(CALLERS), name=NAMES, deps=st.lists(NAMES, min_size=1, max_size=2))
    def wait(self, who: str | None, name: str, deps: list[str]) -> None:
        self.call(who, {"op": "after", "task": name, "after": deps})

    @rule(who=st.sampled_from(CALLERS), name=NAMES)
    def note(self, who: str | None, name: str) -> None:
        self.call(who, {"op": "note", "task": name, "text": f"from {who}"})

    @invariant()
    def one_active_task_per_agent(self) -> None:
        owners = [t.owner for p in self.phases for t in p.tasks if t.status is Status.IN_PROGRESS]
        assert None not in owners, "an in_progress task without an owner"
        assert len(owners) == len(set(owners)), f"an agent with two active tasks: {owners}"

    @invariant()
    def nothing_runs_before_its_after(self) -> None:
        status = {t.content: t.status for p in self.phases for t in p.tasks}
        for phase in self.phases:
            for task in phase.tasks:
                if task.status is Status.IN_PROGRESS:
                    assert all(status[c].is_closed for c in task.after if c in status), task

    @invariant()
    def no_cycle(self) -> None:
        graph = {t.content: t.after for p in self.phases for t in p.tasks}
        assert find_cycle(graph, list(graph)) is None

    @invariant()
    def replay_equals_live(self) -> None:
        phases: tuple[Phase, ...] = ()
        for who, params in self.calls:
            outcome = apply_team(phases, parse_team_params(params), agent=who, lead="lead")
            assert not outcome.errors
            phases = outcome.phases
        assert phases == self.phases


TeamPlan.TestCase.settings = settings(max_examples=examples(60), stateful_step_count=40, deadline=None)
TestTeamPlan = TeamPlan.TestCase
