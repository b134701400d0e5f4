"""Real child processes: SIGKILL at random moments, and four concurrent writers."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

import phasetodo

WRITER = Path(__file__).parents[1] / "session_helpers" / "writer.py"


def _spawn(kind: str, where: Path, session_id: str, tag: str, count: int, go: Path | None = None):
    args = [sys.executable, str(WRITER), kind, str(where), session_id, tag, str(count)]
    if go is not None:
        args.append(str(go))
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _store(kind: str, where: Path) -> phasetodo.Store:
    return phasetodo.JsonlStore(where) if kind == "jsonl" else phasetodo.SqliteStore(where)


def _where(kind: str, tmp_path: Path) -> Path:
    return tmp_path / "logs" if kind == "jsonl" else tmp_path / "sessions.db"


def _contents(phases: tuple[phasetodo.Phase, ...]) -> list[str]:
    return [t.content for p in phases for t in p.tasks]


def _kill_after_acks(proc: subprocess.Popen[str], acks: int, extra_s: float) -> list[str]:
    """Read acknowledgements until ``acks`` arrived, wait ``extra_s``, SIGKILL; all acks read."""
    assert proc.stdout is not None
    seen: list[str] = []
    enough = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            seen.append(line.split()[0])
            if len(seen) >= acks:
                enough.set()
        enough.set()

    reader = threading.Thread(target=read)
    reader.start()
    enough.wait(timeout=60)
    time.sleep(extra_s)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    reader.join()
    proc.stdout.close()
    return seen


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
class TestCrash:
    def test_every_acknowledged_call_survives_sigkill(self, kind: str, tmp_path: Path) -> None:
        """A writer SIGKILLed at random moments (20 on JSONL) loses no acknowledged call."""
        rng = random.Random(f"crash-{kind}")
        where = _where(kind, tmp_path)
        acknowledged: list[str] = []
        for run in range(20 if kind == "jsonl" else 8):
            proc = _spawn(kind, where, "crashy", f"run{run}", -1)
            acknowledged += _kill_after_acks(proc, rng.randint(0, 12), rng.uniform(0, 0.02))
            assert proc.stderr is not None
            assert proc.returncode == -signal.SIGKILL, proc.stderr.read()
            proc.stderr.close()
            store = _store(kind, where)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                session = phasetodo.Session.open("crashy", store, resume="keep")
            # A write cut short by the kill was never acknowledged: it is reported, not lost.
            assert all(issubclass(w.category, phasetodo.errors.TornTailWarning) for w in caught)
            with session:
                present = set(_contents(session.phases))
                assert set(acknowledged) <= present
                versions = [e.version for e in session.events()]
                assert versions == list(range(1, session.version + 1))
            store.close()


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
class TestConcurrentWriters:
    def test_four_processes_of_100_writes_reach_version_400(
        self, kind: str, tmp_path: Path
    ) -> None:
        """4 processes x 100 writes to one session: version 400, each event one step on the last."""
        where = _where(kind, tmp_path)
        store = _store(kind, where)
        phasetodo.Session.open("shared", store).close()  # created before the race
        go = tmp_path / "go"
        procs = [_spawn(kind, where, "shared", f"w{i}", 100, go) for i in range(4)]
        go.touch()
        outputs = [proc.communicate(timeout=300) for proc in procs]
        for proc, (_, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0, err
        acked_versions = sorted(
            int(line.split()[1]) for out, _ in outputs for line in out.splitlines()
        )
        assert acked_versions == list(range(1, 401))
        with phasetodo.Session.open("shared", store, resume="keep") as session:
            assert session.version == 400
            previous: list[str] = []
            for number, event in enumerate(session.events(), start=1):
                assert event.version == number
                now = _contents(event.phases)
                assert len(now) == number
                assert set(previous) < set(now)
                previous = now
            for i in range(4):
                phase = next(p for p in session.phases if p.name == f"w{i}")
                assert [t.content for t in phase.tasks] == [f"w{i}-{k}" for k in range(100)]
        store.close()
        if kind == "jsonl":
            lines = (where / "shared.jsonl").read_bytes().split(b"\n")
            assert len(lines) == 402  # header, 400 events, nothing after the last newline
            assert lines[-1] == b""
            assert not (where / "shared.jsonl.torn").exists()
