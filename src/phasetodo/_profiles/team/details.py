"""``details`` of a team result, its ``phases`` made only when read.

A team write on a large plan would otherwise spend most of its time turning every task
into JSON for a caller that reads one field (``task``, the task it claimed). The mapping
holds the call's frozen working copy and builds ``phases`` on first access; everything
else is ready at once. ``dict(details)`` and ``to_json()`` give the whole thing, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["TeamDetails"]


class TeamDetails(Mapping[str, Any]):
    """A read-only ``details`` whose ``"phases"`` is built by ``phases()`` on first read.

    The keys are in the order the JSON has always had (``phases`` first); the other
    entries are given ready.
    """

    __slots__ = ("_made", "_phases", "_rest")

    def __init__(self, phases: Callable[[], list[dict[str, Any]]], rest: Mapping[str, Any]) -> None:
        self._phases: Callable[[], list[dict[str, Any]]] | None = phases
        self._made: list[dict[str, Any]] | None = None
        self._rest = dict(rest)

    def _dumped(self) -> list[dict[str, Any]]:
        if self._made is None:
            assert self._phases is not None
            self._made, self._phases = self._phases(), None  # made once; the working copy let go
        return self._made

    def __getitem__(self, key: str) -> Any:
        if key == "phases":
            return self._dumped()
        return self._rest[key]

    def __iter__(self) -> Iterator[str]:
        yield "phases"
        yield from self._rest

    def __len__(self) -> int:
        return len(self._rest) + 1

    def __contains__(self, key: object) -> bool:
        return key == "phases" or key in self._rest

    def __repr__(self) -> str:
        return f"TeamDetails({dict(self)!r})"
