"""One function from a ``--store`` string to a store, for the command and helpers."""

from __future__ import annotations

from ._base import Store
from .jsonl import JsonlStore
from .memory import MemoryStore
from .postgres import PostgresStore
from .sqlite import SqliteStore

__all__ = ["store_from_url"]


def store_from_url(spec: str) -> Store:
    """The store a ``--store`` string names.

    ``postgresql://...`` (or ``postgres://``) is a :class:`PostgresStore`,
    ``sqlite:FILE`` a :class:`SqliteStore`, ``memory:`` a :class:`MemoryStore`,
    and ``jsonl:DIR`` or a plain directory a :class:`JsonlStore`.
    """
    if spec.startswith(("postgresql://", "postgres://")):
        return PostgresStore(spec)
    if spec.startswith("sqlite:"):
        return SqliteStore(spec.removeprefix("sqlite:"))
    if spec == "memory:":
        return MemoryStore()
    return JsonlStore(spec.removeprefix("jsonl:"))
