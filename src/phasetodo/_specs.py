"""Provider tool specs built from a tool's name, prompt and schema (OpenAI, Anthropic, MCP).

They live below the tool so that ``TodoWriteTool.to_openai()`` and friends need
no integration module; ``phasetodo.integrations`` re-exports them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Literal, Protocol

from ._core.schema import DETAILS_SCHEMA, PARAMS_SCHEMA, read_nulls
from .errors import InvalidOption

__all__ = [
    "OPENAI_STRICT_SCHEMA",
    "Api",
    "anthropic_strict_schema",
    "anthropic_tool",
    "mcp_tool",
    "openai_tool",
    "strict_schema",
    "strip_nulls",
]

#: Which OpenAI API a spec is for: Chat Completions or Responses.
Api = Literal["chat", "responses"]


class ToolSpec(Protocol):
    """What a spec is made of: the tool's name, prompt and parameter schema."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def parameters(self) -> Mapping[str, Any]: ...


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in OpenAI's strict form.

    Each object gets ``additionalProperties: false`` and lists every property
    as required; properties that were optional accept ``null`` as well.
    """
    return _strict(copy.deepcopy(dict(schema)))


def _strict(node: dict[str, Any]) -> dict[str, Any]:
    if node.get("type") == "object":
        properties: dict[str, Any] = node.setdefault("properties", {})
        required = set(node.get("required", ()))
        for key, sub in properties.items():
            _strict(sub)
            if key not in required:
                _nullable(sub)
        node["required"] = list(properties)
        node["additionalProperties"] = False
    elif node.get("type") == "array" and isinstance(node.get("items"), dict):
        _strict(node["items"])
    for branch in node.get("anyOf", ()):  # e.g. a team item: a string or {content, after}
        _strict(branch)
    return node


def _nullable(node: dict[str, Any]) -> None:
    kind = node.get("type")
    if isinstance(kind, str):
        node["type"] = [kind, "null"]
    if "enum" in node and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]


#: :data:`~phasetodo.profiles.PARAMS_SCHEMA` in strict form.
OPENAI_STRICT_SCHEMA: dict[str, Any] = strict_schema(PARAMS_SCHEMA)


def strip_nulls(params: object) -> object:
    """``params`` as the null rule reads strict-mode payloads: ``null`` op fields left out,
    and ``null`` fields of object items (a team item's ``after``) too.

    The rule is :func:`phasetodo._core.schema.read_nulls`: it raises
    ``InvalidParams`` for a done/drop/rm whose targets are only ``null``
    (null never means every task).
    """
    read = read_nulls(params)
    if not isinstance(read, Mapping) or not isinstance(read.get("ops"), list):
        return read
    ops = [
        {k: _strip_items(k, v) for k, v in op.items()} if isinstance(op, Mapping) else op
        for op in read["ops"]
    ]
    return {**read, "ops": ops}


def _strip_items(key: str, value: Any) -> Any:
    """``items`` (and ``list[].items``) with the ``null`` fields of object items removed."""
    if key == "items" and isinstance(value, list):
        return [
            {k: v for k, v in item.items() if v is not None} if isinstance(item, Mapping) else item
            for item in value
        ]
    if key == "list" and isinstance(value, list):
        return [
            {k: _strip_items(k, v) for k, v in entry.items()} if isinstance(entry, Mapping) else entry
            for entry in value
        ]
    return value


def openai_tool(tool: ToolSpec, api: Api = "chat", *, strict: bool = False) -> dict[str, Any]:
    """The tool definition for Chat Completions (``"chat"``) or Responses (``"responses"``).

    ``strict=True`` puts the tool's own schema (its profile's) in strict form.
    """
    parameters = strict_schema(tool.parameters) if strict else copy.deepcopy(dict(tool.parameters))
    function = {
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
        "strict": strict,
    }
    if api == "chat":
        return {"type": "function", "function": function}
    if api == "responses":
        return {"type": "function", **function}
    raise InvalidOption(f"api: must be 'chat' or 'responses', not {api!r}")


def anthropic_strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in the form Anthropic's strict tool use takes as it is.

    Every object is closed (``additionalProperties: false``) and an ``enum``
    stands without a ``type`` beside it: the schema is what the SDK's
    ``anthropic.transform_schema`` would make of it, so nothing is moved or lost.
    """
    out = copy.deepcopy(dict(schema))
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


def anthropic_tool(tool: ToolSpec, *, strict: bool = False) -> dict[str, Any]:
    """``{"name", "description", "input_schema"}``, ready for ``messages.create(tools=[...])``.

    The schema uses only keywords Anthropic's strict tool use supports
    (``minItems`` of at most 1, string enums), so the SDK's schema transform
    keeps every constraint instead of moving it into a description.
    ``strict=True`` adds ``"strict": true`` and gives the schema in the exact
    form strict tool use takes (:func:`anthropic_strict_schema`).
    """
    spec: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": (
            anthropic_strict_schema(tool.parameters) if strict else copy.deepcopy(dict(tool.parameters))
        ),
    }
    if strict:
        spec["strict"] = True
    return spec


def mcp_tool(tool: ToolSpec, *, output: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The MCP tool definition of ``tool`` (wire names: ``inputSchema``, ``outputSchema``);
    ``output`` is the schema of its details (``None``: ``todo_write``'s)."""
    return {
        "name": tool.name,
        "title": "Update the todo list",
        "description": tool.description,
        "inputSchema": copy.deepcopy(dict(tool.parameters)),
        "outputSchema": copy.deepcopy(dict(DETAILS_SCHEMA if output is None else output)),
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": False,
            "openWorldHint": False,
        },
    }
