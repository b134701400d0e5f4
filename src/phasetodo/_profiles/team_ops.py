"""The team profile's op values: items with dependencies, ``block`` and ``unblock``.

``start``, ``done``, ``drop``, ``rm`` and ``note`` are the core's values;
``init`` and ``append`` get team versions whose items may name the tasks
they come ``after``.
"""

from __future__ import annotations

from typing import ClassVar, Union

import attrs

from .._core.ops import Done, Drop, Note, Rm, Start

__all__ = [
    "TEAM_OP_NAMES",
    "After",
    "Block",
    "TeamAppend",
    "TeamInit",
    "TeamItem",
    "TeamOp",
    "TeamPhase",
    "Unblock",
]


def _to_strs(value: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@attrs.frozen
class TeamItem:
    """One new task: its content and the contents of the tasks it comes after."""

    content: str
    after: tuple[str, ...] = attrs.field(default=(), converter=_to_strs)

    def to_json(self) -> str | dict[str, object]:
        """A plain string when there is no ``after``, as the model may send it."""
        if not self.after:
            return self.content
        return {"content": self.content, "after": list(self.after)}


def _opt_strs(value: tuple[str, ...] | list[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def _to_items(value: tuple[TeamItem, ...] | list[TeamItem]) -> tuple[TeamItem, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@attrs.frozen
class TeamPhase:
    """One entry of a team ``init``'s list: a phase name and its items."""

    phase: str
    items: tuple[TeamItem, ...] = attrs.field(converter=_to_items)


def _opt_phases(
    value: tuple[TeamPhase, ...] | list[TeamPhase] | None,
) -> tuple[TeamPhase, ...] | None:
    return None if value is None else tuple(value)


def _opt_items(
    value: tuple[TeamItem, ...] | list[TeamItem] | None,
) -> tuple[TeamItem, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen
class TeamInit:
    """Replace the whole plan; every task starts ``pending`` and unowned."""

    name: ClassVar[str] = "init"
    list: tuple[TeamPhase, ...] | None = attrs.field(default=None, converter=_opt_phases)


@attrs.frozen
class TeamAppend:
    """Add ``pending`` tasks (with their ``after``) to a phase, creating it when missing."""

    name: ClassVar[str] = "append"
    phase: str | None = None
    items: tuple[TeamItem, ...] | None = attrs.field(default=None, converter=_opt_items)


@attrs.frozen
class Block:
    """Mark an open task ``blocked``, saying why; it is never claimed or promoted."""

    name: ClassVar[str] = "block"
    task: str | None = None
    reason: str | None = None


@attrs.frozen
class Unblock:
    """Make a blocked task ``pending`` (and unowned) again."""

    name: ClassVar[str] = "unblock"
    task: str | None = None


@attrs.frozen
class After:
    """Make an open task wait for more tasks: it starts only once they are closed."""

    name: ClassVar[str] = "after"
    task: str | None = None
    after: tuple[str, ...] | None = attrs.field(default=None, converter=_opt_strs)


TeamOp = Union[TeamInit, Start, Done, Drop, Rm, TeamAppend, Note, Block, Unblock, After]  # noqa: UP007

#: The team profile's op names, in the order its prompt lists them.
TEAM_OP_NAMES: tuple[str, ...] = (
    "init",
    "start",
    "done",
    "drop",
    "rm",
    "append",
    "note",
    "block",
    "unblock",
    "after",
)
