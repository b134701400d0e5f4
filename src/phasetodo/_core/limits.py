"""Size limits on one ``todo_write`` call, in both profiles.

A model that loops can send thousands of ops or a megabyte of note text; a
limit turns that into :class:`~phasetodo.InvalidParams` naming the limit, with
nothing applied. The defaults are far above any real agent session (and above
the shared benchmark workloads), so they only stop runaway calls.

Lengths are counted in characters (code points). ``max_payload`` is the total
number of characters of every string in the call's ops.

An import (:func:`~phasetodo.markdown_to_phases`) is held to the same limits,
as if the whole document were one call: at most ``max_payload`` characters,
checked before it is read, and no more phases or tasks than the list may hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any

import attrs

from ..errors import InvalidOption, InvalidParams
from .model import Phase
from .ops import Append, Done, Drop, Init, Note, Rm, Start, View

#: The core's op kinds; any other op (a profile's own) lists its texts itself
#: through ``limit_texts()`` and says with ``grows`` whether it can add tasks.
_CORE_KINDS = frozenset((Append, Done, Drop, Init, Note, Rm, Start, View))
_tasks = attrgetter("tasks")
_name_of, _content_of, _notes_of = attrgetter("name"), attrgetter("content"), attrgetter("notes")

__all__ = ["DEFAULT_LIMITS", "Limits"]


def _positive(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if type(value) is not int or value < 1:
        raise InvalidOption(f"Limits.{attribute.name}: must be a positive integer, not {value!r}")


def _count(value: int) -> str:
    return f"{value:,}"


@attrs.frozen
class Limits:
    """The bounds one call must keep; each one is named in the error it causes.

    ``max_tasks`` and ``max_phases`` bound the list a call produces; a list
    that is already larger (stored before a limit was lowered) may still be
    worked down, but not grown.
    """

    max_ops: int = attrs.field(default=10_000, validator=_positive)
    max_tasks: int = attrs.field(default=100_000, validator=_positive)
    max_phases: int = attrs.field(default=10_000, validator=_positive)
    max_content: int = attrs.field(default=10_000, validator=_positive)
    max_name: int = attrs.field(default=1_000, validator=_positive)
    max_note: int = attrs.field(default=100_000, validator=_positive)
    max_payload: int = attrs.field(default=10_000_000, validator=_positive)

    def check_ops(self, ops: Sequence[object]) -> bool:
        """Raise ``InvalidParams`` when the ops break a per-call limit.

        Every breach is listed with its place and the limit's name, for
        example ``ops[2].items[0]: 12,000 characters, over the limit max_content=10,000``.
        Returns whether the ops can grow the list (an ``init`` or ``append``),
        that is whether :meth:`check_result` has anything to check.
        """
        if len(ops) <= self.max_ops:
            scan = self._scan(ops)
            if scan >= 0:
                return scan == 1
        found: list[str] = []
        if len(ops) > self.max_ops:
            found.append(f"ops: {_count(len(ops))} operations, over the limit max_ops={_count(self.max_ops)}")
        total = 0
        for index, op in enumerate(ops):
            total += self._check_op(op, index, found)
        if total > self.max_payload:
            found.append(
                f"ops: {_count(total)} characters of text in all, over the limit "
                f"max_payload={_count(self.max_payload)}"
            )
        if found:
            raise InvalidParams(found)
        return True  # pragma: no cover - the quick pass and this one agree

    def _scan(self, ops: Sequence[Any]) -> int:
        """The quick pass: -1 past a limit, else 1 when the ops can grow the list, 0 when not."""
        return _quick_scan(
            ops, self.max_content, self.max_name, self.max_note, self.max_payload, self._scan_texts
        )

    def _limit(self, kind: str) -> tuple[str, int]:
        if kind == "content":
            return "max_content", self.max_content
        if kind == "note":
            return "max_note", self.max_note
        return "max_name", self.max_name

    def _scan_texts(self, op: Any) -> int:
        """A profile op's characters, or -1 when one of its texts is over its limit."""
        total = 0
        for _, kind, text in op.limit_texts():
            size = len(text)
            if size > self._limit(kind)[1]:
                return -1
            total += size
        return total

    def _check_op(self, op: object, index: int, found: list[str]) -> int:
        """Check one op's strings; return how many characters it carries."""
        place = f"ops[{index}]"
        if type(op) not in _CORE_KINDS:
            total = 0
            for suffix, kind, text in op.limit_texts():  # type: ignore[attr-defined]
                name, limit = self._limit(kind)
                if len(text) > limit:
                    found.append(self._over(f"{place}{suffix}", len(text), name, limit))
                total += len(text)
            return total
        if isinstance(op, Init):
            total = 0
            for number, entry in enumerate(op.list or ()):
                total += self._check_text(entry.phase, f"{place}.list[{number}].phase", found)
                total += self._check_items(entry.items, f"{place}.list[{number}].items", found)
            return total
        if isinstance(op, Append):
            total = self._check_text(op.phase, f"{place}.phase", found)
            return total + self._check_items(op.items or (), f"{place}.items", found)
        total = self._check_text(getattr(op, "task", None), f"{place}.task", found)
        if isinstance(op, Note):
            text = op.text or ""
            if len(text) > self.max_note:
                found.append(self._over(f"{place}.text", len(text), "max_note", self.max_note))
            return total + len(text)
        return total + self._check_text(getattr(op, "phase", None), f"{place}.phase", found)

    def _check_text(self, value: str | None, place: str, found: list[str]) -> int:
        """A task reference (``.task``) is bounded like content, anything else like a name."""
        if value is None:
            return 0
        size = len(value)
        name, limit = (
            ("max_content", self.max_content) if place.endswith(".task") else ("max_name", self.max_name)
        )
        if size > limit:
            found.append(self._over(place, size, name, limit))
        return size

    def _check_items(self, items: Sequence[str], place: str, found: list[str]) -> int:
        sizes = list(map(len, items))
        if sizes and max(sizes) > self.max_content:
            for number, size in enumerate(sizes):
                if size > self.max_content:
                    found.append(self._over(f"{place}[{number}]", size, "max_content", self.max_content))
        return sum(sizes)

    @staticmethod
    def _over(place: str, size: int, name: str, limit: int) -> str:
        return f"{place}: {_count(size)} characters, over the limit {name}={_count(limit)}"

    def check_result(self, before: Iterable[Phase], after: Sequence[Phase]) -> None:
        """Raise ``InvalidParams`` when a call would grow the list past a size limit."""
        phases = len(after)
        tasks = sum(map(len, map(_tasks, after)))
        if phases <= self.max_phases and tasks <= self.max_tasks:
            return
        old = tuple(before)
        self.check_sizes(len(old), sum(len(p.tasks) for p in old), phases, tasks)

    def check_sizes(self, before_phases: int, before_tasks: int, phases: int, tasks: int) -> None:
        """:meth:`check_result` on counts: phases and tasks before and after the call."""
        found: list[str] = []
        if phases > self.max_phases and phases > before_phases:
            found.append(
                f"phases: the list would hold {_count(phases)} phases, over the limit "
                f"max_phases={_count(self.max_phases)}"
            )
        if tasks > self.max_tasks and tasks > before_tasks:
            found.append(
                f"phases: the list would hold {_count(tasks)} tasks, over the limit "
                f"max_tasks={_count(self.max_tasks)}"
            )
        if found:
            raise InvalidParams(found)

    def check_document(self, size: int) -> None:
        """Raise ``InvalidParams`` when a document to import has more than ``max_payload`` characters."""
        if size > self.max_payload:
            raise InvalidParams(
                [f"text: {_count(size)} characters, over the limit max_payload={_count(self.max_payload)}"]
            )

    def check_read(self, phases: int, tasks: int) -> None:
        """Raise ``InvalidParams`` once a document being read has given more phases or tasks than allowed."""
        found: list[str] = []
        if phases > self.max_phases:
            found.append(
                f"text: more than {_count(self.max_phases)} phases, over the limit "
                f"max_phases={_count(self.max_phases)}"
            )
        if tasks > self.max_tasks:
            found.append(
                f"text: more than {_count(self.max_tasks)} tasks, over the limit "
                f"max_tasks={_count(self.max_tasks)}"
            )
        if found:
            raise InvalidParams(found)

    def check_texts(self, phases: Iterable[Phase]) -> None:
        """Raise ``InvalidParams`` when a name, task content or note read from a document is too long."""
        phases = tuple(phases)
        tasks = list(chain.from_iterable(map(_tasks, phases)))
        if (  # the longest of each, in bulk; only an import that breaks a limit is walked
            max(map(len, map(_name_of, phases)), default=0) <= self.max_name
            and max(map(len, map(_content_of, tasks)), default=0) <= self.max_content
            and max(map(len, chain.from_iterable(map(_notes_of, tasks))), default=0) <= self.max_note
        ):
            return
        found: list[str] = []
        for p, phase in enumerate(phases):
            if len(phase.name) > self.max_name:
                found.append(self._over(f"phases[{p}].name", len(phase.name), "max_name", self.max_name))
            for t, task in enumerate(phase.tasks):
                place, size = f"phases[{p}].tasks[{t}]", len(task.content)
                if size > self.max_content:
                    found.append(self._over(f"{place}.content", size, "max_content", self.max_content))
                for n, note in enumerate(task.notes):
                    if len(note) > self.max_note:
                        found.append(self._over(f"{place}.notes[{n}]", len(note), "max_note", self.max_note))
        if found:
            raise InvalidParams(found)


#: The limits a call gets unless it passes its own: generous, for runaway calls only.
DEFAULT_LIMITS = Limits()


#: The core's op kinds; any other op (a profile's own) lists its texts itself
#: through ``limit_texts()`` and says with ``grows`` whether it can add tasks.
_CORE_KINDS = frozenset((Append, Done, Drop, Init, Note, Rm, Start, View))


def _quick_scan(
    ops: Sequence[Any],
    max_content: int,
    max_name: int,
    max_note: int,
    max_payload: int,
    texts: Callable[[Any], int],
) -> int:
    """The limits' quick pass: -1 past a limit, else 1 when the ops can grow the list, 0 when not.

    A task reference is bounded like content (``max_content``), a phase name by
    ``max_name``, a note by ``max_note``, the characters of all by ``max_payload``;
    ``texts(op)`` gives a profile op's characters (-1: one of them is over its limit).
    """
    total = grows = 0
    for op in ops:
        kind = type(op)
        if kind not in _CORE_KINDS:
            size = texts(op)
            if size < 0:
                return -1
            total += size
            grows |= bool(getattr(op, "grows", False))
            continue
        if kind is Append or kind is Init:
            grows = 1
            entries: Sequence[Any] = (op,) if kind is Append else (op.list or ())
            for entry in entries:
                items = entry.items or ()
                if items:
                    sizes = list(map(len, items))
                    if max(sizes) > max_content:
                        return -1
                    total += sum(sizes)
                size = len(entry.phase or "")
                if size > max_name:
                    return -1
                total += size
            continue
        size = len(op.task or "")  # a task reference, bounded like content
        if size > max_content:
            return -1
        total += size
        if kind is Note:
            size = len(op.text or "")
            if size > max_note:
                return -1
            total += size
        elif kind is not Start:
            phase = op.phase
            if phase is not None:  # most ops name a task, not a phase: skip the rest for them
                size = len(phase)
                if size > max_name:
                    return -1
                total += size
    return grows if total <= max_payload else -1
