"""The event log: deltas and checkpoints, exact replay, old logs, fresh reads and watching."""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import phasetodo
from phasetodo import testing
from phasetodo.stores import Event, _records, event_to_json

from .. import postgres_support
from ..budget import examples

KINDS = ["jsonl", "sqlite", "memory", "postgres"]


def _store(kind: str, where: Path, dsn: str | None = None) -> phasetodo.Store:
    if kind == "jsonl":
        return phasetodo.JsonlStore(where / "logs", fsync=False)
    if kind == "sqlite":
        return phasetodo.SqliteStore(where / "s.db")
    if kind == "postgres":
        assert dsn is not None
        postgres_support.reset(dsn)
        return phasetodo.PostgresStore(dsn)
    return phasetodo.MemoryStore()


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    """Each store kind; PostgreSQL needs the real server."""
    if request.param == "postgres":
        request.getfixturevalue("postgres_dsn")
    return str(request.param)


@pytest.fixture
def make(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A function that opens a store of ``kind`` on one place (a second call: a second object)."""
    dsn = request.getfixturevalue("postgres_dsn") if kind == "postgres" else None
    made: list[phasetodo.Store] = []
    memory = phasetodo.MemoryStore()

    def opener() -> phasetodo.Store:
        if kind == "memory":
            return memory
        if kind == "postgres" and made:
            store: phasetodo.Store = phasetodo.PostgresStore(dsn)  # type: ignore[arg-type]
        else:
            store = _store(kind, tmp_path, dsn)
        made.append(store)
        return store

    yield opener
    for store in made:
        store.close()


def _big(tasks: int) -> dict[str, Any]:
    phases = [{"phase": f"Phase {p}", "items": [f"task {p}-{t} with a realistic name" for t in range(100)]}
              for p in range(tasks // 100)]
    return {"ops": [{"op": "init", "list": phases}]}


def _size(store: phasetodo.Store, kind: str, where: Path) -> int:
    """Bytes the store holds for its logs."""
    if kind == "jsonl":
        return sum(p.stat().st_size for p in (where / "logs").glob("*.jsonl"))
    if kind == "sqlite":
        assert isinstance(store, phasetodo.SqliteStore)
        return int(sum(len(r[0]) for r in store.read("SELECT body FROM events", ())))
    if kind == "postgres":
        assert isinstance(store, phasetodo.PostgresStore)
        return int(store.read("SELECT coalesce(sum(octet_length(body)), 0) FROM phasetodo_events", ())[0][0])
    return 0


@pytest.mark.slow
class TestBytesPerWrite:
    @pytest.mark.parametrize("kind", ["jsonl", "sqlite", "postgres"])
    def test_a_write_on_10000_tasks_costs_its_ops_not_the_list(
        self, kind: str, tmp_path: Path, request: pytest.FixtureRequest
    ) -> None:
        """On a 10,000-task session, a write's record costs under 1 KB plus its ops."""
        dsn = request.getfixturevalue("postgres_dsn") if kind == "postgres" else None
        store = _store(kind, tmp_path, dsn)
        log = store.open("big")
        current: tuple[phasetodo.Phase, ...] = ()
        version = 0

        def write(params: dict[str, Any]) -> None:
            nonlocal current, version
            version += 1
            current = phasetodo.tool.call(params, current, limits=None).phases
            log.append(Event(version, "write", 1.0, current, ops=tuple(params["ops"]), profile="parity"))

        write(_big(10_000))
        write({"ops": [{"op": "start", "task": "task 0-0 with a realistic name"}]})
        start = _size(store, kind, tmp_path)  # after the checkpoint that follows a 10,000-item init
        ops_bytes = 0
        writes = 400
        for k in range(writes):
            params = {"ops": [{"op": "done", "task": f"task {k % 100}-{k // 100} with a realistic name"},
                              {"op": "append", "phase": "Late", "items": [f"late {k}"]}]}
            ops_bytes += len(json.dumps(params["ops"]))
            write(params)
        per_write = (_size(store, kind, tmp_path) - start) / writes
        assert per_write <= 1024 + ops_bytes / writes
        log.close()
        with phasetodo.Session.open("big", store, resume="keep") as again:
            assert (again.version, again.phases) == (version, current)
        store.close()


class TestCheckpointPolicy:
    @pytest.mark.parametrize(("base", "record", "slow"), [(700_000, 300, False), (2_000, 100, True),
                                                           (150, 60, False)])
    def test_checkpoints_cost_at_most_768_bytes_a_write_on_big_lists(
        self, base: int, record: int, slow: bool
    ) -> None:
        """A checkpoint of a big list comes only after enough writes to spread it thin; small ones often."""
        tail = _records.Tail(base=base)
        count = 0
        while not tail.due():
            tail.add(record, None, slow=slow)
            count += 1
        assert base / count <= max(768, base / 64)
        assert count * record <= max(base, 4096) + record  # the tail never outweighs the checkpoint by much

    @pytest.mark.parametrize("base", [20_000, 700_000, 7_000_000])
    def test_engine_only_records_on_big_lists_are_bounded_whatever_the_size(self, base: int) -> None:
        """Records only the engine replays (a pass over the list each) stop at one count on any big list."""
        tail = _records.Tail(base=base)
        count = 0
        while not tail.due():
            tail.add(150, None, slow=True)
            count += 1
        assert count == 16

    def test_a_record_that_alone_outweighs_the_checkpoint_is_the_checkpoint(self) -> None:
        """One record as big as the tail's checkpoint (or the minimum tail) makes itself the checkpoint."""
        assert _records.Tail().outweighs(4096)
        assert not _records.Tail().outweighs(4095)
        assert _records.Tail(base=10_000).outweighs(10_000)
        assert not _records.Tail(base=10_000).outweighs(9_999)

    @pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
    def test_a_big_first_write_is_a_checkpoint_so_the_next_writer_writes_a_delta(
        self, kind: str, tmp_path: Path
    ) -> None:
        """A 10,000-task init is kept with its list; a write from a new log object is then a small
        delta, and the log replays, verifies and reopens as before."""
        store = _store(kind, tmp_path)
        with phasetodo.Session.open("big", store) as session:
            session.todo_write(_big(10_000))
        size = _size(store, kind, tmp_path)
        other = _store(kind, tmp_path)
        with phasetodo.Session.open("big", other, resume="keep", clear_delay=-1) as session:
            session.todo_write({"ops": [{"op": "done", "task": "task 3-7 with a realistic name"}]})
            live = session.phases
        assert _size(store, kind, tmp_path) - size < 1024
        events = list(store.open("big").events())
        assert [e.version for e in events] == [1, 2]
        assert events[1].phases == live
        assert store.verify("big").ok
        with phasetodo.Session.open("big", _store(kind, tmp_path), resume="keep") as again:
            assert (again.version, again.phases) == (2, live)
        if kind == "jsonl":
            lines = (tmp_path / "logs" / "big.jsonl").read_text().splitlines()[1:]
            records = [json.loads(line) for line in lines]
            assert [_records.is_checkpoint(r) for r in records] == [True, False]
            assert records[0]["ops"][0]["op"] == "init"  # the checkpoint keeps its ops, for the history
        for made in (store, other):
            made.close()

    @pytest.mark.slow
    def test_reopening_after_whole_list_writes_on_10000_tasks_replays_a_bounded_tail(
        self, tmp_path: Path
    ) -> None:
        """After 120 writes that each change all 10,000 tasks, opening replays at most 16 of them."""
        store = phasetodo.JsonlStore(tmp_path, fsync=False)
        with phasetodo.Session.open("big", store) as session:
            session.todo_write(_big(10_000), limits=None)
            for k in range(120):
                session.todo_write({"ops": [{"op": "done" if k % 2 else "drop"}]}, limits=None)
            live = session.phases
        records = [json.loads(line) for line in (tmp_path / "big.jsonl").read_text().splitlines()[1:]]
        newest = max(i for i, record in enumerate(records) if _records.is_checkpoint(record))
        engine_only = [record for record in records if _records.is_slow(record)]
        assert len(engine_only) >= 100  # the writes really were too big to keep as diffs
        assert sum(_records.is_slow(record) for record in records[newest + 1 :]) <= 16
        reopened = phasetodo.JsonlStore(tmp_path, fsync=False)
        with phasetodo.Session.open("big", reopened, resume="keep") as again:
            assert (again.version, again.phases) == (121, live)
            assert sum(len(phase.tasks) for phase in again.phases) == 10_000


class TestOldLogs:
    def test_a_format_1_jsonl_log_opens_replays_and_compacts(self, tmp_path: Path) -> None:
        """A log of full snapshots opens, takes new writes, and compact() rewrites it as deltas."""
        phases = phasetodo.load_phases([{"name": "P", "tasks": [{"content": "a", "status": "pending"}]}])
        lines = [json.dumps({"format": 1, "session": "s", "owner": None})]
        lines += [json.dumps(event_to_json(Event(v, "write", float(v), phases))) for v in (1, 2, 3)]
        (tmp_path / "s.jsonl").write_text("\n".join(lines) + "\n")
        store = phasetodo.JsonlStore(tmp_path, fsync=False)
        session = phasetodo.Session.open("s", store, resume="keep")
        assert (session.version, session.phases) == (3, phases)
        session.todo_write({"ops": [{"op": "append", "phase": "P", "items": ["b"]}]})
        before = [(e.version, e.phases) for e in session.events()]
        session.compact()
        assert json.loads((tmp_path / "s.jsonl").read_text().splitlines()[0])["format"] == 2
        assert [(e.version, e.phases) for e in session.events()] == before
        with phasetodo.Session.open("s", store, resume="keep") as again:
            assert (again.version, again.phases) == (4, session.phases)
        session.close()

    def test_an_old_sqlite_database_gains_the_checkpoint_column(self, tmp_path: Path) -> None:
        """Rows written before checkpoints existed read as checkpoints; new rows are deltas."""
        import sqlite3

        phases = phasetodo.load_phases([{"name": "P", "tasks": [{"content": "a", "status": "pending"}]}])
        conn = sqlite3.connect(tmp_path / "s.db")
        conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, owner TEXT)")
        conn.execute("CREATE TABLE events (session TEXT NOT NULL, version INTEGER NOT NULL,"
                     " body TEXT NOT NULL,"
                     " PRIMARY KEY (session, version)) WITHOUT ROWID")
        conn.execute("INSERT INTO sessions VALUES ('s', NULL)")
        for v in (1, 2):
            body = json.dumps(event_to_json(Event(v, "write", 1.0, phases)))
            conn.execute("INSERT INTO events VALUES ('s', ?, ?)", (v, body))
        conn.commit()
        conn.close()
        store = phasetodo.SqliteStore(tmp_path / "s.db")
        with phasetodo.Session.open("s", store, resume="keep") as session:
            assert session.phases == phases
            session.todo_write({"ops": [{"op": "start", "task": "a"}]})
            assert [e.version for e in session.events()] == [1, 2, 3]
        assert store.read("SELECT checkpoint FROM events ORDER BY version", ()) == [(1,), (1,), (0,)]
        store.close()


class TestFreshReads:
    def test_another_writer_is_seen_by_phases_and_version(self, make: Any) -> None:
        """A session sees a second session's write on its next read, without refresh()."""
        first = phasetodo.Session.open("s", make(), resume="keep")
        second = phasetodo.Session.open("s", make(), resume="keep")
        first.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["A", "B", "C"]}]}]})
        second.user_edit([{"name": "P", "tasks": [{"content": "A", "status": "completed"}]}], source="cli")
        assert first.version == 2
        assert [t.content for t in first.phases[0].tasks] == ["A"]
        first.close()
        second.close()

    def test_reading_creates_nothing(self, tmp_path: Path) -> None:
        """Opening and reading a session that does not exist leaves no file or folder behind."""
        stores = (phasetodo.JsonlStore(tmp_path / "logs"), phasetodo.SqliteStore(tmp_path / "db" / "s.db"))
        for store in stores:
            with phasetodo.Session.open("s", store) as session:
                assert (session.version, session.phases, list(session.events())) == (0, (), [])
            store.close()
        assert list(tmp_path.iterdir()) == []


class TestWatch:
    def test_watch_yields_each_event_whoever_wrote_it(self, make: Any) -> None:
        """A watcher sees every event of another writer, in version order, then times out."""
        watcher = phasetodo.Session.open("s", make(), resume="keep")
        writer = phasetodo.Session.open("s", make(), resume="keep")
        seen: list[int] = []
        start = watcher.version  # 0: the watcher starts before the writes

        def watch() -> None:
            for event in watcher.watch(timeout=10, after=start):
                seen.append(event.version)
                if event.version == 5:
                    return

        thread = threading.Thread(target=watch)
        thread.start()
        for k in range(5):
            writer.todo_write({"ops": [{"op": "append", "phase": "P", "items": [f"t{k}"]}]})
        thread.join(30)
        assert seen == [1, 2, 3, 4, 5]
        assert watcher.phases == writer.phases
        watcher.close()
        writer.close()

    def test_watch_stops_after_a_quiet_timeout(self, make: Any) -> None:
        """With nothing new, watch(timeout=0) yields nothing and returns."""
        with phasetodo.Session.open("s", make()) as session:
            assert list(session.watch(timeout=0)) == []

    def test_awatch_is_the_async_twin(self, make: Any) -> None:
        """awatch yields the same events as watch, inside an event loop."""
        store = make()
        writer = phasetodo.Session.open("s", store, resume="keep")
        watcher = phasetodo.Session.open("s", make(), resume="keep")
        for k in range(3):
            writer.todo_write({"ops": [{"op": "append", "phase": "P", "items": [f"t{k}"]}]})

        async def collect() -> list[int]:
            return [e.version async for e in watcher.awatch(timeout=0, after=0)]

        assert asyncio.run(collect()) == [1, 2, 3]
        writer.close()
        watcher.close()


class TestManyAwatchers:
    @pytest.mark.parametrize("kind", ["memory", "jsonl"])
    def test_twelve_waiters_leave_the_default_pool_free_and_all_get_the_next_event(
        self, kind: str, tmp_path: Path
    ) -> None:
        """Twelve awatch waiters on one store, more than the loop's pool has threads, all see a
        write that itself runs on the loop's default pool."""
        store: phasetodo.Store = phasetodo.MemoryStore()
        if kind == "jsonl":
            store = phasetodo.JsonlStore(tmp_path / "logs", fsync=False)
        writer = phasetodo.Session.open("s", store, resume="keep")
        writer.todo_write({"ops": [{"op": "append", "phase": "P", "items": ["t0"]}]})
        watchers = [phasetodo.Session.open("s", store, resume="keep") for _ in range(12)]

        def write(item: str) -> None:
            writer.todo_write({"ops": [{"op": "append", "phase": "P", "items": [item]}]})

        async def first(watcher: phasetodo.Session) -> int:
            async for event in watcher.awatch(after=1):
                return event.version
            return 0

        async def run() -> list[int]:
            loop = asyncio.get_running_loop()
            loop.set_default_executor(ThreadPoolExecutor(max_workers=4))  # fewer threads than waiters
            waiters = [asyncio.create_task(first(w)) for w in watchers]
            await asyncio.sleep(0)  # every waiter starts waiting before the write is handed out
            try:
                await asyncio.wait_for(loop.run_in_executor(None, write, "t1"), 60)
                return await asyncio.wait_for(asyncio.gather(*waiters), 60)
            finally:
                if writer.version < 2:  # starved: write from here so blocked waits end and the test fails
                    write("t1")
                await asyncio.gather(*waiters, return_exceptions=True)

        try:
            assert asyncio.run(run()) == [2] * 12
        finally:
            for session in [writer, *watchers]:
                session.close()
            store.close()


@pytest.mark.slow  # a log cut at every byte
class TestJsonlCuts:
    def test_a_log_cut_at_every_byte_of_its_last_event_replays_to_the_event_before(
        self, tmp_path: Path
    ) -> None:
        """Every truncation inside the last event opens at the previous version with the previous list."""
        store = phasetodo.JsonlStore(tmp_path / "logs", fsync=False)
        with phasetodo.Session.open("s", store, resume="keep") as session:
            session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
            session.user_edit([{"name": "P", "tasks": [{"content": "a", "status": "completed"}]}])
            before = session.phases
            session.todo_write({"ops": [{"op": "append", "phase": "Q", "items": ["c"]}]})
        data = (tmp_path / "logs" / "s.jsonl").read_bytes()
        last = data.rindex(b"\n", 0, len(data) - 1) + 1
        for cut in range(last, len(data)):
            (tmp_path / "logs" / "s.jsonl").write_bytes(data[:cut])
            with pytest.warns(phasetodo.errors.TornTailWarning) if cut > last else _nothing():
                again = phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path / "logs"), resume="keep")
            assert (again.version, again.phases) == (2, before)
            again.close()


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


class ReplayMachine(RuleBasedStateMachine):
    """Writes, edits and clears on every store; a fresh store object always replays to the live list."""

    dsn: ClassVar[str | None] = None

    def __init__(self) -> None:
        super().__init__()
        self.session: phasetodo.Session | None = None
        self.stores: list[phasetodo.Store] = []

    @initialize(kind=st.sampled_from(KINDS), edits=st.booleans())
    def open_store(self, kind: str, edits: bool) -> None:
        # Without edits every write is replayed by the engine from its ops alone.
        _records.EDIT_SLACK = 256 if edits else -(10**9)
        if kind == "postgres" and self.dsn is None:
            kind = "sqlite"
        self.kind = kind
        self.tmp = tempfile.TemporaryDirectory()
        self.store = _store(kind, Path(self.tmp.name), self.dsn)
        self.session = phasetodo.Session.open("s", self.store, resume="keep", clear_delay=-1)

    @rule(data=st.data(), strict=st.booleans())
    def tool_write(self, data: st.DataObject, strict: bool) -> None:
        assert self.session is not None
        params = data.draw(testing.params(self.session.phases, valid=None))
        with contextlib.suppress(phasetodo.InvalidParams):
            self.session.todo_write(params, profile="strict" if strict else "parity")

    @rule(phases=testing.phases(max_size=3, max_tasks=3))
    def user_edit(self, phases: tuple[phasetodo.Phase, ...]) -> None:
        assert self.session is not None
        self.session.user_edit(phases, source="test")

    @precondition(lambda self: self.session is not None and self.kind != "memory")
    @rule()
    def compact(self) -> None:
        assert self.session is not None
        self.session.compact()

    @invariant()
    def replay_equals_live(self) -> None:
        if self.session is None:
            return
        again = self._second_store()
        with phasetodo.Session.open("s", again, resume="keep") as replayed:
            assert replayed.version == self.session.version
            assert replayed.phases == self.session.phases
            events = list(replayed.events())
        assert [e.version for e in events] == list(range(1, self.session.version + 1))
        if events:
            assert events[-1].phases == self.session.phases
        if again is not self.store:
            again.close()

    def _second_store(self) -> phasetodo.Store:
        where = Path(self.tmp.name)
        if self.kind == "jsonl":
            return phasetodo.JsonlStore(where / "logs")
        if self.kind == "sqlite":
            return phasetodo.SqliteStore(where / "s.db")
        if self.kind == "postgres":
            assert self.dsn is not None
            return phasetodo.PostgresStore(self.dsn)
        return self.store

    def teardown(self) -> None:
        _records.EDIT_SLACK = 256
        if self.session is not None:
            self.session.close()
            self.store.close()
            self.tmp.cleanup()


class TestReplayOnEveryStore:
    def test_replay_equals_the_live_list(self, postgres_dsn: str) -> None:
        """A Hypothesis state machine: every store replays each log to exactly the live list."""
        ReplayMachine.dsn = postgres_dsn
        try:
            machine = ReplayMachine.TestCase
            machine.settings = settings(
                max_examples=examples(25), stateful_step_count=12, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            )
            machine("runTest").runTest()
        finally:
            ReplayMachine.dsn = None
