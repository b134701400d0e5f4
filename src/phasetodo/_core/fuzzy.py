"""Find the task or phase a person means, as the reference's ``/todo`` command does.

A person types ``phasetodo done parser`` rather than the exact content of the
task. Tasks are tried before phases, each with its own rules (query trimmed,
case ignored):

* a task: its exact content (as typed, else trimmed; the same case first, then
  any case; the first such task), else the one task whose content holds the
  query, else the one *unfinished* task among those (not completed or
  abandoned: an open match wins over closed ones);
* a phase: its exact name, else the one phase whose name starts with the query
  (``buil`` is ``Build``, not ``Rebuild``), else the one whose name holds it.

When neither finds one target the query is ambiguous if it matched several (they
are listed), else nothing matches and the closest names are suggested.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Literal

import attrs

from ..errors import AmbiguousTarget, TargetNotFound
from .model import Phase, Status

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


#: One kind's answer: the target it found, else the several it could not choose between.
_Found = tuple[Target | None, list[Target]]


def _exact(texts: tuple[str, ...], names: list[str]) -> int | None:
    """Where the first name equal to one of ``texts`` is: the same case first, then any case."""
    for text in texts:
        if text in names:
            return names.index(text)
    for folded in (text.casefold() for text in texts):
        for index, name in enumerate(names):
            if name.casefold() == folded:
                return index
    return None


def _task(texts: tuple[str, ...], phases: Sequence[Phase]) -> _Found:
    """The task ``texts`` name by the reference's task rules (duplicate contents count once)."""
    tasks: dict[str, tuple[Target, Status]] = {}
    for phase in phases:
        for task in phase.tasks:
            tasks.setdefault(task.content, (Target("task", task.content, phase.name), task.status))
    found = list(tasks.values())
    index = _exact(texts, list(tasks))
    if index is not None:
        return found[index][0], []
    folded = texts[-1].casefold()
    hits = [(target, status) for target, status in found if folded and folded in target.name.casefold()]
    unfinished = [target for target, status in hits if not status.is_closed]
    if len(hits) == 1:
        return hits[0][0], []
    if len(unfinished) == 1:
        return unfinished[0], []
    return None, unfinished if len(unfinished) > 1 else [target for target, _ in hits]


def _phase(texts: tuple[str, ...], phases: Sequence[Phase]) -> _Found:
    """The phase ``texts`` name by the reference's phase rules."""
    names = list(dict.fromkeys(p.name for p in phases))
    index = _exact(texts, names)
    if index is not None:
        return Target("phase", names[index], names[index]), []
    folded = texts[-1].casefold()
    hits: list[str] = []
    for matches in (str.startswith, str.__contains__):
        hits = [name for name in names if folded and matches(name.casefold(), folded)]
        if len(hits) == 1:
            return Target("phase", hits[0], hits[0]), []
    return None, [Target("phase", name, name) for name in hits if len(hits) > 1]


def resolve(query: str, phases: Sequence[Phase], kinds: Iterable[Kind] = ("task", "phase")) -> Target:
    """The one task or phase ``query`` names: tasks first, then phases (module docstring).

    Raises :class:`AmbiguousTarget` listing the candidates when the query matched
    several targets and none won, and :class:`TargetNotFound` (with suggestions)
    when it matched nothing.
    """
    kinds = tuple(kinds)
    texts = tuple(dict.fromkeys((query, query.strip())))  # the exact text, then trimmed
    several: list[Target] = []
    for kind, find in (("task", _task), ("phase", _phase)):
        if kind in kinds:
            found, candidates = find(texts, phases)
            if found is not None:
                return found
            several += candidates
    if several:
        raise AmbiguousTarget(query, several)
    names = [t.content for p in phases for t in p.tasks] if "task" in kinds else []
    names += [p.name for p in phases] if "phase" in kinds else []
    raise TargetNotFound(query, kinds, suggest(query, names))


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
