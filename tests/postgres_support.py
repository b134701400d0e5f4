"""A throwaway PostgreSQL cluster for the tests: started once per test session, stopped at its end.

``PHASETODO_TEST_DSN`` names a server to use instead. Without one, the cluster
is made with ``initdb`` in a temporary folder and started with ``pg_ctl`` on a
unix socket and a loopback port, as the ``postgres`` user when we run as root
(the server refuses root). When that is impossible the PostgreSQL tests skip
saying why, except under ``CI``, where they fail. :func:`server` yields a
:class:`Server` that tests may stop, restart or open to password logins;
:func:`pgbouncer` puts a PgBouncer in transaction pooling mode in front of one.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class Unavailable(Exception):
    """No PostgreSQL server could be started here; the message says why."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_server_user(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    runuser = shutil.which("runuser")
    if runuser is None:
        raise Unavailable("running as root and no runuser to start PostgreSQL as the postgres user")
    return [runuser, "-u", "postgres", "--", *argv]


class Server:
    """A running throwaway cluster: its DSN, data folder and socket folder, and what tests do to it."""

    def __init__(self, folder: Path, port: int, tools: dict[str, str], max_connections: int = 60) -> None:
        self.folder = folder
        self.max_connections = max_connections
        self.data = folder / "data"
        self.port = port
        self.dsn = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        self._tools = tools

    def _pg_ctl(self, *argv: str) -> None:
        subprocess.run(
            _as_server_user([self._tools["pg_ctl"], "-D", str(self.data), *argv]),
            check=True, capture_output=True, text=True, timeout=120,
        )

    def start(self) -> None:
        """Start the server (unix socket in the folder, loopback port) and wait until it answers."""
        options = (
            f"-k {self.folder} -p {self.port} -c listen_addresses=127.0.0.1 -F"
            f" -c max_connections={self.max_connections}"
        )
        self._pg_ctl("-o", options, "-l", str(self.folder / "server.log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: end every session; ``immediate``: as a crash would)."""
        self._pg_ctl("-m", mode, "-w", "stop")

    def restart(self, mode: str = "fast") -> None:
        """Stop and start again: every client connection is dropped."""
        self.stop(mode)
        self.start()

    def allow_password(self, role: str) -> None:
        """Make ``role`` log in over TCP with a password (scram-sha-256); every other role keeps trust."""
        hba = self.data / "pg_hba.conf"
        rule = f"host all {role} 127.0.0.1/32 scram-sha-256\nhost all {role} ::1/128 scram-sha-256\n"
        hba.write_text(rule + hba.read_text())
        self._pg_ctl("reload")


@contextmanager
def server(max_connections: int = 60) -> Iterator[Server]:
    """Start a cluster (allowing ``max_connections`` clients) and yield it; stop it and remove
    its folder afterwards."""
    tools = {name: shutil.which(name) for name in ("initdb", "pg_ctl")}
    missing = [name for name, path in tools.items() if path is None]
    if missing:
        raise Unavailable(f"PostgreSQL server binaries not on PATH: {', '.join(missing)}")
    folder = Path(tempfile.mkdtemp(prefix="phasetodo-pg-"))
    made = Server(folder, _free_port(), {name: str(path) for name, path in tools.items()}, max_connections)
    try:
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        try:
            subprocess.run(
                _as_server_user([made._tools["initdb"], "-D", str(made.data), "-A", "trust", "-U", "postgres",
                                 "--no-sync", "-E", "UTF8"]),
                check=True, capture_output=True, text=True, timeout=120,
            )
            made.start()
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as error:
            detail = getattr(error, "stderr", "") or ""
            raise Unavailable(f"could not start a PostgreSQL cluster: {error} {detail.strip()}") from error
        try:
            yield made
        finally:
            subprocess.run(
                _as_server_user([made._tools["pg_ctl"], "-D", str(made.data), "-m", "immediate", "-w",
                                 "stop"]),
                capture_output=True, timeout=120, check=False,
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def cluster(max_connections: int = 60) -> Iterator[str]:
    """Start a cluster and yield its DSN; stop it and remove its folder afterwards."""
    with server(max_connections) as made:
        yield made.dsn


def reset(dsn: str) -> None:
    """Drop phasetodo's tables so that each test starts on an empty database."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS phasetodo_events, phasetodo_sessions, phasetodo_renewals")


def sent_by(store: Any, action: Callable[[], object]) -> list[str]:
    """The protocol messages ``action()`` made ``store``'s connection send (libpq's own trace
    of the protocol), one string each (a statement's later lines joined to its message)."""
    import psycopg

    conn = store._connection()
    with tempfile.TemporaryFile() as trace:
        conn.pgconn.trace(trace.fileno())
        conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            action()
        finally:
            conn.pgconn.untrace()
        trace.seek(0)
        lines = trace.read().decode("utf-8", "replace").splitlines()
    messages: list[str] = []
    for line in lines:
        if line.startswith(("F\t", "B\t")) or not messages:
            messages.append(line)
        else:
            messages[-1] += "\n" + line
    return [message for message in messages if message.startswith("F\t")]


class Bouncer:
    """A running PgBouncer in transaction pooling mode in front of a :class:`Server`: its DSN."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.dsn = f"postgresql://postgres@127.0.0.1:{port}/postgres"


def _pgbouncer_binary() -> str:
    found = shutil.which("pgbouncer") or next(
        (path for path in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if os.access(path, os.X_OK)), None
    )
    if found is None:
        raise Unavailable("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
    return found


@contextmanager
def pgbouncer(made: Server) -> Iterator[Bouncer]:
    """Start PgBouncer (pool_mode=transaction, loopback port, its own ini in a temporary folder)
    in front of ``made``, as the ``postgres`` user when we run as root; stop it afterwards."""
    import psycopg

    binary = _pgbouncer_binary()
    folder = Path(tempfile.mkdtemp(prefix="phasetodo-pgbouncer-"))
    port = _free_port()
    (folder / "users.txt").write_text('"postgres" ""\n')
    (folder / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"postgres = host=127.0.0.1 port={made.port} dbname=postgres user=postgres\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {folder / 'users.txt'}\n"
        "pool_mode = transaction\ndefault_pool_size = 4\nmax_client_conn = 200\n"
        # A server that restarts is tried again within a second (PgBouncer's default waits 15 s).
        "server_login_retry = 1\n"
        f"logfile = {folder / 'pgbouncer.log'}\npidfile = {folder / 'pgbouncer.pid'}\n"
        "ignore_startup_parameters = extra_float_digits,options\n"
    )
    process: subprocess.Popen[bytes] | None = None
    try:
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
            for name in ("users.txt", "pgbouncer.ini"):
                shutil.chown(folder / name, "postgres", "postgres")
        process = subprocess.Popen(
            _as_server_user([binary, str(folder / "pgbouncer.ini")]),
            # Its log goes to the logfile: a pipe nobody reads would fill and stop PgBouncer.
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        bouncer = Bouncer(port)
        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(bouncer.dsn, autocommit=True, prepare_threshold=None).close()
                break
            except psycopg.OperationalError as error:
                if process.poll() is not None or time.monotonic() > deadline:
                    log = folder / "pgbouncer.log"
                    said = log.read_text() if log.exists() else ""
                    raise Unavailable(f"pgbouncer did not start: {error} {said.strip()[-500:]}") from error
                time.sleep(0.1)
        yield bouncer
    finally:
        if process is not None and process.poll() is None:
            process.terminate()  # the child we started, by its own handle
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
