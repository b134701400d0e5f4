"""The compaction anchor: the list in a few lines, for a host to re-inject after compaction.

When a host compacts the conversation, the model loses the tool results that
showed its list and starts inventing task names. The anchor puts back what it
needs to carry on: the progress, the active task and its latest notes, the
open tasks by their exact content, and each phase's progress. It is bounded
by ``max_chars``; what does not fit is counted ("… 12 more") rather than cut
at random.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .._core.codec import as_phases
from .._core.model import Phase, Status, Task
from ..errors import InvalidOption
from .summary import SYMBOLS

__all__ = ["MIN_ANCHOR_CHARS", "compaction_anchor"]

#: The smallest ``max_chars`` an anchor accepts: room for the header and the progress.
MIN_ANCHOR_CHARS = 80

_HEADER = "Todo list (restored after context compaction; name tasks by their exact content):"
_NOTES_SHOWN = 3


def _clip(text: str, size: int) -> str:
    """``text`` on one line, at most ``size`` characters, ``…`` marking a cut."""
    line = " ".join(text.split())
    if len(line) <= size:
        return line
    return line[: max(size - 1, 0)] + "…"


class _Budget:
    """Lines of text that together never exceed ``limit`` characters."""

    def __init__(self, limit: int) -> None:
        self.lines: list[str] = []
        self.left = limit

    def cost(self, line: str) -> int:
        return len(line) + (1 if self.lines else 0)

    def add(self, line: str, *, clip: bool = False) -> bool:
        """Add ``line`` if it fits (or, with ``clip``, as much of it as fits)."""
        if clip and self.cost(line) > self.left:
            line = line[: max(self.left - (1 if self.lines else 0) - 1, 0)] + "…"
        cost = self.cost(line)
        if cost > self.left:
            return False
        self.lines.append(line)
        self.left -= cost
        return True

    def add_all(self, head: str, items: Sequence[str], more: Callable[[int], str]) -> None:
        """Add ``head`` and as many ``items`` as fit, then a line counting the rest.

        Nothing is added unless the head and the first item (or the count) fit.
        """
        if not items:
            return
        reserve = 0 if len(items) == 1 else len(more(len(items))) + 1
        if self.cost(head) + 1 + min(len(items[0]) + reserve, len(more(len(items)))) > self.left:
            return
        self.add(head)
        for index, item in enumerate(items):
            last = index == len(items) - 1
            if self.cost(item) + (0 if last else reserve) > self.left:
                self.add(more(len(items) - index))
                return
            self.add(item)

    def take(self, other: _Budget) -> None:
        """Append the lines of a budget carved out of this one."""
        for line in other.lines:
            self.add(line)


def _count(number: int, noun: str) -> str:
    """``1 task``, ``2 tasks``: a count with its noun in the right number."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def compaction_anchor(phases: Iterable[Phase | Mapping[str, Any]], *, max_chars: int = 2_000) -> str:
    """A compact rendering of the list, at most ``max_chars`` characters long.

    In order of priority: progress, the active task, its latest notes, the
    remaining tasks, and each phase's progress. Raises ``ValueError`` when
    ``max_chars`` is below :data:`MIN_ANCHOR_CHARS`.
    """
    if max_chars < MIN_ANCHOR_CHARS:
        raise InvalidOption(f"max_chars: must be at least {MIN_ANCHOR_CHARS}, not {max_chars}")
    items = as_phases(phases)
    budget = _Budget(max_chars)
    total = sum(len(p.tasks) for p in items)
    if not total:
        budget.add("Todo list: empty.")
        return "\n".join(budget.lines)
    closed = sum(1 for p in items for t in p.tasks if not t.status.is_open)
    active: tuple[Phase, Task] | None = None
    remaining: list[str] = []
    for phase in items:
        for task in phase.tasks:
            if task.status.is_open:
                if active is None and task.status is Status.IN_PROGRESS:
                    active = (phase, task)
                mark = " [in progress]" if task.status is Status.IN_PROGRESS else ""
                remaining.append(f"  - {_clip(task.content, 200)}{mark} ({_clip(phase.name, 60)})")
    budget.add(_HEADER, clip=True)
    budget.add(
        f"Progress: {closed}/{_count(total, 'task')} closed in {_count(len(items), 'phase')}.", clip=True
    )
    if active is None:
        budget.add("Active: none.", clip=True)
    else:
        phase, task = active
        budget.add(f'Active: "{_clip(task.content, 200)}" ({_clip(phase.name, 60)})', clip=True)
        if task.notes:
            shown = task.notes[-_NOTES_SHOWN:]
            earlier = len(task.notes) - len(shown)
            head = "  Latest notes:" if not earlier else f"  Latest notes ({earlier} earlier):"
            budget.add_all(
                head,
                [f"    - {_clip(note, 160)}" for note in shown],
                lambda n: f"    … {n} more",
            )
    # The phases get up to a third of what is left, the remaining tasks the rest.
    per_phase = _Budget(max(budget.left // 3 - 1, 0))
    per_phase.add_all("Phases:", [_phase_line(p) for p in items], lambda n: f"  … {_count(n, 'more phase')}")
    used = sum(len(line) + 1 for line in per_phase.lines)
    open_tasks = _Budget(max(budget.left - used - 1, 0))
    open_tasks.add_all(f"Remaining ({len(remaining)}):", remaining, lambda n: f"  … {n} more remaining")
    budget.take(open_tasks)
    budget.take(per_phase)
    return "\n".join(budget.lines)


def _phase_line(phase: Phase) -> str:
    done = sum(1 for t in phase.tasks if not t.status.is_open)
    size = len(phase.tasks)
    if size and done == size:
        symbol = SYMBOLS[Status.COMPLETED]
    elif any(t.status is Status.IN_PROGRESS for t in phase.tasks):
        symbol = SYMBOLS[Status.IN_PROGRESS]
    else:
        symbol = SYMBOLS[Status.PENDING]
    return f"  {symbol} {_clip(phase.name, 60)} {done}/{size}"
