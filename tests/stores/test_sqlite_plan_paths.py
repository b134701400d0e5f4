"""A SQLite row whose chained plan was changed and sealed again: opening names the session, the
event and the field, and ``verify`` reports the same place instead of raising."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import phasetodo
from phasetodo.errors import CorruptLog
from phasetodo.stores._chain import seal
from phasetodo.stores._records import dumps


def _damaged(db: Path) -> None:
    """Session ``s`` (two writes) whose first row names another session in its plan, every row
    sealed again so that the chain itself holds."""
    store = phasetodo.SqliteStore(db)
    with phasetodo.Session.open("s", store) as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a"]}]}]})
        session.todo_write({"ops": [{"op": "done", "task": "a"}]})
    store.close()
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT version, body FROM events WHERE session = 's' ORDER BY version")
        rows = rows.fetchall()
        previous = None
        for version, body in rows:
            data = json.loads(body)
            del data["hash"]
            if version == 1:
                data["plan"]["session"] = "other"
            text, previous = seal(dumps(data), previous)
            conn.execute(
                "UPDATE events SET body = ?, hash = ? WHERE session = 's' AND version = ?",
                (text, previous, version),
            )
    conn.close()


class TestADamagedPlanRow:
    def test_opening_names_the_event_and_field(self, tmp_path: Path) -> None:
        """Opening raises CorruptLog naming session s, event 1 and ``event.plan.session``."""
        _damaged(tmp_path / "plans.db")
        store = phasetodo.SqliteStore(tmp_path / "plans.db")
        named = r"session 's', event 1: event\.plan\.session: names 'other', not 's'"
        with pytest.raises(CorruptLog, match=named):
            phasetodo.Session.open("s", store)
        store.close()

    def test_verify_reports_it_at_version_1(self, tmp_path: Path) -> None:
        """``verify`` does not raise: it fails at version 1 with the same reason."""
        _damaged(tmp_path / "plans.db")
        store = phasetodo.SqliteStore(tmp_path / "plans.db")
        found = store.verify("s")
        store.close()
        assert (found.ok, found.version) == (False, 1)
        assert "event.plan.session: names 'other', not 's'" in found.reason
