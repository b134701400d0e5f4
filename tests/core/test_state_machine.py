"""The engine, call after call, against a small plain model of the reference's rules.

The model below is written from the behaviour document (seed 001) alone: plain
dicts and lists, one branch per op, no indexes and nothing of the engine. It is
first checked against every conformance vector, then a Hypothesis state machine
drives the engine and the model with the same generated calls and compares them.
"""

from __future__ import annotations

import copy
import shutil
import tempfile
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

import phasetodo
from phasetodo import testing

from ..budget import examples
from ..conftest import read_vectors

# ECMAScript's WhiteSpace and LineTerminator: TAB VT FF ZWNBSP, the Zs category, LF CR LS PS.
JS_SPACE = (
    "\t\v\f\ufeff"
    " \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u202f\u205f\u3000"
    "\n\r\u2028\u2029"
)
EMPTY_HINT = " (todo list is empty — was it replaced or not yet created?)"

Phases = list[dict[str, Any]]


class Model:
    """One todo_write call as the reference describes it, on plain JSON data."""

    def __init__(self, phases: Phases) -> None:
        self.phases: Phases = [
            {
                "name": p["name"],
                "tasks": [
                    {"content": t["content"], "status": t["status"], "notes": list(t.get("notes", []))}
                    for t in p["tasks"]
                ],
            }
            for p in phases
        ]
        self.errors: list[str] = []

    # lookups: the first match in list order, or an error

    def all_tasks(self) -> list[dict[str, Any]]:
        return [task for phase in self.phases for task in phase["tasks"]]

    def find_task(self, content: Any) -> dict[str, Any] | None:
        if not content:
            self.errors.append("Missing task content")
            return None
        for task in self.all_tasks():
            if task["content"] == content:
                return task
        hint = EMPTY_HINT if not self.all_tasks() else ""
        self.errors.append(f'Task "{content}" not found{hint}')
        return None

    def find_phase(self, name: Any) -> dict[str, Any] | None:
        for phase in self.phases:
            if phase["name"] == name:
                return phase
        self.errors.append(f'Phase "{name}" not found')
        return None

    def targets(self, op: dict[str, Any]) -> list[dict[str, Any]]:
        if op.get("task"):
            task = self.find_task(op["task"])
            return [task] if task is not None else []
        if op.get("phase"):
            phase = self.find_phase(op["phase"])
            return list(phase["tasks"]) if phase is not None else []
        return self.all_tasks()

    # the ops

    def apply(self, op: dict[str, Any]) -> None:
        kind = op["op"]
        if kind == "init":
            if op.get("list") is None:
                self.errors.append("Missing list for init operation")
                self.phases = []
                return
            self.phases = [
                {
                    "name": entry["phase"],
                    "tasks": [{"content": item, "status": "pending", "notes": []} for item in entry["items"]],
                }
                for entry in op["list"]
            ]
        elif kind == "start":
            task = self.find_task(op.get("task"))
            if task is not None:
                for other in self.all_tasks():
                    if other is not task and other["status"] == "in_progress":
                        other["status"] = "pending"
                task["status"] = "in_progress"
        elif kind in ("done", "drop"):
            for task in self.targets(op):
                task["status"] = "completed" if kind == "done" else "abandoned"
        elif kind == "rm":
            self.remove(op)
        elif kind == "append":
            self.append(op)
        elif kind == "note":
            task = self.find_task(op.get("task"))
            if task is not None:
                text = (op.get("text") or "").rstrip(JS_SPACE)
                if text:
                    task["notes"].append(text)
                else:
                    self.errors.append("Missing text for note operation")

    def remove(self, op: dict[str, Any]) -> None:
        if op.get("task"):
            task = self.find_task(op["task"])
            if task is not None:
                for phase in self.phases:
                    phase["tasks"] = [t for t in phase["tasks"] if t is not task]
        elif op.get("phase"):
            phase = self.find_phase(op["phase"])
            if phase is not None:
                phase["tasks"] = []
        else:
            for phase in self.phases:
                phase["tasks"] = []

    def append(self, op: dict[str, Any]) -> None:
        if not op.get("phase"):
            self.errors.append("Missing phase name for append operation")
            return
        if not op.get("items"):
            self.errors.append("Missing items for append operation")
            return
        phase = next((p for p in self.phases if p["name"] == op["phase"]), None)
        if phase is None:
            phase = {"name": op["phase"], "tasks": []}
            self.phases.append(phase)
        for item in op["items"]:
            if any(task["content"] == item for task in self.all_tasks()):
                self.errors.append(f'Task "{item}" already exists')
            else:
                phase["tasks"].append({"content": item, "status": "pending", "notes": []})

    def normalize(self) -> None:
        """After the batch: one task in progress, the first; else start the first pending."""
        active = [t for t in self.all_tasks() if t["status"] == "in_progress"]
        for task in active[1:]:
            task["status"] = "pending"
        if not active:
            pending = [t for t in self.all_tasks() if t["status"] == "pending"]
            if pending:
                pending[0]["status"] = "in_progress"

    def result(self) -> Phases:
        """The phases as details.phases shows them: notes left out when there are none."""
        return [
            {
                "name": p["name"],
                "tasks": [
                    {"content": t["content"], "status": t["status"], "notes": t["notes"]}
                    if t["notes"]
                    else {"content": t["content"], "status": t["status"]}
                    for t in p["tasks"]
                ],
            }
            for p in self.phases
        ]


def model_call(phases: Phases, params: dict[str, Any]) -> tuple[Phases, list[str]]:
    """Apply one call's ops to ``phases`` in the model; returns (phases, errors)."""
    model = Model(phases)
    for op in params["ops"]:
        model.apply(op)
    model.normalize()
    return model.result(), model.errors


APPLY = read_vectors("apply.jsonl.gz")

#: Short names over a tiny alphabet, empty and blank ones included, so calls collide.
NAMES = testing.names(alphabet="ab \t", min_size=0, max_size=2)
NOTES = st.sampled_from(["note", "two\nlines", "trail  ", " ", "", "x\u3000"])
LISTS = testing.phases(max_size=3, max_tasks=3, names=NAMES, notes=NOTES, duplicates=True)


class TestModel:
    def test_model_matches_every_vector(self) -> None:
        """The plain model reproduces the reference's phases and errors on every vector."""
        for vector in APPLY:
            phases, errors = model_call(vector["before"], vector["params"])
            assert (phases, errors) == (
                vector["expect"]["phases"],
                vector["expect"]["errors"],
            ), vector["id"]


class EngineAgainstModel(RuleBasedStateMachine):
    """Consecutive todo_write calls: the engine and the model must agree after each."""

    def __init__(self) -> None:
        super().__init__()
        self.phases: tuple[phasetodo.Phase, ...] = ()
        self.calls = 0

    @initialize(phases=LISTS)
    def load(self, phases: tuple[phasetodo.Phase, ...]) -> None:
        """Start from a list as a host may hand it over (not normalized, repeats allowed)."""
        self.phases = phases

    @rule(data=st.data())
    def call(self, data: st.DataObject) -> None:
        """A schema-valid call: same phases and errors as the model, input untouched."""
        params = data.draw(
            testing.params(self.phases, names=NAMES, incomplete=0.1, extras=True), label="params"
        )
        before = self.phases
        outcome = phasetodo.apply(self.phases, phasetodo.profiles.parse_params(params))
        expect_phases, expect_errors = model_call(phasetodo.dump_phases(before), params)
        assert phasetodo.dump_phases(outcome.phases) == expect_phases
        assert list(outcome.errors) == expect_errors
        assert self.phases is before
        self.phases = outcome.phases
        self.calls += 1

    @rule(data=st.data())
    def rejected_call(self, data: st.DataObject) -> None:
        """Arguments that break the schema raise InvalidParams and change nothing."""
        params = data.draw(testing.params(self.phases, valid=False, names=NAMES), label="params")
        stored = phasetodo.dump_phases(self.phases)
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.todo_write(params, stored)
        assert caught.value.problems
        assert stored == phasetodo.dump_phases(self.phases)

    @rule(data=st.data())
    def tool_result(self, data: st.DataObject) -> None:
        """The tool result carries the model's phases, and its text leads with the errors."""
        params = data.draw(testing.params(self.phases, names=NAMES), label="params")
        result = phasetodo.todo_write(params, phasetodo.dump_phases(self.phases))
        expect_phases, expect_errors = model_call(phasetodo.dump_phases(self.phases), params)
        assert result["details"] == {"phases": expect_phases, "storage": "memory"}
        text = result["content"][0]["text"]
        if expect_errors:
            assert text.startswith(f"Errors: {'; '.join(expect_errors)}")
        elif not any(p["tasks"] for p in expect_phases):
            assert text == "Todo list cleared."
        else:
            assert text.startswith("Remaining items")
        self.phases = phasetodo.load_phases(result["details"]["phases"])
        self.calls += 1

    @precondition(lambda self: self.calls > 0)
    @invariant()
    def one_active_task(self) -> None:
        """After any call, exactly one task is in progress while any task is open."""
        statuses = [t.status for p in self.phases for t in p.tasks]
        active = statuses.count(phasetodo.Status.IN_PROGRESS)
        assert active == (1 if phasetodo.Status.PENDING in statuses or active else 0)

    @precondition(lambda self: self.calls > 0)
    @invariant()
    def normalized(self) -> None:
        """Every result is a fixed point of normalize()."""
        assert phasetodo.profiles.normalize(self.phases) == self.phases


EngineAgainstModel.TestCase.settings = settings(
    max_examples=examples(60),
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestEngineAgainstModel = EngineAgainstModel.TestCase


class TestModelCopies:
    def test_model_leaves_its_input_alone(self) -> None:
        """model_call works on a copy, like the engine."""
        before = [{"name": "P", "tasks": [{"content": "a", "status": "pending"}]}]
        kept = copy.deepcopy(before)
        model_call(before, {"ops": [{"op": "done", "task": "a"}, {"op": "rm"}]})
        assert before == kept


def strip_closed(phases: Phases) -> Phases:
    """The reference's resume rule, plainly: keep open tasks, then phases that kept some."""
    kept = []
    for phase in phases:
        tasks = [t for t in phase["tasks"] if t["status"] in ("pending", "in_progress")]
        if tasks:
            kept.append({"name": phase["name"], "tasks": tasks})
    return kept


class SessionReplay(RuleBasedStateMachine):
    """A durable session, call after call: its log replayed equals the live list.

    The log holds one full snapshot per event (last-write-wins), so replaying
    it means folding the events in order; that must give the live list, the
    model's list and what a second reader of the same store sees.
    """

    def __init__(self) -> None:
        super().__init__()
        self.directory = Path(tempfile.mkdtemp(prefix="phasetodo-replay-"))
        self.now = 1000.0
        self.model: Phases = []
        self.version = 0
        self.store: Any = None
        self.delay = -1.0
        self.session: phasetodo.Session | None = None

    def clock(self) -> float:
        return self.now

    def open(self, resume: Literal["keep", "strip"] = "keep") -> phasetodo.Session:
        return phasetodo.Session.open(
            "replayed",
            self.store,
            resume=resume,
            clear_delay=self.delay,
            clock=self.clock,
        )

    @initialize(
        kind=st.sampled_from(["memory", "jsonl", "sqlite"]),
        delay=st.sampled_from([0.0, 5.0, -1.0]),
        phases=LISTS,
    )
    def start(self, kind: str, delay: float, phases: tuple[phasetodo.Phase, ...]) -> None:
        """Open a new session in a real store of each kind; a person may seed the list."""
        if kind == "memory":
            self.store = phasetodo.MemoryStore()
        elif kind == "jsonl":
            self.store = phasetodo.JsonlStore(self.directory / "logs")
        else:
            self.store = phasetodo.SqliteStore(self.directory / "logs.sqlite")
        self.delay = delay
        self.session = self.open()
        if phases:
            self.user_edit(phases)

    @property
    def live(self) -> phasetodo.Session:
        assert self.session is not None
        return self.session

    @rule(data=st.data())
    def write(self, data: st.DataObject) -> None:
        """A valid call appends one event; its result is the model's."""
        params = data.draw(testing.params(self.live.phases, names=NAMES, incomplete=0.1))
        expect, errors = model_call(self.model, params)
        result = self.live.todo_write(params)
        assert result["details"]["phases"] == expect
        assert result["content"][0]["text"].startswith("Errors: ") == bool(errors)
        self.model, self.version = expect, self.version + 1

    @rule(data=st.data())
    def close_tasks(self, data: st.DataObject) -> None:
        """Completing or dropping existing tasks is a write like any other."""
        params = data.draw(testing.params(self.live.phases, kinds=["done", "drop"], existing=1.0, max_ops=2))
        expect, _ = model_call(self.model, params)
        assert self.live.todo_write(params)["details"]["phases"] == expect
        self.model, self.version = expect, self.version + 1

    @rule(data=st.data())
    def rejected_write(self, data: st.DataObject) -> None:
        """An invalid call raises InvalidParams and appends nothing."""
        params = data.draw(testing.params(self.live.phases, valid=False, names=NAMES))
        with pytest.raises(phasetodo.InvalidParams):
            self.live.todo_write(params)

    @rule(phases=LISTS)
    def user_edit(self, phases: tuple[phasetodo.Phase, ...]) -> None:
        """A person's edit replaces the list as one event."""
        self.live.user_edit(phases)
        self.model, self.version = phasetodo.dump_phases(phases), self.version + 1

    @rule(seconds=st.sampled_from([0.0, 1.0, 10.0]))
    def tick(self, seconds: float) -> None:
        """Auto-clear removes only closed tasks, as one event when it removes any."""
        self.now += seconds
        change = self.live.tick()
        if change is None:
            assert phasetodo.dump_phases(self.live.phases) == self.model
            return
        after = phasetodo.dump_phases(self.live.phases)
        kept = [(p["name"], t["content"]) for p in after for t in p["tasks"]]
        for phase in self.model:
            for task in phase["tasks"]:
                if task["status"] in ("pending", "in_progress"):
                    assert (phase["name"], task["content"]) in kept
        self.model, self.version = after, self.version + 1

    @rule()
    def reopen(self) -> None:
        """Closing and reopening (resume="keep") carries on from the same list and version."""
        self.live.close()
        self.session = self.open()
        assert self.live.version == self.version

    @invariant()
    def replay_equals_live(self) -> None:
        """Folding the log's events in order gives the live list and the model's."""
        if self.session is None:
            return
        replayed: tuple[phasetodo.Phase, ...] = ()
        versions = []
        for event in self.live.events():
            replayed = event.phases
            versions.append(event.version)
        assert versions == list(range(1, self.version + 1))
        assert replayed == self.live.phases
        assert phasetodo.dump_phases(replayed) == self.model
        assert self.live.logged_phases() == self.live.phases

    @invariant()
    def second_reader_agrees(self) -> None:
        """Another session on the same store sees the same list; resume="strip" keeps open work."""
        if self.session is None:
            return
        with self.open() as reader:
            assert (reader.phases, reader.version) == (self.live.phases, self.version)
        if self.version:
            with self.open("strip") as stripped:
                assert phasetodo.dump_phases(stripped.phases) == strip_closed(self.model)

    def teardown(self) -> None:
        if self.session is not None:
            self.session.close()
        if self.store is not None:
            self.store.close()
        shutil.rmtree(self.directory, ignore_errors=True)


SessionReplay.TestCase.settings = settings(
    max_examples=examples(25),
    stateful_step_count=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestSessionReplay = SessionReplay.TestCase
