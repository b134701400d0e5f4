"""Find the task or phase a person means, as the reference's ``/todo`` command does.

A person types ``phasetodo done parser`` rather than the exact content of the
task. The query is tried in three rounds, each over tasks and phases alike:
exact text, then case-insensitive text, then a unique case-insensitive
substring. The first round that finds anything decides; when it finds more
than one distinct target the query is ambiguous and the candidates are listed.
Within a round a task wins over a phase of the same name, as in the ops.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

import attrs

from ..errors import AmbiguousTarget, TargetNotFound
from .model import Phase

__all__ = ["AmbiguousTarget", "Target", "TargetNotFound", "resolve", "suggest"]

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
    raise TargetNotFound(query, kinds, suggest(query, [c.name for c in candidates]))


#: How many names a miss suggests, how alike they must be, and how many names are compared.
_SUGGESTIONS, _CUTOFF, _MAX_COMPARED = 3, 0.7, 10_000


def suggest(query: str, names: Sequence[str]) -> tuple[str, ...]:
    """The names ``query`` most likely meant, best first: whole names or one of their words.

    A typo of one word (``tokenzier``) finds the task holding that word
    (``Patch the tokenizer``). Only the first 10,000 distinct names are
    compared, so a miss on a huge list costs a bounded amount of work.
    """
    folded = query.casefold().strip()
    if not folded:
        return ()
    scores: dict[str, float] = {}
    matcher = difflib.SequenceMatcher(b=folded, autojunk=False)
    for name in list(dict.fromkeys(names))[:_MAX_COMPARED]:
        best = 0.0
        for piece in (name.casefold(), *name.casefold().split()):
            matcher.set_seq1(piece)
            if matcher.real_quick_ratio() >= _CUTOFF and matcher.quick_ratio() >= _CUTOFF:
                best = max(best, matcher.ratio())
        if best >= _CUTOFF:
            scores[name] = best
    ranked = sorted(scores, key=lambda name: -scores[name])
    return tuple(ranked[:_SUGGESTIONS])
