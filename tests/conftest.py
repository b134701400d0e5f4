"""Shared fixtures: the conformance vectors shipped with the tests, and a PostgreSQL server."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

import phasetodo

from . import budget, postgres_support

VECTORS = Path(__file__).parent / "conformance"

#: The suite keeps what it checked of hash chains (stores/_checked.py) in a folder of its own,
#: not in the user's cache; child processes inherit it.
os.environ.setdefault("PHASETODO_CACHE_DIR", tempfile.mkdtemp(prefix="phasetodo-test-cache-"))


def read_vectors(name: str) -> list[dict[str, Any]]:
    """Every JSON line of one vector file (gzip or plain)."""
    path = VECTORS / name
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """A PostgreSQL server's DSN: ``PHASETODO_TEST_DSN``, or a throwaway cluster started here.

    Skips when no server can be had, saying why; fails instead when ``CI`` is set.
    """
    given = os.environ.get("PHASETODO_TEST_DSN")
    if given:
        yield given
        return
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _no_server("psycopg is not installed (the postgres extra)")
    try:
        with postgres_support.cluster() as dsn:
            yield dsn
    except postgres_support.Unavailable as error:
        _no_server(str(error))


def _no_server(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests must run in CI: {reason}")
    pytest.skip(f"no PostgreSQL server: {reason}")


@pytest.fixture
def postgres_store(postgres_dsn: str) -> Iterator[phasetodo.PostgresStore]:
    """A PostgresStore on an empty database (phasetodo's tables dropped first)."""
    postgres_support.reset(postgres_dsn)
    store = phasetodo.PostgresStore(postgres_dsn)
    yield store
    store.close()


# -- markers ------------------------------------------------------------------------------
#
# ``slow``: the test starts a process, a server or a browser, or works a 10,000-task list;
# ``pytest -m "not slow"`` is the fast inner loop (CONTRIBUTING.md). ``postgres`` and
# ``browser`` say which real part a test needs. Whole modules are marked here, by name;
# single tests in other modules carry ``@pytest.mark.slow`` themselves.

#: Modules whose every test starts a child process, a server or a browser.
SLOW_MODULES = frozenset(
    {
        "test_cli",
        "test_cli_guards",
        "test_cli_pipes",
        "test_mcp",
        "test_mcp_hostile",
        "test_mcp_limits",
        "test_notebook",
        "test_packaging",
        "test_person_edits",
        "test_postgres_processes",
        "test_postgres_reconnect",
        "test_readme_snippets",
        "test_session_processes",
        "test_team_cli",
        "test_team_mcp",
        "test_todo_mcp",
        "test_team_race",
        "test_web_board_views",
        "test_web_browser",
        "test_web_hardening",
    }
)
BROWSER_MODULES = frozenset({"test_web_board_views", "test_web_browser"})


def _on_postgres(item: pytest.Item) -> bool:
    """Whether a parametrized test runs on the PostgreSQL store (a ``postgres`` parameter)."""
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "postgres" in map(str, callspec.params.values())


def pytest_configure(config: pytest.Config) -> None:
    """Hypothesis runs without its per-example deadline (speed is the benchmarks' to
    measure, and a loaded machine would fail it); the fast loop (``-m "not slow"``)
    draws a tenth of the examples (:mod:`budget`)."""
    settings.register_profile("phasetodo", deadline=None)
    settings.register_profile("fast-loop", deadline=None, max_examples=10, stateful_step_count=20)
    if "not slow" in (config.getoption("markexpr", "") or ""):
        budget.SCALE = 0.1
        settings.load_profile("fast-loop")
    else:
        settings.load_profile("phasetodo")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by what it needs: the modules above, and any test on the PostgreSQL fixture."""
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if item.module is not None else ""
        if module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        if module in BROWSER_MODULES:
            item.add_marker(pytest.mark.browser)
        if "postgres_dsn" in getattr(item, "fixturenames", ()) or _on_postgres(item):
            item.add_marker(pytest.mark.postgres)
            item.add_marker(pytest.mark.slow)
