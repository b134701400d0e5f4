"""What a strict "not found" error suggests, with bounded work per call.

A miss is checked, cheapest first: an id or number such as ``task-3`` (read
in one pass, no backtracking), the same text up to case and spacing (a dict),
the only name containing the query (one search of all names joined), then the
most similar name by ``difflib`` (ratio >= 0.6). On a long list the ``difflib``
step looks only at the names sharing the most words with the query (rarest
words first, through an index), and only the first misses of a call get it.
The containment step and the indexes charge the characters they read to a
per-call budget; once it is spent, later misses get the cheap hints only, so
a call with thousands of misses on a large list costs a small multiple of the
same call without hints.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Sequence
from itertools import chain

__all__ = ["HINT_BUDGET", "Hints", "id_number"]

#: Characters the containment step and the indexes may read in one call.
HINT_BUDGET = 20_000_000
#: Misses per call that get the ``difflib`` step (the costly one, in Python).
FUZZY_MISSES = 8
#: On a list with more distinct names than this, ``difflib`` sees only this many.
FUZZY_CANDIDATES = 32
#: Longest query that is compared by similarity (``difflib`` is quadratic in length).
FUZZY_QUERY = 300
#: Index entries read per miss to choose the candidates.
POSTINGS_READ = 20_000

_ID_WORDS = tuple(
    re.compile(word, re.IGNORECASE) for word in ("task", "todo", "item", "step", "phase", "t", "p")
)
_SEPARATORS = "-_#:."


_DIGITS = re.compile(r"\d+")


def _skip_space(text: str, at: int) -> int:
    return len(text) - len(text[at:].lstrip())


def _digits_to_end(text: str, at: int) -> str | None:
    """``#?(\\d+)\\s*$`` from ``at``: the digits, or ``None``."""
    if text[at : at + 1] == "#":
        at += 1
    digits = _DIGITS.match(text, at)
    if digits is None or text[digits.end() :].strip():
        return None
    return digits[0]


def id_number(query: str) -> str | None:
    """The number in an id-like query (``task-3``, ``Task 3``, ``#3``, ``3``, ``t3``), or ``None``.

    What ``\\s*(?:(?:task|todo|item|step|phase|t|p)\\s*[-_#:.]?\\s*)?#?(\\d+)\\s*``
    matches in full (case-insensitive), read in linear time: the only choices
    are the prefix word, and each is tried once.
    """
    start = _skip_space(query, 0)
    for word in _ID_WORDS:
        size = len(word.pattern)
        if word.fullmatch(query, start, start + size) is None:
            continue
        at = _skip_space(query, start + size)
        if query[at : at + 1] and query[at] in _SEPARATORS:
            found = _digits_to_end(query, _skip_space(query, at + 1))
            if found is not None:
                return found
        found = _digits_to_end(query, at)
        if found is not None:
            return found
    return _digits_to_end(query, start)


def fold(text: str) -> str:
    """Text compared up to case and spacing."""
    return " ".join(text.casefold().split())


class Hints:
    """The names one call's misses are compared with, indexed on first use."""

    def __init__(self, names: Sequence[str], budget: int = HINT_BUDGET) -> None:
        self.names = names
        self.budget = budget
        #: Characters read so far by the containment and similarity steps.
        self.spent = 0
        #: Misses that reached the ``difflib`` step.
        self.fuzzy = 0
        self._folded: dict[str, str] | None = None
        self._joined = ""
        self._unique: list[str] = []
        self._fold_of: dict[str, str] = {}
        self._words: dict[str, list[int]] | None = None

    def _index(self) -> dict[str, str]:
        if self._folded is None:
            folded = [fold(name) for name in self.names]
            self._folded = {}
            for key, name in zip(folded, self.names, strict=True):
                self._folded.setdefault(key, name)
            self._joined = "\n".join(folded)
            self._fold_of = dict(zip(self.names, folded, strict=True))
            self._unique = list(self._fold_of)
        return self._folded

    def closest(self, query: str) -> str | None:
        """The name ``query`` most likely meant, or ``None``."""
        folded = fold(query)
        if not folded:
            return None
        same = self._index().get(folded)
        if same is not None:
            return same
        if not self._charge(len(self._joined)):
            return None
        containing = self._only_containing(folded)
        if containing is not None:
            return containing
        if len(query) > FUZZY_QUERY or self.fuzzy >= FUZZY_MISSES:
            return None
        self.fuzzy += 1
        candidates = self._unique
        if len(candidates) > FUZZY_CANDIDATES:
            candidates = self._nearest(folded)
        found = difflib.get_close_matches(query, candidates, n=1, cutoff=0.6)
        return found[0] if found else None

    def _charge(self, work: int) -> bool:
        if self.spent + work > self.budget:
            return False
        self.spent += work
        return True

    def _only_containing(self, folded: str) -> str | None:
        """The name whose folded text contains ``folded``, if exactly one does."""
        joined = self._joined
        first = joined.find(folded)
        if first < 0:
            return None
        end = joined.find("\n", first + len(folded))
        if end >= 0 and joined.find(folded, end + 1) >= 0:
            return None
        return self.names[joined.count("\n", 0, first)]

    def _nearest(self, folded: str) -> list[str]:
        """The distinct names sharing the most words with ``folded``, rarest words first."""
        if self._words is None:
            self._words = {}
            for number, name in enumerate(self._fold_of.values()):
                for word in set(name.split(" ")):
                    self._words.setdefault(word, []).append(number)
            self._charge(len(self._joined))
        postings = sorted(
            (self._words[w] for w in set(folded.split(" ")) if w in self._words), key=len
        )
        chosen: list[list[int]] = []
        read = 0
        for posting in postings:
            if read + len(posting) > POSTINGS_READ and chosen:
                break
            chosen.append(posting[:POSTINGS_READ])
            read += len(posting)
        hits = Counter(chain.from_iterable(chosen))
        best = sorted(n for n, _ in hits.most_common(FUZZY_CANDIDATES))
        return [self._unique[n] for n in best]
