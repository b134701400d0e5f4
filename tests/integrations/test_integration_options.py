"""What every integration shares: one Options for its tool, and the extra's error."""

from __future__ import annotations

import pytest

import phasetodo
from phasetodo import MemoryStore, Session
from phasetodo.errors import InvalidOption, install_hint
from phasetodo.integrations._extras import needs_extra
from phasetodo.integrations._options import chosen, make_tool
from phasetodo.tool import UNSET, MemoryState, Options


class TestChosen:
    def test_nothing_given_keeps_the_tools_defaults(self) -> None:
        """No options: the tool runs parity with the state's own limits (UNSET)."""
        state = MemoryState(limits=None)
        assert chosen(None) is None
        tool = make_tool(state, None)
        assert (tool.profile, tool.limits, tool.session) == (phasetodo.PARITY, UNSET, state)

    def test_options_are_taken_as_they_are(self) -> None:
        """Options given are the tool's: its profile and limits."""
        options = Options(profile="strict", limits=None)
        assert chosen(options) is options
        tool = make_tool(None, options, phases=[{"name": "P", "tasks": []}])
        assert (tool.profile, tool.limits, tool.phases[0].name) == (phasetodo.STRICT, None, "P")

    @pytest.mark.parametrize(("field", "value"), [("dry_run", True), ("lead", "ann"), ("scope", "P")])
    def test_a_sessions_own_option_is_refused(self, field: str, value: object) -> None:
        """A dry run, a plan's lead or a scope belongs to the session, not to an integration's tool."""
        with pytest.raises(InvalidOption, match=rf"options\.{field}: is the session's"):
            chosen(Options(**{field: value}))

    def test_options_must_be_an_options(self) -> None:
        """Anything but an Options (a dict, say) is refused with its type named."""
        with pytest.raises(InvalidOption, match="options: must be an Options, not dict"):
            chosen({"profile": "strict"})  # type: ignore[arg-type]

    def test_an_agent_writes_to_a_session_call_by_call(self) -> None:
        """An agent other than the session's own writes each call as itself."""
        with Session.open("plan", store=MemoryStore(), profile="team") as session:
            tool = make_tool(session, Options(profile="team", agent="ann"))
            tool.execute({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a"]}]}]})
            tool.execute({"ops": [{"op": "start", "task": "a"}]})
            assert session.phases[0].tasks[0].owner == "ann"


class TestNeedsExtra:
    def test_a_missing_framework_names_the_extra(self) -> None:
        """An import that fails inside the block says which extra to install and keeps the module's name."""
        with pytest.raises(ModuleNotFoundError) as caught, needs_extra("phasetodo.x", "the y package", "y"):
            import phasetodo_no_such_module  # type: ignore[import-not-found]  # noqa: F401
        assert str(caught.value) == f"phasetodo.x needs the y package: {install_hint('y')}"
        assert caught.value.name == "phasetodo_no_such_module"
        assert isinstance(caught.value.__cause__, ModuleNotFoundError)
