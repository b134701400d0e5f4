"""openai-agents: ``todo_write`` as a ``FunctionTool``.

The tool answers bad arguments (and JSON that does not parse) with the error
text instead of raising, so the run goes on and the model can correct the
call. By default it sends the strict schema, as the SDK recommends, and reads
``null`` fields as absent. Needs the ``phasetodo[openai-agents]`` extra.
"""

from __future__ import annotations

import json
from typing import Any

try:
    from agents import FunctionTool, RunContextWrapper
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "phasetodo.integrations.openai_agents needs openai-agents: pip install 'phasetodo[openai-agents]'"
    ) from error

from .._core.limits import Limits
from .._profiles.builtin import ProfileLike
from ..tool import UNSET, TodoState, TodoWriteTool, Unset
from .openai import strict_schema

__all__ = ["todo_write_tool"]


def todo_write_tool(
    session: TodoState | None = None,
    *,
    strict: bool = True,
    profile: ProfileLike = "parity",
    limits: Limits | Unset | None = UNSET,
) -> FunctionTool:
    """A ``FunctionTool`` named ``todo_write`` acting on ``session`` (memory when ``None``).

    ``strict=False`` sends the plain schema instead of the strict one; ``profile``
    and ``limits`` are those of :class:`~phasetodo.TodoWriteTool`.
    """
    tool = TodoWriteTool(session, profile=profile, limits=limits)

    async def invoke(_context: RunContextWrapper[Any], arguments: str) -> str:
        try:
            params = json.loads(arguments) if arguments.strip() else {}
        except ValueError as error:
            return tool.error_result([f"params: not valid JSON ({error})"]).text
        return tool.execute(params, nulls_are_absent=strict).text

    schema = strict_schema(tool.parameters) if strict else tool.parameters
    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=json.loads(json.dumps(schema)),
        on_invoke_tool=invoke,
        strict_json_schema=strict,
    )
