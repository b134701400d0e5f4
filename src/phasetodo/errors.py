"""Exceptions raised by phasetodo. This module imports nothing of ours."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["InvalidParams", "InvalidPhases", "PhasetodoError"]


class PhasetodoError(Exception):
    """Base class of every error phasetodo raises on purpose."""


class _ProblemsError(PhasetodoError, ValueError):
    """An error that lists one problem per line, each naming its place."""

    def __init__(self, problems: Iterable[str], what: str) -> None:
        self.problems: tuple[str, ...] = tuple(problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"{what}:\n{lines}" if lines else what)


class InvalidParams(_ProblemsError):
    """Tool arguments break the parameter schema; nothing was applied.

    ``problems`` holds one line per problem, such as
    ``ops[0].op: must be one of init, start, done, drop, rm, append, note``.
    """

    def __init__(self, problems: Iterable[str]) -> None:
        super().__init__(problems, "invalid todo_write parameters")


class InvalidPhases(_ProblemsError):
    """Stored phase data is malformed; ``problems`` names each bad place."""

    def __init__(self, problems: Iterable[str]) -> None:
        super().__init__(problems, "invalid phases")
