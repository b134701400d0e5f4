"""The reference tool's texts, each written once: its op errors and its summary's fixed lines.

Every engine path (the working copy, the team rules) and every view of the
reference's summary takes its wording from here, so a conformance vector's
text has one source. The profiles' own texts (strict's hints, the team's
refusals) stay with their profiles.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "CLEARED",
    "EMPTY_HINT",
    "MISSING_CONTENT",
    "MISSING_ITEMS",
    "MISSING_LIST",
    "MISSING_PHASE_NAME",
    "MISSING_TEXT",
    "NO_REMAINING",
    "already_exists",
    "errors_line",
    "phase_line",
    "phase_not_found",
    "remaining_head",
    "task_not_found",
]

#: A task op without a task content (``start``, ``note``; ``done``/``drop``/``rm`` with ``task: ""``
#: mean every task instead).
MISSING_CONTENT = "Missing task content"
#: What a miss on an empty list adds: the list was probably replaced or never made.
EMPTY_HINT = " (todo list is empty — was it replaced or not yet created?)"
MISSING_PHASE_NAME = "Missing phase name for append operation"
MISSING_ITEMS = "Missing items for append operation"
MISSING_TEXT = "Missing text for note operation"
MISSING_LIST = "Missing list for init operation"

#: The summary of a list without tasks (and without errors).
CLEARED = "Todo list cleared."
#: The summary's head when no task is open.
NO_REMAINING = "Remaining items: none."


def task_not_found(content: str, hint: str = "") -> str:
    """A task op named a content no task has; ``hint`` is what a profile adds."""
    return f'Task "{content}" not found{hint}'


def phase_not_found(name: str, hint: str = "") -> str:
    """A phase op named a phase that does not exist; ``hint`` is what a profile adds."""
    return f'Phase "{name}" not found{hint}'


def already_exists(content: str, where: str = "") -> str:
    """An ``append`` (or ``init`` item) repeats a content; ``where`` is what a profile adds."""
    return f'Task "{content}" already exists{where}'


def errors_line(errors: Sequence[str]) -> str:
    """The summary's first line when the call had op errors."""
    return f"Errors: {'; '.join(errors)}"


def remaining_head(opened: int) -> str:
    """The line above the open tasks."""
    return f"Remaining items ({opened}):"


def phase_line(number: int, phases: int, name: str, closed: int, size: int) -> str:
    """The current phase's progress: ``Phase 2/3 "Fix" — 1/4 tasks complete``."""
    return f'Phase {number}/{phases} "{name}" — {closed}/{size} tasks complete'
