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
