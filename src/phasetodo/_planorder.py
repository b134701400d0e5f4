"""The order of a list merged from two branches: what one branch moved, and moving it there.

A branch's reorder is told as the fewest items it moved (the others keep their
order: a longest run of them in their old order), so that two branches that moved
different items both keep their moves. Pure functions of lists of hashable keys
(task keys within a phase, or phase identities), used by :mod:`phasetodo._planmerge`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["arrange", "holds", "impose", "move", "moved"]

K = TypeVar("K", bound=Hashable)


def moved(before: Sequence[K], after: Sequence[K]) -> list[K]:
    """The items of ``after`` that moved from ``before`` (the same items): all but a longest
    run of them still in ``before``'s order, in ``after``'s order."""
    place = {key: i for i, key in enumerate(before)}
    seq = [place[key] for key in after]
    tails: list[int] = []  # the smallest last value of a run of each length
    ends: list[int] = []  # where in ``seq`` that run ends
    back = [-1] * len(seq)
    for i, value in enumerate(seq):
        at = bisect_left(tails, value)
        back[i] = ends[at - 1] if at else -1
        if at == len(tails):
            tails.append(value)
            ends.append(i)
        else:
            tails[at], ends[at] = value, i
    kept: set[int] = set()
    i = ends[-1] if ends else -1
    while i != -1:
        kept.add(i)
        i = back[i]
    return [key for i, key in enumerate(after) if i not in kept]


def move(current: list[K], after: Sequence[K], items: Sequence[K], *, follow: bool = True) -> None:
    """Put each of ``items`` in ``current`` right after the item before it in ``after`` that
    ``current`` holds (first when there is none); with ``follow`` false, right before the item
    after it (last when there is none)."""
    present = set(current)
    wanted = set(items)
    listed = list(after) if follow else list(reversed(after))
    for index, key in enumerate(listed):
        if key not in wanted or key not in present:
            continue
        current.remove(key)
        at = 0 if follow else len(current)
        for near in reversed(listed[:index]):
            if near in present and near != key:
                at = current.index(near) + 1 if follow else current.index(near)
                break
        current.insert(at, key)


def arrange(before: Sequence[K], after: Sequence[K], full: Sequence[K], current: list[K]) -> bool:
    """Carry the moves from ``before`` to ``after`` (the same items; ``full`` is ``after`` with
    the items it gained) into ``current``, each moved item after the item before it, else
    before the item after it; whether every changed pair order holds (else ``current`` is
    left as the first try made it)."""
    items = moved(before, after)
    tried = list(current)
    move(current, full, items)
    if holds(before, after, items, current):
        return True
    move(tried, full, items, follow=False)
    if holds(before, after, items, tried):
        current[:] = tried
        return True
    return False


def holds(before: Sequence[K], after: Sequence[K], items: Sequence[K], current: Sequence[K]) -> bool:
    """Whether ``current`` keeps every pair order that moving ``items`` changed from ``before``
    to ``after`` (items ``current`` lacks are left out)."""
    was = {key: i for i, key in enumerate(before)}
    now = {key: i for i, key in enumerate(after)}
    here = {key: i for i, key in enumerate(current)}
    for key in items:
        if key not in here:
            continue
        for other in after:
            if other == key or other not in here or other not in was:
                continue
            wanted = now[key] < now[other]
            if (was[key] < was[other]) != wanted and (here[key] < here[other]) != wanted:
                return False
    return True


def impose(current: list[K], after: Sequence[K]) -> None:
    """Give the items ``current`` shares with ``after`` the order of ``after``, in the places
    they hold (the others stay where they are). An item either holds twice keeps as many
    copies as ``current`` has: ``after``'s first ones in its order, any more where they were."""
    shared = set(after)
    places = [i for i, key in enumerate(current) if key in shared]
    left = Counter(current[i] for i in places)
    order: list[K] = []
    for key in after:
        if left[key] > 0:
            left[key] -= 1
            order.append(key)
    for i in places:  # copies ``after`` has fewer of than ``current``, in their order
        if left[current[i]] > 0:
            left[current[i]] -= 1
            order.append(current[i])
    for i, key in zip(places, order, strict=True):
        current[i] = key
