"""Fresh stores of each kind for tests, and a second store object on the same place."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import phasetodo


def fresh(
    request: pytest.FixtureRequest, tmp_path: Path, *, fsync: bool = False
) -> Iterator[phasetodo.Store]:
    """The store kind ``request.param`` names, empty (PostgreSQL: the ``postgres_store`` fixture);
    ``fsync`` as for a JSONL store (off by default: these tests need no durable writes)."""
    made: phasetodo.Store
    if request.param == "postgres":
        yield request.getfixturevalue("postgres_store")
        return
    if request.param == "jsonl":
        made = phasetodo.JsonlStore(tmp_path / "logs", fsync=fsync)
    elif request.param == "sqlite":
        made = phasetodo.SqliteStore(tmp_path / "s.db")
    else:
        made = phasetodo.MemoryStore()
    yield made
    made.close()


def same_place(store: phasetodo.Store) -> phasetodo.Store:
    """Another store object on ``store``'s place, as another process would open it (memory: itself)."""
    if isinstance(store, phasetodo.JsonlStore):
        return phasetodo.JsonlStore(store.directory, fsync=False)
    if isinstance(store, phasetodo.SqliteStore):
        return phasetodo.SqliteStore(store.path)
    if isinstance(store, phasetodo.PostgresStore):
        return phasetodo.PostgresStore(store.dsn)
    return store
