"""The keys each op takes, and the guard that refuses an op given a key it does not take.

The reference ignores a key its op does not take, so ``{"op": "done", "taks": "Parser"}``
is a ``done`` with no target: it completes the whole list. The profiles keep that
(``parity`` stays exact to the reference); the entry points where a person or an outside
client calls (the command's ``apply``, the MCP server) run :func:`unknown_key_problems`
first and refuse the call, naming the key and the keys its op takes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from .._core.ops import OPS, View
from .._todo.schema import Params as TodoParams
from .._todo.schema import check as check_todo
from .team.ops import After, Block, TeamAppend, TeamInit, Unblock

__all__ = ["OP_KEYS", "TODO_KEYS", "unknown_key_problems"]


def _keys(classes: Iterable[Any]) -> dict[str, frozenset[str]]:
    """Each op name to ``op`` plus the fields of every class that op has in some profile."""
    out: dict[str, set[str]] = {}
    for cls in classes:
        out.setdefault(cls.name, {"op"}).update(field.name for field in attrs.fields(cls))
    return {name: frozenset(keys) for name, keys in out.items()}


#: The keys each op takes, in any profile (``op`` included): its fields, read from the op classes.
OP_KEYS: Mapping[str, frozenset[str]] = _keys(
    (*OPS.values(), View, TeamInit, TeamAppend, Block, Unblock, After)
)


#: The keys a call of the one-op ``todo`` tool may carry: the params are the op itself.
TODO_KEYS: frozenset[str] = frozenset(attrs.fields_dict(TodoParams))


def unknown_key_problems(params: object) -> list[str]:
    """One problem for each key of an op that the op does not take (empty when there is none).

    Only ops of a known name are looked at: anything else of the wrong shape is left
    to the profile's schema, which names it. A call without ``ops`` is the ``todo``
    tool's single op: once the tool's own check takes it, its keys are checked against
    :data:`TODO_KEYS`.
    """
    if isinstance(params, dict) and "ops" not in params:
        if isinstance(check_todo(params, True), list):
            return []  # the tool's own check names what is wrong first
        names = ", ".join(sorted(TODO_KEYS))
        return [
            f"{key}: the todo tool takes no key {key!r}; it takes {names}"
            for key in params
            if key not in TODO_KEYS
        ]
    ops = params.get("ops") if isinstance(params, dict) else None
    if not isinstance(ops, list):
        return []
    problems = []
    for index, entry in enumerate(ops):
        if not isinstance(entry, dict):
            continue
        name = entry.get("op")
        taken = OP_KEYS.get(name) if isinstance(name, str) else None
        if taken is None:
            continue
        for key in entry:
            if key not in taken:
                problems.append(
                    f"ops[{index}].{key}: {entry['op']} takes no key {key!r}; "
                    f"it takes {', '.join(sorted(taken))}"
                )
    return problems
