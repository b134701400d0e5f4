"""One call of the todo tool: check, apply, settle, and the reference's result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from .._core.model import Status
from .ops import apply_op
from .schema import Params, check
from .state import normalize_in_progress
from .summary import format_summary
from .values import TodoPhase, phases_to_json

__all__ = ["Outcome", "run", "run_edits"]


@attrs.frozen
class Outcome:
    """A call's result, the op's errors (``None`` when the arguments were rejected), the list
    kept, whether it is to be saved, and the schema's lines for rejected arguments."""

    result: dict[str, Any]
    errors: tuple[str, ...] | None
    phases: tuple[TodoPhase, ...]
    persisted: bool
    problems: tuple[str, ...] = ()


def _completions(before: tuple[TodoPhase, ...], after: tuple[TodoPhase, ...]) -> list[dict[str, str]]:
    previous = {(phase.name, task.content): task.status for phase in before for task in phase.tasks}
    return [
        {"phase": phase.name, "content": task.content}
        for phase in after
        for task in phase.tasks
        if task.status is Status.COMPLETED
        and previous.get((phase.name, task.content), Status.COMPLETED) is not Status.COMPLETED
    ]


def _result(text: str, details: dict[str, Any], failed: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "details": details}
    if failed:
        result["isError"] = True
    return result


def run(params: object, before: tuple[TodoPhase, ...], storage: str) -> Outcome:
    """Apply one call to ``before``; a call with any error keeps ``before`` as it was."""
    checked = check(params, bool(before))
    if isinstance(checked, list):
        text = "Invalid todo arguments: " + "\n".join(checked)
        rejected = {"phases": phases_to_json(before), "storage": storage}
        return Outcome(_result(text, rejected, True), None, before, False, tuple(checked))
    read_only = checked.op == "view"
    errors: list[str] = []
    updated = before
    if not read_only:
        updated = normalize_in_progress(apply_op(before, checked, errors))
    failed = bool(errors)
    kept = before if failed else updated
    details: dict[str, Any] = {"op": checked.op, "phases": phases_to_json(kept), "storage": storage}
    completed = [] if read_only or failed else _completions(before, updated)
    if completed:
        details["completedTasks"] = completed
    text = format_summary(kept, errors, read_only)
    return Outcome(_result(text, details, failed), tuple(errors), kept, not read_only and not failed)


def run_edits(
    edits: Sequence[Params], before: tuple[TodoPhase, ...]
) -> tuple[tuple[TodoPhase, ...], list[str]]:
    """A person's ops applied in order (their ``drop`` settles, their ``rm`` removes), then settled;
    the list and the errors (the caller keeps ``before`` when there are any)."""
    errors: list[str] = []
    phases = before
    for params in edits:
        phases = apply_op(phases, params, errors, by_user=True)
    return normalize_in_progress(phases), errors
