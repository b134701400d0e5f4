"""Team plans on durable sessions: many handles, one plan, the lead, scopes, a person's edits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import phasetodo
from phasetodo import InvalidPhases, Phase, Status, Task

from ..budget import examples

PLAN = {
    "op": "init",
    "list": [
        {"phase": "Auth", "items": ["Login", "Logout"]},
        {"phase": "Docs", "items": [{"content": "Guide", "after": ["Login"]}]},
    ],
}


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


def open_(store: Any, agent: str | None, **kw: Any) -> phasetodo.Session:
    return phasetodo.Session.open("plan", store=store, profile="team", agent=agent, **kw)


class TestHandles:
    def test_agents_share_one_plan(self, store: Any) -> None:
        """Each handle writes as its agent and sees the others' claims at once."""
        lead, w1 = open_(store, "lead"), open_(store, "w1")
        lead.todo_write({"ops": [PLAN]})
        assert w1.todo_write({"ops": [{"op": "start"}]})["details"]["task"] == "Login"
        result = lead.todo_write({"ops": [{"op": "start", "task": "Login"}]})
        assert result["isError"] is True
        assert result["details"]["errors"] == ['Task "Login" is in progress for agent "w1"']
        assert lead.todo_write({"ops": [{"op": "start"}]})["details"]["task"] == "Logout"
        assert [e.agent for e in lead.events()] == ["lead", "w1", "lead"]

    def test_refused_call_appends_nothing(self, store: Any) -> None:
        """An error result leaves the log as it was."""
        lead = open_(store, "lead")
        lead.todo_write({"ops": [PLAN]})
        lead.todo_write({"ops": [{"op": "start", "task": "Guide"}]})
        assert lead.version == 1

    def test_first_opener_is_the_lead(self, store: Any) -> None:
        """The agent that creates the plan may close others' tasks; another agent may not."""
        lead, w1, w2 = open_(store, "lead"), open_(store, "w1"), open_(store, "w2")
        lead.todo_write({"ops": [PLAN]})
        w1.todo_write({"ops": [{"op": "start", "task": "Login"}]})
        assert w2.todo_write({"ops": [{"op": "done", "task": "Login"}]})["isError"] is True
        assert lead.todo_write({"ops": [{"op": "done", "task": "Login"}]})["isError"] is False
        assert lead.owner == "lead"

    def test_lead_named_at_creation(self, store: Any) -> None:
        """lead= names the plan's lead when the plan is created."""
        first = open_(store, "w1", lead="boss")
        assert first.owner == "boss"

    def test_person_may_do_anything_but_claim(self, store: Any) -> None:
        """A handle without an agent removes another agent's task, and cannot start one."""
        lead, person = open_(store, "lead"), open_(store, None)
        lead.todo_write({"ops": [PLAN, {"op": "start"}]})
        assert person.todo_write({"ops": [{"op": "start", "task": "Logout"}]})["isError"] is True
        assert person.todo_write({"ops": [{"op": "rm", "task": "Login"}]})["isError"] is False

    def test_reopening_keeps_closed_tasks(self, store: Any) -> None:
        """A team plan is not stripped when an agent opens it again."""
        lead = open_(store, "lead")
        lead.todo_write({"ops": [PLAN, {"op": "done", "task": "Login"}]})
        again = open_(store, "w1")
        assert [t.content for p in again.phases for t in p.tasks] == ["Login", "Logout", "Guide"]


class TestScoped:
    def test_subagent_sees_and_changes_one_phase(self, store: Any) -> None:
        """A scoped handle's result holds its phase only; other phases are out of reach."""
        lead = open_(store, "lead")
        lead.todo_write({"ops": [PLAN]})
        sub = lead.scoped(agent="sub-1", phase="Docs")
        result = sub.todo_write({"ops": [{"op": "note", "task": "Guide", "text": "use the wiki"}]})
        assert [p["name"] for p in result["details"]["phases"]] == ["Docs"]
        assert sub.todo_write({"ops": [{"op": "done", "task": "Login"}]})["isError"] is True
        assert [p.name for p in sub.phases] == ["Docs"]
        assert [p.name for p in lead.refresh()] == ["Auth", "Docs"]

    def test_scoped_start_waits_for_other_phases(self, store: Any) -> None:
        """A subagent on Docs gets nothing until Login (in Auth) is done, then Guide."""
        lead = open_(store, "lead")
        lead.todo_write({"ops": [PLAN]})
        sub = lead.scoped(agent="sub-1", phase="Docs")
        assert sub.todo_write({"ops": [{"op": "start"}]})["details"]["task"] is None
        lead.todo_write({"ops": [{"op": "done", "task": "Login"}]})
        assert sub.todo_write({"ops": [{"op": "start"}]})["details"]["task"] == "Guide"

    def test_scope_phase_missing_is_an_error(self, store: Any) -> None:
        """A call scoped to a phase the plan lacks is refused, naming the phase and the plan's phases."""
        lead = open_(store, "lead")
        lead.todo_write({"ops": [PLAN]})
        sub = lead.scoped(agent="sub-1", phase="Build")
        result = sub.todo_write({"ops": [{"op": "start"}]})
        assert result["isError"] is True
        assert result["details"]["errors"] == [
            'Phase "Build", the one you work on, is not in the plan (its phases: "Auth", "Docs"); '
            "the plan's lead adds it (init or append), or your host gives you one of the plan's phases"
        ]
        assert 'Phase "Build"' in result["content"][0]["text"]
        assert lead.version == 1

    def test_scope_phase_missing_refuses_every_op(self, store: Any) -> None:
        """Even an append to the scoped phase, or a dry run, is refused: the lead adds the phase."""
        lead = open_(store, "lead")
        lead.todo_write({"ops": [PLAN]})
        sub = lead.scoped(agent="sub-1", phase="Build")
        append = {"ops": [{"op": "append", "phase": "Build", "items": ["Compile"]}]}
        assert sub.todo_write(append)["isError"] is True
        assert sub.todo_write({"ops": [{"op": "start"}]}, dry_run=True)["isError"] is True
        tool = phasetodo.TodoWriteTool(sub, profile="team")
        assert tool.execute({"ops": [{"op": "done"}]}).is_error
        assert lead.version == 1
        assert [p.name for p in lead.refresh()] == ["Auth", "Docs"]
        assert sub.phases == ()

    def test_scope_made_before_its_phase(self, store: Any) -> None:
        """A handle may be made before the plan exists; it works once the lead adds its phase."""
        lead = open_(store, "lead")
        sub = lead.scoped(agent="sub-1", phase="Docs")
        empty = sub.todo_write({"ops": [{"op": "start"}]})
        assert empty["isError"] is True
        assert "(it has no phases yet)" in empty["details"]["errors"][0]
        other = open_(store, "w2")  # another handle adds the phase; sub's parent has not looked since
        other.todo_write({"ops": [{"op": "init", "list": [{"phase": "Docs", "items": ["Guide"]}]}]})
        result = sub.todo_write({"ops": [{"op": "start"}]})
        assert result["isError"] is False
        assert result["details"]["task"] == "Guide"

    def test_scope_error_names_at_most_ten_phases(self, store: Any) -> None:
        """On a plan of many phases the error names the first ten and counts the rest."""
        lead = open_(store, "lead")
        phases = [{"phase": f"P{i}", "items": [f"t{i}"]} for i in range(12)]
        lead.todo_write({"ops": [{"op": "init", "list": phases}]})
        result = lead.scoped(agent="sub-1", phase="Q").todo_write({"ops": [{"op": "start"}]})
        (error,) = result["details"]["errors"]
        assert '"P9" and 2 more)' in error
        assert '"P10"' not in error


class TestUserEdit:
    def test_edit_is_repaired_to_team_rules(self, store: Any) -> None:
        """A person's edit with an ownerless in_progress task is saved with it pending."""
        lead = open_(store, "lead")
        lead.todo_write({"ops": [PLAN]})
        edited = (
            Phase("Auth", (Task("Login", Status.IN_PROGRESS), Task("Logout", Status.BLOCKED, reason="r"))),
        )
        lead.user_edit(edited, source="cli")
        mark = 3  # PLAN issued t1 to t3: the edit's tasks get new ids, never those
        assert lead.phases == (
            Phase(
                "Auth",
                (
                    Task("Login", id=f"t{mark + 1}"),
                    Task("Logout", Status.BLOCKED, reason="r", id=f"t{mark + 2}"),
                ),
                last_id=mark + 2,
            ),
        )

    def test_edit_with_a_cycle_is_refused(self, store: Any) -> None:
        """A person's edit that makes tasks wait for each other raises InvalidPhases."""
        lead = open_(store, "lead")
        cycle = (Phase("P", (Task("a", after=("b",)), Task("b", after=("a",)))),)
        with pytest.raises(InvalidPhases):
            lead.user_edit(cycle)
        assert lead.version == 0


AGENTS = ("lead", "w1", "w2")
NAMES = st.sampled_from([f"t{i}" for i in range(8)])


class TeamOnStore(RuleBasedStateMachine):
    """Agents and a person through sessions on a JSONL store; the log reopens to the live plan."""

    def __init__(self) -> None:
        super().__init__()
        import tempfile

        self.tmp = tempfile.TemporaryDirectory()
        self.store = self.make_store(Path(self.tmp.name))
        self.handles = {who: open_(self.store, who) for who in (*AGENTS, None)}

    def make_store(self, where: Path) -> Any:
        return phasetodo.JsonlStore(where)

    def teardown(self) -> None:
        for handle in self.handles.values():
            handle.close()
        self.store.close()
        self.tmp.cleanup()

    @property
    def plan(self) -> tuple[Phase, ...]:
        return self.handles["lead"].refresh()

    @initialize(deps=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=6))
    def make(self, deps: list[tuple[int, int]]) -> None:
        after: dict[int, set[int]] = {}
        for a, b in deps:
            if b < a:
                after.setdefault(a, set()).add(b)
        items: list[Any] = [
            {"content": f"t{i}", "after": [f"t{j}" for j in sorted(after.get(i, ()))]} for i in range(8)
        ]
        result = self.handles["lead"].todo_write(
            {"ops": [{"op": "init", "list": [{"phase": "P", "items": items}]}]}
        )
        assert not result["isError"]

    @rule(who=st.sampled_from(AGENTS), name=st.none() | NAMES)
    def start(self, who: str, name: str | None) -> None:
        self.handles[who].todo_write({"ops": [{"op": "start", "task": name} if name else {"op": "start"}]})

    @rule(
        who=st.sampled_from((*AGENTS, None)),
        name=NAMES,
        verb=st.sampled_from(["done", "drop", "block", "unblock"]),
    )
    def change(self, who: str | None, name: str, verb: str) -> None:
        op: dict[str, Any] = {"op": verb, "task": name}
        if verb == "block":
            op["reason"] = "waiting"
        self.handles[who].todo_write({"ops": [op]})

    @rule(name=NAMES)
    def person_edits(self, name: str) -> None:
        edited = tuple(
            Phase(
                p.name,
                tuple(
                    Task(t.content, Status.IN_PROGRESS, t.notes, None, None, t.after)
                    if t.content == name and t.status is Status.PENDING
                    else t
                    for t in p.tasks
                ),
            )
            for p in self.plan
        )
        self.handles[None].user_edit(edited, source="test")

    @invariant()
    def team_rules_hold(self) -> None:
        plan = self.plan
        owners = [t.owner for p in plan for t in p.tasks if t.status is Status.IN_PROGRESS]
        assert None not in owners
        assert len(owners) == len(set(owners))
        status = {t.content: t.status for p in plan for t in p.tasks}
        for p in plan:
            for t in p.tasks:
                if t.status is Status.IN_PROGRESS:
                    assert all(status[c].is_closed for c in t.after if c in status)

    @invariant()
    def reopened_log_equals_live(self) -> None:
        live = self.plan
        with phasetodo.Session.open("plan", store=self.store, profile="team") as fresh:
            assert fresh.phases == live
            events = list(fresh.events())
        assert (events[-1].phases if events else ()) == live


class TeamOnMemory(TeamOnStore):
    """The same machine on the memory store."""

    def make_store(self, where: Path) -> Any:
        return phasetodo.MemoryStore()


TeamOnStore.TestCase.settings = settings(max_examples=examples(15), stateful_step_count=20, deadline=None)
TestTeamOnStore = TeamOnStore.TestCase
TeamOnMemory.TestCase.settings = settings(max_examples=examples(25), stateful_step_count=20, deadline=None)
TestTeamOnMemory = TeamOnMemory.TestCase


class TestIdsOnStores:
    def test_ids_and_the_mark_survive_reopening(self, store: Any) -> None:
        """Ids and the high-water mark come back from the store: a task added after an rm of
        the newest one, by a fresh handle, gets an id never used before."""
        lead = open_(store, "lead")
        lead.todo_write({"ops": [PLAN, {"op": "rm", "task": "t3"}]})
        lead.close()
        again = open_(store, "w1")
        assert [t.id for p in again.phases for t in p.tasks] == ["t1", "t2"]
        result = again.todo_write({"ops": [{"op": "append", "phase": "Docs", "items": ["New"]}]})
        assert result["details"]["phases"][1]["tasks"][0]["id"] == "t4"
        again.todo_write({"ops": [{"op": "start", "task": "t4"}]})
        with phasetodo.Session.open("plan", store=store, profile="team") as fresh:
            assert fresh.phases[1].tasks[0].owner == "w1"
            assert fresh.phases[0].last_id == 4
