"""How many examples a property test draws: all of them in a full run, a tenth in the fast loop.

``conftest.pytest_configure`` sets :data:`SCALE` for ``pytest -m "not slow"`` before any test
module is imported; tests write ``settings(max_examples=examples(300))``, and
``parametrize("case", sample(CASES))`` for a table of thousands of cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

_T = TypeVar("_T")

#: The share of each test's examples drawn in this run.
SCALE = 1.0


def examples(count: int) -> int:
    """``count`` scaled for this run, at least 10."""
    return max(10, round(count * SCALE)) if SCALE < 1 else count


def sample(cases: Sequence[_T], every: int = 10) -> list[_T]:
    """Every case in a full run; every ``every``-th in the fast loop, for tables of thousands
    of cases whose rules the other tests also reach."""
    return list(cases) if SCALE >= 1 else list(cases[::every])


def batches(cases: Sequence[_T], size: int = 100) -> list[list[_T]]:
    """Every case in either run: one to a test in a full run, ``size`` to a test in the fast
    loop, so that tables the loop must check whole (the reference's vectors) cost few items."""
    step = size if SCALE < 1 else 1
    return [list(cases[i : i + step]) for i in range(0, len(cases), step)]


def batch_id(batch: Sequence[dict[str, object]]) -> str:
    """A batch's test id: its one case's ``id``, or the first and last of several."""
    first, last = batch[0]["id"], batch[-1]["id"]
    return str(first) if len(batch) == 1 else f"{first}..{last}"
