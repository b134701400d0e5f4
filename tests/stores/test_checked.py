"""Opening a long JSONL history checks only what is new since this user last checked it."""

from __future__ import annotations

import os
import sqlite3
import warnings
from pathlib import Path

import pytest

import phasetodo
from phasetodo.errors import TamperedLogWarning

from .. import postgres_support

WRITES = 1000


def _fill(folder: Path, writes: int = WRITES) -> Path:
    store = phasetodo.JsonlStore(folder, fsync=False)
    with phasetodo.Session.open("s", store) as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
        for i in range(writes - 1):
            session.todo_write({"ops": [{"op": "note", "task": "a", "text": f"note {i}"}]})
    store.close()
    return folder / "s.jsonl"


def _open(folder: Path) -> tuple[int, int, list[warnings.WarningMessage]]:
    """The version, the bytes read and the tamper warnings of one fresh open."""
    store = phasetodo.JsonlStore(folder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = phasetodo.Session.open("s", store, resume="keep")
        version = session.version
        read = session._log.bytes_read
        session.close()
    store.close()
    return version, read, [w for w in caught if issubclass(w.category, TamperedLogWarning)]


def _alter_in_a_new_file(path: Path, version: int) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[version] = lines[version].replace("note 3", "note X")
    path.with_name("swap").write_text("".join(lines))
    os.replace(path.with_name("swap"), path)


class TestOpeningAgain:
    def test_a_second_open_reads_only_the_newest_records(self, tmp_path: Path) -> None:
        """The first open checks the whole chain; the next reads a small part of the file."""
        path = _fill(tmp_path)
        first = _open(tmp_path)
        second = _open(tmp_path)
        assert first[0] == second[0] == WRITES
        assert first[1] >= path.stat().st_size
        assert second[1] < path.stat().st_size // 3
        assert first[2] == second[2] == []

    def test_what_was_appended_since_is_checked(self, tmp_path: Path) -> None:
        """Records appended after the last check are checked at the next open: a broken one warns."""
        path = _fill(tmp_path)
        _open(tmp_path)
        store = phasetodo.JsonlStore(tmp_path, fsync=False)
        with phasetodo.Session.open("s", store, resume="keep") as session:
            session.todo_write({"ops": [{"op": "note", "task": "b", "text": "appended"}]})
        store.close()
        text = path.read_text()
        path.write_text(text.replace("appended", "altered"))  # in place: the same file
        version, _, warned = _open(tmp_path)
        assert version == WRITES + 1
        assert [str(w.message).split(": ")[1] for w in warned] == [f"version {WRITES + 1}"]

    def test_a_swapped_file_is_checked_whole(self, tmp_path: Path) -> None:
        """A log replaced by another file (a checkout, a copy) is checked whole at its first open."""
        path = _fill(tmp_path)
        _open(tmp_path)
        _alter_in_a_new_file(path, 5)
        warned = _open(tmp_path)[2]
        assert len(warned) == 1
        assert "version 5: its hash does not match" in str(warned[0].message)

    def test_verify_checks_everything_whatever_was_checked_before(self, tmp_path: Path) -> None:
        """An old record altered in place after a clean open: verify still names it."""
        path = _fill(tmp_path)
        _open(tmp_path)
        lines = path.read_text().splitlines(keepends=True)
        lines[5] = lines[5].replace("note 3", "note X")
        path.write_text("".join(lines))  # the same file, rewritten in place
        assert phasetodo.JsonlStore(tmp_path).verify("s").version == 5

    def test_an_unwritable_cache_only_costs_time(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Where the cache cannot be written, every open checks the whole chain and works."""
        blocked = tmp_path / "not-a-folder"
        blocked.write_text("")
        monkeypatch.setenv("PHASETODO_CACHE_DIR", str(blocked))
        path = _fill(tmp_path / "logs")
        first, second = _open(tmp_path / "logs"), _open(tmp_path / "logs")
        assert first[0] == second[0] == WRITES
        assert second[1] >= path.stat().st_size


def _fill_sqlite(db: Path, writes: int = WRITES) -> None:
    store = phasetodo.SqliteStore(db)
    with phasetodo.Session.open("s", store) as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
        for i in range(writes - 1):
            session.todo_write({"ops": [{"op": "note", "task": "a", "text": f"note {i}"}]})
    store.close()


def _open_sqlite(db: Path) -> tuple[int, list[warnings.WarningMessage]]:
    store = phasetodo.SqliteStore(db)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with phasetodo.Session.open("s", store, resume="keep") as session:
            version = session.version
    store.close()
    return version, [w for w in caught if issubclass(w.category, TamperedLogWarning)]


def _set_body(db: Path, version: int, old: str, new: str) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE events SET body = replace(body, ?, ?) WHERE session = 's' AND version = ?",
            (old, new, version),
        )
    conn.close()


class TestSqliteOpeningAgain:
    def test_rows_added_since_are_checked(self, tmp_path: Path) -> None:
        """After a clean open, a row added and then altered is named at the next open."""
        db = tmp_path / "s.db"
        _fill_sqlite(db, 50)
        assert _open_sqlite(db) == (50, [])
        store = phasetodo.SqliteStore(db)
        with phasetodo.Session.open("s", store, resume="keep") as session:
            session.todo_write({"ops": [{"op": "note", "task": "b", "text": "appended"}]})
        store.close()
        _set_body(db, 51, "appended", "altered")
        version, warned = _open_sqlite(db)
        assert version == 51
        assert [str(w.message).split(": ")[1] for w in warned] == ["session 's', version 51"]

    def test_a_restored_database_with_another_history_is_checked_whole(self, tmp_path: Path) -> None:
        """A restore (the whole file, in place, by SQLite's backup) whose history differs at the
        checked row is checked from the start: an old altered row is named."""
        db, copy = tmp_path / "s.db", tmp_path / "copy.db"
        _fill_sqlite(db, 50)
        with sqlite3.connect(db) as source, sqlite3.connect(copy) as target:
            source.backup(target)
        source.close()
        target.close()
        _set_body(copy, 5, "note 3", "note X")
        _set_body(copy, 50, "note 48", "note Y")
        assert _open_sqlite(db) == (50, [])
        with sqlite3.connect(copy) as source, sqlite3.connect(db) as target:
            source.backup(target)
        source.close()
        target.close()
        warned = _open_sqlite(db)[1]
        assert len(warned) == 1
        assert "version 5: its hash does not match" in str(warned[0].message)

    def test_verify_checks_every_row(self, tmp_path: Path) -> None:
        """An old row altered after a clean open: verify still names it."""
        db = tmp_path / "s.db"
        _fill_sqlite(db, 50)
        _open_sqlite(db)
        _set_body(db, 5, "note 3", "note X")
        assert phasetodo.SqliteStore(db).verify("s").version == 5


def _fill_postgres(store: phasetodo.PostgresStore, writes: int) -> None:
    with phasetodo.Session.open("s", store) as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
        for i in range(writes - 1):
            session.todo_write({"ops": [{"op": "note", "task": "a", "text": f"note {i}"}]})


def _open_postgres(dsn: str) -> tuple[int, list[warnings.WarningMessage]]:
    store = phasetodo.PostgresStore(dsn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with phasetodo.Session.open("s", store, resume="keep") as session:
            version = session.version
    store.close()
    return version, [w for w in caught if issubclass(w.category, TamperedLogWarning)]


def _set_postgres_body(dsn: str, version: int, old: str, new: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "UPDATE phasetodo_events SET body = replace(body, %s, %s) WHERE session = 's' AND version = %s",
            (old, new, version),
        )


def _append_notes(store: phasetodo.PostgresStore, texts: list[str]) -> None:
    with phasetodo.Session.open("s", store, resume="keep") as session:
        for text in texts:
            session.todo_write({"ops": [{"op": "note", "task": "b", "text": text}]})


def _assert_named(dsn: str, newest: int, altered: int) -> None:
    """A fresh open reads up to ``newest`` and warns once, naming row ``altered``."""
    version, warned = _open_postgres(dsn)
    assert version == newest
    assert len(warned) == 1
    assert f"version {altered}: its hash does not match" in str(warned[0].message)


@pytest.mark.postgres
class TestPostgresOpeningAgain:
    """On PostgreSQL too an open checks from the newest row this user checked, where it still holds."""

    def test_rows_added_since_are_checked(self, postgres_store: phasetodo.PostgresStore) -> None:
        """After a clean open, a row added and then altered is named at the next open."""
        dsn = postgres_store.dsn
        _fill_postgres(postgres_store, 30)
        assert _open_postgres(dsn) == (30, [])
        _append_notes(postgres_store, ["appended"])
        _set_postgres_body(dsn, 31, "appended", "altered")
        _assert_named(dsn, 31, 31)

    def test_another_history_at_the_checked_row_is_checked_whole(
        self, postgres_store: phasetodo.PostgresStore
    ) -> None:
        """The checked row itself altered (as a restore of another history would): every row
        is checked again, and an old altered row is named."""
        dsn = postgres_store.dsn
        _fill_postgres(postgres_store, 30)
        assert _open_postgres(dsn) == (30, [])
        _set_postgres_body(dsn, 5, "note 3", "note X")
        _set_postgres_body(dsn, 30, "note 28", "note Y")
        warned = _open_postgres(dsn)[1]
        assert len(warned) == 1
        assert "version 5: its hash does not match" in str(warned[0].message)

    def test_a_page_of_new_rows_is_checked_without_the_whole_chain_statement(
        self, postgres_store: phasetodo.PostgresStore
    ) -> None:
        """A few rows after the checked one are read and checked in one short query; the
        statement that checks the chain in the server (a new backend plans it slowly) is
        not sent. The next open checks from the newest of them, and names a row altered since."""
        dsn = postgres_store.dsn
        _fill_postgres(postgres_store, 30)
        assert _open_postgres(dsn) == (30, [])
        _append_notes(postgres_store, ["one", "two", "three"])
        store = phasetodo.PostgresStore(dsn)
        opened: list[int] = []

        def reopen() -> None:
            with phasetodo.Session.open("s", store, resume="keep") as session:
                opened.append(session.version)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                sent = postgres_support.sent_by(store, reopen)
            finally:
                store.close()
        assert opened == [33]
        assert not [w for w in caught if issubclass(w.category, TamperedLogWarning)]
        assert not [line for line in sent if "row_number() OVER" in line]
        _append_notes(postgres_store, ["four"])
        _set_postgres_body(dsn, 34, "four", "FOUR")
        _assert_named(dsn, 34, 34)

    def test_more_than_a_page_of_new_rows_is_checked_in_the_server(
        self, postgres_store: phasetodo.PostgresStore
    ) -> None:
        """Past a page of rows after the checked one, the server checks them (they stay there),
        and an altered one is named all the same."""
        dsn = postgres_store.dsn
        _fill_postgres(postgres_store, 30)
        assert _open_postgres(dsn) == (30, [])
        _append_notes(postgres_store, [f"later {i}" for i in range(300)])
        _set_postgres_body(dsn, 40, "later 9", "later X")
        _assert_named(dsn, 330, 40)

    def test_an_old_row_altered_after_a_clean_open_is_left_to_verify(
        self, postgres_store: phasetodo.PostgresStore
    ) -> None:
        """What the mark trades: an open after a clean one reads from the checked row on, so an
        older row altered since is not named there; ``verify`` checks every row and names it."""
        dsn = postgres_store.dsn
        _fill_postgres(postgres_store, 30)
        assert _open_postgres(dsn) == (30, [])
        _set_postgres_body(dsn, 5, "note 3", "note X")
        assert _open_postgres(dsn) == (30, [])
        assert postgres_store.verify("s").version == 5
