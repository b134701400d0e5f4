"""pydantic-ai: ``todo_write`` as a ``Tool`` built from our own JSON schema.

Bad arguments come back to the model as the tool's text (the problems, one a
line, and that nothing was applied), as with openai-agents: the model reads
them and calls again, and no retry budget runs out, so a run never ends because
the model got the list's arguments wrong a few times. ``max_retries`` is
pydantic-ai's own budget; it only counts calls pydantic-ai itself rejects
before the tool runs (arguments that are not a JSON object). Needs the
``phasetodo[pydantic-ai]`` extra.
"""

from __future__ import annotations

from typing import Any

from ..tool import Options, TodoState
from ._extras import needs_extra
from ._options import chosen, make_tool

with needs_extra(__name__, "pydantic-ai", "pydantic-ai"):
    from pydantic_ai import Tool

__all__ = ["todo_write_tool"]


def todo_write_tool(
    session: TodoState | None = None,
    *,
    max_retries: int | None = None,
    options: Options | None = None,
) -> Tool[Any]:
    """A pydantic-ai ``Tool`` named ``todo_write`` acting on ``session`` (memory when ``None``).

    It runs alone (``sequential``), never beside another tool call, as the
    list is read and replaced whole by each call. ``options`` holds the
    profile the calls run in, their limits and the agent that writes
    (``None``: parity, the session's own limits). A bad call returns its problems
    as text rather than raising ``ModelRetry``. ``max_retries`` sets
    pydantic-ai's retry budget for arguments it rejects itself (not JSON
    objects); ``None`` keeps the agent's default.
    """
    tool = make_tool(session, chosen(options))

    def todo_write(**params: Any) -> str:
        return tool.execute(params).text

    made: Tool[Any] = Tool.from_schema(
        todo_write,
        name=tool.name,
        description=tool.description,
        json_schema=dict(tool.parameters),
        sequential=True,
    )
    if max_retries is not None:
        made.max_retries = max_retries
    return made
