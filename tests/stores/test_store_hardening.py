"""Hardening of the stores (issue 16 items 9-11, 13, 14): deep nesting, ids, agents, damage, read-only."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import phasetodo
from phasetodo.stores import Event, check_session_id, event_to_json
from phasetodo.stores._chain import seal

PHASES = phasetodo.load_phases([{"name": "P", "tasks": [{"content": "a", "status": "pending"}]}])
DEEP = b"[" * 200_000 + b"]" * 200_000


def _log(path: Path, lines: list[bytes]) -> None:
    """A format 1 log of ``lines``, each object line sealed in the hash chain as a writer seals it."""
    header = json.dumps({"format": 1, "session": "s", "owner": None}).encode()
    sealed, previous = [], None
    for line in lines:
        if line.endswith(b"}"):
            text, previous = seal(line.decode(), previous)
            line = text.encode()
        sealed.append(line)
    path.write_bytes(b"\n".join([header, *sealed]) + b"\n")


def _line(version: int) -> bytes:
    return json.dumps(event_to_json(Event(version, "write", 1.0, PHASES))).encode()


class TestDeepNesting:
    def test_a_deep_header_is_a_corrupt_log(self, tmp_path: Path) -> None:
        """A header nested 200,000 deep raises CorruptLog at line 1, not RecursionError."""
        (tmp_path / "s.jsonl").write_bytes(DEEP + b"\n")
        with pytest.raises(phasetodo.errors.CorruptLog, match=r"s\.jsonl:1"):
            phasetodo.JsonlStore(tmp_path).open("s")

    def test_a_deep_last_line_raises_or_is_skipped(self, tmp_path: Path) -> None:
        """The newest line nested deep: CorruptLog, or with skip a warning and the event before."""
        _log(tmp_path / "s.jsonl", [_line(1), DEEP])
        with pytest.raises(phasetodo.errors.CorruptLog, match=r"s\.jsonl:3: .*nested too deeply"):
            phasetodo.JsonlStore(tmp_path).open("s")
        with (
            pytest.warns(phasetodo.errors.TamperedLogWarning, match="version 2: the record is not JSON"),
            pytest.warns(phasetodo.errors.CorruptLogWarning, match=":3:"),
        ):
            log = phasetodo.JsonlStore(tmp_path, on_corrupt="skip").open("s")
        assert log.latest() == Event(1, "write", 1.0, PHASES)
        log.close()

    def test_a_deep_middle_line_is_found_by_the_history(self, tmp_path: Path) -> None:
        """A deep line before the newest checkpoint raises CorruptLog when events() reaches it."""
        _log(tmp_path / "s.jsonl", [_line(1), DEEP, _line(3)])
        with pytest.warns(phasetodo.errors.TamperedLogWarning, match="version 2: the record is not JSON"):
            log = phasetodo.JsonlStore(tmp_path).open("s")
        with pytest.raises(phasetodo.errors.CorruptLog, match=r"s\.jsonl:3"):
            list(log.events())
        log.close()

    def test_a_deep_sqlite_body_is_a_corrupt_log(self, tmp_path: Path) -> None:
        """An event row whose body nests deep raises CorruptLog naming file and row."""
        store = phasetodo.SqliteStore(tmp_path / "s.db")
        log = store.open("s")
        log.append(Event(1, "write", 1.0, PHASES))
        store.close()
        conn = sqlite3.connect(tmp_path / "s.db")
        conn.execute("UPDATE events SET body = ?", (DEEP.decode(),))
        conn.commit()
        conn.close()
        store = phasetodo.SqliteStore(tmp_path / "s.db")
        with pytest.raises(phasetodo.errors.CorruptLog, match=r"s\.db:1: .*event 1: .*nested too deeply"):
            store.open("s").latest()
        store.close()


class TestIds:
    @pytest.mark.parametrize("bad", ["é" * 124 + "x", "é" * 200, "\udcff", "a\ud800b"])
    def test_ids_too_long_in_bytes_or_with_lone_surrogates_are_refused(self, bad: str) -> None:
        """Ids whose file names would not fit (in bytes) or could not be encoded raise InvalidSessionId."""
        with pytest.raises(phasetodo.errors.InvalidSessionId, match="session_id"):
            check_session_id(bad)

    @pytest.mark.parametrize("kind", ["jsonl", "sqlite", "memory"])
    def test_every_store_refuses_a_lone_surrogate(self, kind: str, tmp_path: Path) -> None:
        """JSONL, SQLite and memory all raise InvalidSessionId for '\\udcff'."""
        store = phasetodo.stores.store_from_url(
            {"jsonl": str(tmp_path), "sqlite": f"sqlite:{tmp_path / 's.db'}", "memory": "memory:"}[kind]
        )
        with pytest.raises(phasetodo.errors.InvalidSessionId):
            store.open("\udcff")
        store.close()

    def test_the_longest_id_fits_every_file_the_store_makes(self, tmp_path: Path) -> None:
        """A 244-byte id makes a log and its .torn file without OSError."""
        sid = "é" * 122
        check_session_id(sid)
        store = phasetodo.JsonlStore(tmp_path)
        log = store.open(sid)
        log.append(Event(1, "write", 1.0, PHASES))
        log.close()
        with (tmp_path / f"{sid}.jsonl").open("ab") as handle:
            handle.write(b'{"torn')
        with pytest.warns(phasetodo.errors.TornTailWarning):
            store.open(sid).close()
        assert (tmp_path / f"{sid}.jsonl.torn").exists()


class TestAgent:
    @pytest.mark.parametrize("agent", [5, 1.5, True, ["a"], b"a"])
    def test_a_non_string_agent_is_refused_at_open_and_nothing_is_written(
        self, agent: object, tmp_path: Path
    ) -> None:
        """agent=5 raises TypeError naming agent; no log is created."""
        with pytest.raises(TypeError, match="agent"):
            phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path), agent=agent)  # type: ignore[arg-type]
        assert list(tmp_path.iterdir()) == []


class TestSqliteDamage:
    @pytest.mark.slow  # 300 damaged copies of a database file
    def test_byte_flips_give_only_our_errors(self, tmp_path: Path) -> None:
        """300 random byte flips of a SQLite file: each read works or raises CorruptLog or StoreError."""
        good = tmp_path / "good.db"
        store = phasetodo.SqliteStore(good)
        with phasetodo.Session.open("s", store, resume="keep") as session:
            for k in range(30):
                session.todo_write({"ops": [{"op": "append", "phase": "P", "items": [f"task {k} é"]}]})
        store.close()
        data = good.read_bytes()
        rng = random.Random("flips")
        for trial in range(300):
            damaged = bytearray(data)
            at = rng.randrange(len(damaged))
            damaged[at] ^= 1 << rng.randrange(8)
            path = tmp_path / f"d{trial}.db"
            path.write_bytes(bytes(damaged))
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    flipped = phasetodo.SqliteStore(path)
                    try:
                        with phasetodo.Session.open("s", flipped, resume="keep") as session:
                            session.phases  # noqa: B018
                            list(session.events())
                    finally:
                        flipped.close()
            except (phasetodo.errors.CorruptLog, phasetodo.StoreError):
                pass
            path.unlink()


def _without_override() -> list[str]:
    """A command prefix under which file permissions hold, even for root (which bypasses them)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root writes to read-only files and util-linux's setpriv is missing to drop that")
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]


@pytest.mark.slow
class TestReadOnly:
    @pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
    def test_show_reads_a_read_only_store(self, kind: str, tmp_path: Path) -> None:
        """`phasetodo show --json` reads a store it cannot write to, and creates nothing."""
        folder = tmp_path / "store"
        spec = str(folder) if kind == "jsonl" else f"sqlite:{folder / 's.db'}"
        store = phasetodo.stores.store_from_url(spec)
        with phasetodo.Session.open("default", store) as session:
            session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a"]}]}]})
        store.close()
        before = sorted(p.name for p in folder.iterdir())
        for path in [folder, *folder.iterdir()]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            done = subprocess.run(
                [*_without_override(), sys.executable, "-m", "phasetodo", "--store", spec, "show", "--json"],
                capture_output=True, text=True, timeout=120,
            )
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout)[0]["tasks"][0]["content"] == "a"
            assert sorted(p.name for p in folder.iterdir()) == before
        finally:
            folder.chmod(0o755)
            shutil.rmtree(folder, ignore_errors=True)
