"""Which tasks of a team plan are ready: pending, unowned, and waiting for nothing open.

``after`` links order the work; :func:`find_cycle` keeps them from forming a loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress, count, repeat
from operator import is_, is_not

from .claims import Claims
from .columns import ABANDONED, COMPLETED, PENDING, Place, TeamColumn, quote

__all__ = ["Readiness", "find_cycle"]


class Readiness(Claims):
    """The working copy's readiness: what a task waits for, the ready tasks, the ``after`` graph."""

    def waits_for(self, after: tuple[str, ...]) -> list[str]:
        """The contents in ``after`` that are not closed yet."""
        out = []
        for content in after:
            status = self.status_of(content)
            if status is not None and status is not COMPLETED and status is not ABANDONED:
                out.append(content)
        return out

    def is_ready(self, col: TeamColumn, index: int) -> bool:
        """Pending, unowned and waiting for nothing open; or a claim whose lease lapsed."""
        return (
            col.statuses[index] is PENDING
            and col.owners[index] is None
            and not self.waits_for(col.afters[index])
        ) or (col, index) in self.lapsed

    def ready_mask(self, col: TeamColumn) -> Iterable[bool] | None:
        """Which tasks of ``col`` are ready (pending, unowned, waiting for nothing open), in
        order; ``None`` when none is pending."""
        if col.plain:
            return map(is_, col.statuses, repeat(PENDING))
        lapsed = [i for c, i in self.lapsed if c is col] if self.lapsed else []
        if PENDING not in col.statuses and not lapsed:
            return None
        mask = list(map(is_, col.statuses, repeat(PENDING)))
        if col.owners.count(None) != len(mask):
            for index in compress(count(), map(is_not, col.owners, repeat(None))):
                mask[index] = False
        if any(col.afters):
            for index in compress(count(), col.afters):
                if mask[index] and self.waits_for(col.afters[index]):
                    mask[index] = False
        for index in lapsed:
            mask[index] = True
        return mask

    def ready_in(self, col: TeamColumn) -> list[int]:
        """The ready tasks of ``col``, by position."""
        mask = self.ready_mask(col)
        return [] if mask is None else list(compress(count(), mask))

    def next_ready(self) -> Place | None:
        for col in self.shown():
            ready = self.ready_in(col)
            if ready:
                return col, ready[0]
        return None

    def graph(self) -> dict[str, tuple[str, ...]]:
        """Content -> what it comes after, for the tasks that wait (the first of a content)."""
        out: dict[str, tuple[str, ...]] = {}
        for col in self.cols:
            if any(col.afters):
                for index in compress(count(), col.afters):
                    if col.statuses[index] is not None:
                        out.setdefault(col.contents[index], col.afters[index])
        for content in list(out):
            first: TeamColumn | None = self.by_content.get(content)
            if first is not None:
                out[content] = first.afters[first.position(content)]
        return out

    def check_after(self, new: Sequence[Place], graph: dict[str, tuple[str, ...]]) -> bool:
        """Every ``after`` of the new tasks names a task, and no cycle forms."""
        ok = True
        for col, index in new:
            missing = [c for c in col.afters[index] if c not in self.by_content]
            if missing:
                self.errors.append(
                    f'Task "{col.contents[index]}" comes after {quote(missing)}, which '
                    f"{'is not a task' if len(missing) == 1 else 'are not tasks'}"
                )
                ok = False
        if ok and any(col.afters[index] for col, index in new):
            cycle = find_cycle(self.graph(), [col.contents[index] for col, index in new])
            if cycle:
                self.errors.append(f'"after" makes a cycle: {" -> ".join(quote([c]) for c in cycle)}')
                ok = False
        return ok


def find_cycle(graph: dict[str, tuple[str, ...]], starts: Iterable[str]) -> list[str] | None:
    """A cycle through ``after`` edges reachable from ``starts``, as contents
    (the first repeated at the end), or ``None``."""
    done: set[str] = set()
    for start in starts:
        if start in done:
            continue
        path: list[str] = []
        on_path: dict[str, int] = {}
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            node, index = stack.pop()
            if index == 0:
                if node in on_path:
                    return [*path[on_path[node] :], node]
                if node in done:
                    continue
                on_path[node] = len(path)
                path.append(node)
            edges = graph.get(node, ())
            if index < len(edges):
                stack.append((node, index + 1))
                stack.append((edges[index], 0))
            else:
                path.pop()
                del on_path[node]
                done.add(node)
    return None
