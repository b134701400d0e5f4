"""PostgreSQL through PgBouncer in transaction pooling mode, where LISTEN does not work.

The module starts its own throwaway cluster and a real PgBouncer in front of it
(``pool_mode=transaction``), and stops both. Without pgbouncer or a server the
tests skip saying why, except under ``CI``, where they fail.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest

import phasetodo

from .. import postgres_support

pytestmark = [pytest.mark.slow, pytest.mark.postgres]
Both = tuple[postgres_support.Server, postgres_support.Bouncer]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PgBouncer tests must run in CI: {reason}")
    pytest.skip(f"no PgBouncer in front of a PostgreSQL server: {reason}")


@pytest.fixture(scope="module")
def servers() -> Iterator[Both]:
    """A cluster of this module's own and a PgBouncer in transaction mode in front of it."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg is not installed (the postgres extra)")
    try:
        with postgres_support.server() as made, postgres_support.pgbouncer(made) as bouncer:
            yield made, bouncer
    except postgres_support.Unavailable as error:
        _unavailable(str(error))


@pytest.fixture
def bouncer(servers: Both) -> postgres_support.Bouncer:
    """The PgBouncer, in front of a database with phasetodo's tables dropped."""
    postgres_support.reset(servers[0].dsn)
    return servers[1]


def _note(session: phasetodo.Session, text: str) -> None:
    session.todo_write({"ops": [{"op": "append", "phase": "P", "items": [text]}]})


class TestThroughPgBouncer:
    def test_writes_and_reads_work_in_transaction_pooling(self, bouncer: postgres_support.Bouncer) -> None:
        """Many writes and reads through the pooler (nothing prepared on the server): all there, in order."""
        store = phasetodo.PostgresStore(bouncer.dsn)
        with phasetodo.Session.open("s", store) as session:
            for i in range(30):
                _note(session, f"task {i}")
            assert session.version == 30
            assert [e.version for e in session.events(5)] == list(range(6, 31))
            note = {"ops": [{"op": "note", "task": "task 1", "text": "x"}]}
            again = session.todo_write(note, request_id="r")
            assert session.todo_write(note, request_id="r") == again
            assert session.version == 31
        store.close()

    def test_the_store_notices_that_listen_does_not_work(
        self, servers: Both, bouncer: postgres_support.Bouncer
    ) -> None:
        """Through the pooler the probe hears nothing and the store polls; on the server itself it listens."""
        pooled, direct = phasetodo.PostgresStore(bouncer.dsn), phasetodo.PostgresStore(servers[0].dsn)
        assert pooled.listens is None
        assert pooled.listen_works() is False
        assert pooled.listens is False
        assert direct.listen_works() is True
        pooled.close()
        direct.close()

    def test_a_watcher_through_the_pooler_sees_every_event_once(
        self, servers: Both, bouncer: postgres_support.Bouncer
    ) -> None:
        """A watcher behind PgBouncer, writes made on the server directly: each event once, in order,
        each found by polling (the watch's quiet timeout of 5 s never runs out)."""
        pooled, direct = phasetodo.PostgresStore(bouncer.dsn), phasetodo.PostgresStore(servers[0].dsn)
        with phasetodo.Session.open("s", direct) as writer:
            _note(writer, "first")
        seen: list[int] = []
        started = threading.Event()

        def write() -> None:
            started.wait(10)
            with phasetodo.Session.open("s", direct, resume="keep") as session:
                for i in range(8):
                    _note(session, f"later {i}")

        thread = threading.Thread(target=write)
        thread.start()
        with phasetodo.Session.open("s", pooled, resume="keep") as watcher:
            for event in watcher.watch(timeout=5.0, after=0):
                seen.append(event.version)
                started.set()
                if event.version == 9:
                    break
        thread.join()
        assert seen == list(range(1, 10))
        assert pooled.listens is False
        pooled.close()
        direct.close()


class TestRequestIdsThroughPgBouncer:
    def test_two_agents_with_the_same_request_id_make_two_calls(
        self, bouncer: postgres_support.Bouncer
    ) -> None:
        """Through the pooler too, w1's and w2's call-1 are two calls, each answered with its own reply."""
        store = phasetodo.PostgresStore(bouncer.dsn)
        init = {"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]}
        start = {"ops": [{"op": "start"}]}
        with phasetodo.Session.open("plan", store, profile="team", agent="lead") as lead:
            lead.todo_write(init)
            w1 = phasetodo.Session.open("plan", store, profile="team", agent="w1")
            w2 = phasetodo.Session.open("plan", store, profile="team", agent="w2")
            w1.write(start, request_id="call-1")
            second = w2.write(start, request_id="call-1")
            assert "You (w2) are on" in second.text
            assert "You (w1)" not in second.text
            assert lead.version == 3
            assert {t.owner for t in lead.phases[0].tasks} == {"w1", "w2"}
            w1.close()
            w2.close()
        store.close()
