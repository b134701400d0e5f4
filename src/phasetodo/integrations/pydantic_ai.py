"""pydantic-ai: ``todo_write`` as a ``Tool`` built from our own JSON schema.

Bad arguments raise ``ModelRetry`` with the list of problems, so the agent
sends them back to the model for another try (within the tool's retry
budget); nothing is applied. Needs the ``phasetodo[pydantic-ai]`` extra.
"""

from __future__ import annotations

from typing import Any

try:
    from pydantic_ai import ModelRetry, Tool
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "phasetodo.integrations.pydantic_ai needs pydantic-ai: pip install 'phasetodo[pydantic-ai]'"
    ) from error

from .._core.limits import Limits
from .._profiles.builtin import ProfileLike
from ..tool import DEFAULT, TodoState, TodoWriteTool

__all__ = ["todo_write_tool"]


def todo_write_tool(
    session: TodoState | None = None,
    *,
    max_retries: int | None = None,
    profile: ProfileLike = "parity",
    limits: Limits | None = DEFAULT,
) -> Tool[Any]:
    """A pydantic-ai ``Tool`` named ``todo_write`` acting on ``session`` (memory when ``None``).

    It runs alone (``sequential``), never beside another tool call, as the
    list is read and replaced whole by each call. ``profile`` and ``limits``
    are those of :class:`~phasetodo.TodoWriteTool`.
    """
    tool = TodoWriteTool(session, profile=profile, limits=limits)

    def todo_write(**params: Any) -> str:
        result = tool.execute(params)
        if result.is_error:
            raise ModelRetry(result.text)
        return result.text

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
