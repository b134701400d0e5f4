"""The agent-facing ``todo_write`` call: arguments in, tool result out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from .codec import _as_phases, dump_phases, parse_params
from .engine import Outcome, apply
from .model import Phase
from .summary import format_summary

__all__ = ["Storage", "execute", "result_of", "todo_write"]

Storage = Literal["session", "memory"]


def result_of(outcome: Outcome, storage: Storage = "memory") -> dict[str, Any]:
    """The reference tool result for an outcome, as JSON-ready data."""
    return {
        "content": [{"type": "text", "text": format_summary(outcome.phases, outcome.errors)}],
        "details": {"phases": dump_phases(outcome.phases), "storage": storage},
    }


def execute(params: object, phases: Iterable[Phase] = ()) -> Outcome:
    """Validate ``params`` and apply them to ``phases``; raises ``InvalidParams``."""
    return apply(phases, parse_params(params))


def todo_write(
    params: Mapping[str, Any], phases: Iterable[Phase | Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """One ``todo_write`` call on a memory-backed list.

    ``phases`` is the stored list before the call (JSON dicts or ``Phase``
    values); it is not modified. Returns the tool result as JSON-ready data:
    ``{"content": [{"type": "text", "text": ...}], "details": {"phases", "storage"}}``.
    Raises :class:`~phasetodo.InvalidParams` when ``params`` break the schema,
    before anything is applied.
    """
    ops = parse_params(params)
    current = _as_phases(phases) if phases is not None else ()
    return result_of(apply(current, ops))
