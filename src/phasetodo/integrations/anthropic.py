"""The tool as an Anthropic Messages API tool."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tool import TodoWriteTool

__all__ = ["anthropic_strict_schema", "anthropic_tool"]


def anthropic_strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in the form Anthropic's strict tool use takes as it is.

    Every object is closed (``additionalProperties: false``) and an ``enum``
    stands without a ``type`` beside it: the schema is what the SDK's
    ``anthropic.transform_schema`` would make of it, so nothing is moved or lost.
    """
    out = copy.deepcopy(schema)
    _close(out)
    return out


def _close(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _close(item)
        return
    if not isinstance(node, dict):
        return
    if "enum" in node:
        node.pop("type", None)
    if node.get("type") == "object":
        node.setdefault("additionalProperties", False)
    for key, value in node.items():
        if key != "enum":
            _close(value)


def anthropic_tool(tool: TodoWriteTool, *, strict: bool = False) -> dict[str, Any]:
    """``{"name", "description", "input_schema"}``, ready for ``messages.create(tools=[...])``.

    The schema uses only keywords Anthropic's strict tool use supports
    (``minItems`` of at most 1, string enums), so the SDK's schema transform
    keeps every constraint instead of moving it into a description.
    ``strict=True`` adds ``"strict": true`` and gives the schema in the exact
    form strict tool use takes (:func:`anthropic_strict_schema`).
    """
    schema = dict(tool.parameters)
    spec: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": anthropic_strict_schema(schema) if strict else copy.deepcopy(schema),
    }
    if strict:
        spec["strict"] = True
    return spec
