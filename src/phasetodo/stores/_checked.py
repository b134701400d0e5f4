"""What this user has already checked of a log's hash chain, so that opening a long history
re-checks only what is new.

After a clean check of a JSONL log, a SQLite session or a PostgreSQL session, the newest
record checked (its version and hash, and for JSONL the offset just past it) is kept in the
user's cache (``$XDG_CACHE_HOME/phasetodo/chain``, else ``~/.cache/phasetodo/chain``;
``PHASETODO_CACHE_DIR`` moves it), under a name derived from the file's path and identity
(device, inode) and the session, or for PostgreSQL from the server's address and the
session. The next open takes that record as checked if it is still there and its bytes
still hash to the same value (it is re-hashed from the hash before it, kept too), and
checks the chain from it on. The mark lives outside the store, where only this user
writes: a log shipped with a mark (a branch, a copy) is checked whole. ``verify`` always
checks everything.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import attrs

from ._chain import first_break, follow, unseal

__all__ = ["Mark", "check_from", "forget", "holds", "key_for", "key_of", "load", "mark_of", "save"]


@attrs.frozen
class Mark:
    """The newest record checked: the offset just past it (JSONL; 0 where records are rows),
    its version and its hash."""

    end: int
    version: int
    digest: str
    previous: str | None  # the hash of the record before it, so its own bytes can be re-hashed


def holds(mark: Mark, version: int | None, raw: bytes) -> bool:
    """Whether ``raw`` (of ``version``) is still the record ``mark`` names: its bytes re-hash,
    from the hash before it, to the digest kept."""
    digest, problem = follow(raw, mark.previous)
    return version == mark.version and problem is None and digest == mark.digest


def mark_of(end: int, version: int | None, raw: bytes, before: bytes | str | None) -> Mark | None:
    """The mark of the record ``raw`` (of ``version``), after the record ``before`` (its raw
    bytes, or its hash when a str); None when it carries no hash to keep."""
    digest = unseal(raw)[1]
    previous = before if isinstance(before, str) or before is None else unseal(before)[1]
    if digest is None or version is None:
        return None
    return Mark(end, version, digest, previous)


def check_from(
    mark: Mark | None, rows: Iterable[tuple[int, bytes]]
) -> tuple[tuple[int, str] | None, Mark | None] | None:
    """Check a log's ``rows`` (version, raw record) from ``mark``'s row on, or every row from
    version 1 without a mark: the first break (see :func:`~._chain.first_break`) and the mark
    of the newest row when none broke (``mark`` when nothing follows it; None when the row
    carries no hash). None when ``mark``'s row is gone or no longer gives its hash: the
    caller then checks every row."""
    newest: list[tuple[int, bytes]] = []
    noted = _noting(iter(rows), newest)
    start, previous = 1, None
    if mark is not None:
        first = next(noted, None)
        if first is None or not holds(mark, first[0], first[1]):
            return None
        start, previous = mark.version + 1, mark.digest
    found = first_break(noted, start=start, previous=previous)
    if found is not None or not newest or type(newest[-1][0]) is not int or newest[-1][0] < start:
        return found, mark  # a break (named by first_break), or nothing after the mark
    before = newest[0][1] if len(newest) == 2 else previous
    return found, mark_of(0, newest[-1][0], newest[-1][1], before)


def _noting(
    rows: Iterator[tuple[int, bytes]], newest: list[tuple[int, bytes]]
) -> Iterator[tuple[int, bytes]]:
    """``rows`` as they are, keeping the last two yielded in ``newest``."""
    for row in rows:
        newest[:] = [*newest[-1:], row]
        yield row


def _folder() -> Path:
    given = os.environ.get("PHASETODO_CACHE_DIR")
    if given:
        return Path(given) / "chain"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "phasetodo" / "chain"


def key_of(path: Path, st: os.stat_result, part: str = "") -> str:
    """What a log's mark is kept under: the file's real path and identity, and ``part`` (the
    session, where one file holds several)."""
    key = f"{os.path.realpath(path)}\0{st.st_dev}\0{st.st_ino}\0{part}"
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def key_for(*parts: str) -> str:
    """What the mark of a log that is no file is kept under: ``parts`` naming it (the store's
    kind, its address, the session), hashed, so that no password in an address is kept."""
    key = "\0".join(parts)
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def load(key: str) -> Mark | None:
    """The mark kept under ``key``, or None (none, unreadable, damaged)."""
    try:
        data = json.loads((_folder() / key).read_text(encoding="ascii"))
        previous = data["previous"]
        mark = Mark(int(data["end"]), int(data["version"]), str(data["digest"]), previous and str(previous))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return mark if mark.end >= 0 and mark.version > 0 else None


def save(key: str, mark: Mark) -> None:
    """Keep ``mark``; a cache that cannot be written is only slower, never an error."""
    target = _folder() / key
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


def forget(key: str) -> None:
    """Drop the mark kept under ``key`` (its chain broke)."""
    with contextlib.suppress(OSError):
        (_folder() / key).unlink()
