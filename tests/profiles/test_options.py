"""Options: one frozen value of a call's options, set on a session or tool and overridden per call."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import phasetodo
from phasetodo import DEFAULT_LIMITS, InvalidParams, Limits
from phasetodo.errors import InvalidOption, UnknownProfile
from phasetodo.tool import UNSET, MemoryState, Options, TodoWriteTool, call

INIT: dict[str, Any] = {"ops": [{"op": "init", "list": [{"phase": "Build", "items": ["A", "B"]}]}]}
MORE: dict[str, Any] = {"ops": [{"op": "append", "phase": "Build", "items": ["C", "D"]}]}
TIGHT = Limits(max_tasks=3)


def open_session(**options: Any) -> phasetodo.Session:
    """A session in a fresh memory store."""
    return phasetodo.Session.open("s", phasetodo.MemoryStore(), **options)


class TestValue:
    """The value itself."""

    def test_defaults(self) -> None:
        """The defaults are parity, the default limits, no dry run, nobody, memory."""
        options = Options()
        assert options.profile is phasetodo.PARITY
        assert options.limits is DEFAULT_LIMITS
        assert (options.dry_run, options.agent, options.lead, options.scope) == (False, None, None, None)
        assert options.storage == "memory"

    def test_frozen(self) -> None:
        """Its fields cannot be assigned."""
        options = Options()
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            options.limits = None  # type: ignore[misc]

    def test_profile_names_resolve(self) -> None:
        """A profile name becomes the profile; an unknown one is refused."""
        assert Options("strict").profile is phasetodo.STRICT
        with pytest.raises(UnknownProfile):
            Options("nope")

    def test_override_is_a_copy(self) -> None:
        """override returns a new value and leaves the original as it was."""
        base = Options()
        changed = base.override(profile="strict", limits=None, dry_run=True)
        assert (changed.profile, changed.limits, changed.dry_run) == (phasetodo.STRICT, None, True)
        assert base == Options()

    def test_unset_keeps(self) -> None:
        """UNSET (and profile=None) keep the value's own; no change gives the same value."""
        base = Options("strict", TIGHT, agent="a")
        assert base.override(profile=None, limits=UNSET, dry_run=UNSET, agent=UNSET) is base
        assert repr(UNSET) == "UNSET"

    def test_none_is_a_value(self) -> None:
        """limits=None and agent=None override: None is not "not given"."""
        changed = Options(limits=TIGHT, agent="a").override(limits=None, agent=None)
        assert (changed.limits, changed.agent) == (None, None)


class TestPerCall:
    """Overrides apply to one call only."""

    def test_memory_state(self) -> None:
        """A per-call profile or limits leaves the state's options as they were."""
        state = MemoryState(limits=TIGHT)
        state.write(INIT)
        state.write(MORE, limits=None)
        assert state.options == Options(limits=TIGHT)
        with pytest.raises(InvalidParams):
            state.write({"ops": [{"op": "append", "phase": "Build", "items": ["E"]}]})

    def test_session(self) -> None:
        """A session's dry run, profile and limits per call do not stay."""
        with open_session(limits=TIGHT) as session:
            session.todo_write(INIT, dry_run=True)
            assert session.version == 0
            session.todo_write(INIT)
            session.todo_write(MORE, limits=None, profile="strict")
            assert session.options.limits is TIGHT
            assert session.options.profile is phasetodo.PARITY
            assert not session.options.dry_run

    def test_unknown_keyword(self) -> None:
        """A per-call keyword other than profile, limits and dry_run is a TypeError, as before."""
        with pytest.raises(TypeError, match="agent"):
            MemoryState().write(INIT, agent="x")  # type: ignore[call-arg]
        with open_session() as session, pytest.raises(TypeError, match="limts"):
            session.todo_write(INIT, limts=None)  # type: ignore[call-arg]

    def test_call(self) -> None:
        """tool.call takes options and per-call overrides of them."""
        result = call(INIT, (), Options(dry_run=True), profile="strict")
        assert result.details.get("diff") is not None
        with pytest.raises(InvalidParams):
            call(MORE, result.phases, Options(limits=Limits(max_tasks=2)))


class TestSessionDefaults:
    """A session's options are the default of every call."""

    def test_open_with_options(self) -> None:
        """Session.open(options=...) gives profile, limits, dry run and agent at once."""
        with open_session(options=Options("strict", TIGHT, agent="bot")) as session:
            assert (session.profile, session.limits, session.agent) == (phasetodo.STRICT, TIGHT, "bot")
            assert session.options.storage == session.storage
            session.todo_write(INIT)
            with pytest.raises(InvalidParams):
                session.todo_write(MORE)
            assert session.owner == "bot"

    def test_dry_run_default(self) -> None:
        """A session made with dry_run=True saves nothing unless a call says dry_run=False."""
        with open_session(options=Options(dry_run=True)) as session:
            assert "diff" in session.todo_write(INIT)["details"]
            assert session.version == 0
            session.todo_write(INIT, dry_run=False)
            assert session.version == 1

    def test_options_beside_keywords(self) -> None:
        """options= together with profile, limits or agent is refused."""
        with pytest.raises(InvalidOption):
            open_session(options=Options(), limits=None)

    def test_tool_on_session(self) -> None:
        """A tool with no limits of its own uses the session's; its own override them."""
        with open_session(limits=TIGHT) as session:
            TodoWriteTool(session).execute(INIT)
            assert TodoWriteTool(session).execute(MORE).is_error
            assert not TodoWriteTool(session, limits=None).execute(MORE).is_error


class TestOneValueEverywhere:
    """todo_write, MemoryState and TodoWriteTool take options= as Session.open does."""

    def test_todo_write(self) -> None:
        """todo_write(options=...) runs the call with that value's profile, limits and storage."""
        with pytest.raises(InvalidParams):
            phasetodo.todo_write(INIT, options=Options(limits=Limits(max_tasks=1)))
        result = phasetodo.todo_write(INIT, options=Options(storage="jsonl"))
        assert result["details"]["storage"] == "jsonl"
        strict = phasetodo.todo_write({"ops": [{"op": "done", "task": "nope"}]}, options=Options("strict"))
        assert strict["isError"] is True

    def test_todo_write_dry_run(self) -> None:
        """A dry run given in options says what would change."""
        assert "diff" in phasetodo.todo_write(INIT, options=Options(dry_run=True))["details"]

    def test_memory_state(self) -> None:
        """MemoryState(options=...) holds the value as its calls' defaults."""
        chosen = Options("strict", TIGHT, agent="bot")
        state = MemoryState(options=chosen)
        assert state.options is chosen
        state.write(INIT)
        with pytest.raises(InvalidParams):
            state.write(MORE)

    def test_tool(self) -> None:
        """TodoWriteTool(options=...) takes its profile and limits from the value."""
        tool = TodoWriteTool(options=Options("strict", TIGHT))
        assert tool.profile is phasetodo.STRICT
        tool.execute(INIT)
        assert tool.execute(MORE).is_error

    @pytest.mark.parametrize(
        "make",
        [
            lambda: phasetodo.todo_write(INIT, options=Options(), profile="strict"),
            lambda: MemoryState(options=Options(), limits=None),
            lambda: TodoWriteTool(options=Options(), agent="bot"),
        ],
    )
    def test_not_beside_keywords(self, make: Any) -> None:
        """options= together with the loose keywords is refused, as in Session.open."""
        with pytest.raises(InvalidOption, match="options"):
            make()


class TestNoLimits:
    """limits=None still means no limits, everywhere."""

    def test_todo_write(self) -> None:
        """phasetodo.todo_write(limits=None) takes a call over the default limits."""
        many = {"ops": [{"op": "init", "list": [{"phase": "P", "items": [str(i) for i in range(20)]}]}]}
        with pytest.raises(InvalidParams):
            phasetodo.todo_write(many, limits=Limits(max_tasks=10))
        assert len(phasetodo.todo_write(many, limits=None)["details"]["phases"][0]["tasks"]) == 20

    def test_session_and_state(self) -> None:
        """A session or state made with limits=None checks nothing; a call may add limits."""
        with open_session(limits=None) as session:
            assert session.limits is None
            session.todo_write(INIT)
            with pytest.raises(InvalidParams):
                session.todo_write(MORE, limits=TIGHT)
        state = MemoryState(limits=None)
        state.write(INIT)
        state.write(MORE)
        assert len(state.phases[0].tasks) == 4


class TestParse:
    """``parse`` is the half of a call that needs no list: what a session does before its lock."""

    def test_parse_then_run_is_run(self) -> None:
        """A parsed call applied to a list gives what ``run`` gives, and may be applied again."""
        options = Options()
        parsed = options.parse(MORE)
        first = options.run(INIT).phases
        assert parsed.run(first).to_json() == options.run(MORE, first).to_json()
        assert parsed.run(first).to_json() == parsed.run(first).to_json()

    def test_apply_then_report_is_run(self) -> None:
        """The two halves of ``run`` (what a session does under its lock, then after it) give
        what ``run`` gives; the limits are checked by the first."""
        options = Options()
        parsed = options.parse(MORE)
        first = options.run(INIT).phases
        assert parsed.report(parsed.apply(first), first).to_json() == parsed.run(first).to_json()
        with pytest.raises(InvalidParams):
            Options(limits=TIGHT).parse(MORE).apply(first)

    def test_bad_arguments_are_refused_with_no_list(self) -> None:
        """Arguments the schema refuses raise when parsed, naming the field."""
        with pytest.raises(InvalidParams, match=r"ops\[0\]"):
            Options().parse({"ops": [{"op": "fly"}]})

    def test_a_list_grown_past_the_limits_is_refused_when_run(self) -> None:
        """Ops that fit the limits parse; the list they would grow past them is refused on run."""
        tight = Options(limits=TIGHT)
        parsed = tight.parse(MORE)
        with pytest.raises(InvalidParams):
            parsed.run(tight.run(INIT).phases)

    def test_an_invalid_write_never_takes_the_lock(self, tmp_path: Any) -> None:
        """A session refuses bad arguments before it locks (or creates) its log."""
        store = phasetodo.JsonlStore(tmp_path)
        with phasetodo.Session.open("s", store) as session, pytest.raises(InvalidParams):
            session.write({"ops": [{"op": "fly"}]})
        assert not (tmp_path / "s.jsonl").exists()
