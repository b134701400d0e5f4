"""The change feed: ``events(after)`` and ``watch(after)`` give every later event once, in order,
and reading the last N events costs about N records, not the whole log."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import phasetodo
from phasetodo.stores import Event

from ..store_kinds import fresh, same_place

TASKS = 200


def _fill(store: phasetodo.Store, events: int) -> None:
    """A session of ``events`` user edits in one lock (one transaction): 200 tasks, then one
    more note per event, kept as deltas and checkpoints as any log is."""
    tasks = [phasetodo.Task(f"t{i}") for i in range(TASKS)]
    log = store.open("s")
    with log.lock():
        for version in range(1, events + 1):
            if version > 1:
                at = version % TASKS
                tasks[at] = phasetodo.Task(tasks[at].content, notes=(*tasks[at].notes, f"n{version}"))
            log.append(Event(version, "user_edit", float(version), (phasetodo.Phase("P", tuple(tasks)),)))
    log.close()


@pytest.fixture(params=["jsonl", "sqlite", "memory", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[phasetodo.Store]:
    """Each store kind, fresh (PostgreSQL on a real server)."""
    yield from fresh(request, tmp_path)


@pytest.fixture(params=["jsonl", "sqlite", "postgres"])
def durable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[phasetodo.Store]:
    """Each store that reads records from a file or a database, fresh."""
    yield from fresh(request, tmp_path)


class TestEventsAfter:
    @pytest.mark.slow  # logs of 700-1,500 events on durable stores
    def test_every_event_after_a_version_comes_once_in_order(self, store: phasetodo.Store) -> None:
        """Whatever the distance (within the recent events a log keeps, or past them), from a
        fresh log object too, events(after) is exactly the versions above ``after``."""
        _fill(store, 900)
        for back in (0, 1, 10, 511, 512, 513, 600, 899, 900):
            for log in (store.open("s"), same_place(store).open("s")):
                after = 900 - back
                assert [e.version for e in log.events(after)] == list(range(after + 1, 901)), back
                log.close()

    @pytest.mark.slow  # logs of 700-1,500 events on durable stores
    def test_the_lists_of_a_far_read_are_those_of_a_full_replay(self, store: phasetodo.Store) -> None:
        """A read started from a checkpoint materializes the same lists as one from the start."""
        _fill(store, 900)
        log = same_place(store).open("s")
        full = list(log.events())
        assert list(log.events(300)) == full[300:]
        assert [e.phases for e in log.events(300)] == [e.phases for e in full[300:]]
        log.close()

    @pytest.mark.slow  # logs of 700-1,500 events on durable stores
    def test_reading_the_last_events_costs_what_they_are(self, durable: phasetodo.Store) -> None:
        """On a fresh log object, events(after) reads about the records after ``after`` plus one
        stretch between checkpoints: counts of records read, not times."""
        store = durable
        _fill(store, 1500)
        log = same_place(store).open("s")
        read = log.records_read  # type: ignore[attr-defined]
        assert [e.version for e in log.events(1500 - 700)] == list(range(801, 1501))
        near = log.records_read - read  # type: ignore[attr-defined]
        read = log.records_read  # type: ignore[attr-defined]
        assert len(list(log.events(0))) == 1500
        whole = log.records_read - read  # type: ignore[attr-defined]
        assert whole >= 1500
        assert near <= 700 + 150  # the records after 800 and at most one stretch before them
        log.close()


class TestWatch:
    @pytest.mark.slow  # logs of 700-1,500 events on durable stores
    def test_a_watcher_far_behind_gets_every_event_once(self, store: phasetodo.Store) -> None:
        """watch(after=...) 600 events behind, then new writes from another thread: each once, in order."""
        _fill(store, 700)
        other = same_place(store)
        seen: list[int] = []
        with phasetodo.Session.open("s", store, resume="keep") as watcher:

            def write() -> None:
                with phasetodo.Session.open("s", other, limits=None, resume="keep") as writer:
                    for i in range(5):
                        writer.todo_write({"ops": [{"op": "note", "task": "t1", "text": f"late {i}"}]})

            thread = threading.Thread(target=write)
            for event in watcher.watch(timeout=2.0, after=100):
                seen.append(event.version)
                if event.version == 700:
                    thread.start()
                if event.version == 705:
                    break
            thread.join()
        assert seen == list(range(101, 706))
        if other is not store:
            other.close()


class TestLargeLogs:
    @pytest.mark.slow
    @pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
    def test_the_cost_of_the_last_n_events_follows_n_not_the_log(self, kind: str, tmp_path: Path) -> None:
        """On 6,000 events the last 10, 100 and 1,000 cost about 10, 100 and 1,000 records (plus a
        stretch between checkpoints), while the whole log costs 6,000: the benchmark's figures as counts."""
        store: phasetodo.Store = (
            phasetodo.JsonlStore(tmp_path, fsync=False)
            if kind == "jsonl"
            else phasetodo.SqliteStore(tmp_path / "s.db")
        )
        _fill(store, 6000)
        costs = {}
        for back in (10, 100, 1000, 5999):
            log = same_place(store).open("s")
            log.events(6000 - 512)  # a fresh log: go past its recent events before counting
            read = log.records_read  # type: ignore[attr-defined]
            assert len(list(log.events(6000 - back))) == back
            costs[back] = log.records_read - read  # type: ignore[attr-defined]
            log.close()
        for back in (10, 100, 1000):
            assert costs[back] <= back + 150, costs
        assert costs[5999] >= 5999
        assert costs[1000] * 4 < costs[5999], costs


class TestWatchAcrossCompaction:
    def test_a_watcher_sees_every_event_once_while_another_process_compacts(
        self, durable: phasetodo.Store
    ) -> None:
        """Another store object compacts the log mid-watch, then writes: each event once, in order."""
        _fill(durable, 40)
        other = same_place(durable)
        seen: list[int] = []
        with phasetodo.Session.open("s", durable, resume="keep") as watcher:
            for event in watcher.watch(timeout=5.0, after=30):
                seen.append(event.version)
                if event.version == 40:
                    with phasetodo.Session.open("s", other, resume="keep") as writer:
                        writer.compact()
                        for i in range(3):
                            writer.todo_write({"ops": [{"op": "note", "task": "t1", "text": f"after {i}"}]})
                if event.version == 43:
                    break
        assert seen == list(range(31, 44))
        other.close()
