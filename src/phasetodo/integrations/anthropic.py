"""The tool as an Anthropic Messages API tool."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tool import TodoWriteTool

__all__ = ["anthropic_tool"]


def anthropic_tool(tool: TodoWriteTool) -> dict[str, Any]:
    """``{"name", "description", "input_schema"}``, ready for ``messages.create(tools=[...])``.

    The schema uses only keywords Anthropic's strict tool use supports
    (``minItems`` of at most 1, string enums), so the SDK's schema transform
    keeps every constraint instead of moving it into a description.
    """
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": copy.deepcopy(dict(tool.parameters)),
    }
