"""Shared fixtures: the conformance vectors shipped with the tests, and a PostgreSQL server."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import phasetodo

from . import postgres_support

VECTORS = Path(__file__).parent / "conformance"


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
        _no_server("psycopg is not installed (pip install 'phasetodo[postgres]')")
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
