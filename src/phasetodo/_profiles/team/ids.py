"""Task ids of a team plan: ``t<N>`` issued once each, found by id as by content.

The plan keeps its high-water mark on its first phase (``last_id``), so an id is never
issued twice, even after the task that had it is removed.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress, count, repeat
from operator import is_

import attrs

from ..._core.model import Phase
from .columns import unique
from .places import TeamPlaces

__all__ = ["TaskIds"]


def _id_number(ident: str) -> int:
    """The number of a ``t<N>`` id (0 for an id of another form, which is kept as it is)."""
    digits = ident[1:]
    return int(digits) if ident[:1] == "t" and digits.isdigit() and digits.isascii() else 0


#: Ids a call looks up by scanning the columns before it builds its id -> content index.
_ID_SCANS = 4


class TaskIds(TeamPlaces):
    """The working copy's ids: new ones, the high-water mark, and lookups by id."""

    def new_id(self) -> str:
        """A task id never issued in this plan: ``t`` and one more than the high-water mark."""
        mark = self.last_issued
        if mark is None:
            mark = self.last_read
            if not mark:  # a plan whose mark was lost (or never kept): the ids tell it
                mark = max((_id_number(i) for c in self.cols for i in c.ids if i is not None), default=0)
        mark += 1
        self.last_issued = mark
        self._by_id = None
        return f"t{mark}"

    def id_mark(self) -> int:
        """The plan's id high-water mark now (what its first phase keeps as ``last_id``)."""
        return self.last_issued if self.last_issued is not None else self.last_read

    def content_of(self, name: str) -> str | None:
        """The content of the live task named ``name``: by content first, else by id (the
        first few ids of a call by scanning the columns, then by an index of every id)."""
        if self.holds(name):
            return name
        by_id = self._by_id
        if by_id is None and self.id_scans < _ID_SCANS:
            self.id_scans += 1
            return self._scan_id(name)
        if by_id is None:
            by_id = self._by_id = {}
            for col in self.cols:
                if None in col.ids and col.ids.count(None) == len(col.ids):
                    continue
                for ident, content, status in zip(col.ids, col.contents, col.statuses, strict=True):
                    if ident is not None and status is not None:
                        by_id.setdefault(ident, content)
        return by_id.get(name)

    def _scan_id(self, name: str) -> str | None:
        """:meth:`content_of` by id, the columns searched in plan order (no index built)."""
        for col in self.cols:
            if name in col.ids:
                for index, ident in enumerate(col.ids):
                    if ident == name and col.statuses[index] is not None:
                        return col.contents[index]
        return None

    def resolve(self, names: Iterable[str]) -> tuple[str, ...]:
        """``after`` names as contents (an id becomes its task's content), each once."""
        return unique(self.content_of(n) or n for n in names)

    def give_ids(self) -> None:
        """An id for every live task that has none (new tasks, and plans from before ids)."""
        for col in self.cols:
            if col.full_ids or None not in col.ids:
                continue
            ids = col.writable_ids()
            for index in compress(count(), map(is_, ids, repeat(None))):
                if col.statuses[index] is not None:
                    ids[index] = self.new_id()
                    col.touch(index)

    def unique_ids(self) -> None:
        """A new id for every task whose id an earlier task already has (a person's edit
        may copy one); the first keeps it."""
        seen: set[str] = set()
        for col in self.cols:
            for index, ident in enumerate(col.ids):
                if ident is None or col.statuses[index] is None:
                    continue
                if ident in seen:
                    col.writable_ids()[index] = self.new_id()
                    col.touch(index)
                else:
                    seen.add(ident)
        self._by_id = None

    def phases(self) -> tuple[Phase, ...]:
        """The plan as frozen values, the id high-water mark kept on its first phase."""
        out = super().phases()
        mark = self.id_mark()
        if out and mark and out[0].last_id != mark:
            out = (attrs.evolve(out[0], last_id=mark), *out[1:])
        return out
