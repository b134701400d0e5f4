"""``details`` of a team result, its ``phases`` and ``ready`` made only when read.

A team write on a large plan would otherwise spend most of its time turning every task
into JSON, and listing every ready task, for a caller that reads one field (``task``, the
task it claimed). The mapping holds the call's frozen working copy and builds those two
entries on first access; everything else is ready at once. ``dict(details)`` and
``to_json()`` give the whole thing, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

__all__ = ["Later", "TeamDetails"]


@attrs.frozen
class Later:
    """An entry of :class:`TeamDetails` that ``make()`` builds when it is first read."""

    make: Callable[[], Any]


class TeamDetails(Mapping[str, Any]):
    """A read-only ``details`` whose :class:`Later` entries are built on first read, once.

    The keys keep the order they are given in (the JSON's: ``phases`` first).
    """

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, Any]) -> None:
        self._items = dict(items)

    def __getitem__(self, key: str) -> Any:
        value = self._items[key]
        if isinstance(value, Later):  # made once; the working copy it held let go
            value = self._items[key] = value.make()
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __repr__(self) -> str:
        return f"TeamDetails({dict(self)!r})"
