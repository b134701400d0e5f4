"""One frozen value per ``todo_write`` operation, and the ``Op`` union.

Fields the reference treats as optional stay optional here: an ``init`` without
``list`` or a ``start`` without ``task`` is well-formed and yields the
reference's non-fatal error when applied.
"""

from __future__ import annotations

from typing import ClassVar, Union

import attrs

#: The op values, as :mod:`phasetodo.ops` shows them. ``OP_NAMES`` and the converters
#: (``plain_text``, ``plain_texts``, ``optional_texts``) are for the other core and
#: profile modules.
__all__ = [
    "OPS",
    "Append",
    "Done",
    "Drop",
    "Init",
    "Note",
    "Op",
    "PhaseItems",
    "Rm",
    "Start",
    "View",
]


_ONLY_STR = frozenset((str,))


def plain_text(value: str | None) -> str | None:
    """A plain ``str`` for a ``str`` subclass (its characters, no method of it run), else as given.

    Subclasses would carry their own ``__hash__`` and ``__eq__`` into the working copy's
    indexes; plain strings keep the compiled and pure-Python builds storing the same values.
    """
    if type(value) is str or not isinstance(value, str):
        return value
    return str.__str__(value)


def plain_texts(value: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """A tuple of :func:`plain_text` values."""
    items = tuple(value)
    return items if _ONLY_STR.issuperset(map(type, items)) else tuple(map(plain_text, items))  # type: ignore[arg-type]


def optional_texts(value: tuple[str, ...] | list[str] | None) -> tuple[str, ...] | None:
    """:func:`plain_texts` of a field that may be left out (``None``)."""
    return None if value is None else plain_texts(value)


@attrs.frozen
class PhaseItems:
    """One entry of ``init``'s list: a phase name and its task contents."""

    phase: str = attrs.field(converter=plain_text)
    items: tuple[str, ...] = attrs.field(converter=plain_texts)


def _opt_phase_items(
    value: tuple[PhaseItems, ...] | list[PhaseItems] | None,
) -> tuple[PhaseItems, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen
class Init:
    """Replace the whole list; every task starts ``pending``."""

    name: ClassVar[str] = "init"
    list: tuple[PhaseItems, ...] | None = attrs.field(default=None, converter=_opt_phase_items)


@attrs.frozen
class Start:
    """Make one task ``in_progress`` and demote any other active task."""

    name: ClassVar[str] = "start"
    task: str | None = attrs.field(default=None, converter=plain_text)


@attrs.frozen
class Done:
    """Complete one task, every task of a phase, or every task."""

    name: ClassVar[str] = "done"
    task: str | None = attrs.field(default=None, converter=plain_text)
    phase: str | None = attrs.field(default=None, converter=plain_text)


@attrs.frozen
class Drop:
    """Abandon one task, every task of a phase, or every task."""

    name: ClassVar[str] = "drop"
    task: str | None = attrs.field(default=None, converter=plain_text)
    phase: str | None = attrs.field(default=None, converter=plain_text)


@attrs.frozen
class Rm:
    """Remove one task, empty a phase, or empty every phase."""

    name: ClassVar[str] = "rm"
    task: str | None = attrs.field(default=None, converter=plain_text)
    phase: str | None = attrs.field(default=None, converter=plain_text)


@attrs.frozen
class Append:
    """Add ``pending`` tasks to a phase, creating the phase when missing."""

    name: ClassVar[str] = "append"
    phase: str | None = attrs.field(default=None, converter=plain_text)
    items: tuple[str, ...] | None = attrs.field(default=None, converter=optional_texts)


@attrs.frozen
class Note:
    """Attach a note (trailing whitespace stripped) to one task."""

    name: ClassVar[str] = "note"
    task: str | None = attrs.field(default=None, converter=plain_text)
    text: str | None = attrs.field(default=None, converter=plain_text)


Op = Union[Init, Start, Done, Drop, Rm, Append, Note]  # noqa: UP007 - a runtime alias on 3.10

#: The op registry: wire name to class, in the order the docs list them.
OPS: dict[str, type[Op]] = {
    cls.name: cls for cls in (Init, Start, Done, Drop, Rm, Append, Note)
}
OP_NAMES: tuple[str, ...] = tuple(OPS)


@attrs.frozen
class View:
    """Show a task with all its notes, a whole phase, or the whole list; change nothing.

    Only the strict profile's schema offers it; the reference's engine treats
    it as the no-op it is (nothing to show in a parity result).
    """

    name: ClassVar[str] = "view"
    task: str | None = None
    phase: str | None = None

