"""openai-agents: ``todo_write`` as a ``FunctionTool``.

The tool answers bad arguments (and JSON that does not parse) with the error
text instead of raising, so the run goes on and the model can correct the
call. By default it sends the strict schema, as the SDK recommends, and reads
``null`` fields as absent. Needs the ``phasetodo[openai-agents]`` extra.
"""

from __future__ import annotations

import json
from typing import Any

from ..tool import Options, TodoState
from ._extras import needs_extra
from ._options import chosen, make_tool
from .openai import strict_schema

with needs_extra(__name__, "openai-agents", "openai-agents"):
    from agents import FunctionTool, RunContextWrapper

__all__ = ["todo_write_tool"]


def todo_write_tool(
    session: TodoState | None = None,
    *,
    strict: bool = True,
    options: Options | None = None,
) -> FunctionTool:
    """A ``FunctionTool`` named ``todo_write`` acting on ``session`` (memory when ``None``).

    ``strict=False`` sends the plain schema instead of the strict one.
    ``options`` holds the profile the calls run in, their limits and the agent
    that writes (``None``: parity, the session's own limits).
    """
    tool = make_tool(session, chosen(options))

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
