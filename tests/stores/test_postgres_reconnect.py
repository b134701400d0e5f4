"""PostgreSQL after a lost connection; credentials never printed and taken the way libpq takes them.

These tests need a real server they may restart and configure, so they start
their own throwaway cluster (even when ``PHASETODO_TEST_DSN`` names one): they
skip saying why when none can be started, and fail instead under ``CI``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import phasetodo
import phasetodo.cli
from phasetodo.errors import StoreError, VersionConflict
from phasetodo.stores._dsn import redact

from .. import postgres_support

ROLE, PASSWORD = "phasetodo_agent", "s3cret-Pw"


def _no_server(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests must run in CI: {reason}")
    pytest.skip(f"no PostgreSQL server: {reason}")


@pytest.fixture(scope="module")
def server() -> Iterator[postgres_support.Server]:
    """A cluster of this module's own, which the tests restart and whose logins they configure."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _no_server("psycopg is not installed (the postgres extra)")
    try:
        with postgres_support.server() as made:
            yield made
    except postgres_support.Unavailable as error:
        _no_server(str(error))


@pytest.fixture
def dsn(server: postgres_support.Server) -> str:
    """The superuser DSN of a running server with phasetodo's tables dropped."""
    postgres_support.reset(server.dsn)
    return server.dsn


@pytest.fixture(scope="module")
def agent_role(server: postgres_support.Server) -> str:
    """A role that logs in with a password only (scram-sha-256 over TCP); its DSN, without the password."""
    import psycopg

    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'")
        conn.execute(f"GRANT ALL ON SCHEMA public TO {ROLE}")
    server.allow_password(ROLE)
    return f"postgresql://{ROLE}@127.0.0.1:{server.port}/postgres"


@pytest.fixture
def agent(agent_role: str, dsn: str) -> str:
    """The password role's DSN (without the password) on an empty database, so that it owns the tables."""
    return agent_role


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """No password reaches libpq from the environment, a passfile or a service file unless a test puts one."""
    for name in ("PGPASSWORD", "PGSERVICE", "PGSERVICEFILE", "PGUSER", "PGHOST", "PGPORT", "PGDATABASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-passfile"))
    monkeypatch.setenv("PGSYSCONFDIR", str(tmp_path))
    return monkeypatch


def _append(session: phasetodo.Session, item: str) -> None:
    session.todo_write({"ops": [{"op": "append", "phase": "P", "items": [item]}]})


def _items(dsn: str, session_id: str = "s") -> list[str]:
    store = phasetodo.PostgresStore(dsn)
    try:
        with phasetodo.Session.open(session_id, store, resume="keep") as session:
            assert [e.version for e in session.events()] == list(range(1, session.version + 1))
            return [task.content for phase in session.phases for task in phase.tasks]
    finally:
        store.close()


def _terminate_clients(dsn: str) -> int:
    """pg_terminate_backend on every other client backend; how many there were."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
        ).fetchall()
    return len(rows)


class _Proxy:
    """A TCP proxy to the server that cuts one client at its next statement holding ``at`` (a ``COMMIT``).

    ``cut = "before"``: the statement never reaches the server (it rolls back).
    ``cut = "after"``: the server runs it (commits), but the client never gets the reply.
    ``on_cut`` runs once the server side is done, before the client is cut.
    """

    def __init__(self, port: int) -> None:
        self._upstream = port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self.cut: str | None = None
        self.at = b"COMMIT\x00"
        self.on_cut: Callable[[], None] | None = None
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    @staticmethod
    def _recv(sock: socket.socket) -> bytes:
        try:
            return sock.recv(65536)
        except OSError:
            return b""

    @staticmethod
    def _shut(*socks: socket.socket) -> None:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _serve(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self._upstream))
        except OSError:  # the server is down: so is this client's connection
            self._shut(client)
            return
        hold, replied = threading.Event(), threading.Event()

        def down() -> None:
            while data := self._recv(upstream):
                if hold.is_set():
                    replied.set()  # the COMMIT's reply: swallowed
                    continue
                try:
                    client.sendall(data)
                except OSError:
                    return

        threading.Thread(target=down, daemon=True).start()
        while data := self._recv(client):
            mode = self.cut if self.at in data else None
            if mode is not None:
                self.cut = None
                if mode == "after":
                    hold.set()
                    upstream.sendall(data)
                    assert replied.wait(10)
                self._shut(upstream)
                if self.on_cut is not None:
                    self.on_cut()
                self.cuts += 1
                self._shut(client)
                return
            try:
                upstream.sendall(data)
            except OSError:
                break
        self._shut(upstream, client)


@pytest.fixture
def proxy(server: postgres_support.Server, dsn: str) -> Iterator[_Proxy]:
    """A cutting proxy in front of an empty database."""
    made = _Proxy(server.port)
    yield made
    made.close()


def _through(proxy: _Proxy) -> str:
    return f"postgresql://postgres@127.0.0.1:{proxy.port}/postgres"


class TestReconnect:
    def test_writes_go_on_after_a_server_restart(self, server: postgres_support.Server, dsn: str) -> None:
        """After the server restarts, all 24 next writes succeed on a new connection."""
        store = phasetodo.PostgresStore(dsn)
        with phasetodo.Session.open("s", store) as session:
            _append(session, "first")
            server.restart()
            for k in range(24):
                _append(session, f"w{k}")
            assert session.version == 25
        store.close()
        assert _items(dsn) == ["first", *(f"w{k}" for k in range(24))]

    def test_writes_and_reads_go_on_after_pg_terminate_backend(self, dsn: str) -> None:
        """A terminated backend is replaced: reads and 24 writes succeed afterwards."""
        store = phasetodo.PostgresStore(dsn)
        with phasetodo.Session.open("s", store) as session:
            _append(session, "first")
            assert _terminate_clients(dsn) == 1
            assert store.sessions() == ["s"]
            for k in range(24):
                assert _terminate_clients(dsn) == 1
                _append(session, f"w{k}")
            assert session.version == 25
        store.close()
        assert _items(dsn) == ["first", *(f"w{k}" for k in range(24))]

    def test_a_write_waits_with_backoff_for_a_server_coming_back(
        self, server: postgres_support.Server, dsn: str
    ) -> None:
        """A write made while the server is down succeeds once it is back, within the reconnect time."""
        store = phasetodo.PostgresStore(dsn, reconnect=30)
        with phasetodo.Session.open("s", store) as session:
            _append(session, "first")
            server.stop()
            starter = threading.Timer(1.0, server.start)
            starter.start()
            began = time.monotonic()
            _append(session, "while down")
            assert time.monotonic() - began >= 0.9
            starter.join()
        store.close()
        assert _items(dsn) == ["first", "while down"]

    def test_a_server_down_too_long_fails_clearly_and_the_store_recovers(
        self, server: postgres_support.Server, dsn: str
    ) -> None:
        """Past ``reconnect`` seconds a call fails naming the cause, and the next call reconnects."""
        store = phasetodo.PostgresStore(dsn, reconnect=0.5)
        session = phasetodo.Session.open("s", store)
        _append(session, "first")
        server.stop()
        try:
            with pytest.raises(StoreError, match=r"could not be made again within 0\.5 s"):
                _append(session, "lost")
        finally:
            server.start()
        _append(session, "after")
        session.close()
        store.close()
        assert _items(dsn) == ["first", "after"]

    def test_restarts_and_kills_during_two_writers_lose_and_double_nothing(
        self, server: postgres_support.Server, dsn: str
    ) -> None:
        """Two writers, three restarts and three rounds of kills: every acknowledged write once, no other."""
        acked: dict[str, list[str]] = {"a": [], "b": []}
        failed: dict[str, list[str]] = {"a": [], "b": []}

        def write(tag: str) -> None:
            store = phasetodo.PostgresStore(dsn)
            with phasetodo.Session.open("s", store, resume="keep") as session:
                for k in range(40):
                    item = f"{tag}{k}"
                    try:
                        _append(session, item)
                    except (StoreError, VersionConflict):  # the other writer won: nothing applied
                        failed[tag].append(item)
                    else:
                        acked[tag].append(item)
                    time.sleep(0.01)
            store.close()

        writers = [threading.Thread(target=write, args=(tag,)) for tag in acked]
        for thread in writers:
            thread.start()
        for round_ in range(3):
            time.sleep(0.12)
            server.restart("immediate" if round_ == 1 else "fast")
            time.sleep(0.12)
            _terminate_clients(dsn)
        for thread in writers:
            thread.join(120)
        items = _items(dsn)
        assert len(items) == len(set(items))  # nothing applied twice
        assert set(acked["a"] + acked["b"]) == set(items)  # nothing acknowledged lost, nothing else there
        # A write fails only when the other one won the version as the connection dropped;
        # each restart or kill round can cost a collision or two, so most writes land.
        assert len(acked["a"]) + len(acked["b"]) >= 70, failed


class TestCommitOutcome:
    def test_a_commit_whose_reply_is_lost_counts_once(self, proxy: _Proxy, dsn: str) -> None:
        """The server commits but the reply never comes: the log says so; it is not written again."""
        store = phasetodo.PostgresStore(_through(proxy))
        with phasetodo.Session.open("s", store) as session:
            _append(session, "first")
            proxy.cut = "after"
            _append(session, "reply lost")
            assert proxy.cuts == 1
            assert session.version == 2
            _append(session, "third")
        store.close()
        assert _items(dsn) == ["first", "reply lost", "third"]

    def test_a_commit_that_never_arrived_is_written_once(self, proxy: _Proxy, dsn: str) -> None:
        """The COMMIT never reaches the server: the write is made again on a new connection, once."""
        store = phasetodo.PostgresStore(_through(proxy))
        with phasetodo.Session.open("s", store) as session:
            _append(session, "first")
            proxy.cut = "before"
            _append(session, "commit lost")
            assert proxy.cuts == 1
            assert session.version == 2
        store.close()
        assert _items(dsn) == ["first", "commit lost"]

    def test_a_lost_write_overtaken_by_another_writer_is_reported_not_applied(
        self, proxy: _Proxy, dsn: str
    ) -> None:
        """Another writer takes the version while the COMMIT is lost: StoreError; only the other is kept."""
        store = phasetodo.PostgresStore(_through(proxy))
        other = phasetodo.PostgresStore(dsn, timeout=2)
        with phasetodo.Session.open("s", store) as session, phasetodo.Session.open("s", other) as rival:
            _append(session, "first")
            proxy.on_cut = lambda: _append(rival, "rival")
            proxy.cut = "before"
            with pytest.raises(StoreError, match="nothing was applied"):
                _append(session, "overtaken")
            assert session.version == 2
            _append(rival, "rival again")  # the refused write holds no lock
            _append(session, "retried")
        store.close()
        other.close()
        assert _items(dsn) == ["first", "rival", "rival again", "retried"]

    def test_a_commit_whose_outcome_cannot_be_learned_says_so(
        self, proxy: _Proxy, dsn: str, server: postgres_support.Server
    ) -> None:
        """The reply is lost and the server stays down: StoreError says the write may have been committed."""
        store = phasetodo.PostgresStore(_through(proxy), reconnect=0.5)
        session = phasetodo.Session.open("s", store)
        _append(session, "first")
        proxy.on_cut = server.stop
        proxy.cut = "after"
        try:
            with pytest.raises(StoreError, match="may have been committed"):
                _append(session, "unknown")
        finally:
            server.start()
        assert session.version == 2
        session.close()
        store.close()
        assert _items(dsn) == ["first", "unknown"]

    def test_a_retry_with_its_request_id_after_an_unknown_outcome_is_answered_once(
        self, proxy: _Proxy, dsn: str, server: postgres_support.Server
    ) -> None:
        """The commit's outcome is unknown (StoreError); the retry with the same id gets the first
        result from the log and appends nothing."""
        store = phasetodo.PostgresStore(_through(proxy), reconnect=0.5)
        session = phasetodo.Session.open("s", store)
        _append(session, "first")
        params = {"ops": [{"op": "append", "phase": "P", "items": ["unknown"]}]}
        proxy.on_cut = server.stop
        proxy.cut = "after"
        try:
            with pytest.raises(StoreError, match="may have been committed"):
                session.todo_write(params, request_id="call-2")
        finally:
            server.start()
        again = session.todo_write(params, request_id="call-2")
        assert session.version == 2
        assert "unknown" in again["content"][0]["text"]
        with phasetodo.Session.open("s", phasetodo.PostgresStore(dsn), resume="keep") as other:
            assert other.todo_write(params, request_id="call-2") == again
        session.close()
        store.close()
        assert _items(dsn) == ["first", "unknown"]

    def test_a_commit_whose_reply_is_lost_is_found_by_its_request_id(self, proxy: _Proxy, dsn: str) -> None:
        """The reply of a COMMIT is lost: the store looks the write up by its request id, once."""
        store = phasetodo.PostgresStore(_through(proxy))
        with phasetodo.Session.open("s", store) as session:
            _append(session, "first")
            proxy.cut = "after"
            params = {"ops": [{"op": "append", "phase": "P", "items": ["reply lost"]}]}
            first = session.todo_write(params, request_id="call-2")
            assert proxy.cuts == 1
            assert session.todo_write(params, request_id="call-2") == first
            assert session.version == 2
        store.close()
        assert _items(dsn) == ["first", "reply lost"]

    @pytest.mark.parametrize(
        ("at", "match"),
        [(b"DELETE FROM phasetodo_events", "nothing changed"), (b"COMMIT\x00", "compact again")],
    )
    def test_a_compaction_that_loses_its_connection_keeps_every_event(
        self, proxy: _Proxy, dsn: str, at: bytes, match: str
    ) -> None:
        """Lost during a compaction or its commit: StoreError, every event kept; compacting again works."""
        store = phasetodo.PostgresStore(_through(proxy))
        with phasetodo.Session.open("s", store) as session:
            for k in range(5):
                _append(session, f"w{k}")
            proxy.at, proxy.cut = at, "before"
            with pytest.raises(StoreError, match=match):
                session.compact()
            assert proxy.cuts == 1
            session.compact()
            _append(session, "after")
        store.close()
        assert _items(dsn) == [*(f"w{k}" for k in range(5)), "after"]


class TestWatchResumes:
    def _watch(self, dsn: str, count: int, seen: list[int], ready: threading.Event) -> None:
        store = phasetodo.PostgresStore(dsn)
        with phasetodo.Session.open("s", store, resume="keep") as session:
            ready.set()
            for event in session.watch(timeout=60):
                seen.append(event.version)
                if len(seen) == count:
                    break
        store.close()

    def test_a_watcher_sees_every_event_once_across_restarts_and_kills(
        self, server: postgres_support.Server, dsn: str
    ) -> None:
        """A watcher through a restart and a round of kills sees versions 1..30, in order, each once."""
        seen: list[int] = []
        ready = threading.Event()
        watcher = threading.Thread(target=self._watch, args=(dsn, 30, seen, ready))
        watcher.start()
        assert ready.wait(30)
        store = phasetodo.PostgresStore(dsn)
        with phasetodo.Session.open("s", store) as session:
            for k in range(10):
                _append(session, f"a{k}")
            server.restart()
            for k in range(10):
                _append(session, f"b{k}")
            time.sleep(0.2)
            _terminate_clients(dsn)
            for k in range(10):
                _append(session, f"c{k}")
        store.close()
        watcher.join(60)
        assert not watcher.is_alive()
        assert seen == list(range(1, 31))

    def test_a_watcher_whose_listener_is_terminated_wakes_for_the_next_write(self, dsn: str) -> None:
        """pg_terminate_backend on the listening backend: the next write still wakes the watcher."""
        import psycopg

        store = phasetodo.PostgresStore(dsn)
        with phasetodo.Session.open("s", store) as session:
            _append(session, "first")
            log = store.open("s")
            waited: list[bool] = []
            waiter = threading.Thread(target=lambda: waited.append(log.wait(1, timeout=30)))
            waiter.start()
            time.sleep(0.3)
            with psycopg.connect(dsn, autocommit=True) as conn:
                (killed,) = conn.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = %s",
                    ("LISTEN phasetodo_events",),
                ).fetchone()
            assert killed == 1
            time.sleep(0.3)
            began = time.monotonic()
            _append(session, "second")
            waiter.join(30)
            assert waited == [True]
            assert time.monotonic() - began < 5
            log.close()
        store.close()


class TestRefusedConnection:
    def test_the_command_says_it_on_one_line(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A server that is not there: exit 2 and the driver's hint on the same line, no literal \\t."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]  # closed again: nothing listens there
        status = phasetodo.cli.main(["--store", f"postgresql://nobody@127.0.0.1:{port}/x", "show"])
        err = capsys.readouterr().err
        assert status == 2
        assert "Connection refused; Is the server running" in err
        assert "\\t" not in err
        assert "\t" not in err
        assert err.count("\n") == 1


class TestCredentials:
    def test_redact_masks_url_and_keyword_passwords(self) -> None:
        """redact() keeps the user and masks the URL password, password= and sslpassword= values."""
        assert redact("postgresql://agent:s3cret@db:5432/todo") == "postgresql://agent:***@db:5432/todo"
        assert redact("postgresql://agent@db/todo") == "postgresql://agent@db/todo"
        assert redact("postgresql://db/todo?password=s3cret&x=1") == "postgresql://db/todo?password=***&x=1"
        assert redact("host=db password='a b' user=x") == "host=db password=*** user=x"
        assert redact("postgresql://a:p@ss/w@db/x?sslpassword=k") == "postgresql://a:***@db/x?sslpassword=***"

    def test_redact_masks_the_password_where_a_driver_message_quotes_it(self) -> None:
        """A message about a DSN loses that DSN's password and the pieces libpq may cut it into."""
        dsn = "postgresql://u:s3cret%2Fpart@db/x"
        assert redact('bad token "s3cret/part"', dsn) == 'bad token "***"'
        assert redact("failed to resolve host 'tail@db'", "postgresql://u:head@tail@db/x") == (
            "failed to resolve host '***@db'"
        )

    def test_the_store_never_shows_its_password(self, agent: str, clean_env: pytest.MonkeyPatch) -> None:
        """repr, where and a failed login name the role and the database, never the password."""
        store = phasetodo.PostgresStore(agent.replace("@", f":{PASSWORD}@"))
        assert PASSWORD not in repr(store) + store.where
        assert f"{ROLE}:***@" in store.where
        store.close()
        with pytest.raises(StoreError) as caught:
            phasetodo.PostgresStore(agent.replace("@", ":wrong-Pw@"))
        assert "password authentication failed" in str(caught.value)
        assert "wrong-Pw" not in str(caught.value)

    def test_the_command_never_prints_the_password(self, agent: str, clean_env: pytest.MonkeyPatch) -> None:
        """Errors, the demo and --json show the DSN as role:***@ and never the password."""
        url = agent.replace("@", f":{PASSWORD}@")
        base = [sys.executable, "-m", "phasetodo", "--store", url]
        runs = {
            "missing session": [*base, "--session", "nope", "show"],
            "missing session --json": [*base, "--json", "--session", "nope", "show"],
            "demo": [*base, "demo"],
            "demo --json": [*base, "--json", "demo"],
            "db init --json": [sys.executable, "-m", "phasetodo", "--json", "db", "init", url],
        }
        for name, argv in runs.items():
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            assert done.returncode in (0, 1), (name, done.stderr)
            assert PASSWORD not in done.stdout + done.stderr, name
            assert f"{ROLE}:***@" in done.stdout + done.stderr, name

    def test_without_a_password_the_server_refuses(self, agent: str, clean_env: pytest.MonkeyPatch) -> None:
        """The role really needs a password: without one from anywhere, opening the store fails."""
        with pytest.raises(StoreError, match="password"):
            phasetodo.PostgresStore(agent)

    def test_pgpassword_supplies_the_password(self, agent: str, clean_env: pytest.MonkeyPatch) -> None:
        """PGPASSWORD logs in a DSN without a password, through the library and the command."""
        clean_env.setenv("PGPASSWORD", PASSWORD)
        self._round_trip(phasetodo.stores.store_from_url(agent))
        done = subprocess.run(
            [sys.executable, "-m", "phasetodo", "--store", agent, "--session", "cli", "append", "P", "x"],
            capture_output=True, text=True, timeout=120,
        )
        assert done.returncode == 0, done.stderr

    def test_a_passfile_supplies_the_password(
        self, agent: str, clean_env: pytest.MonkeyPatch, tmp_path: Path, server: postgres_support.Server
    ) -> None:
        """A passfile (PGPASSFILE, as ~/.pgpass) logs in a DSN without a password."""
        passfile = tmp_path / "pgpass"
        passfile.write_text(f"127.0.0.1:{server.port}:*:{ROLE}:{PASSWORD}\n")
        passfile.chmod(0o600)
        clean_env.setenv("PGPASSFILE", str(passfile))
        self._round_trip(phasetodo.PostgresStore(agent))

    def test_a_service_file_supplies_the_connection(
        self, agent: str, clean_env: pytest.MonkeyPatch, tmp_path: Path, server: postgres_support.Server
    ) -> None:
        """A service file (PGSERVICEFILE) names host, role and password; the DSN only names the service."""
        services = tmp_path / "services.conf"
        services.write_text(
            f"[phasetodo]\nhost=127.0.0.1\nport={server.port}\nuser={ROLE}\n"
            f"password={PASSWORD}\ndbname=postgres\n"
        )
        clean_env.setenv("PGSERVICEFILE", str(services))
        self._round_trip(phasetodo.stores.store_from_url("postgresql://?service=phasetodo"))
        clean_env.setenv("PGSERVICE", "phasetodo")
        self._round_trip(phasetodo.stores.store_from_url("postgresql://"))

    def _round_trip(self, store: phasetodo.Store) -> None:
        with phasetodo.Session.open("pw", store, resume="keep") as session:
            before = session.version
            _append(session, f"item{before}")
            assert session.version == before + 1
        store.close()
