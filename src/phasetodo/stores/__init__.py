"""Where session logs live: the store interface and the three stores we ship.

* :class:`JsonlStore` — the embedded default, one JSON Lines file per session;
* :class:`SqliteStore` — many sessions in one SQLite file (WAL);
* :class:`PostgresStore` — many sessions in one PostgreSQL database, for agents
  on many machines (``phasetodo[postgres]``);
* :class:`MemoryStore` — this process only (``storage == "memory"``).

A store string names one (:func:`parse_store`, :func:`store_from_url`):
``memory:``, ``jsonl:PATH`` or a folder, ``sqlite:PATH`` or a ``*.db`` /
``*.sqlite`` / ``*.sqlite3`` path, ``postgresql://...``; without one, the
default store is ``$PHASETODO_HOME/sessions``, else ``./.phasetodo``.

A server-backed store is one more module implementing :class:`Store` and
:class:`Log`: open, append, latest snapshot, iterate, lock. A log may also keep
heartbeats beside its history (``renewals()`` and ``renew()``, each a
:class:`Renewal` by task id); every store here does.
"""

from __future__ import annotations

from .._core.model import Renewal
from ._base import (
    EVENT_KINDS,
    Event,
    EventKind,
    Log,
    Store,
    check_session_id,
    event_from_json,
    event_to_json,
)
from ._chain import Verification
from ._url import StoreSpec, default_directory, parse_store, store_from_url
from .jsonl import JsonlLog, JsonlStore
from .memory import MemoryLog, MemoryStore
from .postgres import PostgresLog, PostgresStore
from .sqlite import SqliteLog, SqliteStore

__all__ = [
    "EVENT_KINDS",
    "Event",
    "EventKind",
    "JsonlLog",
    "JsonlStore",
    "Log",
    "MemoryLog",
    "MemoryStore",
    "PostgresLog",
    "PostgresStore",
    "Renewal",
    "SqliteLog",
    "SqliteStore",
    "Store",
    "StoreSpec",
    "Verification",
    "check_session_id",
    "default_directory",
    "event_from_json",
    "event_to_json",
    "parse_store",
    "store_from_url",
]
