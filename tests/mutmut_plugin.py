"""A pytest plugin for the mutation check only: ``-p tests.mutmut_plugin`` in ``[tool.mutmut]``.

mutmut 3 calls ``pytest.main`` several times in one process (the stats run, the
clean run, then a fork per mutant), so a ``@given`` method meets a second
instance of its class and Hypothesis's ``differing_executors`` check would fail
it under every mutant. This plugin loads, after ``tests/conftest.py`` has chosen
its profile (the fast loop under ``-m "not slow"``), that same profile with that
check suppressed, without the example database (one mutant's failing examples
are not replayed against the next) and without the timing checks (no deadline,
no ``too_slow``): on a loaded machine a slow run would count as a kill.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

__all__ = ["pytest_collection_finish", "pytest_configure"]

PROFILE = "mutmut-checks"


def _load() -> None:
    """Load the current Hypothesis profile again, without the executor and timing checks and the database."""
    current = settings()
    suppressed = {*current.suppress_health_check, HealthCheck.differing_executors, HealthCheck.too_slow}
    settings.register_profile(
        PROFILE,
        parent=current,
        suppress_health_check=sorted(suppressed, key=lambda check: check.value),
        database=None,
        deadline=None,
    )
    settings.load_profile(PROFILE)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Before the test modules are imported: the settings their decorators start from."""
    _load()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """After they are imported (a module may load its own profile): the settings the tests run with."""
    _load()
