"""One call pipeline: profiles as values, the typed result, options at every entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import errors, testing
from phasetodo._core import schema
from phasetodo.tool import MemoryState, TodoWriteTool

from ..budget import examples

INIT = {"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Find it", "Patch it"]}]}]}
ONE_BAD = {"ops": [{"op": "done", "task": "Find it"}, {"op": "done", "task": "Nope"}]}
PROFILES = [phasetodo.PARITY, phasetodo.STRICT, phasetodo.TEAM]


def _op_enum(schema: Any) -> list[str]:
    """The op names a parameter schema (plain or in OpenAI strict form) accepts."""
    op = schema["properties"]["ops"]["items"]["properties"]["op"]
    return [name for name in op["enum"] if name is not None]


def _profile_ops(profile: phasetodo.Profile) -> list[str]:
    return _op_enum(profile.schema)


class TestSpecsPerProfile:
    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    @pytest.mark.parametrize("strict", [False, True])
    @pytest.mark.parametrize("api", ["chat", "responses"])
    def test_openai(self, profile: phasetodo.Profile, strict: bool, api: str) -> None:
        """An OpenAI spec offers exactly the ops of the tool's profile, strict mode or not."""
        spec = TodoWriteTool(profile=profile).to_openai(api, strict=strict)  # type: ignore[arg-type]
        function = spec["function"] if api == "chat" else spec
        assert _op_enum(function["parameters"]) == _profile_ops(profile)
        assert function["description"] == profile.description

    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_anthropic(self, profile: phasetodo.Profile) -> None:
        """The Anthropic spec carries the profile's schema and prompt."""
        spec = TodoWriteTool(profile=profile).to_anthropic()
        assert spec["input_schema"] == dict(profile.schema)
        assert spec["description"] == profile.description

    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_mcp(self, profile: phasetodo.Profile) -> None:
        """The MCP definition carries the profile's schema and prompt."""
        spec = TodoWriteTool(profile=profile.name).to_mcp()
        assert spec["inputSchema"] == dict(profile.schema)
        assert spec["description"] == profile.description

    def test_strict_openai_lists_view(self) -> None:
        """The strict tool in OpenAI strict mode lets the model send view (the old bug)."""
        spec = TodoWriteTool(profile="strict").to_openai(strict=True)
        assert "view" in _op_enum(spec["function"]["parameters"])


class TestApplyEveryOp:
    OPS = (
        phasetodo.ops.Init([phasetodo.ops.PhaseItems("Fix", ("a", "b"))]),
        phasetodo.ops.Start("b"),
        phasetodo.ops.Done("b"),
        phasetodo.ops.Drop("a"),
        phasetodo.ops.Note("a", "why"),
        phasetodo.ops.Append("Fix", ("c",)),
        phasetodo.ops.Rm("c"),
        phasetodo.ops.View(),
        phasetodo.ops.View(task="a"),
    )

    @pytest.mark.parametrize("op", OPS, ids=lambda op: f"{op.name}")
    def test_parity_apply_takes_every_op(self, op: Any) -> None:
        """phasetodo.apply accepts each op type, View included (a no-op there)."""
        before = phasetodo.load_phases([{"name": "Fix", "tasks": [{"content": "a", "status": "pending"},
                                                                  {"content": "b", "status": "pending"}]}])
        outcome = phasetodo.apply(before, [op])
        assert isinstance(outcome.phases, tuple)

    def test_view_changes_nothing(self) -> None:
        """A View through phasetodo.apply leaves the list as normalize would."""
        before = phasetodo.load_phases([{"name": "P", "tasks": [{"content": "a", "status": "in_progress"}]}])
        assert phasetodo.apply(before, [phasetodo.ops.View()]) == phasetodo.profiles.Outcome(before)

    @pytest.mark.parametrize("op", OPS, ids=lambda op: f"{op.name}")
    def test_strict_apply_takes_every_op(self, op: Any) -> None:
        """apply_strict accepts each op type too."""
        outcome = phasetodo.profiles.apply_strict((), [self.OPS[0], op])
        assert isinstance(outcome, phasetodo.profiles.StrictOutcome)

    def test_unknown_op_is_our_error(self) -> None:
        """Something that is no op raises InvalidOptionType (a TypeError), not AttributeError."""
        with pytest.raises(phasetodo.errors.InvalidOptionType, match="op:"):
            phasetodo.apply((), [object()])  # type: ignore[list-item]


class TestSessionOptions:
    def test_strict_session_refuses_a_bad_batch(self, tmp_path: Path) -> None:
        """Session.open(profile="strict"): one bad op makes an error result that changes nothing."""
        store = phasetodo.JsonlStore(tmp_path)
        with phasetodo.Session.open("s", store=store, profile="strict") as session:
            session.todo_write(INIT)
            version, phases = session.version, session.phases
            result = session.todo_write(ONE_BAD)
            assert result["isError"] is True
            assert (session.version, session.phases) == (version, phases)
            assert len(list(session.events())) == version

    def test_per_call_profile_overrides(self) -> None:
        """A parity session can run one call in strict."""
        with phasetodo.Session.open("s", store=phasetodo.MemoryStore()) as session:
            session.todo_write(INIT)
            assert session.todo_write(ONE_BAD, profile="strict")["isError"] is True
            assert "isError" not in session.todo_write(ONE_BAD)

    def test_limits_none_turns_limits_off(self) -> None:
        """limits=None on a session lets a call past the default limits through."""
        long = "x" * (phasetodo.DEFAULT_LIMITS.max_content + 1)
        params = {"ops": [{"op": "init", "list": [{"phase": "P", "items": [long]}]}]}
        with (
            phasetodo.Session.open("a", store=phasetodo.MemoryStore()) as session,
            pytest.raises(phasetodo.InvalidParams, match="max_content"),
        ):
            session.todo_write(params)
        with phasetodo.Session.open("b", store=phasetodo.MemoryStore(), limits=None) as session:
            session.todo_write(params)
            assert session.phases[0].tasks[0].content == long

    def test_session_limits_apply_to_every_call(self) -> None:
        """Limits given to Session.open bind each call; a call may give its own."""
        with phasetodo.Session.open("s", store=phasetodo.MemoryStore(),
                                    limits=phasetodo.Limits(max_tasks=1)) as session:
            with pytest.raises(phasetodo.InvalidParams, match="max_tasks"):
                session.todo_write(INIT)
            assert session.version == 0
            session.todo_write(INIT, limits=None)
            assert session.version == 1

    def test_tool_passes_its_options(self) -> None:
        """TodoWriteTool(profile, limits) runs its state's calls with them; dry_run saves nothing."""
        state = MemoryState()
        tool = TodoWriteTool(state, profile="strict", limits=phasetodo.Limits(max_tasks=1))
        assert tool.execute(INIT).is_error
        tool = TodoWriteTool(state, profile="strict", limits=None)
        preview = tool.execute(INIT, dry_run=True)
        assert preview.details["dry_run"] is True
        assert state.phases == ()
        assert not tool.execute(INIT).is_error
        assert tool.execute(ONE_BAD).is_error
        assert [t.status for t in state.phases[0].tasks] == [phasetodo.Status.IN_PROGRESS,
                                                              phasetodo.Status.PENDING]

    def test_memory_state_defaults(self) -> None:
        """MemoryState(profile=...) is the default of its calls."""
        state = MemoryState(profile="strict")
        assert state.todo_write(INIT)["isError"] is False


class TestProfileValues:
    def test_a_new_profile_is_one_value(self) -> None:
        """A user-made profile runs through todo_write, the tool and a session unchanged."""
        def shout(
            outcome: phasetodo.profiles.Outcome, storage: phasetodo.tool.Storage
        ) -> phasetodo.ToolResult:
            result = phasetodo.PARITY.report(outcome, storage)
            return attrs.evolve(result, text=result.text.upper())

        loud = attrs.evolve(phasetodo.PARITY, name="loud", report=shout)
        assert phasetodo.todo_write(INIT, profile=loud)["content"][0]["text"].startswith("REMAINING")
        assert TodoWriteTool(profile=loud).execute(INIT).text.startswith("REMAINING")
        with phasetodo.Session.open("s", store=phasetodo.MemoryStore(), profile=loud) as session:
            assert session.todo_write(INIT)["content"][0]["text"].startswith("REMAINING")

    def test_names_resolve_to_values(self) -> None:
        """Built-in names resolve to the exported values; others raise UnknownProfile."""
        assert phasetodo.profiles.resolve("strict") is phasetodo.STRICT
        assert phasetodo.profiles.resolve(phasetodo.PARITY) is phasetodo.PARITY
        with pytest.raises(phasetodo.errors.UnknownProfile, match="parity, strict"):
            phasetodo.profiles.resolve("team-x")

    def test_typed_result(self) -> None:
        """phasetodo.tool.call gives the typed result; its JSON is todo_write's dict."""
        result = phasetodo.tool.call(INIT)
        assert result.phases[0].name == "Fix"
        assert result.errors == ()
        assert not result.is_error
        assert result.to_json() == phasetodo.todo_write(INIT)


class TestPhasesArgument:
    @pytest.mark.parametrize("phases", [5, 1.5, True, object(), {}, "", set(), b"x"], ids=repr)
    def test_not_a_list(self, phases: object) -> None:
        """todo_write with phases that are not a list raises InvalidPhases."""
        with pytest.raises(phasetodo.InvalidPhases, match="phases"):
            phasetodo.todo_write(INIT, phases)  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        "phase",
        [phasetodo.Phase(5),  # type: ignore[arg-type]
         phasetodo.Phase("P", (phasetodo.Task(7),)),  # type: ignore[arg-type]
         phasetodo.Phase("P", ("a",)),  # type: ignore[arg-type]
         phasetodo.Phase("P", (phasetodo.Task("a", notes=(1,)),))],  # type: ignore[arg-type]
        ids=["name", "content", "task", "notes"],
    )
    def test_phase_with_wrong_field_types(self, phase: phasetodo.Phase) -> None:
        """A Phase value with wrong field types raises InvalidPhases naming the place."""
        with pytest.raises(phasetodo.InvalidPhases, match=r"phases\[0\]"):
            phasetodo.todo_write(INIT, [phase])


class TestErrorsModule:
    def test_every_exception_is_ours(self) -> None:
        """Every exception and warning class in phasetodo.errors is a PhasetodoError."""
        found = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, BaseException)]
        assert len(found) > 10
        assert all(issubclass(cls, phasetodo.PhasetodoError) for cls in found)

    def test_option_errors_keep_builtin_bases(self) -> None:
        """Bad options raise our classes, still catchable as ValueError / TypeError."""
        with pytest.raises(ValueError, match="resume"):
            phasetodo.Session.open("s", store=phasetodo.MemoryStore(), resume="x")  # type: ignore[arg-type]
        with pytest.raises(phasetodo.errors.InvalidOptionType, match="clear_delay"):
            phasetodo.Session.open("s", store=phasetodo.MemoryStore(), clear_delay="1")  # type: ignore[arg-type]
        with pytest.raises(phasetodo.errors.InvalidOption, match="on_corrupt"):
            phasetodo.JsonlStore(".", on_corrupt="x")  # type: ignore[arg-type]


@pytest.mark.slow
class TestCommand:
    def _run(self, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
        store = str(tmp_path / "todo.db")
        command = [sys.executable, "-m", "phasetodo.cli", "--store", f"sqlite:{store}", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)

    def test_apply_profile_strict(self, tmp_path: Path) -> None:
        """apply --profile strict refuses a batch with a bad op: exit 1, isError, nothing saved."""
        assert self._run(tmp_path, "apply", json.dumps(INIT)).returncode == 0
        done = self._run(tmp_path, "apply", "--profile", "strict", "--json", json.dumps(ONE_BAD))
        assert done.returncode == 1
        assert json.loads(done.stdout)["isError"] is True
        shown = self._run(tmp_path, "show", "--json")
        assert "completed" not in shown.stdout

    def test_apply_op_errors_exit_1(self, tmp_path: Path) -> None:
        """A parity call with op errors exits 1 (found from the result, not its text)."""
        self._run(tmp_path, "apply", json.dumps(INIT))
        assert self._run(tmp_path, "apply", json.dumps(ONE_BAD)).returncode == 1


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4) | st.binary(max_size=2),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        st.sampled_from(["ops", "op", "task", "phase", "items", "list", "text", "x"]), inner, max_size=4
    )
    | st.dictionaries(st.just("op"), st.sampled_from([*phasetodo.ops.OPS, "view", "pending"])),
    max_leaves=14,
)


class TestOneTruthPerCheck:
    @settings(max_examples=examples(400))
    @given(st.one_of(_values, testing.params(valid=None), testing.params(valid=None, extras=True)))
    def test_schema_paths_agree(self, params: object) -> None:
        """The compiled validator and the problem lister agree, on every profile's schema."""
        assert schema.is_valid(params) == (schema.problems(params) == [])
        strict_problems = schema.problems(params, schema.STRICT_PARAMS_SCHEMA)
        assert schema.is_valid_strict(params) == (strict_problems == [])

    @settings(max_examples=examples(300))
    @given(
        st.lists(testing.ops(), max_size=4),
        st.builds(
            phasetodo.Limits,
            max_ops=st.integers(1, 5),
            max_content=st.integers(1, 12),
            max_name=st.integers(1, 12),
            max_note=st.integers(1, 12),
            max_payload=st.integers(1, 60),
        ),
    )
    def test_limit_paths_agree(self, ops: list[phasetodo.ops.Op], limits: phasetodo.Limits) -> None:
        """The quick limit pass rejects exactly the calls the full pass finds problems in."""
        found: list[str] = []
        total = sum(limits._check_op(op, index, found) for index, op in enumerate(ops))
        if total > limits.max_payload or len(ops) > limits.max_ops:
            found.append("over")
        quick = limits._scan(ops) if len(ops) <= limits.max_ops else -1
        assert (quick == -1) == bool(found)
