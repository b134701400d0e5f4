"""Whether a JSONL log's writer lock is free, seen from another open file description."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def lock_is_free(path: Path) -> bool:
    """Whether another open file could take the log's lock now."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)
