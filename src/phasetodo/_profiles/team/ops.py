"""The team profile's op values: items with dependencies, ``block`` and ``unblock``.

``start``, ``done``, ``drop``, ``rm`` and ``note`` are the core's values;
``init`` and ``append`` get team versions whose items may name the tasks
they come ``after``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, Union

import attrs

from ..._core.ops import Done, Drop, Note, Rm, Start, optional_texts, plain_text, plain_texts

#: One text of an op for the size limits: (place after ``ops[i]``, kind, text), where the
#: kind is ``content`` (a task), ``name`` (a phase) or ``note`` (free text).
LimitText = tuple[str, str, str]

#: The team's op values, as :mod:`phasetodo.ops` shows them (``TEAM_OP_NAMES`` and
#: ``LimitText`` are for the team schema and the limits).
__all__ = [
    "After",
    "Block",
    "TeamAppend",
    "TeamInit",
    "TeamItem",
    "TeamOp",
    "TeamPhase",
    "Unblock",
]


@attrs.frozen
class TeamItem:
    """One new task: its content and the contents of the tasks it comes after."""

    content: str = attrs.field(converter=plain_text)
    after: tuple[str, ...] = attrs.field(default=(), converter=plain_texts)

    def limit_texts(self, place: str) -> Iterator[LimitText]:
        yield place, "content", self.content
        for index, content in enumerate(self.after):
            yield f"{place}.after[{index}]", "content", content

    def to_json(self) -> str | dict[str, object]:
        """A plain string when there is no ``after``, as the model may send it."""
        if not self.after:
            return self.content
        return {"content": self.content, "after": list(self.after)}


def _to_items(value: tuple[TeamItem, ...] | list[TeamItem]) -> tuple[TeamItem, ...]:
    return value if isinstance(value, tuple) else tuple(value)


@attrs.frozen
class TeamPhase:
    """One entry of a team ``init``'s list: a phase name and its items."""

    phase: str = attrs.field(converter=plain_text)
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
    grows: ClassVar[bool] = True
    list: tuple[TeamPhase, ...] | None = attrs.field(default=None, converter=_opt_phases)

    def limit_texts(self) -> Iterator[LimitText]:
        """Every text of the op, for :class:`~phasetodo.Limits`."""
        for number, entry in enumerate(self.list or ()):
            yield f".list[{number}].phase", "name", entry.phase
            for index, item in enumerate(entry.items):
                yield from item.limit_texts(f".list[{number}].items[{index}]")


@attrs.frozen
class TeamAppend:
    """Add ``pending`` tasks (with their ``after``) to a phase, creating it when missing."""

    name: ClassVar[str] = "append"
    grows: ClassVar[bool] = True
    phase: str | None = attrs.field(default=None, converter=plain_text)
    items: tuple[TeamItem, ...] | None = attrs.field(default=None, converter=_opt_items)

    def limit_texts(self) -> Iterator[LimitText]:
        """Every text of the op, for :class:`~phasetodo.Limits`."""
        if self.phase is not None:
            yield ".phase", "name", self.phase
        for index, item in enumerate(self.items or ()):
            yield from item.limit_texts(f".items[{index}]")


def _task_text(task: str | None) -> Iterator[LimitText]:
    """The ``task`` an op names, if it names one, for the size limits."""
    if task is not None:
        yield ".task", "content", task


@attrs.frozen
class Block:
    """Mark an open task ``blocked``, saying why; it is never claimed or promoted."""

    name: ClassVar[str] = "block"
    task: str | None = attrs.field(default=None, converter=plain_text)
    reason: str | None = attrs.field(default=None, converter=plain_text)

    def limit_texts(self) -> Iterator[LimitText]:
        """Every text of the op, for :class:`~phasetodo.Limits`."""
        yield from _task_text(self.task)
        if self.reason is not None:
            yield ".reason", "note", self.reason


@attrs.frozen
class Unblock:
    """Make a blocked task ``pending`` (and unowned) again."""

    name: ClassVar[str] = "unblock"
    task: str | None = attrs.field(default=None, converter=plain_text)

    def limit_texts(self) -> Iterator[LimitText]:
        """Every text of the op, for :class:`~phasetodo.Limits`."""
        return _task_text(self.task)


@attrs.frozen
class After:
    """Make an open task wait for more tasks: it starts only once they are closed."""

    name: ClassVar[str] = "after"
    task: str | None = attrs.field(default=None, converter=plain_text)
    after: tuple[str, ...] | None = attrs.field(default=None, converter=optional_texts)

    def limit_texts(self) -> Iterator[LimitText]:
        """Every text of the op, for :class:`~phasetodo.Limits`."""
        yield from _task_text(self.task)
        for index, content in enumerate(self.after or ()):
            yield f".after[{index}]", "content", content


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
