"""The tool as an OpenAI function tool, plain or in strict mode.

Strict mode (structured outputs) wants every object closed and every property
required; an optional property is made nullable instead, so a strict payload
spells an absent field as ``null``. :func:`strip_nulls` undoes that before
validation, which is what ``TodoWriteTool.execute(..., nulls_are_absent=True)``
does.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from .._core.schema import PARAMS_SCHEMA

if TYPE_CHECKING:
    from ..tool import TodoWriteTool

__all__ = ["OPENAI_STRICT_SCHEMA", "openai_tool", "strict_schema", "strip_nulls"]

#: Which OpenAI API a spec is for: Chat Completions or Responses.
Api = Literal["chat", "responses"]


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
    return node


def _nullable(node: dict[str, Any]) -> None:
    kind = node.get("type")
    if isinstance(kind, str):
        node["type"] = [kind, "null"]
    if "enum" in node and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]


#: :data:`~phasetodo.PARAMS_SCHEMA` in strict form.
OPENAI_STRICT_SCHEMA: dict[str, Any] = strict_schema(PARAMS_SCHEMA)


def strip_nulls(params: object) -> object:
    """``params`` with the ``null`` fields of each op removed (absent, as in the plain schema)."""
    if not isinstance(params, Mapping) or not isinstance(params.get("ops"), list):
        return params
    ops = [
        {k: v for k, v in op.items() if v is not None} if isinstance(op, Mapping) else op
        for op in params["ops"]
    ]
    return {**params, "ops": ops}


def openai_tool(tool: TodoWriteTool, api: Api = "chat", *, strict: bool = False) -> dict[str, Any]:
    """The tool definition for Chat Completions (``"chat"``) or Responses (``"responses"``)."""
    parameters = copy.deepcopy(OPENAI_STRICT_SCHEMA if strict else dict(tool.parameters))
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
    raise ValueError(f"api: must be 'chat' or 'responses', not {api!r}")
