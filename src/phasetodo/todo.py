"""The reference's current ``todo`` tool, exact: one op per call.

phasetodo's default profile mirrors the reference's older ``todo_write`` (an
``ops`` batch). This module is its current tool, ``todo``: the params *are*
the op (``{"op": "done", "task": "a"}``); ops ``init start done drop rm
append block unblock view``; a ``blocked`` status with its ``blocker``; a
person's drop kept as ``droppedBy: "user"``; any error leaves the list as it
was. Lists are the reference's JSON: phases with ``name`` and ``tasks``, tasks
with ``content``, ``status`` and, when set, ``blocker`` and ``droppedBy``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._todo import compaction as _compaction
from ._todo import markdown as _markdown
from ._todo.tool import run as _run
from ._todo.values import phases_from_json, phases_to_json
from .errors import InvalidOption

__all__ = ["OPS", "apply", "compaction_reminder", "compaction_section", "from_markdown", "to_markdown"]

#: The ops the tool accepts.
OPS: tuple[str, ...] = ("init", "start", "done", "rm", "drop", "block", "unblock", "append", "view")

_STORAGES = ("memory", "session")


def apply(params: object, phases: Sequence[Any] | None = None, *, storage: str = "memory") -> dict[str, Any]:
    """Run one ``todo`` call on ``phases`` (the stored list; ``None``: empty) and return its result.

    The result is the reference's: ``content`` (one text part), ``details``
    (``op`` unless the arguments were rejected, ``phases`` (the list now),
    ``storage``, and ``completedTasks`` when this call completed any) and
    ``isError: True`` when the call failed (then ``phases`` is the list as
    given). ``storage`` is ``"session"`` when the host keeps a session file.
    ``phases`` that are not a list of phases raise
    :class:`~phasetodo.errors.InvalidPhases`; a ``todo`` session's
    :attr:`~phasetodo.Session.phases` (the engine's values) are read as its list.
    """
    if storage not in _STORAGES:
        raise InvalidOption(f"storage: must be 'memory' or 'session', not {storage!r}")
    return _run(params, phases_from_json(phases), storage).result


def to_markdown(phases: Sequence[Any]) -> str:
    """The Markdown checklist of ``phases``, as the reference writes it."""
    return _markdown.to_markdown(phases_from_json(phases))


def from_markdown(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The phases a Markdown checklist describes, and a message per line it could not read."""
    phases, errors = _markdown.from_markdown(text)
    return phases_to_json(phases), errors


def compaction_section(phases: Sequence[Any]) -> str:
    """The ``## Incomplete Todos`` section a host puts into its compaction summary, exactly as the
    reference writes it: every pending, in-progress, blocked (with its blocker) and model-abandoned
    task by phase, names escaped onto one line; ``(none)`` when nothing is left."""
    return _compaction.compaction_section(phases_from_json(phases))


def compaction_reminder(phases: Sequence[Any], *, cap: int = _compaction.SNAPSHOT_CAP) -> str | None:
    """The hidden message a host adds after a compaction, or ``None`` when no work is left.

    It lists the incomplete tasks that are not blocked (at most ``cap``, then ``+ N more``) and
    marks a task that was in progress for the model to reconfirm before it goes on.
    """
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise InvalidOption(f"cap: must be a positive whole number of rows, not {cap!r}")
    return _compaction.reminder(phases_from_json(phases), cap)
