"""The three stores behind sessions: contract, id checks, faults and open cost."""

from __future__ import annotations

import json
import tracemalloc
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import phasetodo
from phasetodo.stores import Event, check_session_id, event_to_json

from ..store_kinds import fresh

PHASES = (phasetodo.Phase("P", (phasetodo.Task("a"), phasetodo.Task("b", "completed", ("n",)))),)


@pytest.fixture(params=["jsonl", "sqlite", "memory", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[phasetodo.Store]:
    """Each store kind, fresh, in a temporary place (PostgreSQL on a real server)."""
    yield from fresh(request, tmp_path, fsync=True)


def _event(version: int, phases: tuple[phasetodo.Phase, ...] = PHASES) -> Event:
    return Event(version, "write", float(version), phases)


class TestStoreContract:
    def test_an_empty_log_has_no_latest_event(self, store: phasetodo.Store) -> None:
        """A new log's latest() is None and it iterates nothing."""
        log = store.open("s1")
        assert log.latest() is None
        assert list(log.events()) == []
        log.close()

    def test_events_come_back_in_order_and_latest_is_the_last(self, store: phasetodo.Store) -> None:
        """Appended events iterate in version order, equal to what was appended."""
        log = store.open("s1")
        appended = [_event(1), _event(2, ()), Event(3, "user_edit", 3.5, PHASES, source="cli")]
        with log.lock():
            for event in appended:
                log.append(event)
        assert list(log.events()) == appended
        assert log.latest() == appended[-1]
        log.close()

    def test_an_append_must_follow_the_latest_version(self, store: phasetodo.Store) -> None:
        """Appending a version other than latest + 1 raises VersionConflict and adds nothing."""
        log = store.open("s1")
        log.append(_event(1))
        with pytest.raises(phasetodo.VersionConflict):
            log.append(_event(3))
        with pytest.raises(phasetodo.VersionConflict):
            log.append(_event(1))
        assert [e.version for e in log.events()] == [1]
        log.close()

    def test_sessions_lists_the_ids(self, store: phasetodo.Store) -> None:
        """sessions() names every written session, sorted."""
        for name in ("b", "a"):
            log = store.open(name)
            log.append(_event(1))
            log.close()
        assert store.sessions() == ["a", "b"]

    def test_the_first_writer_records_the_owner(self, store: phasetodo.Store) -> None:
        """A new log records its opener's owner at its first write; later opens report it."""
        log = store.open("s1", owner="agent-1")
        log.append(_event(1))
        log.close()
        log = store.open("s1", owner="agent-2")
        assert log.owner == "agent-1"
        log.close()

    def test_a_log_reopened_from_a_new_store_object_has_the_events(
        self, store: phasetodo.Store, tmp_path: Path
    ) -> None:
        """A second store object on the same place reads what the first wrote."""
        if isinstance(store, phasetodo.MemoryStore):
            return  # memory is per store object by design
        log = store.open("s1")
        log.append(_event(1))
        log.close()
        again: phasetodo.Store
        if isinstance(store, phasetodo.JsonlStore):
            again = phasetodo.JsonlStore(tmp_path / "logs")
        elif isinstance(store, phasetodo.PostgresStore):
            again = phasetodo.PostgresStore(store.dsn)
        else:
            again = phasetodo.SqliteStore(tmp_path / "s.db")
        log = again.open("s1")
        assert log.latest() == _event(1)
        log.close()
        again.close()


BAD_IDS = ["", ".", "..", "../x", "a/b", "/etc/passwd", "a\\b", "nul\x00", "C:x", "tab\tid", "x" * 201]


class TestSessionIds:
    @pytest.mark.parametrize("bad", BAD_IDS)
    def test_ids_that_could_leave_the_store_are_rejected(
        self, store: phasetodo.Store, bad: str
    ) -> None:
        """Path-like, empty, control-character and over-long ids raise InvalidSessionId."""
        with pytest.raises(phasetodo.errors.InvalidSessionId, match="session_id"):
            store.open(bad)

    def test_a_non_string_id_is_rejected(self) -> None:
        """An id must be a string."""
        with pytest.raises(phasetodo.errors.InvalidSessionId, match="must be a string"):
            check_session_id(42)

    @pytest.mark.parametrize("good", ["abc", "agent-1.turn_2", "Ünïcode id", "..x", "x" * 200])
    def test_ordinary_ids_are_accepted(self, good: str) -> None:
        """Letters, digits, dots inside, spaces and non-ASCII are fine."""
        assert check_session_id(good) == good

    def test_the_jsonl_file_stays_inside_the_directory(self, tmp_path: Path) -> None:
        """A JSONL session's file is directly in the store's directory."""
        store = phasetodo.JsonlStore(tmp_path)
        assert store.path_for("..x").parent == tmp_path


def _jsonl_with_events(tmp_path: Path, count: int) -> tuple[phasetodo.JsonlStore, Path]:
    store = phasetodo.JsonlStore(tmp_path, fsync=False)
    log = store.open("s")
    for version in range(1, count + 1):
        log.append(_event(version))
    log.close()
    return store, tmp_path / "s.jsonl"


def _format1_log(tmp_path: Path, count: int) -> Path:
    """A log as format 1 wrote it: a full snapshot on every line."""
    path = tmp_path / "s.jsonl"
    lines = [json.dumps({"format": 1, "session": "s", "owner": None})]
    lines += [json.dumps(event_to_json(_event(v))) for v in range(1, count + 1)]
    path.write_text("\n".join(lines) + "\n")
    return path


class TestJsonlFaults:
    def test_a_torn_last_line_is_moved_aside_with_a_warning(self, tmp_path: Path) -> None:
        """Complete events are recovered, the torn tail is reported and kept in a .torn file."""
        store, path = _jsonl_with_events(tmp_path, 3)
        with path.open("ab") as handle:
            handle.write(b'{"version":4,"kind":"wri')
        with pytest.warns(phasetodo.errors.TornTailWarning, match=r"1 torn line \(24 bytes\)"):
            log = store.open("s")
        assert log.latest() == _event(3)
        assert (tmp_path / "s.jsonl.torn").read_bytes() == b'{"version":4,"kind":"wri\n'
        log.append(_event(4))
        assert path.read_bytes().endswith(b"\n")
        assert [e.version for e in log.events()] == [1, 2, 3, 4]
        log.close()

    def test_a_session_resumes_after_a_torn_tail(self, tmp_path: Path) -> None:
        """A session opens on a torn log and its next write lands on a clean line."""
        store, path = _jsonl_with_events(tmp_path, 2)
        with path.open("ab") as handle:
            handle.write(b"{")
        with pytest.warns(phasetodo.errors.TornTailWarning):
            session = phasetodo.Session.open("s", store, resume="keep")
        session.todo_write({"ops": [{"op": "append", "phase": "P", "items": ["c"]}]})
        assert [json.loads(line)["version"] for line in path.read_text().splitlines()[1:]] == [1, 2, 3]
        session.close()

    def test_a_torn_header_from_a_crash_at_creation_is_recovered(self, tmp_path: Path) -> None:
        """A file holding only a torn header opens as a new, empty log."""
        (tmp_path / "s.jsonl").write_bytes(b'{"format":1,"ses')
        store = phasetodo.JsonlStore(tmp_path)
        with pytest.warns(phasetodo.errors.TornTailWarning):
            log = store.open("s")
        assert log.latest() is None
        log.close()

    def test_a_corrupt_line_in_the_tail_names_file_and_line_at_open(self, tmp_path: Path) -> None:
        """A corrupt delta after the newest checkpoint raises CorruptLog with the path and line."""
        store, path = _jsonl_with_events(tmp_path, 3)
        lines = path.read_bytes().split(b"\n")
        lines[2] = b'{"version": "two"}'
        path.write_bytes(b"\n".join(lines))
        with pytest.raises(phasetodo.errors.CorruptLog, match=r"s\.jsonl:3: .*event\.version") as caught:
            store.open("s")
        assert (caught.value.path, caught.value.line) == (str(path), 3)

    def test_a_corrupt_line_before_the_checkpoint_raises_only_in_the_history(self, tmp_path: Path) -> None:
        """Opening reads from the newest checkpoint on; iterating the history finds the bad line."""
        path = _format1_log(tmp_path, 3)
        lines = path.read_bytes().split(b"\n")
        lines[2] = b'{"version": "two"}'
        path.write_bytes(b"\n".join(lines))
        with pytest.warns(phasetodo.errors.TamperedLogWarning, match="version 2"):  # the whole chain
            log = phasetodo.JsonlStore(tmp_path).open("s")
        assert log.latest() == _event(3)
        with pytest.raises(phasetodo.errors.CorruptLog, match=r"s\.jsonl:3: .*event\.version") as caught:
            list(log.events())
        assert (caught.value.path, caught.value.line) == (str(path), 3)
        log.close()

    def test_skip_reports_each_corrupt_line_and_keeps_the_rest(self, tmp_path: Path) -> None:
        """on_corrupt='skip' yields the good events and warns once per bad line."""
        _, path = _jsonl_with_events(tmp_path, 3)
        lines = path.read_bytes().split(b"\n")
        lines[2] = b"not json"
        path.write_bytes(b"\n".join(lines))
        with (
            pytest.warns(phasetodo.errors.TamperedLogWarning, match="version 2"),
            pytest.warns(phasetodo.errors.CorruptLogWarning, match=r"s\.jsonl:3"),
        ):
            log = phasetodo.JsonlStore(tmp_path, on_corrupt="skip").open("s")
        with pytest.warns(phasetodo.errors.CorruptLogWarning, match=r"s\.jsonl:3"):
            assert [e.version for e in log.events()] == [1, 3]
        log.close()

    def test_a_corrupt_last_line_raises_at_open_or_is_skipped(self, tmp_path: Path) -> None:
        """A corrupt newest line stops the open; with skip the previous event is the list."""
        store, path = _jsonl_with_events(tmp_path, 2)
        with path.open("ab") as handle:
            handle.write(b'{"version": 3, "kind": "write", "time": 0, "phases": [{"name": 1}]}\n')
        with pytest.raises(phasetodo.errors.CorruptLog, match=r":4: .*event\.phases"):
            phasetodo.Session.open("s", store)
        skipping = phasetodo.JsonlStore(tmp_path, on_corrupt="skip")
        with (
            pytest.warns(phasetodo.errors.TamperedLogWarning, match="version 3"),
            pytest.warns(phasetodo.errors.CorruptLogWarning, match=":4:"),
        ):
            session = phasetodo.Session.open("s", skipping, resume="keep")
        assert (session.version, session.phases) == (2, PHASES)
        session.close()

    def test_a_foreign_file_is_not_taken_for_a_log(self, tmp_path: Path) -> None:
        """A first line that is no phasetodo header raises CorruptLog at line 1."""
        (tmp_path / "s.jsonl").write_text("hello\n")
        with pytest.raises(phasetodo.errors.CorruptLog, match=r"s\.jsonl:1: .*header"):
            phasetodo.JsonlStore(tmp_path).open("s")

    def test_a_newer_format_is_refused(self, tmp_path: Path) -> None:
        """A header from a newer format version raises CorruptLog naming the format."""
        (tmp_path / "s.jsonl").write_text('{"format": 99, "session": "s", "owner": null}\n')
        with pytest.raises(phasetodo.errors.CorruptLog, match="format 99"):
            phasetodo.JsonlStore(tmp_path).open("s")

    def test_bad_on_corrupt_is_rejected(self, tmp_path: Path) -> None:
        """on_corrupt accepts only 'raise' and 'skip'."""
        with pytest.raises(ValueError, match="on_corrupt"):
            phasetodo.JsonlStore(tmp_path, on_corrupt="ignore")  # type: ignore[arg-type]


def _peak_bytes(action: object) -> int:
    tracemalloc.start()
    try:
        action()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # logs of 10,000 events
class TestOpenCost:
    def test_opening_a_10000_event_jsonl_log_costs_at_most_twice_a_100_event_one(
        self, tmp_path: Path
    ) -> None:
        """Opening decodes the newest checkpoint and a bounded tail: records decoded and memory stay
        flat; the hash chain check reads every byte once more, in blocks, and decodes none of it."""
        costs = []
        for count in (100, 10_000):
            store, path = _jsonl_with_events(tmp_path / str(count), count)
            opened: list[phasetodo.Session] = []
            peak = _peak_bytes(lambda: opened.append(phasetodo.Session.open("s", store)))  # noqa: B023
            assert opened[0].version == count
            log = opened[0]._log
            assert isinstance(log, phasetodo.stores.JsonlLog)
            costs.append((log.records_read, log.bytes_read - path.stat().st_size, peak))
            opened[0].close()
        (small_decoded, small_read, small_peak), (big_decoded, big_read, big_peak) = costs
        assert small_decoded <= big_decoded < 50  # a checkpoint and its tail, not 10,000 records
        assert big_read <= 2 * small_read
        assert big_peak <= 2 * small_peak + 8 * 65536  # the check holds a few 64 KiB blocks at a time

    def test_opening_a_10000_event_sqlite_session_reads_one_row(self, tmp_path: Path) -> None:
        """The SQLite store finds the latest event by index, not by reading the history."""
        store = phasetodo.SqliteStore(tmp_path / "s.db")
        log = store.open("s")
        with log.lock():
            for version in range(1, 10_001):
                log.append(_event(version))
        opened: list[phasetodo.Session] = []
        peak = _peak_bytes(lambda: opened.append(phasetodo.Session.open("s", store)))
        assert opened[0].version == 10_000
        history = 10_000 * len(json.dumps(event_to_json(_event(1))))
        assert peak < history / 20
        opened[0].close()
        store.close()


class TestWarningsAreNotSilent:
    def test_a_clean_log_opens_without_warnings(self, tmp_path: Path) -> None:
        """No warning is issued for a healthy log."""
        store, _ = _jsonl_with_events(tmp_path, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            store.open("s").close()
