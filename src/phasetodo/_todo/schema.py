"""The todo tool's argument check, with the schema library's messages.

The reference checks its arguments with a schema library whose messages read
``path must be <description> (was <actual>)``, one line per problem, in the
schema's key order. :func:`check` gives either the checked params or those
lines; :func:`infer_op` is the reference's repair of a missing ``op``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import attrs

__all__ = ["OPS", "InitEntry", "Params", "check", "infer_op"]

#: The ops the tool accepts, in the schema's order.
OPS = ("init", "start", "done", "rm", "drop", "block", "unblock", "append", "view")

_MISSING = object()


@attrs.frozen
class InitEntry:
    """One ``list`` entry of an ``init``: a phase name and its task contents."""

    phase: str
    items: tuple[str, ...]


@attrs.frozen
class Params:
    """One checked call: the op and whichever of its fields were sent."""

    op: str
    list: tuple[InitEntry, ...] | None = None
    task: str | None = None
    phase: str | None = None
    items: tuple[str, ...] | None = None
    reason: str | None = None


def js_number(value: float) -> str:
    """A number as JavaScript prints it."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)


def _domain(value: object) -> str:
    """The ``was …`` text for a value of the wrong kind."""
    if value is _MISSING:
        return "missing"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an object"


def _unit(value: object) -> str:
    """The ``was …`` text for a value that is not one of the allowed literals."""
    if value is _MISSING:
        return "missing"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _line(path: str, description: str, was: str) -> str:
    head = f"{path} must be" if path else "must be"
    return f"{head} {description} (was {was})"


def _is_object(value: object) -> bool:
    return isinstance(value, (dict, list))


def _get(value: object, key: str) -> object:
    return value.get(key, _MISSING) if isinstance(value, dict) else _MISSING


def _strings(value: object, path: str, description: str, problems: list[str]) -> None:
    if not isinstance(value, list):
        problems.append(_line(path, description, _domain(value)))
        return
    for index, item in enumerate(value):
        if not isinstance(item, str):
            problems.append(_line(f"{path}[{index}]", "task content", _domain(item)))


def _entry(value: object, path: str, problems: list[str]) -> None:
    if not _is_object(value):
        problems.append(_line(path, "an object", _domain(value)))
        return
    phase = _get(value, "phase")
    if not isinstance(phase, str):
        problems.append(_line(f"{path}.phase", "phase name", _domain(phase)))
    items = _get(value, "items")
    description = "tasks for this phase"
    if isinstance(items, list) and not items:
        problems.append(_line(f"{path}.items", description, "0"))
    else:
        _strings(items, f"{path}.items", description, problems)


def _problems(raw: object) -> list[str]:
    if not _is_object(raw):
        return [_line("", "apply a single todo operation", _domain(raw))]
    problems: list[str] = []
    op = _get(raw, "op")
    if not (isinstance(op, str) and op in OPS):
        problems.append(_line("op", "operation to apply", _unit(op)))
    entries = _get(raw, "list")
    if entries is not _MISSING:
        if isinstance(entries, list):
            for index, entry in enumerate(entries):
                _entry(entry, f"list[{index}]", problems)
        else:
            problems.append(_line("list", "phased task list (init)", _domain(entries)))
    for key, description in (("task", "task content"), ("phase", "phase name")):
        value = _get(raw, key)
        if value is not _MISSING and not isinstance(value, str):
            problems.append(_line(key, description, _domain(value)))
    items = _get(raw, "items")
    if items is not _MISSING:
        _strings(items, "items", "tasks for single-phase init or append", problems)
    reason = _get(raw, "reason")
    if reason is not _MISSING and not isinstance(reason, str):
        problems.append(_line("reason", "blocker note (block op)", _domain(reason)))
    return problems


def _build(raw: dict[str, Any]) -> Params:
    entries = raw.get("list")
    items = raw.get("items")
    return Params(
        op=raw["op"],
        list=None
        if entries is None
        else tuple(InitEntry(entry["phase"], tuple(entry["items"])) for entry in entries),
        task=raw.get("task"),
        phase=raw.get("phase"),
        items=None if items is None else tuple(items),
        reason=raw.get("reason"),
    )


def infer_op(raw: object, has_phases: bool) -> str | None:
    """The op a call without one means, when only one reading fits; else ``None``."""
    if not isinstance(raw, dict) or "op" in raw:
        return None
    entries = raw.get("list")
    if isinstance(entries, list) and entries:
        return "init"
    items = raw.get("items")
    if isinstance(items, list) and items:
        phase = raw.get("phase")
        if isinstance(phase, str) and phase:
            return "append"
        if not has_phases:
            return "init"
    return None


def check(raw: object, has_phases: bool) -> Params | list[str]:
    """The checked params of ``raw``, or the schema's message lines.

    A missing ``op`` is inferred where :func:`infer_op` can; if the repaired
    call still fails, the lines are those of the call as sent.
    """
    problems = _problems(raw)
    if not problems:
        assert isinstance(raw, dict)
        return _build(raw)
    inferred = infer_op(raw, has_phases)
    if inferred is not None:
        assert isinstance(raw, dict)
        repaired = {**raw, "op": inferred}
        if not _problems(repaired):
            return _build(repaired)
    return problems
