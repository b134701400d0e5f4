"""Find the task or phase a person means, as the reference's ``/todo`` command does.

A person types ``phasetodo done parser`` rather than the exact content of the
task. The query is tried in three rounds, each over tasks and phases alike:
exact text, then case-insensitive text, then a unique case-insensitive
substring. The first round that finds anything decides; when it finds more
than one distinct target the query is ambiguous and the candidates are listed.
Within a round a task wins over a phase of the same name, as in the ops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal

import attrs

from ..errors import AmbiguousTarget, TargetNotFound
from .model import Phase

__all__ = ["AmbiguousTarget", "Target", "TargetNotFound", "resolve"]

#: What a query can name.
Kind = Literal["task", "phase"]


@attrs.frozen
class Target:
    """What a query resolved to: a task (with its phase) or a whole phase."""

    kind: Kind
    name: str
    phase: str

    def describe(self) -> str:
        """A one-line label for messages, such as ``task "Patch it" (phase "Fix")``."""
        if self.kind == "phase":
            return f'phase "{self.name}"'
        return f'task "{self.name}" (phase "{self.phase}")'


def _everything(phases: Sequence[Phase], kinds: Iterable[Kind]) -> list[Target]:
    wanted = frozenset(kinds)
    found: list[Target] = []
    if "task" in wanted:
        found += [Target("task", t.content, p.name) for p in phases for t in p.tasks]
    if "phase" in wanted:
        found += [Target("phase", p.name, p.name) for p in phases]
    return found


def _rounds(query: str) -> tuple[Callable[[str], bool], ...]:
    folded = query.casefold()
    return (
        lambda name: name == query,
        lambda name: name.casefold() == folded,
        lambda name: folded in name.casefold(),
    )


def resolve(query: str, phases: Sequence[Phase], kinds: Iterable[Kind] = ("task", "phase")) -> Target:
    """The one task or phase ``query`` names.

    Raises :class:`TargetNotFound` when nothing matches and
    :class:`AmbiguousTarget` when the deciding round matches several distinct
    targets (duplicate task contents count once: the ops act on the first).
    """
    kinds = tuple(kinds)
    candidates = _everything(phases, kinds)
    for matches in _rounds(query):
        hits: list[Target] = []
        for target in candidates:
            if matches(target.name) and not any(
                h.kind == target.kind and h.name == target.name for h in hits
            ):
                hits.append(target)
        if not hits:
            continue
        tasks = [h for h in hits if h.kind == "task"]
        if len(tasks) == 1 and all(h.name == tasks[0].name for h in hits):
            return tasks[0]
        if len(hits) == 1:
            return hits[0]
        raise AmbiguousTarget(query, hits)
    raise TargetNotFound(query, kinds)
