"""Rebuild the list from a host's transcript entries, as the reference does.

A host that keeps its own transcript (rather than a phasetodo store) finds the
list in it: the newest ``user_todo_edit`` custom entry or successful
``todo_write`` tool result wins. Error results are skipped and malformed
entries tolerated, so a damaged transcript still yields the best list it holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._core.codec import dump_phases, load_phases
from ._core.model import Phase
from .errors import InvalidPhases

__all__ = [
    "TOOL_NAME",
    "USER_TODO_EDIT",
    "conversation_entries",
    "entry_phases",
    "is_todo_state_entry",
    "latest_phases",
    "user_edit_entry",
]

#: The tool name whose results carry ``details.phases``.
TOOL_NAME = "todo_write"
#: The ``customType`` of the entry a host appends when a person edits the list.
USER_TODO_EDIT = "user_todo_edit"


def _get(data: object, key: str) -> Any:
    return data.get(key) if isinstance(data, Mapping) else None


def entry_phases(entry: object, *, tool_name: str = TOOL_NAME) -> tuple[Phase, ...] | None:
    """The phases one entry records, or None when it records none (or is malformed)."""
    if _get(entry, "type") == "custom":
        if _get(entry, "customType") != USER_TODO_EDIT:
            return None
        data = _get(_get(entry, "data"), "phases")
    elif _get(entry, "type") == "message":
        message = _get(entry, "message")
        if (
            _get(message, "role") != "toolResult"
            or _get(message, "toolName") != tool_name
            or _get(message, "isError")
        ):
            return None
        data = _get(_get(message, "details"), "phases")
    else:
        return None
    if not isinstance(data, list):
        return None
    try:
        return load_phases(data)
    except InvalidPhases:
        return None


def latest_phases(entries: Sequence[object], *, tool_name: str = TOOL_NAME) -> tuple[Phase, ...]:
    """The newest list recorded in ``entries`` (oldest first); ``()`` if none.

    Scans backwards, so the cost is the tail after the newest todo entry.
    """
    for entry in reversed(entries):
        phases = entry_phases(entry, tool_name=tool_name)
        if phases is not None:
            return phases
    return ()


def user_edit_entry(phases: Iterable[Phase | Mapping[str, Any]]) -> dict[str, Any]:
    """The custom entry a host appends to its transcript for a person's edit."""
    return {"type": "custom", "customType": USER_TODO_EDIT, "data": {"phases": dump_phases(phases)}}


def is_todo_state_entry(entry: object) -> bool:
    """Whether ``entry`` is todo state (a user-edit entry) rather than conversation."""
    return bool(_get(entry, "type") == "custom" and _get(entry, "customType") == USER_TODO_EDIT)


def conversation_entries(entries: Iterable[object]) -> list[object]:
    """``entries`` without todo state: todo edits never become model messages.

    The model sees its own tool calls and results, and the reminders a host
    injects; the list's state travels beside the conversation, not in it.
    """
    return [e for e in entries if not is_todo_state_entry(e)]
