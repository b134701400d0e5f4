"""How many examples a property test draws: all of them in a full run, a tenth in the fast loop.

``conftest.pytest_configure`` sets :data:`SCALE` for ``pytest -m "not slow"`` before any test
module is imported; tests write ``settings(max_examples=examples(300))``.
"""

from __future__ import annotations

#: The share of each test's examples drawn in this run.
SCALE = 1.0


def examples(count: int) -> int:
    """``count`` scaled for this run, at least 10."""
    return max(10, round(count * SCALE)) if SCALE < 1 else count
