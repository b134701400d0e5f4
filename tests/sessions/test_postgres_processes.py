"""PostgreSQL with real processes: SIGKILLed writers, eight concurrent writers, a watcher elsewhere."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

import phasetodo

from .. import postgres_support
from .test_session_processes import WRITER, _contents, _kill_after_acks

WATCHER = Path(__file__).parents[1] / "session_helpers" / "watcher.py"


def _spawn(dsn: str, tag: str, count: int, go: Path | None = None) -> subprocess.Popen[str]:
    args = [sys.executable, str(WRITER), "postgres", dsn, "shared", tag, str(count)]
    if go is not None:
        args.append(str(go))
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class TestPostgresProcesses:
    def test_every_acknowledged_call_survives_sigkill_20_times(self, postgres_dsn: str) -> None:
        """A writer SIGKILLed mid-call 20 times loses no acknowledged call and leaves no gap."""
        postgres_support.reset(postgres_dsn)
        rng = random.Random("crash-postgres")
        acknowledged: list[str] = []
        for run in range(20):
            proc = _spawn(postgres_dsn, f"run{run}", -1)
            acknowledged += _kill_after_acks(proc, rng.randint(0, 12), rng.uniform(0, 0.02))
            assert proc.stderr is not None
            assert proc.returncode == -signal.SIGKILL, proc.stderr.read()
            proc.stderr.close()
            store = phasetodo.PostgresStore(postgres_dsn)
            with phasetodo.Session.open("shared", store, resume="keep") as session:
                assert set(acknowledged) <= set(_contents(session.phases))
                assert [e.version for e in session.events()] == list(range(1, session.version + 1))
            store.close()

    def test_eight_processes_of_100_writes_reach_version_800(
        self, postgres_dsn: str, tmp_path: Path
    ) -> None:
        """8 processes x 100 writes on one session: version 800, every write kept, each event one step."""
        postgres_support.reset(postgres_dsn)
        go = tmp_path / "go"
        procs = [_spawn(postgres_dsn, f"w{i}", 100, go) for i in range(8)]
        go.touch()
        outputs = [proc.communicate(timeout=600) for proc in procs]
        for proc, (_, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0, err
        acked = sorted(int(line.split()[1]) for out, _ in outputs for line in out.splitlines())
        assert acked == list(range(1, 801))
        store = phasetodo.PostgresStore(postgres_dsn)
        with phasetodo.Session.open("shared", store, resume="keep") as session:
            assert session.version == 800
            for i in range(8):
                phase = next(p for p in session.phases if p.name == f"w{i}")
                assert [t.content for t in phase.tasks] == [f"w{i}-{k}" for k in range(100)]
            assert [e.version for e in session.events()] == list(range(1, 801))
        store.close()

    def test_a_watcher_in_another_process_sees_every_event(self, postgres_dsn: str) -> None:
        """A watching process (LISTEN/NOTIFY) prints every version another process writes, in order."""
        postgres_support.reset(postgres_dsn)
        watcher = subprocess.Popen(
            [sys.executable, str(WATCHER), postgres_dsn, "shared", "50"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        assert watcher.stdout is not None
        assert watcher.stdout.readline() == "ready\n"
        writer = _spawn(postgres_dsn, "w", 50)
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
        out, err = watcher.communicate(timeout=120)
        assert watcher.returncode == 0, err
        assert [int(v) for v in out.split()] == list(range(1, 51))


class TestCommandOnPostgres:
    def test_the_command_reads_and_writes_a_postgresql_store(self, postgres_dsn: str) -> None:
        """`--store postgresql://...` applies a call and `show --json` reads it back in a new process."""
        postgres_support.reset(postgres_dsn)
        base = [sys.executable, "-m", "phasetodo", "--store", postgres_dsn, "--session", "cli"]
        params = '{"ops": [{"op": "init", "list": [{"phase": "P", "items": ["A", "B"]}]}]}'
        done = subprocess.run([*base, "apply", params], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        moved = subprocess.run([*base, "done", "A"], capture_output=True, text=True, timeout=120)
        assert moved.returncode == 0, moved.stderr
        store = phasetodo.PostgresStore(postgres_dsn)
        with phasetodo.Session.open("cli", store, resume="keep") as session:
            assert session.version == 2
            assert [(t.content, t.status.value) for t in session.phases[0].tasks] == [
                ("A", "completed"), ("B", "in_progress")
            ]
        store.close()

    def test_db_init_creates_the_schema(self, postgres_dsn: str) -> None:
        """`db init DSN` makes the tables on an empty database, and running it again is harmless."""
        import psycopg

        postgres_support.reset(postgres_dsn)
        command = [sys.executable, "-m", "phasetodo", "db", "init", postgres_dsn]
        for _ in range(2):
            done = subprocess.run(command, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr
            assert "tables are ready" in done.stdout
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            tables = conn.execute(
                "SELECT tablename FROM pg_tables WHERE tablename LIKE 'phasetodo%' ORDER BY 1"
            ).fetchall()
            assert tables == [("phasetodo_events",), ("phasetodo_renewals",), ("phasetodo_sessions",)]
            assert conn.execute("SELECT count(*) FROM phasetodo_sessions").fetchone() == (0,)

    def test_db_init_reports_an_unreachable_server(self) -> None:
        """A server that does not answer exits 1 naming the database, never its password."""
        dsn = "postgresql://who:secret@127.0.0.1:1/nowhere?connect_timeout=5"
        command = [sys.executable, "-m", "phasetodo", "db", "init", dsn]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert done.returncode == 1
        assert "postgresql://who:***@127.0.0.1:1/nowhere" in done.stderr
        assert "secret" not in done.stderr
        assert "Traceback" not in done.stderr
