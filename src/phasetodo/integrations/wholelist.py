"""Whole-list todo tools, as other agents shape them, on the phasetodo engine.

Each format sends the entire list on every call and the new list replaces the
old one (last write wins). A write becomes one ordinary ``todo_write`` call
(``init`` with the list, then ``note``/``done``/``start`` ops), so it runs on
the same engine and lands in the same session log as any other call.

Formats: seed 000's ``todo_write({todos: [{content, status}]})``
(:class:`TodosWrite`), Claude Code's ``TodoWrite`` (:class:`ClaudeCodeTodoWrite`),
Codex's ``update_plan`` (:class:`CodexUpdatePlan`) and LangChain's
``write_todos`` (:class:`LangChainWriteTodos`).

Status mapping (both ways): ``pending``, ``in_progress`` and ``completed`` are
the same in every format. None of them has ``abandoned``: an abandoned task is
no longer work, so it is left out of the list a format reads back, and the
next whole-list write, which replaces everything, removes it.

Checks before anything is applied (seed 000's cheap middle): a blank or
duplicate content, or more than one ``in_progress`` task, gives an error
result and changes nothing. Tasks go into one phase (``phase``, default
``"Todos"``); reading flattens every phase in order. Notes a task had keep
following it while its content stays the same. If no task is
``in_progress`` and some are ``pending``, the engine starts the first one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar, Self

import attrs

from .._core.jsstring import is_blank
from .._core.model import Phase, Status
from .._core.schema import array_of_objects, problems
from .._profiles.parity import PARITY
from ..errors import InvalidOption
from ..tool import Options, TodoState, TodoWriteTool, ToolResult
from ._options import chosen, make_tool

__all__ = [
    "FORMATS",
    "ClaudeCodeTodoWrite",
    "CodexUpdatePlan",
    "Item",
    "LangChainWriteTodos",
    "TodosWrite",
    "WholeListTool",
]

_STATUSES = ("pending", "in_progress", "completed")


@attrs.frozen
class Item:
    """One task of a whole list: its content and status (never ``abandoned``)."""

    content: str
    status: Status


def _status_schema(description: str) -> dict[str, Any]:
    return {"type": "string", "enum": list(_STATUSES), "description": description}


def _whole_list_schema(
    key: str, description: str, item: dict[str, Any], **more: dict[str, Any]
) -> dict[str, Any]:
    """A format's arguments: the list under ``key`` (every field of an ``item`` required), and ``more``."""
    return {
        "type": "object",
        "required": [key],
        "properties": {**more, key: array_of_objects(item, list(item), description=description)},
    }


#: A ``{content, status}`` item, as seed 000, LangChain and Claude Code spell it.
_TODO_ITEM: dict[str, Any] = {
    "content": {"type": "string", "description": "What to do; unique."},
    "status": _status_schema("Where the item stands."),
}
#: Claude Code's ``activeForm``: the label shown while the item runs.
_ACTIVE_FORM = {"type": "string", "description": "Present continuous form shown while in progress."}


class WholeListTool:
    """A whole-list todo tool: the format's name, prompt and schema, on a ``TodoWriteTool``.

    ``session`` holds the list (memory when ``None``); ``phase`` names the one
    phase written lists go into. ``options`` holds the calls' limits and the
    agent that writes (``None``: the session's own limits); its profile must
    be parity, as the formats are translated to the reference's ops.
    Subclasses say where the
    list sits in the arguments and how an item is spelled.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[Mapping[str, Any]]
    #: The argument holding the list, and an item's content field.
    list_key: ClassVar[str] = "todos"
    content_key: ClassVar[str] = "content"

    def __init__(
        self,
        session: TodoState | None = None,
        *,
        phase: str = "Todos",
        options: Options | None = None,
    ) -> None:
        if not isinstance(phase, str) or is_blank(phase):
            raise InvalidOption("phase: must be a non-blank string")
        chose = chosen(options)
        if chose is not None and chose.profile is not PARITY:
            raise InvalidOption(
                f"options.profile: {chose.profile.name!r}; a whole-list format runs the reference's ops, "
                "so its profile is parity"
            )
        self.tool = make_tool(session, chose)
        self.phase = phase

    @classmethod
    def on(cls, tool: TodoWriteTool, *, phase: str = "Todos") -> Self:
        """This format on ``tool``, a parity :class:`~phasetodo.tool.TodoWriteTool` made already."""
        if tool.profile is not PARITY:
            raise InvalidOption(f"tool: runs {tool.profile.name!r}; a whole-list format runs parity")
        made = cls(phase=phase)
        made.tool = tool
        return made

    # -- reading -----------------------------------------------------------------

    def items(self) -> list[Item]:
        """The current list as whole-list items: every phase, in order, minus abandoned tasks.

        A ``blocked`` task (team plans) reads as ``pending``: no format has the status.
        """
        return [
            Item(task.content, Status.PENDING if task.status is Status.BLOCKED else task.status)
            for phase in self.tool.phases
            for task in phase.tasks
            if task.status is not Status.ABANDONED
        ]

    def read(self) -> dict[str, Any]:
        """The current list as this format's arguments: writing it back changes nothing."""
        return {self.list_key: [self.dump_item(item) for item in self.items()]}

    def dump_item(self, item: Item) -> dict[str, Any]:
        """One item in this format's spelling."""
        return {self.content_key: item.content, "status": item.status.value}

    # -- writing -----------------------------------------------------------------

    def execute(self, params: object) -> ToolResult:
        """Replace the list with the one in ``params``; bad input gives an error result."""
        found = problems(params, self.parameters)
        if not found:
            assert isinstance(params, Mapping)
            entries: Sequence[Mapping[str, Any]] = params[self.list_key]
            found = self.check(entries)
        if found:
            return self.tool.error_result(found, called=self.name)
        items = [Item(e[self.content_key], Status(e["status"])) for e in entries]
        result = self.tool.execute(self.ops_for(items), called=self.name)
        if not result.is_error:
            self.remember(entries)
        return result

    def check(self, entries: Sequence[Mapping[str, Any]]) -> list[str]:
        """The value problems of a schema-valid list: blanks, duplicates, several active."""
        found: list[str] = []
        first: dict[str, int] = {}
        active: list[str] = []
        key, where = self.content_key, self.list_key
        for index, entry in enumerate(entries):
            content = entry[key]
            if is_blank(content):
                found.append(f"{where}[{index}].{key}: must not be blank")
            elif content in first:
                found.append(
                    f"{where}[{index}].{key}: duplicates {where}[{first[content]}]"
                    f" ({content!r}); contents must be unique"
                )
            else:
                first[content] = index
            if entry["status"] == "in_progress":
                active.append(f"{where}[{index}]")
        if len(active) > 1:
            found.append(
                f"{where}: {len(active)} tasks are in_progress ({', '.join(active)}); at most one may be"
            )
        return found

    def remember(self, entries: Sequence[Mapping[str, Any]]) -> None:
        """Hook for fields the engine does not keep (Claude Code's ``activeForm``)."""

    def ops_for(self, items: Sequence[Item]) -> dict[str, Any]:
        """The ``todo_write`` call that turns the current list into ``items``."""
        notes = {
            task.content: task.notes
            for phase in reversed(self.tool.phases)
            for task in reversed(phase.tasks)
            if task.notes
        }
        contents = [item.content for item in items]
        entries = [{"phase": self.phase, "items": contents}] if contents else []
        ops: list[dict[str, Any]] = [{"op": "init", "list": entries}]
        for content in contents:
            ops += [{"op": "note", "task": content, "text": text} for text in notes.get(content, ())]
        ops += [{"op": "done", "task": i.content} for i in items if i.status is Status.COMPLETED]
        ops += [{"op": "start", "task": i.content} for i in items if i.status is Status.IN_PROGRESS]
        return {"ops": ops}

    @property
    def phases(self) -> tuple[Phase, ...]:
        """The current list as phases."""
        return self.tool.phases


class TodosWrite(WholeListTool):
    """Seed 000's tool: ``todo_write({todos: [{content, status}]})``, three statuses."""

    name = "todo_write"
    description = (
        "Record the plan for the current work as a todo list. Send the whole list on every "
        "call; it replaces the previous one. Each item has a content (a short, unique "
        "imperative phrase) and a status: pending, in_progress or completed. Keep exactly "
        "one item in_progress while work remains, and mark an item completed as soon as it "
        "is done. Use it for work of three or more steps; skip it for a single quick step. "
        'Example: {"todos": [{"content": "Read the failing test", "status": "completed"}, '
        '{"content": "Fix the parser", "status": "in_progress"}]}'
    )
    parameters: ClassVar[Mapping[str, Any]] = _whole_list_schema(
        "todos", "The whole list, in order.", _TODO_ITEM
    )


class LangChainWriteTodos(TodosWrite):
    """LangChain's ``write_todos({todos: [{content, status}]})``."""

    name = "write_todos"


class ClaudeCodeTodoWrite(WholeListTool):
    """Claude Code's ``TodoWrite({todos: [{content, status, activeForm}]})``.

    The engine keeps no ``activeForm`` (the "Running the tests" label shown
    while a task is active): this tool remembers the ones it was sent, and
    reads back the content for a task it has none for.
    """

    name = "TodoWrite"
    description = (
        "Keep a structured todo list for the current session: send the whole list each "
        "time, it replaces the previous one. Each item has content (the imperative form, "
        '"Run the tests"), activeForm (the form shown while it runs, "Running the tests") '
        "and status: pending, in_progress or completed. Exactly one item is in_progress "
        "while work remains; mark items completed right after finishing them. Use it for "
        "multi-step work, not for a single trivial step."
    )
    parameters: ClassVar[Mapping[str, Any]] = _whole_list_schema(
        "todos", "The updated todo list.", {**_TODO_ITEM, "activeForm": _ACTIVE_FORM}
    )
    #: The ``activeForm`` of each task last written, by content (replaced whole at each write).
    _active_forms: Mapping[str, str] = MappingProxyType({})

    def check(self, entries: Sequence[Mapping[str, Any]]) -> list[str]:
        """The shared checks, plus a non-blank ``activeForm``."""
        found = super().check(entries)
        found += [
            f"todos[{index}].activeForm: must not be blank"
            for index, entry in enumerate(entries)
            if is_blank(entry["activeForm"])
        ]
        return found

    def remember(self, entries: Sequence[Mapping[str, Any]]) -> None:
        """Keep each task's ``activeForm`` for reading back."""
        self._active_forms = {e["content"]: e["activeForm"] for e in entries}

    def dump_item(self, item: Item) -> dict[str, Any]:
        """``{content, status, activeForm}``."""
        active = self._active_forms.get(item.content, item.content)
        return {"content": item.content, "status": item.status.value, "activeForm": active}


class CodexUpdatePlan(WholeListTool):
    """Codex's ``update_plan({explanation?, plan: [{step, status}]})``.

    ``explanation`` is accepted and not stored: the engine keeps the plan only.
    """

    name = "update_plan"
    list_key = "plan"
    content_key = "step"
    description = (
        "Update the task plan. Send the whole plan each time: a list of steps, each with a "
        "status (pending, in_progress or completed), and optionally a short explanation of "
        "what changed. At most one step is in_progress; mark a step completed as soon as it "
        "is done and move the next one to in_progress in the same call."
    )
    parameters: ClassVar[Mapping[str, Any]] = _whole_list_schema(
        "plan",
        "The steps, in order.",
        {
            "step": {"type": "string", "description": "The step; unique."},
            "status": _status_schema("One of pending, in_progress, completed."),
        },
        explanation={"type": "string", "description": "Why the plan changed (optional)."},
    )


#: Every whole-list format by its tool name (seed 000's is under ``"todos"``,
#: since ``"todo_write"`` names the ops tool).
FORMATS: dict[str, type[WholeListTool]] = {
    "todos": TodosWrite,
    "TodoWrite": ClaudeCodeTodoWrite,
    "update_plan": CodexUpdatePlan,
    "write_todos": LangChainWriteTodos,
}
