"""ACP plan updates: the mapping, the SDK's own validation, the feed, and a real stdio pipe."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import InvalidPhases, Phase, Status, Task, testing
from phasetodo.errors import InvalidOption, InvalidOptionType, install_hint

# The SDK comes with the [test] extra; CI fails rather than skips without it.
acp = importlib.import_module("acp") if os.environ.get("CI") else pytest.importorskip("acp")
from acp import schema  # noqa: E402

from phasetodo.integrations.acp import (  # noqa: E402
    STATUS_MAP,
    plan_update,
    stream_plan,
    supports_plan_update,
    validate_update,
)

from ..budget import examples  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"

PLAN = {
    "op": "init",
    "list": [
        {"phase": "Build", "items": ["Parser", "Lexer"]},
        {"phase": "Ship", "items": ["Docs", "Deploy"]},
        {"phase": "Later", "items": ["Blog post"]},
    ],
}

#: A team plan worked by a lead and two workers: (agent, params) in order.
TEAM_WRITES: list[tuple[str, dict[str, Any]]] = [
    ("lead", {"ops": [PLAN]}),
    ("w1", {"ops": [{"op": "start"}]}),
    ("w2", {"ops": [{"op": "start"}]}),
    ("w1", {"ops": [{"op": "done", "task": "Parser"}]}),
    ("lead", {"ops": [{"op": "block", "task": "Deploy", "reason": "no credentials"}]}),
    ("lead", {"ops": [{"op": "drop", "task": "Docs"}]}),
]


def entry(content: str, priority: str, status: str) -> dict[str, str]:
    return {"content": content, "priority": priority, "status": status}


def sdk_roundtrip(update: dict[str, Any]) -> dict[str, Any]:
    """The update as a client reads it: through the SDK's SessionNotification, dumped back."""
    note = schema.SessionNotification.model_validate({"sessionId": "s", "update": update})
    dumped: dict[str, Any] = note.model_dump(mode="json", by_alias=True, exclude_none=True)["update"]
    return dumped


class Recorder:
    """An agent-side connection stand-in that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.sent.append((session_id, update))


class TestPlanUpdate:
    """plan_update renders phases as the update object of session/update."""

    def test_stable_form(self) -> None:
        """Without plan_id the result is the stable plan update with three-key entries."""
        phases = phasetodo.todo_write({"ops": [PLAN, {"op": "start"}]})["details"]["phases"]
        assert plan_update(phases) == {
            "sessionUpdate": "plan",
            "entries": [
                entry("Parser", "high", "in_progress"),
                entry("Lexer", "high", "pending"),
                entry("Docs", "medium", "pending"),
                entry("Deploy", "medium", "pending"),
                entry("Blog post", "low", "pending"),
            ],
        }

    def test_items_form(self) -> None:
        """With plan_id the result is a plan_update of type items carrying that id."""
        phases = [{"name": "A", "tasks": [{"content": "x", "status": "completed"}]}]
        assert plan_update(phases, plan_id="main") == {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "main", "entries": [entry("x", "high", "completed")]},
        }

    def test_values_and_dicts_agree(self) -> None:
        """Phase values and details.phases dicts give the same update."""
        phases = phasetodo.todo_write({"ops": [PLAN, {"op": "start"}]})["details"]["phases"]
        assert plan_update(phasetodo.load_phases(phases)) == plan_update(phases)
        assert plan_update(phasetodo.dump_phases(phasetodo.load_phases(phases))) == plan_update(phases)

    def test_empty_plan(self) -> None:
        """No phases is an empty plan, which clears the client's panel."""
        assert plan_update([]) == {"sessionUpdate": "plan", "entries": []}

    def test_bad_phases(self) -> None:
        """Malformed phases raise InvalidPhases naming the place."""
        with pytest.raises(InvalidPhases, match=r"\[0\]"):
            plan_update([{"name": "A", "tasks": [{"content": "x", "status": "done"}]}])

    @pytest.mark.parametrize("plan_id", ["", 3])
    def test_bad_plan_id(self, plan_id: Any) -> None:
        """A plan_id must be a non-empty string."""
        with pytest.raises(InvalidOptionType, match="plan_id"):
            plan_update([], plan_id=plan_id)


class TestStatusMapping:
    """Each phasetodo status maps to one ACP status; closed and blocked tasks never look open."""

    @pytest.mark.parametrize(
        ("task", "content", "status"),
        [
            (Task("t", Status.PENDING), "t", "pending"),
            (Task("t", Status.IN_PROGRESS), "t", "in_progress"),
            (Task("t", Status.COMPLETED), "t", "completed"),
            (Task("t", Status.ABANDONED), "[abandoned] t", "completed"),
            (Task("t", Status.BLOCKED, reason="waiting on CI"), "[blocked: waiting on CI] t", "completed"),
            (Task("t", Status.BLOCKED), "[blocked] t", "completed"),
        ],
    )
    def test_mapping(self, task: Task, content: str, status: str) -> None:
        """The documented table: status and content prefix."""
        assert plan_update([Phase("P", (task,))])["entries"] == [entry(content, "high", status)]

    def test_every_status_is_mapped(self) -> None:
        """STATUS_MAP covers every Status, and only ACP's three statuses appear."""
        assert set(STATUS_MAP) == set(Status)
        assert {shown for shown, _ in STATUS_MAP.values()} == {"pending", "in_progress", "completed"}

    @given(testing.phases(status=testing.statuses(allowed=list(Status))))
    @settings(max_examples=examples(200))
    def test_closed_never_open(self, phases: tuple[Phase, ...]) -> None:
        """Abandoned and blocked tasks are never pending or in_progress; open tasks keep their content."""
        entries = plan_update(phases)["entries"]
        tasks = [t for p in phases for t in p.tasks]
        assert len(entries) == len(tasks)
        for task, item in zip(tasks, entries, strict=True):
            if task.status in (Status.ABANDONED, Status.BLOCKED):
                assert item["status"] == "completed"
                assert item["content"].startswith("[")
                assert item["content"].endswith("] " + task.content)
            else:
                assert item["status"] == task.status.value
                assert item["content"] == task.content


class TestPriority:
    """Priorities come from phase order or from the host."""

    def test_phase_order(self) -> None:
        """First phase high, second medium, every later one low."""
        phases = [Phase(f"P{i}", (Task(f"t{i}"),)) for i in range(5)]
        got = [e["priority"] for e in plan_update(phases)["entries"]]
        assert got == ["high", "medium", "low", "low", "low"]

    def test_host_callable(self) -> None:
        """A host callable gets (phase, task, phase index) and chooses."""
        seen: list[tuple[str, str, int]] = []

        def rule(phase: Phase, task: Task, index: int) -> str:
            seen.append((phase.name, task.content, index))
            return "low" if task.content == "Lexer" else "high"

        phases = phasetodo.todo_write({"ops": [PLAN]})["details"]["phases"]
        got = [e["priority"] for e in plan_update(phases, priority=rule)["entries"]]
        assert got == ["high", "low", "high", "high", "high"]
        assert seen[:3] == [("Build", "Parser", 0), ("Build", "Lexer", 0), ("Ship", "Docs", 1)]

    def test_host_returns_nonsense(self) -> None:
        """A priority outside high/medium/low is an InvalidOption naming the task."""
        with pytest.raises(InvalidOption, match=r"'urgent'.*'t'"):
            plan_update([Phase("P", (Task("t"),))], priority=lambda p, t, i: "urgent")

    def test_not_callable(self) -> None:
        """A priority that is not callable is refused."""
        with pytest.raises(InvalidOptionType, match="priority"):
            plan_update([], priority="high")  # type: ignore[arg-type]


class TestSdkValidation:
    """Every result validates with the SDK's own models and reads back whole."""

    @given(
        testing.phases(status=testing.statuses(allowed=list(Status)), duplicates=True),
        st.none() | st.text(min_size=1, max_size=8),
    )
    @settings(max_examples=examples(200))
    def test_any_plan_validates(self, phases: tuple[Phase, ...], plan_id: str | None) -> None:
        """The SessionNotification model takes the update and dumps back the same data."""
        update = plan_update(phases, plan_id=plan_id)
        assert sdk_roundtrip(update) == update
        model = validate_update(update)
        expected = schema.AgentPlanUpdate if plan_id is None else schema.AgentPlanContentUpdate
        assert isinstance(model, expected)

    def test_models_directly(self) -> None:
        """The SDK's AgentPlanUpdate, PlanUpdateItems and PlanEntry take the parts."""
        phases = phasetodo.todo_write({"ops": [PLAN, {"op": "start"}]})["details"]["phases"]
        stable = schema.AgentPlanUpdate.model_validate(plan_update(phases))
        assert [e.content for e in stable.entries] == ["Parser", "Lexer", "Docs", "Deploy", "Blog post"]
        items = plan_update(phases, plan_id="p")["plan"]
        assert schema.PlanUpdateItems.model_validate(items).plan_id == "p"
        assert all(isinstance(e, schema.PlanEntry) for e in stable.entries)

    def test_validate_refuses_dropped_entries(self) -> None:
        """validate_update refuses an update the SDK would read with entries missing."""
        bad = {"sessionUpdate": "plan", "entries": [entry("x", "urgent", "pending")]}
        with pytest.raises(InvalidOption, match="dropped"):
            validate_update(bad)

    def test_validate_refuses_other_updates(self) -> None:
        """validate_update refuses updates that are not plans."""
        with pytest.raises(InvalidOption):
            validate_update({"sessionUpdate": "agent_message_chunk", "content": acp.text_block("x")})
        with pytest.raises(InvalidOption):
            validate_update({"sessionUpdate": "plan"})


def team_handles(store: Any, session_id: str) -> dict[str, phasetodo.Session]:
    """One team handle per agent of TEAM_WRITES."""
    agents = ("lead", "w1", "w2")
    return {a: phasetodo.Session.open(session_id, store=store, profile="team", agent=a) for a in agents}


def team_expected() -> list[dict[str, Any]]:
    """The update after each of TEAM_WRITES, computed on a memory store."""
    store = phasetodo.MemoryStore()
    handles = team_handles(store, "p")
    out = [plan_update([])]
    for agent, params in TEAM_WRITES:
        result = handles[agent].todo_write(params)
        assert not result.get("isError"), result
        out.append(plan_update(result["details"]["phases"]))
    return out


@pytest.mark.slow  # writer threads and a live feed
class TestStreamPlan:
    """stream_plan follows a session's feed and sends one update per change."""

    def test_follows_many_writers(self, tmp_path: Path) -> None:
        """Writes by several agents and a person's edit reach the connection in version order."""
        store = phasetodo.JsonlStore(tmp_path / "logs")
        watcher = phasetodo.Session.open("plan", store=store, profile="team")
        handles = team_handles(store, "plan")
        person = phasetodo.Session.open("plan", store=store, profile="team")
        recorder = Recorder()
        versions: list[int] = []

        async def main() -> int:
            stream = asyncio.create_task(
                stream_plan(watcher, recorder, "acp-1", timeout=2.0, sent=versions.append)
            )
            await asyncio.sleep(0.05)
            for agent, params in TEAM_WRITES:
                await asyncio.to_thread(handles[agent].todo_write, params)
            edited = phasetodo.dump_phases(person.phases)
            edited[2]["tasks"].append({"content": "Changelog", "status": "pending"})
            await asyncio.to_thread(person.user_edit, edited)
            return await stream

        count = asyncio.run(main())
        expected = [*team_expected(), plan_update(person.phases)]
        assert count == len(expected) == 8
        assert [sid for sid, _ in recorder.sent] == ["acp-1"] * 8
        assert [sdk_dump(u) for _, u in recorder.sent] == expected
        assert versions == list(range(8))
        assert recorder.sent[-1][1].entries[-1].content == "Changelog"
        for session in (watcher, person, *handles.values()):
            session.close()
        store.close()

    def test_initial_is_current_plan(self, tmp_path: Path) -> None:
        """A stream opened on a plan with history starts with the plan as it is."""
        store = phasetodo.JsonlStore(tmp_path / "logs")
        writer = phasetodo.Session.open("plan", store=store)
        writer.todo_write({"ops": [PLAN]})
        writer.todo_write({"ops": [{"op": "start"}]})
        recorder = Recorder()
        count = asyncio.run(stream_plan(writer, recorder, "s", plan_id="main", timeout=0.3))
        assert count == 1
        assert sdk_dump(recorder.sent[0][1]) == plan_update(writer.phases, plan_id="main")
        writer.close()
        store.close()

    def test_unchanged_plan_sends_nothing(self, tmp_path: Path) -> None:
        """A note changes the log but not the rendered plan: no update, but sent() still hears of it."""
        store = phasetodo.JsonlStore(tmp_path / "logs")
        writer = phasetodo.Session.open("plan", store=store)
        recorder = Recorder()
        versions: list[int] = []

        async def main() -> int:
            stream = asyncio.create_task(
                stream_plan(writer, recorder, "s", initial=False, timeout=1.0, sent=versions.append)
            )
            await asyncio.sleep(0.05)
            await asyncio.to_thread(writer.todo_write, {"ops": [PLAN]})
            note = {"op": "note", "task": "Lexer", "text": "x"}
            await asyncio.to_thread(writer.todo_write, {"ops": [note]})
            return await stream

        assert asyncio.run(main()) == 1
        assert versions == [1, 2]
        writer.close()
        store.close()


class TestClientCapabilities:
    """The newer form goes only to a client that advertised the plan capability."""

    def test_what_the_sdk_says(self) -> None:
        """ClientCapabilities (model or JSON) without plan: no; with plan {}: yes."""
        assert not supports_plan_update(schema.ClientCapabilities())
        assert supports_plan_update(schema.ClientCapabilities(plan=schema.PlanCapabilities()))
        assert not supports_plan_update({"fs": {}, "plan": None})
        assert supports_plan_update({"plan": {}})
        with pytest.raises(InvalidOptionType, match="capabilities"):
            supports_plan_update(3)  # type: ignore[arg-type]

    def test_refused_before_anything_is_sent(self) -> None:
        """plan_id to a client without the plan capability raises InvalidOption and sends nothing."""
        session = phasetodo.Session.open("plan", store=phasetodo.MemoryStore())
        recorder = Recorder()
        with pytest.raises(InvalidOption, match="'plan' capability"):
            asyncio.run(
                stream_plan(session, recorder, "s", plan_id="p", capabilities=schema.ClientCapabilities())
            )
        assert recorder.sent == []

    def test_stable_form_goes_to_any_client(self) -> None:
        """Without plan_id the capabilities do not matter: the stable form is sent."""
        session = phasetodo.Session.open("plan", store=phasetodo.MemoryStore())
        recorder = Recorder()
        caps = schema.ClientCapabilities()
        assert asyncio.run(stream_plan(session, recorder, "s", capabilities=caps, timeout=0.05)) == 1
        assert sdk_dump(recorder.sent[0][1]) == plan_update([])


def sdk_dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


AGENT = '''
import asyncio, json, sys
import acp
from acp import schema
import phasetodo
from phasetodo.integrations.acp import stream_plan

STORE, WRITES, PLAN_ID = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] or None


class ScriptedAgent:
    """Writes a team plan through phasetodo and streams it to the client."""

    def on_connect(self, conn):
        self.conn = conn

    async def initialize(self, protocol_version, client_capabilities=None, client_info=None, **kw):
        self.capabilities = client_capabilities  # what the client advertised, as the SDK read it
        return schema.InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd, mcp_servers=None, **kw):
        return schema.NewSessionResponse(session_id="acp-7")

    async def prompt(self, session_id, prompt, **kw):
        store = phasetodo.JsonlStore(STORE)
        watcher = phasetodo.Session.open("plan", store=store, profile="team")
        agents = {a: phasetodo.Session.open("plan", store=store, profile="team", agent=a)
                  for a in ("lead", "w1", "w2")}
        seen, caught_up, started = [0], asyncio.Event(), asyncio.Event()
        target = [None]

        def sent(version):
            seen[0] = version
            started.set()
            if target[0] is not None and version >= target[0]:
                caught_up.set()

        stream = asyncio.create_task(stream_plan(
            watcher, self.conn, session_id, plan_id=PLAN_ID, sent=sent, capabilities=self.capabilities
        ))
        # the empty plan goes first: write only once the stream has sent it, or the first
        # write could land before the stream reads where it starts, and be its first update
        waiting = asyncio.ensure_future(started.wait())
        await asyncio.wait([stream, waiting], timeout=20, return_when=asyncio.FIRST_COMPLETED)
        if stream.done():
            stream.result()  # it refused (the client lacks the plan capability): the prompt fails
        for agent, params in WRITES:
            await asyncio.to_thread(agents[agent].todo_write, params)
        target[0] = watcher.version
        if seen[0] >= target[0]:
            caught_up.set()
        await asyncio.wait_for(caught_up.wait(), 20)
        stream.cancel()
        return schema.PromptResponse(stop_reason="end_turn")


asyncio.run(acp.run_agent(ScriptedAgent()))
'''


class Editor:
    """The client side: keeps every session/update it receives, in order."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the scripted agent asks for nothing")


@pytest.mark.slow
class TestStdioEndToEnd:
    """A real ACP agent in a child process streams to a real ACP client over stdio."""

    @staticmethod
    def run_editor(tmp_path: Path, editor: Editor, plan_id: str | None, *, advertise: bool) -> Any:
        """Spawn the scripted agent, initialize (advertising the plan capability or not) and prompt."""
        script = tmp_path / "agent.py"
        script.write_text(textwrap.dedent(AGENT), encoding="utf-8")

        async def main() -> Any:
            async with acp.spawn_agent_process(
                editor, sys.executable, str(script),
                str(tmp_path / "logs"), json.dumps(TEAM_WRITES), plan_id or "",
                env={"PYTHONPATH": str(SRC)},
            ) as (conn, _process):
                caps = schema.ClientCapabilities(plan=schema.PlanCapabilities() if advertise else None)
                await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
                session = await conn.new_session(cwd=str(tmp_path))
                return await asyncio.wait_for(
                    conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")]), 60
                )

        return asyncio.run(main())

    @pytest.mark.parametrize("plan_id", [None, "team-plan"])
    def test_client_receives_each_update_in_order(self, tmp_path: Path, plan_id: str | None) -> None:
        """Each write by the scripted agents arrives as one update, in order, with matching entries."""
        editor = Editor()
        # the newer form needs the plan capability, which the agent checks with what initialize got
        reply = self.run_editor(tmp_path, editor, plan_id, advertise=plan_id is not None)
        assert reply.stop_reason == "end_turn"
        expected = team_expected()
        if plan_id is not None:
            expected = [
                {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": plan_id, **u}}
                for u in ({"entries": e["entries"]} for e in expected)
            ]
        assert [sid for sid, _ in editor.updates] == ["acp-7"] * len(expected)
        assert [sdk_dump(u) for _, u in editor.updates] == expected
        last = sdk_dump(editor.updates[-1][1])
        entries = last["entries"] if plan_id is None else last["plan"]["entries"]
        assert entries[2:4] == [
            entry("[abandoned] Docs", "medium", "completed"),
            entry("[blocked: no credentials] Deploy", "medium", "completed"),
        ]


    def test_newer_form_refused_to_a_client_without_the_capability(self, tmp_path: Path) -> None:
        """A client that did not advertise plan gets no plan_update: the agent's prompt fails, naming it."""
        editor = Editor()
        with pytest.raises(acp.RequestError) as caught:
            self.run_editor(tmp_path, editor, "team-plan", advertise=False)
        assert "'plan' capability" in str(caught.value.data)
        assert editor.updates == []


class TestOptionalDependency:
    """Without the SDK, plan_update still works and the rest names the [acp] extra."""

    def test_without_sdk(self) -> None:
        """A Python without acp imports the module, renders plans, and gets a clear error from stream_plan."""
        code = textwrap.dedent(
            """
            import asyncio, sys
            sys.modules["acp"] = None
            sys.modules["acp.schema"] = None
            from phasetodo.integrations.acp import plan_update, stream_plan, validate_update
            print(plan_update([{"name": "A", "tasks": [{"content": "x", "status": "pending"}]}])["entries"])
            for call in (lambda: validate_update({}), lambda: asyncio.run(stream_plan(None, None, "s"))):
                try:
                    call()
                except ImportError as error:
                    print(type(error).__name__, error)
            """
        )
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
            env={"PYTHONPATH": str(SRC)}, check=False,
        )
        assert run.returncode == 0, run.stderr
        lines = run.stdout.splitlines()
        assert lines[0] == "[{'content': 'x', 'priority': 'high', 'status': 'pending'}]"
        assert len(lines) == 3
        for line in lines[1:]:
            assert line.startswith("ModuleNotFoundError phasetodo.integrations.acp needs")
            assert line.endswith(install_hint("acp"))
