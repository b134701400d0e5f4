"""The ``replace`` fault: the plan's log swapped under live handles, as a ``git checkout``
of a sibling branch (or a restored backup) does it.

At one tick the injector cuts a *sibling* from the live log (its complete records) and lets
the lead write one more event on it, so the sibling holds the shared history plus an event
of its own: depending on how far the fleet got meanwhile, the sibling has fewer events than
the live log or as many. At the next tick it swaps the sibling in without any of the
store's locks, as git would. Every event the live log gained after the cut is gone with
it; the checks (:mod:`benchmarks._faults.checks`) know that from the ``replace`` record
written to the history: ``kept`` is the version both branches share.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import attrs

import phasetodo
from phasetodo.stores._url import store_from_url

__all__ = ["Sibling", "cut", "swap"]


@attrs.frozen
class Sibling:
    """A sibling branch of the plan's log, ready to be swapped in."""

    kind: str
    live: Path
    path: Path
    kept: int


def _sibling_write(store: Any, session_id: str) -> int:
    """Let the lead write one event on the sibling; returns the version the branches share."""
    with phasetodo.Session.open(session_id, store, profile="team", agent="lead") as lead:
        kept = lead.version
        lead.todo_write({"ops": [{"op": "append", "phase": "Work", "items": [f"sibling task {kept}"]}]})
    store.close()
    return kept


def cut(spec: str, session_id: str, folder: Path) -> Sibling:
    """Cut a sibling from the live log of ``session_id`` into ``folder`` (the same filesystem)."""
    folder.mkdir(parents=True, exist_ok=True)
    if spec.startswith("jsonl:"):
        live = store_from_url(spec).path_for(session_id)
        data = live.read_bytes()
        (folder / live.name).write_bytes(data[: data.rfind(b"\n") + 1])  # complete records only
        kept = _sibling_write(phasetodo.JsonlStore(folder), session_id)
        return Sibling("jsonl", live, folder / live.name, kept)
    if spec.startswith("sqlite:"):
        live = Path(spec.removeprefix("sqlite:"))
        copy = folder / live.name
        with sqlite3.connect(live) as source, sqlite3.connect(copy) as target:
            source.backup(target)  # a consistent copy, under SQLite's own locks
        source.close()
        target.close()
        kept = _sibling_write(phasetodo.SqliteStore(copy), session_id)
        return Sibling("sqlite", live, copy, kept)
    raise ValueError(f"the replace fault has no way to swap a log of {spec!r}")


def swap(sibling: Sibling) -> dict[str, Any]:
    """Swap the sibling in for the live log; returns the ``replace`` record for the history."""
    start = time.time()
    if sibling.kind == "jsonl":
        os.replace(sibling.path, sibling.live)  # a new file under the old name, as a checkout
    else:
        with sqlite3.connect(sibling.path) as source, sqlite3.connect(sibling.live, timeout=30) as target:
            source.backup(target)  # a restore: the whole database, in one step
        source.close()
        target.close()
    return {"agent": "injector", "kind": "replace", "start": start, "end": time.time(), "kept": sibling.kept}
