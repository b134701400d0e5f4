"""The todo profile: the reference's current one-op ``todo`` tool on a durable list.

A call's params *are* the op (``{"op": "block", "task": "a", "reason": "…"}``) and
its result is exactly :func:`phasetodo.todo.apply`'s; any error leaves the list as
it was (the profile is atomic). The list is kept as the engine's values: a task's
``blocker`` is its ``reason``, and a person's drop (``droppedBy: "user"``) is
``owner == "user"`` (who closed it). Auto-clear and the stop reminder follow the
reference's settle rule: a completed task, or one a person dropped, is settled; a
task the model abandoned is still work to come back to.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import attrs

from .._core.engine import Outcome
from .._core.model import Phase, Status, Task
from .._todo.schema import OPS, Params, check
from .._todo.summary import format_summary
from .._todo.tool import run as run_todo
from .._todo.tool import run_edits
from .._todo.values import USER, from_todo, phases_from_json, phases_to_json, to_todo
from ..errors import InvalidParams
from .registry import CallContext, Profile
from .result import Storage, ToolResult

__all__ = [
    "TODO",
    "TODO_DESCRIPTION",
    "TODO_DETAILS_SCHEMA",
    "TODO_PARAMS_SCHEMA",
    "TODO_PERSON",
    "TodoCall",
    "TodoOutcome",
    "from_todo",
    "is_settled",
    "to_todo",
]


def _text(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


#: The reference's parameter schema for ``todo``: one op, its fields beside it.
TODO_PARAMS_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "description": "apply a single todo operation",
    "properties": {
        "op": {"type": "string", "enum": list(OPS), "description": "operation to apply"},
        "list": {
            "type": "array",
            "description": "phased task list (init)",
            "items": {
                "type": "object",
                "properties": {
                    "phase": _text("phase name"),
                    "items": {
                        "type": "array",
                        "description": "tasks for this phase",
                        "items": _text("task content"),
                        "minItems": 1,
                    },
                },
                "required": ["phase", "items"],
            },
        },
        "task": _text("task content"),
        "phase": _text("phase name"),
        "items": {
            "type": "array",
            "description": "tasks for single-phase init or append",
            "items": _text("task content"),
        },
        "reason": _text("blocker note (block op)"),
    },
    "required": ["op"],
}

_STATUSES = ["pending", "in_progress", "completed", "abandoned", "blocked"]

#: The JSON Schema of the tool's ``details``: the op, the list, where it lives, what completed.
TODO_DETAILS_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "required": ["phases", "storage"],
    "properties": {
        "op": {"type": "string", "enum": list(OPS)},
        "phases": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "tasks"],
                "properties": {
                    "name": {"type": "string"},
                    "tasks": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["content", "status"],
                            "properties": {
                                "content": {"type": "string"},
                                "status": {"type": "string", "enum": _STATUSES},
                                "blocker": {"type": "string"},
                                "droppedBy": {"type": "string", "enum": [USER]},
                            },
                        },
                    },
                },
            },
        },
        "storage": {"type": "string", "enum": ["session", "memory"]},
        "completedTasks": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["phase", "content"],
                "properties": {"phase": {"type": "string"}, "content": {"type": "string"}},
            },
        },
    },
}

#: What the model reads about the tool (phasetodo's own words for the reference's rules).
TODO_DESCRIPTION = """\
Track the work of this session as a phased todo list, one operation per call. \
The call's arguments are the operation: {"op": ..., and the fields it takes}. \
Every result lists what remains, so you always see the whole list.

Use it for work of three or more real steps, for a list the user hands you, or \
for anything you will revise as you learn. Skip it for one quick step.

Tasks live in phases, in order. A task is named by its exact content and a \
phase by its exact name: keep contents unique, phase names short, and never \
reword them.

Operations:
- init {list: [{phase, items}]} or {items, phase?}: replace the whole list (a flat \
init goes to a phase named "Tasks").
- start {task}: make that task the one in progress.
- done {task} | {phase} | {}: complete a task, a phase, or everything.
- drop {task} | {phase} | {}: abandon work that is no longer needed.
- rm {task} | {phase} | {}: abandon open tasks in place.
- block {task | phase, reason?}: mark open work blocked, saying what it waits for; \
blocking the task in progress hands progress to the next one.
- unblock {task | phase}: make blocked work pending again.
- append {phase, items}: add pending tasks, creating the phase if needed.
- view {}: show the list without changing it.

If any part of a call fails, nothing changes: read the error and call again. \
Mark each task done as soon as it is finished; one task is in progress while \
work remains, and when none is the first pending task is started for you.

Examples:
{"op": "init", "list": [{"phase": "Explore", "items": ["Read the failing test", "Find the cause"]}, {"phase": "Fix", "items": ["Patch the parser", "Run the tests"]}]}
{"op": "done", "task": "Read the failing test"}
{"op": "block", "task": "Run the tests", "reason": "CI is down"}
{"op": "append", "phase": "Fix", "items": ["Add a regression test"]}
"""  # noqa: E501 - one JSON example per line


def _strings(place: str, kind: str, value: object) -> Iterator[tuple[str, str, str]]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str):
                yield f"{place}[{index}]", kind, item


@attrs.frozen
class TodoCall:
    """One call's arguments as sent: they are checked against the list they apply to
    (a missing ``op`` is inferred from it), so parsing keeps them whole."""

    name: ClassVar[str] = "todo"
    params: object = attrs.field(eq=False)

    @property
    def grows(self) -> bool:
        """Whether the call may add tasks or phases (an ``init`` or ``append``, stated or inferred)."""
        return isinstance(self.params, dict) and ("list" in self.params or "items" in self.params)

    def limit_texts(self) -> Iterator[tuple[str, str, str]]:
        """Every text of the call, for :class:`~phasetodo.Limits`."""
        raw = self.params
        if not isinstance(raw, dict):
            return
        for key, kind in (("task", "content"), ("phase", "name"), ("reason", "note")):
            if isinstance(raw.get(key), str):
                yield f".{key}", kind, raw[key]
        yield from _strings(".items", "content", raw.get("items"))
        entries = raw.get("list")
        for number, entry in enumerate(entries if isinstance(entries, list) else ()):
            if isinstance(entry, dict):
                if isinstance(entry.get("phase"), str):
                    yield f".list[{number}].phase", "name", entry["phase"]
                yield from _strings(f".list[{number}].items", "content", entry.get("items"))


@attrs.frozen
class TodoOutcome(Outcome):
    """An outcome with the todo tool's own result (its ``details`` say ``memory`` until reported)."""

    result: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True, eq=False)
    problems: tuple[str, ...] = attrs.field(default=(), kw_only=True)


def load_todo_list(items: Sequence[Any]) -> tuple[Phase, ...]:
    """A list given as the tool's JSON (or its values), as the engine's values: blockers and a
    person's drops kept; raises :class:`~phasetodo.InvalidPhases` naming each bad place."""
    return from_todo(phases_from_json(list(items)))


def is_settled(task: Task) -> bool:
    """The reference's settle rule: completed, or dropped by a person (a model's abandon is not)."""
    return task.status is Status.COMPLETED or (task.status is Status.ABANDONED and task.owner == USER)


def parse_todo_params(params: object) -> tuple[TodoCall]:
    """The call as one op; its check needs the list, so it runs in ``apply`` and never raises."""
    return (TodoCall(params),)


def _apply(phases: tuple[Phase, ...], ops: Sequence[Any], call: CallContext) -> Outcome:
    (todo_call,) = ops
    done = run_todo(todo_call.params, to_todo(phases), "memory")
    after = from_todo(done.phases) if done.persisted else phases
    errors = done.errors if done.errors is not None else done.problems
    return TodoOutcome(after, errors, result=done.result, problems=done.problems)


def todo_report(outcome: Outcome, storage: Storage) -> ToolResult:
    """The todo tool's result, its ``details.storage`` set to ``storage``."""
    if not isinstance(outcome, TodoOutcome):  # an outcome made by hand: the list as it is
        outcome = TodoOutcome(outcome.phases, outcome.errors, result=_view(outcome.phases))
    result = outcome.result
    details = {**result["details"], "storage": storage}
    return ToolResult(
        result["content"][0]["text"],
        details,
        is_error=result.get("isError") is True,
        phases=outcome.phases,
        errors=outcome.errors,
    )  # no ``problems``: a rejected call's text is the tool's own, which hosts pass on as it is


def _view(phases: tuple[Phase, ...]) -> Mapping[str, Any]:
    return run_todo({"op": "view"}, to_todo(phases), "memory").result


def read_todo_list(phases: tuple[Phase, ...], call: CallContext) -> str:
    """What a read-only look at the list shows: the ``view`` op's text."""
    return format_summary(to_todo(phases), (), read_only=True)


def parse_person_ops(params: object) -> tuple[TodoCall, ...]:
    """A person's edit, ``{"ops": [...]}`` of the tool's single ops; raises
    :class:`~phasetodo.InvalidParams` naming each op the schema rejects."""
    entries = params.get("ops") if isinstance(params, dict) else None
    if not isinstance(entries, list):
        raise InvalidParams(["ops: must be a list of todo operations"])
    problems: list[str] = []
    for index, entry in enumerate(entries):
        found = check(entry, True)
        if isinstance(found, list):
            problems.extend(f"ops[{index}]: {line}" for line in found)
    if problems:
        raise InvalidParams(problems)
    return tuple(TodoCall(entry) for entry in entries)


def _checked(call: TodoCall) -> Params:
    found = check(call.params, True)
    assert isinstance(found, Params)  # parse_person_ops checked it
    return found


def _apply_person(phases: tuple[Phase, ...], ops: Sequence[Any], call: CallContext) -> Outcome:
    edited, errors = run_edits([_checked(op) for op in ops], to_todo(phases))
    return Outcome(phases if errors else from_todo(edited), tuple(errors))


def person_report(outcome: Outcome, storage: Storage) -> ToolResult:
    """A person's edit: the tool's summary of the list and its ``details``, an error when any op failed."""
    kept = to_todo(outcome.phases)
    details = {"phases": phases_to_json(kept), "storage": storage}
    return ToolResult(
        format_summary(kept, outcome.errors),
        details,
        is_error=bool(outcome.errors),
        phases=outcome.phases,
        errors=outcome.errors,
    )


#: A person's edits of a ``todo`` plan (the command, the board): the tool's ops as a
#: person's, all or nothing; a drop settles and ``rm`` removes.
TODO_PERSON = Profile(
    "todo",
    schema=TODO_PARAMS_SCHEMA,
    description=TODO_DESCRIPTION,
    parse=parse_person_ops,
    apply=_apply_person,
    report=person_report,
    atomic=True,
    settled=is_settled,
    own_json=True,
    load=load_todo_list,
    tool="todo",
)

#: The reference's current tool, one op per call, on a durable list.
TODO = Profile(
    "todo",
    schema=TODO_PARAMS_SCHEMA,
    description=TODO_DESCRIPTION,
    parse=parse_todo_params,
    apply=_apply,
    report=todo_report,
    atomic=True,
    read=read_todo_list,
    settled=is_settled,
    own_json=True,
    person=TODO_PERSON,
    load=load_todo_list,
    tool="todo",
)
