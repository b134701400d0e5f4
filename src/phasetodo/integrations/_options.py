"""One :class:`~phasetodo.tool.Options` per integration, and the ``todo_write`` tool made from it.

An integration that makes a tool takes ``options`` (the profile its calls run in,
their limits, the agent that writes) rather than a keyword per option, checks it
with :func:`chosen` and makes its tool with :func:`make_tool`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._core.model import Phase
from .._profiles.options import Options
from .._profiles.result import Storage
from ..errors import InvalidOption
from ..tool import MemoryState, TodoState, TodoTool, TodoWriteTool, ToolResult, tool_class

__all__ = ["chosen", "make_tool"]


#: What a session keeps for itself, not an integration's tool: a dry run, a plan's lead, a scope.
_SESSIONS_OWN = ("dry_run", "lead", "scope")
_DEFAULTS = Options()


def chosen(options: Options | None) -> Options | None:
    """``options`` checked for a tool: an ``Options`` without the session's own settings, or None.

    ``None`` keeps the tool's defaults (parity, the state's own limits).
    """
    if options is None:
        return None
    if not isinstance(options, Options):
        raise InvalidOption(f"options: must be an Options, not {type(options).__name__}")
    for name in _SESSIONS_OWN:
        if getattr(options, name) != getattr(_DEFAULTS, name):
            raise InvalidOption(
                f"options.{name}: is the session's, not a tool's; give it to the session "
                "(Session.open(..., options=...), Session.scoped)"
            )
    return options


def make_tool(
    state: TodoState | None, options: Options | None, *, phases: Iterable[Phase | Mapping[str, Any]] = ()
) -> TodoWriteTool:
    """The ``todo_write`` tool on ``state`` (a new memory list of ``phases`` when ``None``) with ``options``
    (the ``todo`` tool, :class:`~phasetodo.tool.TodoTool`, for the ``todo`` profile).

    ``options.agent`` writes to a memory list, or to a ``Session`` call by call;
    another state must already write as that agent.
    """
    if options is None:
        profile = getattr(state, "profile", "parity")
        if tool_class(profile) is TodoTool:
            return TodoTool(state)
        return TodoWriteTool(state if state is not None else MemoryState(phases))
    agent = options.agent
    if state is None:
        state = MemoryState(phases, profile=options.profile, agent=agent)
    elif agent is not None and agent != getattr(state, "agent", None):
        state = _writing_as(state, agent)
    if tool_class(options.profile) is TodoTool:
        return TodoTool(state, limits=options.limits)
    return TodoWriteTool(state, profile=options.profile, limits=options.limits)


def _writing_as(state: TodoState, agent: str) -> TodoState:
    from ..session import Session

    if not isinstance(state, Session):
        raise InvalidOption(
            f"options.agent: {agent!r} can write call by call to a Session only; give the agent to "
            f"the {type(state).__name__} itself"
        )
    return _AgentState(state, agent)


class _AgentState:
    """A session's state whose writes come from one agent."""

    def __init__(self, session: Any, agent: str) -> None:
        self._session = session
        self._agent = agent

    @property
    def phases(self) -> Sequence[Phase]:
        """The session's list."""
        return self._session.phases  # type: ignore[no-any-return]

    @property
    def storage(self) -> Storage:
        """The session's storage kind."""
        return self._session.storage  # type: ignore[no-any-return]

    @property
    def agent(self) -> str:
        """The agent every write comes from."""
        return self._agent

    @property
    def owner(self) -> str | None:
        """The agent the session belongs to."""
        return getattr(self._session, "owner", None)

    def refresh(self) -> Any:
        """Catch up with the session's log (other writers may have moved it on)."""
        return self._session.refresh()

    def write(self, params: Mapping[str, Any], **given: Any) -> ToolResult:
        """The session's write, as ``agent``."""
        return self._session.write(params, agent=self._agent, **given)  # type: ignore[no-any-return]
