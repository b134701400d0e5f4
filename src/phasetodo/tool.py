"""The agent-facing ``todo_write`` call: arguments in, tool result out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal, Protocol

import attrs

from ._core import schema
from ._core.codec import _as_phases, dump_phases
from ._core.columns import apply_columns, load_columns, recall
from ._core.engine import Outcome
from ._core.limits import DEFAULT_LIMITS, Limits
from ._core.model import Phase
from ._profiles.registry import PROFILES, Profile, UnknownProfile, parse_call, run_call
from ._profiles.strict import StrictOutcome, strict_result
from ._views.diff import dry_run_result
from ._views.summary import format_summary
from .errors import InvalidParams

__all__ = [
    "DESCRIPTION",
    "STRICT_NOTE",
    "MemoryState",
    "Storage",
    "TodoState",
    "TodoWriteTool",
    "ToolResult",
    "execute",
    "result_of",
    "todo_write",
]

Storage = Literal["session", "memory"]


def result_of(
    outcome: Outcome, storage: Storage = "memory", *, before: Iterable[Phase] | None = None
) -> dict[str, Any]:
    """The tool result for an outcome, as JSON-ready data.

    A parity outcome gives exactly the reference's result; a strict one (from
    ``execute(..., profile="strict")``) adds ``isError`` and more ``details``.
    With ``before``, the list the call started from, the result is a dry run's:
    its text and ``details.diff`` say what the call would change.
    """
    if before is None and not isinstance(outcome, StrictOutcome):
        work = recall(outcome)
        if work is not None:
            return work.result(storage)
        return {
            "content": [{"type": "text", "text": format_summary(outcome.phases, outcome.errors)}],
            "details": {"phases": dump_phases(outcome.phases), "storage": storage},
        }
    if isinstance(outcome, StrictOutcome):
        result = strict_result(outcome, storage)
    else:
        result = result_of(outcome, storage)
    return result if before is None else dry_run_result(result, before, outcome.phases)


def execute(
    params: object,
    phases: Iterable[Phase] = (),
    *,
    profile: Profile = "parity",
    limits: Limits | None = DEFAULT_LIMITS,
) -> Outcome:
    """Validate ``params`` and apply them to ``phases``; raises ``InvalidParams``.

    ``profile="strict"`` returns a :class:`~phasetodo.StrictOutcome`. A call
    past ``limits`` raises ``InvalidParams`` naming the limit (``None``: no limits).
    """
    return run_call(phases, parse_call(params, profile), profile, limits)


def todo_write(
    params: Mapping[str, Any],
    phases: Iterable[Phase | Mapping[str, Any]] | None = None,
    *,
    profile: Profile = "parity",
    dry_run: bool = False,
    limits: Limits | None = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """One ``todo_write`` call on a memory-backed list.

    ``phases`` is the stored list before the call (JSON dicts or ``Phase``
    values); it is not modified. Returns the tool result as JSON-ready data:
    ``{"content": [{"type": "text", "text": ...}], "details": {"phases", "storage"}}``.
    Raises :class:`~phasetodo.InvalidParams` when ``params`` break the schema
    or ``limits``, before anything is applied.

    ``profile="strict"`` makes the batch all-or-nothing (an error result has
    ``"isError": true`` and the unchanged list); ``dry_run=True`` adds what the
    call would change (``details.diff``) and marks the result as not saved.
    """
    ops = parse_call(params, profile)
    if profile == "parity" and not dry_run:
        fast = load_columns(() if phases is None else phases)
        if fast is not None:
            grows = limits is not None and limits.check_ops(ops)
            if apply_columns(fast, ops):  # type: ignore[arg-type] # parity ops only
                if grows:
                    assert limits is not None
                    limits.check_sizes(fast.before_phases, fast.before_tasks, len(fast.cols), fast.count)
                return fast.result()
    current = _as_phases(phases) if phases is not None else ()
    outcome = run_call(current, ops, profile, limits)
    return result_of(outcome, before=current if dry_run else None)


#: What the model reads about the tool: the ops, the naming rules and examples.
DESCRIPTION = """\
Keep a phased todo list for the work in this session. Each call applies an \
ordered list of operations ("ops") to the list and answers with a summary of \
what remains.

When to use it: plan any task with three or more real steps, work the user \
hands you as a list, or anything you expect to revise as you learn more. Skip \
it for a single quick step or a purely conversational reply.

How the list is built: phases hold tasks, in order. A task's content is its \
name and a phase's name is its handle: every later op finds a task by its \
exact content and a phase by its exact name. So keep contents unique and \
phase names short ("Explore", "Fix", "Verify"), with no numbering, and never \
reword them once written.

Operations, applied in the order given:
- init {list: [{phase, items}]}: replace the whole list; every task starts pending.
- start {task}: make that task the one in progress; any other active task goes back to pending.
- done {task} | {phase} | {}: complete one task, every task of a phase, or everything.
- drop {task} | {phase} | {}: abandon instead of completing (no longer needed).
- rm {task} | {phase} | {}: remove a task, empty a phase, or empty every phase.
- append {phase, items}: add pending tasks to a phase, creating the phase if needed.
- note {task, text}: attach a short note (a finding, a decision) to a task.

Habits that keep the list honest: mark a task done the moment it is finished, \
not in a batch at the end; start the next task in the same call; drop what \
turns out to be unnecessary rather than leaving it pending; append work you \
discover. Exactly one task is in progress while work remains: when none is, \
the first pending task is started for you.

Examples:
{"ops": [{"op": "init", "list": [{"phase": "Explore", "items": ["Read the failing test", "Find the cause"]}, {"phase": "Fix", "items": ["Patch the parser", "Run the tests"]}]}]}
{"ops": [{"op": "done", "task": "Read the failing test"}, {"op": "start", "task": "Find the cause"}]}
{"ops": [{"op": "note", "task": "Find the cause", "text": "Tabs are not treated as whitespace."}, {"op": "append", "phase": "Fix", "items": ["Add a regression test"]}]}
{"ops": [{"op": "drop", "phase": "Explore"}]}
"""  # noqa: E501 - one JSON example per line

#: The strict profile's addition to :data:`DESCRIPTION`.
STRICT_NOTE = """
This tool runs in the strict profile: a call is all or nothing. If any \
operation fails (an unknown task or phase, a duplicate name, a blank note), \
nothing is applied and the result is an error that names each failing \
operation, with a suggestion where one is close. Tasks have no ids such as \
"task-3": name them by their exact content. To read a task's notes, a phase or \
the whole list without changing anything, use view {task} | {phase} | {}.
"""


class TodoState(Protocol):
    """Where a tool's list lives: a durable ``Session`` or a :class:`MemoryState`.

    ``todo_write`` applies one call and returns the tool result as JSON-ready
    data (raising ``InvalidParams`` before applying anything); ``phases`` is
    the current list.
    """

    @property
    def phases(self) -> Sequence[Phase]:
        """The current list."""

    @property
    def storage(self) -> Storage:
        """What results report in ``details.storage``."""

    def todo_write(self, params: Mapping[str, Any], *, profile: Profile = "parity") -> dict[str, Any]:
        """Apply one call in ``profile``; returns the tool result."""


class MemoryState:
    """A list kept in memory only: the state of a tool that has no session."""

    def __init__(self, phases: Iterable[Phase | Mapping[str, Any]] = ()) -> None:
        self._phases: tuple[Phase, ...] = tuple(_as_phases(phases))

    @property
    def phases(self) -> tuple[Phase, ...]:
        """The current list."""
        return self._phases

    @property
    def storage(self) -> Storage:
        """Always ``"memory"``."""
        return "memory"

    def todo_write(self, params: Mapping[str, Any], *, profile: Profile = "parity") -> dict[str, Any]:
        """Apply one call to the list and keep the result."""
        outcome = execute(params, self._phases, profile=profile)
        self._phases = outcome.phases
        return result_of(outcome)


@attrs.frozen
class ToolResult:
    """One tool result: the text the model reads, the details and an error flag.

    ``details`` is ``{"phases": [...], "storage": ...}``, the list after the
    call; an error result (``is_error``) leaves the list as it was and says why
    in ``text``, one problem per line, also kept in ``problems``.
    """

    text: str
    details: Mapping[str, Any]
    is_error: bool = False
    problems: tuple[str, ...] = ()

    @property
    def content(self) -> list[dict[str, Any]]:
        """The text as a one-part content list, the shape every host accepts."""
        return [{"type": "text", "text": self.text}]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"content", "details", "is_error"}``."""
        return {"content": self.content, "details": dict(self.details), "is_error": self.is_error}


def _invalid_text(problems: Sequence[str]) -> str:
    lines = "\n".join(f"- {p}" for p in problems)
    return f"Invalid todo_write call; nothing was applied. Fix these and call again:\n{lines}"


class TodoWriteTool:
    """The ``todo_write`` tool an agent host registers: name, prompt, schema, executor.

    State lives in ``session`` (a durable ``phasetodo.Session`` or any
    :class:`TodoState`), or in memory when none is given. ``execute`` never
    raises for bad arguments: it returns an error result listing the problems,
    so the model can correct itself.
    """

    name: ClassVar[str] = "todo_write"
    #: The model-facing prompt; a strict tool's adds its rules and ``view``.
    description: str = DESCRIPTION
    #: The parameter schema; a strict tool's also accepts ``view``.
    parameters: Mapping[str, Any] = schema.PARAMS_SCHEMA
    #: Calls must not overlap: each one reads and replaces the whole list.
    concurrency: ClassVar[Literal["exclusive"]] = "exclusive"
    #: The reference sends its schema in the providers' strict mode.
    strict: ClassVar[bool] = True

    def __init__(self, session: TodoState | None = None, *, profile: Profile = "parity") -> None:
        if profile not in PROFILES:
            raise UnknownProfile(profile)
        self.session: TodoState = session if session is not None else MemoryState()
        #: ``"parity"`` (the reference's behaviour) or ``"strict"`` (all or nothing).
        self.profile: Profile = profile
        if profile == "strict":
            self.description = DESCRIPTION + STRICT_NOTE
            self.parameters = schema.STRICT_PARAMS_SCHEMA

    @property
    def phases(self) -> tuple[Phase, ...]:
        """The current list."""
        return tuple(self.session.phases)

    @property
    def storage(self) -> Storage:
        """What results report in ``details.storage``, as the session says."""
        return self.session.storage

    def execute(self, params: object, *, nulls_are_absent: bool = False) -> ToolResult:
        """Apply one call and return its result; bad arguments give an error result.

        With ``nulls_are_absent`` (payloads written against the strict spec),
        ``null`` op fields are dropped before validation.
        """
        if nulls_are_absent:
            from .integrations.openai import strip_nulls

            params = strip_nulls(params)
        try:
            if not isinstance(params, Mapping):
                raise InvalidParams(schema.problems(params))
            raw = self.session.todo_write(params, profile=self.profile)
        except InvalidParams as error:
            return self.error_result(error.problems)
        return ToolResult(
            text="".join(part.get("text", "") for part in raw.get("content", ())),
            details=raw["details"],
            is_error=bool(raw.get("is_error", raw.get("isError", False))),
        )

    def details(self) -> dict[str, Any]:
        """The current list as result details: ``{"phases", "storage"}``."""
        return {"phases": dump_phases(self.phases), "storage": self.storage}

    def error_result(self, problems: Sequence[str]) -> ToolResult:
        """An error result that leaves the list unchanged and lists ``problems``."""
        return ToolResult(
            text=_invalid_text(problems),
            details=self.details(),
            is_error=True,
            problems=tuple(problems),
        )

    def to_openai(
        self, api: Literal["chat", "responses"] = "chat", *, strict: bool = False
    ) -> dict[str, Any]:
        """The tool in OpenAI's Chat Completions or Responses shape.

        ``strict=True`` gives the strict-mode schema (closed objects, every
        property required, optional ones nullable); execute such calls with
        ``nulls_are_absent=True``.
        """
        from .integrations.openai import openai_tool

        return openai_tool(self, api, strict=strict)

    def to_anthropic(self) -> dict[str, Any]:
        """The tool as an Anthropic Messages API tool: name, description, input_schema."""
        from .integrations.anthropic import anthropic_tool

        return anthropic_tool(self)

    def to_mcp(self) -> dict[str, Any]:
        """The tool as an MCP tool definition, with the details as output schema (``mcp`` extra)."""
        from .integrations.mcp import mcp_tool

        return mcp_tool(self)
