"""A throwaway PostgreSQL cluster for the tests: started once per test session, stopped at its end.

``PHASETODO_TEST_DSN`` names a server to use instead. Without one, the cluster
is made with ``initdb`` in a temporary folder and started with ``pg_ctl`` on a
unix socket and a loopback port, as the ``postgres`` user when we run as root
(the server refuses root). When that is impossible the PostgreSQL tests skip
saying why, except under ``CI``, where they fail.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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


@contextmanager
def cluster() -> Iterator[str]:
    """Start a cluster and yield its DSN; stop it and remove its folder afterwards."""
    tools = {name: shutil.which(name) for name in ("initdb", "pg_ctl")}
    missing = [name for name, path in tools.items() if path is None]
    if missing:
        raise Unavailable(f"PostgreSQL server binaries not on PATH: {', '.join(missing)}")
    folder = Path(tempfile.mkdtemp(prefix="phasetodo-pg-"))
    data = folder / "data"
    try:
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        port = _free_port()
        run = {"check": True, "capture_output": True, "text": True, "timeout": 120}
        try:
            subprocess.run(
                _as_server_user([str(tools["initdb"]), "-D", str(data), "-A", "trust", "-U", "postgres",
                                 "--no-sync", "-E", "UTF8"]),
                **run,  # type: ignore[call-overload]
            )
            options = f"-k {folder} -p {port} -c listen_addresses=127.0.0.1 -F -c max_connections=60"
            subprocess.run(
                _as_server_user([str(tools["pg_ctl"]), "-D", str(data), "-o", options, "-l",
                                 str(folder / "server.log"), "-w", "start"]),
                **run,  # type: ignore[call-overload]
            )
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as error:
            detail = getattr(error, "stderr", "") or ""
            raise Unavailable(f"could not start a PostgreSQL cluster: {error} {detail.strip()}") from error
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(
                _as_server_user([str(tools["pg_ctl"]), "-D", str(data), "-m", "immediate", "-w", "stop"]),
                capture_output=True, timeout=120, check=False,
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def reset(dsn: str) -> None:
    """Drop phasetodo's tables so that each test starts on an empty database."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS phasetodo_events, phasetodo_sessions")
