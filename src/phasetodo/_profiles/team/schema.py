"""The team profile's parameter schema and the parser that builds its ops.

The reference's ops plus ``block {task, reason}`` and ``unblock {task}``;
``init`` and ``append`` items are strings or ``{"content", "after"}`` objects.
Every problem is listed with its place, as for the other profiles.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..._core import schema
from ..._core.ops import Done, Drop, Note, Rm, Start
from ...errors import InvalidParams
from .ops import TEAM_OP_NAMES, After, Block, TeamAppend, TeamInit, TeamItem, TeamOp, TeamPhase, Unblock

__all__ = ["TEAM_PARAMS_SCHEMA", "dump_team_op", "parse_team_params"]

_ITEM: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "description": "Task content: a short, unique imperative phrase."},
        {
            "type": "object",
            "required": ["content"],
            "properties": {
                "content": {"type": "string", "description": "Task content."},
                "after": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Contents of the tasks that must be closed before this one starts.",
                },
            },
        },
    ]
}


def _team_schema() -> dict[str, Any]:
    out = copy.deepcopy(schema.PARAMS_SCHEMA)
    out["description"] = (
        "Apply ordered operations to the team's shared plan, all or nothing, as the "
        "calling agent: if any operation fails, none is applied."
    )
    entry = out["properties"]["ops"]["items"]["properties"]
    entry["op"]["enum"] = list(TEAM_OP_NAMES)
    entry["list"]["items"]["properties"]["items"]["items"] = _ITEM
    entry["items"]["items"] = _ITEM
    entry["task"]["description"] = (
        "start/done/drop/rm/note/block/unblock: the task's exact content. "
        "start without a task claims the next ready task."
    )
    entry["reason"] = {"type": "string", "description": "block: why the task cannot go on."}
    entry["after"] = {
        "type": "array",
        "items": {"type": "string"},
        "description": "after: contents of the tasks that must close before the task starts.",
    }
    return out


#: JSON Schema of the team profile's tool arguments.
TEAM_PARAMS_SCHEMA: dict[str, Any] = _team_schema()

_compiled: list[Callable[[object], object]] = []


def _validate(params: object) -> object:
    """Check ``params`` with the compiled schema, compiled on first use (not at import)."""
    if not _compiled:
        import fastjsonschema

        _compiled.append(fastjsonschema.compile(TEAM_PARAMS_SCHEMA))
    return _compiled[0](params)


def _walk_schema() -> dict[str, Any]:
    """The team schema without the item union, for the problem walker (items are checked by hand)."""
    out = copy.deepcopy(TEAM_PARAMS_SCHEMA)
    entry = out["properties"]["ops"]["items"]["properties"]
    entry["list"]["items"]["properties"]["items"]["items"] = {}
    entry["items"]["items"] = {}
    return out


_WALK = _walk_schema()


def _item_problems(items: object, place: str) -> list[str]:
    if not isinstance(items, list):
        return []
    found = []
    for index, item in enumerate(items):
        where = f"{place}[{index}]"
        if isinstance(item, str):
            continue
        if not isinstance(item, dict):
            found.append(f"{where}: must be a string or an object with content and after")
            continue
        found += schema.problems(item, _ITEM["anyOf"][1], where)
    return found


def _problems(params: object) -> list[str]:
    found = schema.problems(params, _WALK)
    ops = params.get("ops") if isinstance(params, dict) else None
    if isinstance(ops, list):
        for i, entry in enumerate(ops):
            if not isinstance(entry, dict):
                continue
            found += _item_problems(entry.get("items"), f"ops[{i}].items")
            entries = entry.get("list")
            if isinstance(entries, list):
                for j, phase in enumerate(entries):
                    if isinstance(phase, dict):
                        found += _item_problems(phase.get("items"), f"ops[{i}].list[{j}].items")
    return found


def _item(data: str | Mapping[str, Any]) -> TeamItem:
    if isinstance(data, str):
        return TeamItem(data)
    return TeamItem(data["content"], tuple(data.get("after") or ()))


def _items(data: Sequence[str | Mapping[str, Any]] | None) -> tuple[TeamItem, ...] | None:
    return None if data is None else tuple(_item(d) for d in data)


def _op(data: Mapping[str, Any]) -> TeamOp:
    name = data["op"]
    task = data.get("task")
    if name == "init":
        entries = data.get("list")
        if entries is None:
            return TeamInit()
        return TeamInit(tuple(TeamPhase(e["phase"], _items(e["items"]) or ()) for e in entries))
    if name == "append":
        return TeamAppend(data.get("phase"), _items(data.get("items")))
    if name == "start":
        return Start(task)
    if name == "note":
        return Note(task, data.get("text"))
    if name == "block":
        return Block(task, data.get("reason"))
    if name == "unblock":
        return Unblock(task)
    if name == "after":
        after = data.get("after")
        return After(task, None if after is None else tuple(after))
    if name == "done":
        return Done(task, data.get("phase"))
    if name == "drop":
        return Drop(task, data.get("phase"))
    return Rm(task, data.get("phase"))


def parse_team_params(params: object) -> tuple[TeamOp, ...]:
    """Check tool arguments against :data:`TEAM_PARAMS_SCHEMA` and build the ops.

    Raises :class:`~phasetodo.InvalidParams` listing every problem; nothing is applied.
    """
    try:
        _validate(params)
    except Exception:  # a schema breach, or a value that is not JSON-shaped at all
        raise InvalidParams(_problems(params) or ["params: must be JSON-shaped data"]) from None
    assert isinstance(params, dict)
    return tuple(_op(entry) for entry in params["ops"])


def dump_team_op(op: TeamOp) -> dict[str, Any]:
    """An op as the JSON the model sends (the inverse of the parser)."""
    out: dict[str, Any] = {"op": op.name}
    if isinstance(op, TeamInit):
        if op.list is not None:
            out["list"] = [{"phase": e.phase, "items": [i.to_json() for i in e.items]} for e in op.list]
        return out
    if isinstance(op, TeamAppend):
        if op.phase is not None:
            out["phase"] = op.phase
        if op.items is not None:
            out["items"] = [i.to_json() for i in op.items]
        return out
    for key in ("task", "phase", "text", "reason", "after"):
        value = getattr(op, key, None)
        if value is not None:
            out[key] = list(value) if key == "after" else value
    return out
