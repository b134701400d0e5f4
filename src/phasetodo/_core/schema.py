"""The ``todo_write`` parameter schema, compiled once, and its problem report.

``fastjsonschema`` checks a call quickly but stops at the first problem, so a
rejected call is walked once more by :func:`problems` to list every problem
with its place (``ops[2].items: must contain at least 1 item``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import InvalidParams
from .model import Status
from .ops import OP_NAMES

__all__ = [
    "DETAILS_SCHEMA",
    "PARAMS_CHECK",
    "PARAMS_SCHEMA",
    "PHASES_SCHEMA",
    "STRICT_PARAMS_CHECK",
    "STRICT_PARAMS_SCHEMA",
    "ParamsCheck",
    "array_of_objects",
    "is_valid",
    "is_valid_strict",
    "problems",
    "read_nulls",
]

_ITEMS = {
    "type": "array",
    "minItems": 1,
    "items": {"type": "string", "description": "Task content: a short, unique imperative phrase."},
}


def array_of_objects(
    properties: dict[str, Any],
    required: Sequence[str],
    *,
    description: str | None = None,
    min_items: int = 0,
) -> dict[str, Any]:
    """The JSON Schema of an array of objects with ``properties``, the ``required`` ones among them."""
    out: dict[str, Any] = {"type": "array"}
    if min_items:
        out["minItems"] = min_items
    if description is not None:
        out["description"] = description
    out["items"] = {"type": "object", "required": list(required), "properties": properties}
    return out


#: JSON Schema of the tool arguments: the reference's constraints, our descriptions.
PARAMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Apply ordered operations to the phased todo list.",
    "required": ["ops"],
    "properties": {
        "ops": array_of_objects(
            {
                "op": {
                    "type": "string",
                    "enum": list(OP_NAMES),
                    "description": "Which operation to apply.",
                },
                "list": array_of_objects(
                    {
                        "phase": {"type": "string", "description": "Phase name."},
                        "items": {**_ITEMS, "description": "Tasks, in order."},
                    },
                    ["phase", "items"],
                    description="init: the whole new list, phase by phase.",
                ),
                "task": {
                    "type": "string",
                    "description": "start/done/drop/rm/note: the task's exact content.",
                },
                "phase": {
                    "type": "string",
                    "description": "append, or done/drop/rm of a whole phase: its exact name.",
                },
                "items": {**_ITEMS, "description": "append: tasks to add to the phase."},
                "text": {"type": "string", "description": "note: the note to attach."},
            },
            ["op"],
            description="Operations, applied in order to one copy of the list.",
            min_items=1,
        )
    },
}

_TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["content", "status"],
    "properties": {
        "content": {"type": "string"},
        "status": {"type": "string", "enum": [s.value for s in Status]},
        "notes": {"type": "array", "items": {"type": "string"}},
        "owner": {"type": "string"},
        "reason": {"type": "string"},
        "after": {"type": "array", "items": {"type": "string"}},
        "id": {"type": "string"},
        "lease": {
            "type": "object",
            "properties": {
                "epoch": {"type": "integer", "minimum": 0},
                "until": {"type": "number"},
                "lapsed": {"type": "string"},
                "lapsed_at": {"type": "number"},
                "voided": {"type": "array", "items": {"type": "string"}},
            },
        },
    },
}

#: JSON Schema of ``details.phases``: a list of phases of tasks.
PHASES_SCHEMA: dict[str, Any] = array_of_objects(
    {
        "name": {"type": "string"},
        "tasks": {"type": "array", "items": _TASK_SCHEMA},
        "last_id": {"type": "integer", "minimum": 0},
    },
    ["name", "tasks"],
)

#: JSON Schema of a tool result's ``details``.
DETAILS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["phases", "storage"],
    "properties": {
        "phases": PHASES_SCHEMA,
        "storage": {"type": "string", "enum": ["session", "memory"]},
    },
}


def _strict_schema() -> dict[str, Any]:
    """The parity schema plus the read-only ``view`` op, with strict-profile wording."""
    out = copy.deepcopy(PARAMS_SCHEMA)
    out["description"] = (
        "Apply ordered operations to the phased todo list, all or nothing: "
        "if any operation fails, none is applied."
    )
    entry = out["properties"]["ops"]["items"]["properties"]
    entry["op"]["enum"] = [*OP_NAMES, "view"]
    entry["task"]["description"] = (
        "start/done/drop/rm/note/view: the task's exact content (tasks have no ids)."
    )
    entry["phase"]["description"] = (
        "append, or done/drop/rm/view of a whole phase: its exact name."
    )
    return out


#: JSON Schema of the tool arguments in the strict profile: :data:`PARAMS_SCHEMA`
#: plus ``view`` (read-only: a task with its notes, a phase, or the whole list).
STRICT_PARAMS_SCHEMA: dict[str, Any] = _strict_schema()

_ARRAYS = (list, tuple)


def _strings(value: Any) -> bool:
    """A non-empty array of strings (``items`` of ``append`` and of ``init``'s entries)."""
    return type(value) in _ARRAYS and bool(value) and all(type(v) is str for v in value)


def _plainly_valid(params: Any, names: frozenset[str]) -> bool:
    """A quick check of the common shape: ``True`` only if the schema surely accepts ``params``.

    Exact built-in types only; anything else (a subclass, a missing field) is
    left to the compiled schema, which decides.
    """
    if type(params) is not dict:
        return False
    ops = params.get("ops")
    if type(ops) not in _ARRAYS or not ops:
        return False
    for op in ops:
        if type(op) is not dict or type(op.get("op")) is not str or op["op"] not in names:
            return False
        for key in ("task", "phase", "text"):
            if key in op and type(op[key]) is not str:
                return False
        if "items" in op and not _strings(op["items"]):
            return False
        if "list" in op:
            entries = op["list"]
            if type(entries) not in _ARRAYS:
                return False
            for entry in entries:
                if type(entry) is not dict or type(entry.get("phase")) is not str:
                    return False
                if not _strings(entry.get("items")):
                    return False
    return True


class ParamsCheck:
    """A parameter schema as a check: the quick pass over the common shape (with the op
    names the schema allows), then, only when that cannot tell, the compiled schema.

    Each profile's parse holds its own (:data:`PARAMS_CHECK`, :data:`STRICT_PARAMS_CHECK`):
    what differs between them is this value, not a name. The schema is compiled on
    first use, not at import.
    """

    __slots__ = ("_compiled", "ops", "schema")

    def __init__(self, schema: Mapping[str, Any], ops: Sequence[str]) -> None:
        self.schema = schema
        self.ops = frozenset(ops)
        self._compiled: Callable[[object], object] | None = None

    def compiled(self) -> Callable[[object], object]:
        """The schema compiled by ``fastjsonschema`` (raises on a breach)."""
        if self._compiled is None:
            import fastjsonschema

            self._compiled = fastjsonschema.compile(dict(self.schema))
        return self._compiled

    def __call__(self, params: object) -> bool:
        """Whether ``params`` satisfies the schema."""
        if _plainly_valid(params, self.ops):
            return True
        try:
            self.compiled()(params)
        except Exception:  # a schema breach, or a value that is not JSON-shaped at all
            return False
        return True


#: The parity profile's check: :data:`PARAMS_SCHEMA`.
PARAMS_CHECK = ParamsCheck(PARAMS_SCHEMA, OP_NAMES)
#: The strict profile's check: :data:`STRICT_PARAMS_SCHEMA` (``view`` as well).
STRICT_PARAMS_CHECK = ParamsCheck(STRICT_PARAMS_SCHEMA, (*OP_NAMES, "view"))


def is_valid_strict(params: object) -> bool:
    """Whether ``params`` satisfies :data:`STRICT_PARAMS_SCHEMA`."""
    return STRICT_PARAMS_CHECK(params)


def is_valid(params: object) -> bool:
    """Whether ``params`` satisfies :data:`PARAMS_SCHEMA`."""
    return PARAMS_CHECK(params)


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list, tuple),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
}
_TYPE_NAMES = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
}


def problems(value: object, schema: Mapping[str, Any] = PARAMS_SCHEMA, place: str = "") -> list[str]:
    """Every way ``value`` breaks ``schema``, one line each, prefixed by its place.

    Covers the keywords our schemas use: type, enum, minimum, required, properties,
    items and minItems.
    """
    where = place or "params"
    kind = schema.get("type")
    if kind is not None and not _has_type(value, kind):
        return [f"{where}: must be {_TYPE_NAMES[kind]}, not {_describe(value)}"]
    found: list[str] = []
    least = schema.get("minimum")
    if least is not None and isinstance(value, (int, float)) and value < least:
        found.append(f"{where}: must be at least {least}, not {value}")
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: must be one of {', '.join(schema['enum'])}")
    if isinstance(value, dict):
        found += _object_problems(value, schema, place)
    elif isinstance(value, (list, tuple)):
        found += _array_problems(value, schema, place, where)
    return found


def _object_problems(value: Mapping[Any, Any], schema: Mapping[str, Any], place: str) -> list[str]:
    prefix = f"{place}." if place else ""
    found = [f"{prefix}{key}: is required" for key in schema.get("required", ()) if key not in value]
    for key, sub in schema.get("properties", {}).items():
        if key in value:
            found += problems(value[key], sub, f"{prefix}{key}")
    return found


def _array_problems(
    value: list[Any] | tuple[Any, ...], schema: Mapping[str, Any], place: str, where: str
) -> list[str]:
    found: list[str] = []
    least = schema.get("minItems", 0)
    if len(value) < least:
        found.append(f"{where}: must contain at least {least} item{'s' if least != 1 else ''}")
    sub = schema.get("items")
    if sub is not None:
        for index, item in enumerate(value):
            found += problems(item, sub, f"{place}[{index}]")
    return found


def _has_type(value: object, kind: str) -> bool:
    return isinstance(value, _JSON_TYPES[kind]) and not isinstance(value, bool)


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return _TYPE_NAMES.get(_json_kind(value), f"a {type(value).__name__}")


def _json_kind(value: object) -> str:
    for kind, types in _JSON_TYPES.items():
        if isinstance(value, types):
            return kind
    return ""


#: The ops that act on every task when they name neither a task nor a phase.
_WHOLE_LIST_OPS = frozenset({"done", "drop", "rm"})


def read_nulls(params: object) -> object:
    """The one rule for ``null`` op fields in strict-mode payloads.

    Everywhere else a ``null`` op field is rejected by the schema, as the
    reference does. A strict-mode model sends every unused field as ``null``,
    so its payloads (``TodoWriteTool.execute(..., nulls_are_absent=True)`` and
    the adapters that send the strict spec) are read through this function: a
    ``null`` field reads as left out, except that ``null`` never means "every
    task". A ``done``, ``drop`` or ``rm`` that names neither a task nor a phase,
    with ``task`` or ``phase`` given as ``null``, raises
    :class:`~phasetodo.InvalidParams`; to act on every task, leave both fields
    out. Anything that is not a list of op objects is returned as is, for the
    schema to report.
    """
    if not isinstance(params, Mapping):
        return params
    ops = params.get("ops")
    if not isinstance(ops, list) or not any(
        isinstance(op, Mapping) and None in op.values() for op in ops
    ):
        return params  # the common case: nothing to rewrite, no copy made
    found: list[str] = []
    read: list[object] = []
    for index, op in enumerate(ops):
        if not isinstance(op, Mapping) or None not in op.values():
            read.append(op)
            continue
        kept = {key: value for key, value in op.items() if value is not None}
        nulled = [key for key in ("task", "phase") if key in op and op[key] is None]
        if kept.get("op") in _WHOLE_LIST_OPS and nulled and "task" not in kept and "phase" not in kept:
            found.append(
                f"ops[{index}].{nulled[0]}: is null, and null never means every task: "
                "name a task or a phase, or leave both out to act on every task"
            )
        read.append(kept)
    if found:
        raise InvalidParams(found)
    return {**params, "ops": read}
