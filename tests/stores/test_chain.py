"""Tamper-evident history: each record's hash chains it to the one before; verify names the
first version altered, removed or reordered, on real JSONL files, SQLite rows and PostgreSQL rows."""

from __future__ import annotations

import json
import re
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo.cli import main
from phasetodo.errors import CorruptLog, TamperedLogWarning

WRITES = 6


class _Log:
    """One session's records in a real store, and the edits a tamperer makes to them."""

    def __init__(self, kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
        self.kind = kind
        if kind == "postgres":
            self.dsn = request.getfixturevalue("postgres_store").dsn
            self.spec = self.dsn
        elif kind == "sqlite":
            self.path = tmp_path / "s.db"
            self.spec = f"sqlite:{self.path}"
        else:
            self.path = tmp_path / "logs" / "s.jsonl"
            self.spec = f"jsonl:{tmp_path / 'logs'}"

    def store(self) -> phasetodo.Store:
        return phasetodo.stores.store_from_url(self.spec)

    def fill(self, writes: int = WRITES) -> None:
        store = self.store()
        with phasetodo.Session.open("s", store) as session:
            session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
            for i in range(writes - 1):
                session.todo_write({"ops": [{"op": "note", "task": "a", "text": f"note {i}"}]})
        store.close()

    def bodies(self) -> dict[int, str]:
        if self.kind == "jsonl":
            lines = self.path.read_text().splitlines()[1:]
            return {json.loads(line)["version"]: line for line in lines}
        return dict(self._sql("SELECT version, body FROM {events} WHERE session = 's' ORDER BY version"))

    def set_body(self, version: int, body: str) -> None:
        if self.kind == "jsonl":
            lines = self.path.read_text().splitlines()
            lines[version] = body
            self.path.write_text("\n".join(lines) + "\n")
        else:
            digest = re.search(r',"hash":"([0-9a-f]{64})"\}$', body)  # the column follows the body
            self._sql(
                "UPDATE {events} SET body = {p}, hash = {p} WHERE session = 's' AND version = {p}",
                (body, digest.group(1) if digest else None, version),
            )

    def delete(self, version: int) -> None:
        if self.kind == "jsonl":
            lines = self.path.read_text().splitlines()
            del lines[version]
            self.path.write_text("\n".join(lines) + "\n")
        else:
            self._sql("DELETE FROM {events} WHERE session = 's' AND version = {p}", (version,))

    def swap(self, first: int, second: int) -> None:
        bodies = self.bodies()
        if self.kind == "jsonl":
            lines = self.path.read_text().splitlines()
            lines[first], lines[second] = lines[second], lines[first]
            self.path.write_text("\n".join(lines) + "\n")
        else:
            self.set_body(first, bodies[second])
            self.set_body(second, bodies[first])

    def _sql(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        if self.kind == "sqlite":
            conn = sqlite3.connect(self.path)
            try:
                rows = conn.execute(sql.format(events="events", p="?"), args).fetchall()
                conn.commit()
                return rows
            finally:
                conn.close()
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            cursor = conn.execute(sql.format(events="phasetodo_events", p="%s"), args)  # type: ignore[arg-type]
            return cursor.fetchall() if cursor.description is not None else []

    def verify(self) -> phasetodo.stores.Verification:
        store = self.store()
        try:
            return store.verify("s")  # type: ignore[attr-defined,no-any-return]
        finally:
            store.close()


@pytest.fixture(params=["jsonl", "sqlite", "postgres"])
def log(request: pytest.FixtureRequest, tmp_path: Path) -> _Log:
    """A session of six writes on each durable store (PostgreSQL on a real server)."""
    made = _Log(request.param, tmp_path, request)
    made.fill()
    return made


def _strip_hash(body: str) -> str:
    return re.sub(r',"hash":"[0-9a-f]{64}"\}$', "}", body)


class TestChain:
    def test_every_record_carries_a_hash_and_the_chain_holds(self, log: _Log) -> None:
        """A fresh log verifies: every record chained, the newest hash reported."""
        found = log.verify()
        assert (found.ok, found.records, found.chained, found.version) == (True, WRITES, WRITES, None)
        assert found.head is not None
        assert log.bodies()[WRITES].endswith(f'"hash":"{found.head}"}}')
        store = log.store()
        with phasetodo.Session.open("s", store) as session:
            assert session.verify() == found
        store.close()

    def test_an_altered_record_is_named_and_opening_warns(self, log: _Log) -> None:
        """A note changed inside record 4: verify names version 4; opening the log warns."""
        body = log.bodies()[4]
        assert "note 2" in body
        log.set_body(4, body.replace("note 2", "note X"))
        found = log.verify()
        assert (found.ok, found.version) == (False, 4)
        assert "does not match" in (found.reason or "")
        store = log.store()
        with pytest.warns(TamperedLogWarning, match="version 4"):
            session = phasetodo.Session.open("s", store)
        assert session.verify().version == 4
        session.close()
        store.close()

    def test_a_removed_record_is_named(self, log: _Log) -> None:
        """Record 3 removed: verify names version 3 (missing or out of place)."""
        log.delete(3)
        found = log.verify()
        assert (found.ok, found.version) == (False, 3)
        assert "missing or out of place" in (found.reason or "")

    def test_reordered_records_are_named(self, log: _Log) -> None:
        """Records 3 and 4 swapped: verify names version 3."""
        log.swap(3, 4)
        found = log.verify()
        assert (found.ok, found.version) == (False, 3)

    def test_a_removed_hash_is_named(self, log: _Log) -> None:
        """Record 5's hash stripped: verify names version 5 (its hash is missing)."""
        log.set_body(5, _strip_hash(log.bodies()[5]))
        found = log.verify()
        assert (found.ok, found.version) == (False, 5)
        assert "missing" in (found.reason or "")

    def test_a_rehashed_record_breaks_the_next_one(self, log: _Log) -> None:
        """A tamperer who fixes record 2's own hash still breaks record 3's link to it."""
        from phasetodo.stores._chain import seal

        bodies = log.bodies()
        previous = re.search(r'"hash":"([0-9a-f]{64})"', bodies[1])
        assert previous is not None
        altered, _ = seal(_strip_hash(bodies[2]).replace("note 0", "forged"), previous.group(1))
        log.set_body(2, altered)
        assert log.verify().version == 3

    def test_the_command_names_the_version_and_exits_1(
        self, log: _Log, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """``phasetodo verify``: exit 0 and the count on a sound log; exit 1 naming the version after
        an edit."""
        assert main(["--store", log.spec, "--session", "s", "verify"]) == 0
        assert f"{WRITES} records verified" in capsys.readouterr().out
        log.delete(2)
        assert main(["--store", log.spec, "--session", "s", "verify", "--json"]) == 1
        answer = json.loads(capsys.readouterr().out)
        assert (answer["ok"], answer["version"], answer["session"]) == (False, 2, "s")


LONG = 80  # writes enough for several checkpoints on a small list


def _checkpoints(log: _Log) -> list[int]:
    return [version for version, body in log.bodies().items() if '"phases":' in body]


def _opening_warns(log: _Log) -> list[warnings.WarningMessage]:
    """The TamperedLogWarnings that opening the log, reading its newest events and writing issue."""
    store = log.store()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = phasetodo.Session.open("s", store)
        list(session.events(session.version - 2))
        session.todo_write({"ops": [{"op": "note", "task": "b", "text": "after"}]})
        session.close()
    store.close()
    return [w for w in caught if issubclass(w.category, TamperedLogWarning)]


@pytest.fixture(params=["jsonl", "sqlite", "postgres"])
def long_log(request: pytest.FixtureRequest, tmp_path: Path) -> _Log:
    """A session of LONG writes, so several checkpoints, on each durable store."""
    made = _Log(request.param, tmp_path, request)
    made.fill(LONG)
    return made


class TestOpeningChecksTheWholeChain:
    def test_an_old_record_altered_before_a_checkpoint_warns_at_open(self, long_log: _Log) -> None:
        """A record well before the newest checkpoint (which opening never decodes) altered: opening
        warns once, naming its version, at the caller's line; verify names the same version."""
        checkpoints = _checkpoints(long_log)
        assert len(checkpoints) >= 2
        assert checkpoints[-1] > 10
        body = long_log.bodies()[5]
        long_log.set_body(5, body.replace("note 3", "note X"))
        store = long_log.store()
        with pytest.warns(TamperedLogWarning, match=r"version 5: its hash does not match") as caught:
            session = phasetodo.Session.open("s", store)
        assert [w.filename for w in caught] == [__file__]
        assert session.verify().version == 5
        assert session.logged_phases()  # the log still opens and reads: the warning is no error
        session.close()
        store.close()
        assert long_log.verify().version == 5
        assert len(_opening_warns(long_log)) == 1

    def test_an_old_record_removed_warns_at_open(self, long_log: _Log) -> None:
        """Record 4 removed: opening warns naming version 4, as verify does."""
        long_log.delete(4)
        assert long_log.verify().version == 4
        found = _opening_warns(long_log)
        assert len(found) == 1
        assert "version 4: the record of version 4 is missing or out of place" in str(found[0].message)

    def test_two_old_records_reordered_warn_at_open(self, long_log: _Log) -> None:
        """Records 6 and 7 swapped: opening warns naming version 6, as verify does."""
        long_log.swap(6, 7)
        assert long_log.verify().version == 6
        found = _opening_warns(long_log)
        assert len(found) == 1
        assert "version 6:" in str(found[0].message)

    def test_an_old_record_rehashed_is_named_where_the_next_link_breaks(self, long_log: _Log) -> None:
        """A forger who re-seals record 3 after altering it breaks record 4's link: open names 4."""
        from phasetodo.stores._chain import seal

        bodies = long_log.bodies()
        previous = re.search(r'"hash":"([0-9a-f]{64})"', bodies[2])
        assert previous is not None
        altered, _ = seal(_strip_hash(bodies[3]).replace("note 1", "forged"), previous.group(1))
        long_log.set_body(3, altered)
        found = _opening_warns(long_log)
        assert len(found) == 1
        assert "version 4: its hash does not match" in str(found[0].message)
        assert long_log.verify().version == 4

    def test_an_old_hash_stripped_or_non_ascii_text_warns_at_open(self, long_log: _Log) -> None:
        """Record 3's hash removed: opening names 3 (missing); undone, then record 4 given text that is
        not ASCII: opening names 4 (does not match)."""
        bodies = long_log.bodies()
        long_log.set_body(3, _strip_hash(bodies[3]))
        found = _opening_warns(long_log)
        assert len(found) == 1
        assert "version 3: its hash is missing" in str(found[0].message)
        long_log.set_body(3, bodies[3])
        long_log.set_body(4, bodies[4].replace("note 2", "nöte\u2028"))
        found = _opening_warns(long_log)
        assert len(found) == 1
        assert "version 4: its hash does not match" in str(found[0].message)
        assert long_log.verify().version == 4

    def test_an_untouched_log_with_many_checkpoints_opens_without_a_warning(self, long_log: _Log) -> None:
        """Nothing altered: opening, reading and writing warn nothing, and a compacted log neither."""
        assert _opening_warns(long_log) == []
        store = long_log.store()
        with phasetodo.Session.open("s", store) as session:
            session.compact()
        store.close()
        assert _opening_warns(long_log) == []


class TestCompaction:
    def test_a_writer_that_read_before_another_compacted_keeps_the_chain(self, log: _Log) -> None:
        """One store object reads the log, another compacts it (every hash new), the first writes
        again: its record chains to the compacted log, which verifies with no warning."""
        first, second = log.store(), log.store()
        with warnings.catch_warnings():
            warnings.simplefilter("error", TamperedLogWarning)
            with phasetodo.Session.open("s", first, resume="keep") as writer:
                assert writer.version == WRITES
                with phasetodo.Session.open("s", second, resume="keep") as other:
                    other.compact()
                writer.todo_write({"ops": [{"op": "done", "task": "a"}]})
                found = writer.verify()
        assert (found.ok, found.records, found.chained) == (True, WRITES + 1, WRITES + 1)
        first.close()
        second.close()


class TestOlderLogs:
    def test_a_log_without_hashes_reads_but_is_not_verified_until_compacted(self, log: _Log) -> None:
        """Every hash stripped (or a log from before the chain): it still opens and reads, but opening
        warns and verify is not ok, naming version 1 (nothing vouches for it); compact() chains it all."""
        for version, body in log.bodies().items():
            log.set_body(version, _strip_hash(body))
        before = log.verify()
        assert (before.ok, before.chained, before.version) == (False, 0, 1)
        assert "carries no hash" in str(before.reason)
        store = log.store()
        with pytest.warns(TamperedLogWarning, match="version 1: it carries no hash"):
            session = phasetodo.Session.open("s", store)
        session.todo_write({"ops": [{"op": "done", "task": "a"}]})
        assert session.verify().ok is False
        session.compact()
        after = session.verify()
        assert (after.ok, after.records, after.chained) == (True, WRITES + 1, WRITES + 1)
        session.close()
        store.close()

    def test_a_jsonl_log_too_damaged_to_open_is_still_verified(self, tmp_path: Path) -> None:
        """Removing a line makes opening fail (CorruptLog); verify still names the version."""
        made = _Log("jsonl", tmp_path, None)  # type: ignore[arg-type]
        made.fill()
        made.delete(WRITES)  # the newest: opening reads it, verify sees a shorter sound chain
        made.delete(2)
        with pytest.raises(CorruptLog):
            phasetodo.Session.open("s", made.store())
        assert made.verify().version == 2


class TestMemory:
    def test_a_memory_log_always_verifies(self) -> None:
        """Memory keeps values, not records: verify holds and counts the events."""
        with phasetodo.Session.open("s", phasetodo.MemoryStore()) as session:
            session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a"]}]}]})
            assert session.verify() == phasetodo.stores.Verification(True, 1, 0)
