"""What this user has already checked of a log file's hash chain, so that opening a long
history re-checks only what is new.

After a clean check of a JSONL log, the offset just past the last record checked, its
version and its hash are kept in the user's cache (``$XDG_CACHE_HOME/phasetodo/chain``,
else ``~/.cache/phasetodo/chain``; ``PHASETODO_CACHE_DIR`` moves it), under a name derived
from the file's path and identity (device, inode). The next open takes that record as
checked if it is still there with the same hash, and checks the chain from it on. The
mark lives outside the store, where only this user writes: a log shipped with a mark
(a branch, a copy) is checked whole. ``verify`` always checks everything.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

import attrs

__all__ = ["Mark", "forget", "load", "save"]


@attrs.frozen
class Mark:
    """The newest record checked: the offset just past it, its version and its hash."""

    end: int
    version: int
    digest: str


def _folder() -> Path:
    given = os.environ.get("PHASETODO_CACHE_DIR")
    if given:
        return Path(given) / "chain"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "phasetodo" / "chain"


def _name(path: Path, fd: int) -> Path:
    st = os.fstat(fd)
    key = f"{os.path.realpath(path)}\0{st.st_dev}\0{st.st_ino}".encode("utf-8", "surrogateescape")
    return _folder() / hashlib.sha256(key).hexdigest()[:32]


def load(path: Path, fd: int) -> Mark | None:
    """The mark kept for the open file ``fd`` at ``path``, or None (none, unreadable, damaged)."""
    try:
        data = json.loads(_name(path, fd).read_text(encoding="ascii"))
        mark = Mark(int(data["end"]), int(data["version"]), str(data["digest"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return mark if mark.end > 0 and mark.version > 0 else None


def save(path: Path, fd: int, mark: Mark) -> None:
    """Keep ``mark`` for the file; a cache that cannot be written is only slower, never an error."""
    target = _name(path, fd)
    data = json.dumps(attrs.asdict(mark)).encode("ascii")
    with contextlib.suppress(OSError):
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".mark-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temp, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise


def forget(path: Path, fd: int) -> None:
    """Drop the file's mark (its chain broke, or it was rewritten)."""
    with contextlib.suppress(OSError):
        _name(path, fd).unlink()
