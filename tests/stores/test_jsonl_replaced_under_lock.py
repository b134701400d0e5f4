"""A JSONL log swapped (a ``git checkout``, a restore) while a writer holds its lock: the
writer reads on in the file it locked, its write there is refused, and every later write of
that handle still takes the new file's lock (the fault checker's ``replace`` found two
writers appending one version when a read under the lock dropped it)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from phasetodo import Event, JsonlStore, Phase, StoreError, Task

pytestmark = pytest.mark.slow

_HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
"""


def _event(version: int, previous: Event | None, item: str) -> Event:
    tasks = (previous.phases[0].tasks if previous is not None else ()) + (Task(item),)
    return Event(version, "write", 0.0, (Phase("P", tasks),))


def _sibling(tmp_path: Path, live: Path) -> Path:
    """A copy of the live log (a branch that shares its history), ready to swap in."""
    folder = tmp_path / "branch"
    folder.mkdir()
    copy = folder / live.name
    copy.write_bytes(live.read_bytes())
    return copy


def test_a_checkout_under_the_lock_refuses_that_write_and_keeps_the_lock_for_the_next(
    tmp_path: Path,
) -> None:
    store = JsonlStore(tmp_path / "logs")
    log = store.open("s")
    log.append(_event(1, None, "a"))
    live = store.path_for("s")
    sibling = _sibling(tmp_path, live)

    with log.lock():
        os.replace(sibling, live)  # the checkout lands while this writer holds the lock
        assert log.version() == 1  # a read under the lock stays on the file it locked
        event = _event(2, log.latest(), "b")
        with pytest.raises(StoreError, match="replaced while version 2 was written"):
            log.append(event)

    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(live)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        entered = threading.Event()

        def write() -> None:
            with log.lock():
                entered.set()

        thread = threading.Thread(target=write)
        thread.start()
        assert not entered.wait(0.5), "the handle wrote without the new file's lock"
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(10)
    thread.join(10)
    assert entered.is_set()
    assert [e.version for e in store.open("s").events()] == [1]
    log.close()
