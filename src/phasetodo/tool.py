"""The agent-facing ``todo_write`` call: arguments in, one typed result out.

:func:`todo_write` is the memory-backed call with the reference's dict result;
:class:`TodoWriteTool` is what a host registers (prompt, schema, executor),
keeping its list in a :class:`TodoState`: a durable ``Session`` or a
:class:`MemoryState`. Both run the call through the profile they are given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from ._core.codec import as_phases, dump_phases
from ._core.limits import DEFAULT_LIMITS, Limits
from ._core.model import Phase, value_problems
from ._core.schema import PARAMS_SCHEMA
from ._core.schema import problems as schema_problems
from ._profiles.builtin import ProfileLike, resolve
from ._profiles.options import UNSET, Options, OptionsHolder, Overrides, ParsedCall, PerCall, Unset
from ._profiles.parity import DESCRIPTION, PARITY
from ._profiles.registry import Profile
from ._profiles.result import DetailsJSON, PhaseJSON, ResultJSON, Storage, TaskJSON, ToolResult
from ._specs import Api, anthropic_tool, mcp_tool, openai_tool, strip_nulls
from .errors import InvalidOption, InvalidParams, InvalidPhases

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._profiles.strict import STRICT_NOTE

__all__ = [
    "DESCRIPTION",
    "STRICT_NOTE",
    "UNSET",
    "DetailsJSON",
    "MemoryState",
    "Options",
    "ParsedCall",
    "PerCall",
    "PhaseJSON",
    "ResultJSON",
    "Storage",
    "TaskJSON",
    "TodoState",
    "TodoTool",
    "TodoWriteTool",
    "ToolResult",
    "Unset",
    "call",
    "todo_write",
    "tool_class",
]


def __getattr__(name: str) -> object:
    """``STRICT_NOTE``, read from the strict profile on first use (which ``import phasetodo`` skips)."""
    if name == "STRICT_NOTE":
        from ._profiles.strict import STRICT_NOTE

        return STRICT_NOTE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The options of a call nobody overrides (the defaults of :class:`Options`).
_DEFAULTS = Options()


def call(
    params: object,
    phases: Iterable[Phase] = (),
    options: Options = _DEFAULTS,
    **overrides: Unpack[Overrides],
) -> ToolResult:
    """One call on ``phases`` with ``options``, overridden by ``overrides``: the typed result.

    The overrides are :class:`Options`' fields (``profile="strict"``,
    ``limits=None``, ``agent=...``). Raises :class:`~phasetodo.InvalidParams`
    (nothing applied) when ``params`` break the profile's schema or the limits
    (``None``: no limits). ``agent`` names the writing agent for profiles that
    track one; ``lead`` and ``scope`` are a shared plan's lead and the phase
    the call is limited to.
    """
    chosen = options.override(**overrides) if overrides else options
    return chosen.run(params, phases if isinstance(phases, tuple) else tuple(phases))


def todo_write(
    params: Mapping[str, Any],
    phases: Iterable[Phase | Mapping[str, Any]] | None = None,
    *,
    profile: ProfileLike = "parity",
    dry_run: bool = False,
    limits: Limits | None = DEFAULT_LIMITS,
    agent: str | None = None,
    lead: str | None = None,
    options: Options | None = None,
) -> ResultJSON:
    """One ``todo_write`` call on a memory-backed list.

    ``phases`` is the stored list before the call (JSON dicts or ``Phase``
    values); it is not modified. Returns the tool result as JSON-ready data:
    ``{"content": [{"type": "text", "text": ...}], "details": {"phases", "storage"}}``.
    Raises :class:`~phasetodo.InvalidParams` when ``params`` break the schema
    or ``limits``, before anything is applied.

    ``profile="strict"`` makes the batch all-or-nothing (an error result has
    ``"isError": true`` and the unchanged list); ``dry_run=True`` adds what the
    call would change (``details.diff``) and marks the result as not saved.
    ``profile="team"`` runs the call as ``agent`` (``None``: a person) on a
    plan led by ``lead``. ``options`` gives all of these as one :class:`Options`
    instead (as ``Session.open``, ``TodoWriteTool`` and the integrations take it);
    giving both is an :class:`~phasetodo.errors.InvalidOption`.
    """
    if options is None:
        options = _options(profile, limits, dry_run, agent, lead)
    else:
        _only_options(_named(profile) or dry_run or limits is not DEFAULT_LIMITS or agent or lead)
    return options.run(params, _list_arg(phases, options.profile)).to_json()


#: The options of calls that name only a built-in profile (most calls), made once per name.
_NAMED: dict[str, Options] = {}


def _options(
    profile: ProfileLike, limits: Limits | None, dry_run: bool, agent: str | None, lead: str | None
) -> Options:
    """:func:`todo_write`'s keywords as one :class:`Options`, kept for the common calls."""
    given = dry_run or agent is not None or lead is not None
    if not isinstance(profile, str) or limits is not DEFAULT_LIMITS or given:
        return Options(profile, limits, dry_run, agent, lead)
    found = _NAMED.get(profile)
    if found is None:
        found = _NAMED[profile] = Options(profile)
    return found


def _named(profile: ProfileLike) -> bool:
    """Whether a call names a profile other than the default one (beside ``options``)."""
    return resolve(profile) is not _DEFAULTS.profile


def _only_options(loose: object) -> None:
    """Refuse options given both as one value and as keywords beside it."""
    if loose:
        raise InvalidOption("options: give profile, limits, dry_run and agent in it, not beside it")


def _list_arg(phases: object, profile: Profile) -> Sequence[Phase | Mapping[str, Any]]:
    """``phases`` as :func:`todo_write` hands them to the pipeline: JSON dicts as they are
    for a profile that ``takes_json`` (its working copy reads them once), else values."""
    if profile.takes_json and isinstance(phases, (list, tuple)) and not _all_values(phases):
        return phases
    return _phases_arg(phases, profile)


def _all_values(items: Sequence[object]) -> bool:
    return all(map(isinstance, items, repeat(Phase)))


def _phases_arg(phases: object, profile: Profile = PARITY) -> tuple[Phase, ...]:
    """``phases`` as given to :func:`todo_write`: ``None`` or a list/tuple of phases (JSON in
    ``profile``'s own shape when it reads one: see ``Profile.load``)."""
    if phases is None:
        return ()
    if isinstance(phases, (str, bytes, Mapping)) or not isinstance(phases, (list, tuple)):
        raise InvalidPhases([f"phases: must be a list of phases, not {type(phases).__name__}"])
    if profile.load is not None:
        return profile.load(phases)
    items = tuple(phases)
    if items and _all_values(items):
        found = value_problems(items)
        if found:
            raise InvalidPhases(found)
        return items
    return tuple(as_phases(items))


class TodoState(Protocol):
    """Where a tool's list lives: a durable ``Session`` or a :class:`MemoryState`.

    ``write`` applies one call and returns its :class:`ToolResult` (raising
    ``InvalidParams`` before applying anything); its keywords are
    :class:`PerCall`'s, ``profile``, ``limits`` and ``dry_run``, and those left
    out (``UNSET``; ``profile=None`` too) mean the state's own :class:`Options`.
    ``phases`` is the current list.
    """

    @property
    def phases(self) -> Sequence[Phase]:
        """The current list."""

    @property
    def storage(self) -> Storage:
        """What results report in ``details.storage``."""

    def write(
        self,
        params: Mapping[str, Any],
        **given: Unpack[PerCall],
    ) -> ToolResult:
        """Apply one call; returns its result."""


class MemoryState(OptionsHolder):
    """A list kept in memory only: the state of a tool that has no session.

    ``profile`` and ``limits`` are the defaults of its calls (``limits=None``:
    no limits). ``agent`` is who writes (a team plan's agent, and its lead).
    All of them are held as one :class:`Options`, :attr:`options`; ``options``
    gives that value instead of the keywords (not both).
    """

    def __init__(
        self,
        phases: Iterable[Phase | Mapping[str, Any]] = (),
        *,
        profile: ProfileLike = "parity",
        limits: Limits | None = DEFAULT_LIMITS,
        agent: str | None = None,
        options: Options | None = None,
    ) -> None:
        if options is not None:
            _only_options(_named(profile) or limits is not DEFAULT_LIMITS or agent is not None)
        #: The defaults of every call: profile, limits, and the agent as writer and lead.
        self.options = Options(profile, limits, agent=agent, lead=agent) if options is None else options
        self._phases: tuple[Phase, ...] = _phases_arg(list(phases), self.options.profile)

    @property
    def phases(self) -> tuple[Phase, ...]:
        """The current list."""
        return self._phases

    @property
    def storage(self) -> Storage:
        """Always ``"memory"``."""
        return "memory"

    def write(
        self,
        params: Mapping[str, Any],
        **given: Unpack[PerCall],
    ) -> ToolResult:
        """Apply one call to the list and keep its outcome (not on error or dry run)."""
        options = self.options.per_call(given)
        result = options.run(params, self._phases)
        if not options.dry_run and not result.is_error:
            self._phases = result.phases
        return result

    def todo_write(
        self,
        params: Mapping[str, Any],
        **given: Unpack[PerCall],
    ) -> ResultJSON:
        """:meth:`write`, as the JSON result."""
        return self.write(params, **given).to_json()


def _invalid_text(problems: Sequence[str], called: str = "todo_write") -> str:
    lines = "\n".join(f"- {p}" for p in problems)
    return f"Invalid {called} call; nothing was applied. Fix these and call again:\n{lines}"


class TodoWriteTool:
    """The ``todo_write`` tool an agent host registers: name, prompt, schema, executor.

    State lives in ``session`` (a durable ``phasetodo.Session`` or any
    :class:`TodoState`), or in memory when none is given. ``profile`` (a name
    or a :class:`~phasetodo.Profile`) gives the prompt, the schema and the
    behaviour; left out, it is the session's (a team session's tool is a team
    tool), else parity. ``limits`` left out means the state's own. ``execute`` never
    raises for bad arguments: it returns an error result listing the problems,
    so the model can correct itself. ``agent`` names who writes to the memory
    list (a team plan's agent); a session carries its own agent. ``options``
    gives profile, limits and agent as one :class:`Options` instead (not beside them).
    """

    name: ClassVar[str] = "todo_write"
    #: The model-facing prompt: the profile's (the class holds parity's).
    description: str = DESCRIPTION
    #: The parameter schema: the profile's (the class holds parity's).
    parameters: Mapping[str, Any] = PARAMS_SCHEMA
    #: Calls must not overlap: each one reads and replaces the whole list.
    concurrency: ClassVar[Literal["exclusive"]] = "exclusive"
    #: The reference sends its schema in the providers' strict mode.
    strict: ClassVar[bool] = True
    #: Whether hosts serve the read-only ``todo_read`` beside it (the ``todo`` tool has ``view``).
    reads: ClassVar[bool] = True

    def __init__(
        self,
        session: TodoState | None = None,
        *,
        profile: ProfileLike | None = None,
        limits: Limits | Unset | None = UNSET,
        agent: str | None = None,
        options: Options | None = None,
    ) -> None:
        if options is not None:
            _only_options(profile is not None or limits is not UNSET or agent is not None)
            profile, limits, agent = options.profile, options.limits, options.agent
        if profile is None:
            own = getattr(session, "profile", None)
            profile = own if isinstance(own, Profile) else "parity"
        #: The profile every call runs in.
        self.profile: Profile = resolve(profile)
        if session is not None and agent is not None:
            raise InvalidOption("agent: give it to the session (Session.open(..., agent=...)), not the tool")
        self.session: TodoState = (
            session if session is not None else MemoryState(profile=self.profile, agent=agent)
        )
        #: The limits every call is checked against (``UNSET``: the state's own).
        self.limits: Limits | Unset | None = limits
        self.description = self.profile.description
        self.parameters = self.profile.schema

    @property
    def phases(self) -> tuple[Phase, ...]:
        """The current list."""
        return tuple(self.session.phases)

    @property
    def storage(self) -> Storage:
        """What results report in ``details.storage``, as the session says."""
        return self.session.storage

    def execute(
        self,
        params: object,
        *,
        nulls_are_absent: bool = False,
        dry_run: bool | Unset = UNSET,
        called: str | None = None,
    ) -> ToolResult:
        """Apply one call and return its result; bad arguments give an error result.

        With ``nulls_are_absent`` (payloads written against the strict spec),
        ``null`` op fields read as absent, by the one null rule
        (:func:`~phasetodo._core.schema.read_nulls`); ``dry_run`` saves nothing.
        ``called`` names the tool the model called when it is another one built
        on this (a whole-list tool), so error texts point at that call.
        """
        try:
            if nulls_are_absent:
                params = strip_nulls(params)
            if not isinstance(params, Mapping):
                raise InvalidParams(schema_problems(params, self.parameters))
            return self.session.write(
                params, profile=self.profile, limits=self.limits, dry_run=dry_run
            )
        except InvalidParams as error:
            return self.error_result(error.problems, called=called)

    def details(self) -> dict[str, Any]:
        """The current list as result details: ``{"phases", "storage"}``."""
        return {"phases": dump_phases(self.phases), "storage": self.storage}

    def error_result(self, problems: Sequence[str], *, called: str | None = None) -> ToolResult:
        """An error result that leaves the list unchanged and lists ``problems``.

        ``called`` names the tool the model called (``todo_read``, ``update_plan``, …)
        when that is not this one, so the message points at the call to fix.
        """
        return ToolResult(
            text=_invalid_text(problems, called or self.name),
            details=self.details(),
            is_error=True,
            problems=tuple(problems),
            phases=self.phases,
            flags_error=True,
        )

    def to_openai(self, api: Api = "chat", *, strict: bool = False) -> dict[str, Any]:
        """The tool in OpenAI's Chat Completions or Responses shape.

        ``strict=True`` gives the strict-mode form of this tool's schema (closed
        objects, every property required, optional ones nullable); execute such
        calls with ``nulls_are_absent=True``.
        """
        return openai_tool(self, api, strict=strict)

    def to_anthropic(self, *, strict: bool = False) -> dict[str, Any]:
        """The tool as an Anthropic Messages API tool: name, description, input_schema.

        ``strict=True`` adds ``"strict": true`` with the schema in the exact form
        Anthropic's strict tool use takes (what ``anthropic.transform_schema`` gives).
        """
        return anthropic_tool(self, strict=strict)

    def to_mcp(self) -> dict[str, Any]:
        """The tool as an MCP tool definition, with the details as output schema."""
        return mcp_tool(self)


class _TodoField:
    """A class attribute of :class:`TodoTool` read from the ``todo`` profile when first read:
    ``import phasetodo`` then loads none of that tool's modules (instances hold their own)."""

    def __init__(self, field: str) -> None:
        self.field = field

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        from ._profiles.todo import TODO

        return getattr(TODO, self.field)


def _from_todo(field: str) -> Any:
    """:class:`_TodoField` typed as the attribute it stands for."""
    return _TodoField(field)


class TodoTool(TodoWriteTool):
    """The reference's current ``todo`` tool a host registers: one op per call, the params
    *are* the op, each result exactly :func:`phasetodo.todo.apply`'s.

    Its list lives in ``session`` (a ``Session`` opened with ``profile="todo"``, or
    any :class:`TodoState` in that profile), or in memory when none is given. An
    error leaves the list as it was; ``execute`` never raises for bad arguments.
    """

    name: ClassVar[str] = "todo"
    description: str = _from_todo("description")
    parameters: Mapping[str, Any] = _from_todo("schema")
    reads: ClassVar[bool] = False

    def __init__(self, session: TodoState | None = None, *, limits: Limits | Unset | None = UNSET) -> None:
        from ._profiles.todo import TODO

        own = getattr(session, "profile", TODO) if session is not None else TODO
        if not isinstance(own, Profile) or own.tool != self.name:
            shown = own.name if isinstance(own, Profile) else own
            raise InvalidOption(
                f"session: the todo tool needs a plan in the todo profile "
                f"(Session.open(..., profile='todo')), not {shown!r}"
            )
        super().__init__(session if session is not None else MemoryState(profile=TODO), limits=limits)

    def execute(
        self,
        params: object,
        *,
        nulls_are_absent: bool = False,
        dry_run: bool | Unset = UNSET,
        called: str | None = None,
    ) -> ToolResult:
        """Apply one call and return its result (an error result for bad arguments).

        With ``nulls_are_absent`` (payloads written against the strict spec) a
        ``null`` field reads as absent; ``dry_run`` saves nothing.
        """
        if nulls_are_absent and isinstance(params, Mapping):
            params = {key: value for key, value in params.items() if value is not None}
        try:
            return self.session.write(
                params, profile=self.profile, limits=self.limits, dry_run=dry_run  # type: ignore[arg-type]
            )
        except InvalidParams as error:  # the limits, or what a log could not record
            return self.error_result(error.problems, called=called)

    def details(self) -> dict[str, Any]:
        """The current list as the tool's details: ``{"phases", "storage"}``."""
        from ._profiles.todo import to_todo
        from ._todo.values import phases_to_json

        return {"phases": phases_to_json(to_todo(self.phases)), "storage": self.storage}

    def to_mcp(self) -> dict[str, Any]:
        """The tool as an MCP tool definition, with its details as output schema."""
        from ._profiles.todo import TODO_DETAILS_SCHEMA

        return mcp_tool(self, output=TODO_DETAILS_SCHEMA)


#: The tool classes hosts register, by the name a profile's ``tool`` gives (else ``TodoWriteTool``).
_TOOLS: dict[str, type[TodoWriteTool]] = {TodoTool.name: TodoTool}


def tool_class(profile: ProfileLike) -> type[TodoWriteTool]:
    """The tool a host registers for ``profile``: :class:`TodoTool` for ``todo``, else
    :class:`TodoWriteTool`."""
    return _TOOLS.get(resolve(profile).tool, TodoWriteTool)
