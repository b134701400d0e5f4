"""The embedded default store: one JSON Lines file per session.

``<directory>/<session_id>.jsonl`` starts with a header line (format, session
id, owner) followed by one event per line. An append is a single ``write`` of
one whole line on a file opened with ``O_APPEND``, then ``fsync``; a lock
(``flock`` on the log file plus a thread lock) keeps one writer at a time.

Opening reads the header and the *last* line only: the file is scanned
backwards from its end in blocks, so the cost does not grow with the history.
A last line torn by a crash (no newline) is moved to ``<session_id>.jsonl.torn``
and reported with a :class:`~phasetodo.errors.TornTailWarning`; the next
append then starts on a clean line.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from ..errors import (
    CorruptLog,
    CorruptLogWarning,
    InvalidOption,
    TornTailWarning,
    VersionConflict,
)
from ._base import Event, check_session_id, event_from_json, event_to_json

try:  # POSIX; elsewhere only threads of one process are kept apart.
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms we test
    fcntl = None  # type: ignore[assignment]

__all__ = ["FORMAT", "JsonlLog", "JsonlStore", "OnCorrupt"]

#: The header's format number; a reader refuses logs of a newer format.
FORMAT = 1
_BLOCK = 1 << 16
#: Flushes the data and the size (what a reader needs), skipping timestamps.
_datasync = getattr(os, "fdatasync", os.fsync)
OnCorrupt = Literal["raise", "skip"]


def _encode(data: dict[str, Any]) -> bytes:
    # ASCII escapes keep lone surrogates and odd line terminators out of the file.
    return json.dumps(data, separators=(",", ":")).encode("ascii") + b"\n"


def _reverse_lines(fd: int, end: int) -> Iterator[tuple[int, bytes]]:
    """Complete lines before ``end`` (just past a newline), newest first, as
    ``(offset, line without its newline)``. Reads blocks from the end only.
    """
    if end <= 0:
        return
    pos = end - 1  # drop the final newline
    pending = b""
    block = _BLOCK
    while True:
        cut = pending.rfind(b"\n")
        if cut >= 0:
            yield pos + cut + 1, pending[cut + 1 :]
            pending = pending[:cut]
            continue
        if pos == 0:
            yield 0, pending
            return
        size = min(block, pos)
        pos -= size
        pending = os.pread(fd, size, pos) + pending
        block = min(block * 2, 1 << 24)


class JsonlLog:
    """One session's JSONL file. Use through :class:`JsonlStore`."""

    storage: Literal["session"] = "session"

    def __init__(
        self, path: Path, session_id: str, owner: str | None, *, fsync: bool, on_corrupt: OnCorrupt
    ) -> None:
        self.path = path
        self.session_id = session_id
        self._fsync = fsync
        self._on_corrupt = on_corrupt
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self._end = -1  # file size up to which ``_latest`` is known
        self._latest: Event | None = None
        self._body = 0  # offset of the first event line (after the header)
        try:
            with self.lock():
                self.owner = self._header(session_id, owner)
        except BaseException:
            os.close(self._fd)
            raise

    # -- locking ---------------------------------------------------------------

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the session across threads and processes (re-entrant)."""
        with self._thread_lock:
            if self._depth == 0 and fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and fcntl is not None:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)

    # -- reading ---------------------------------------------------------------

    def _header(self, session_id: str, owner: str | None) -> str | None:
        end = self._clean_end()
        if end == 0:
            header = {"format": FORMAT, "session": session_id, "owner": owner}
            self._write(_encode(header))
            if self._fsync:
                _fsync_dir(self.path.parent)
            self._body = self._end = os.fstat(self._fd).st_size
            return owner
        first = b""
        while b"\n" not in first:  # a clean end follows a newline, so there is one
            chunk = os.pread(self._fd, _BLOCK, len(first))
            if not chunk:
                raise CorruptLog(str(self.path), 1, "the file shrank while it was read")
            first += chunk
        first = first[: first.index(b"\n") + 1]
        self._body = len(first)
        try:
            data = json.loads(first)
            version = data["format"]
            recorded = data.get("owner")
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise CorruptLog(str(self.path), 1, f"not a phasetodo session header ({error})") from None
        if type(version) is not int or version > FORMAT:
            raise CorruptLog(str(self.path), 1, f"unsupported log format {version!r}")
        if recorded is not None and type(recorded) is not str:
            raise CorruptLog(str(self.path), 1, "header.owner: must be a string")
        return recorded

    def _clean_end(self) -> int:
        """The file size after moving a torn last line aside (caller holds the lock)."""
        size = os.fstat(self._fd).st_size
        if size == self._end:
            return size
        start = size
        while start > 0:
            step = min(_BLOCK, start)
            chunk = os.pread(self._fd, step, start - step)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                start = start - step + cut + 1
                break
            start -= step
        if start < size:
            self._set_aside(start, size)
        return start

    def _set_aside(self, start: int, size: int) -> None:
        torn = os.pread(self._fd, size - start, start)
        aside = self.path.with_name(self.path.name + ".torn")
        with aside.open("ab") as handle:
            handle.write(torn + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.ftruncate(self._fd, start)
        os.fsync(self._fd)
        warnings.warn(
            f"{self.path}: 1 torn line ({size - start} bytes) at the end of the log, left by "
            f"an interrupted write, was moved to {aside}; every complete event was kept",
            TornTailWarning,
            stacklevel=4,
        )

    def _line_number(self, offset: int) -> int:
        count, pos = 1, 0
        while pos < offset:
            chunk = os.pread(self._fd, min(_BLOCK, offset - pos), pos)
            count += chunk.count(b"\n")
            pos += len(chunk)
        return count

    def _corrupt(self, offset: int, reason: str) -> None:
        line = self._line_number(offset)
        if self._on_corrupt == "raise":
            raise CorruptLog(str(self.path), line, reason)
        warnings.warn(
            f"{self.path}:{line}: skipped a corrupt session log line: {reason}",
            CorruptLogWarning,
            stacklevel=4,
        )

    def latest(self) -> Event | None:
        """The newest event, reading backwards from the end of the file."""
        with self.lock():
            end = self._clean_end()
            if end == self._end:
                return self._latest
            latest = None
            for offset, line in _reverse_lines(self._fd, end):
                if offset < self._body:
                    break
                try:
                    latest = event_from_json(json.loads(line))
                    break
                except ValueError as error:
                    self._corrupt(offset, str(error))
            self._end, self._latest = end, latest
            return latest

    def events(self) -> Iterator[Event]:
        """Every event up to now, in order; corrupt lines raise or are skipped."""
        with self.lock():
            end = self._clean_end()
        offset = self._body
        with self.path.open("rb") as handle:
            handle.seek(offset)
            for line in handle:
                if offset >= end:
                    break
                try:
                    event = event_from_json(json.loads(line))
                except ValueError as error:
                    self._corrupt(offset, str(error))
                else:
                    yield event
                offset += len(line)

    # -- writing ---------------------------------------------------------------

    def append(self, event: Event) -> None:
        """Write one line and fsync it; returns once the event is durable."""
        with self.lock():
            latest = self.latest()
            version = latest.version if latest is not None else 0
            if event.version != version + 1:
                raise VersionConflict(self.session_id, event.version - 1, version)
            self._write(_encode(event_to_json(event)))
            self._end, self._latest = os.fstat(self._fd).st_size, event

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        if self._fsync:
            _datasync(self._fd)

    def close(self) -> None:
        """Close the file."""
        with self._thread_lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory handles
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class JsonlStore:
    """Session logs as JSON Lines files in ``directory`` (created if missing).

    ``fsync=False`` trades crash durability for speed (tests, scratch work).
    ``on_corrupt="skip"`` skips corrupt lines with a warning naming file and
    line instead of raising :class:`~phasetodo.errors.CorruptLog`.
    """

    storage: Literal["session"] = "session"

    def __init__(
        self, directory: str | os.PathLike[str], *, fsync: bool = True, on_corrupt: OnCorrupt = "raise"
    ) -> None:
        if on_corrupt not in ("raise", "skip"):
            raise InvalidOption(f"on_corrupt: must be 'raise' or 'skip', not {on_corrupt!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self.on_corrupt: OnCorrupt = on_corrupt

    def path_for(self, session_id: str) -> Path:
        """The log file of ``session_id`` (after checking the id is safe)."""
        return self.directory / f"{check_session_id(session_id)}.jsonl"

    def open(self, session_id: str, *, owner: str | None = None) -> JsonlLog:
        """Open the session's file, creating it with a header naming ``owner``."""
        return JsonlLog(
            self.path_for(session_id), session_id, owner, fsync=self.fsync, on_corrupt=self.on_corrupt
        )

    def sessions(self) -> list[str]:
        """The ids of the ``*.jsonl`` logs in the directory."""
        return sorted(p.name[: -len(".jsonl")] for p in self.directory.glob("*.jsonl"))

    def close(self) -> None:
        """Nothing to release: each log owns its file handle."""

    def __repr__(self) -> str:
        return f"JsonlStore({str(self.directory)!r})"
