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

The store never follows a symbolic link: its folder and every file it opens are
opened with ``O_NOFOLLOW`` (a planted link raises :class:`~phasetodo.errors.StoreError`).
A log object used in a process forked from the one that opened it reopens its
file there, so the ``flock`` of parent and children exclude each other.
"""

from __future__ import annotations

import errno
import json
import os
import re
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
    StoreError,
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
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: Our writer puts ``version`` first; this reads it without parsing the snapshot.
_VERSION = re.compile(rb'\{\s*"version"\s*:\s*([0-9]+)\s*[,}]')


def _open_inside(directory: Path, name: str, flags: int, mode: int = 0o644) -> int:
    """Open ``directory/name`` following no symbolic link, neither the folder nor the file."""
    try:
        folder = os.open(directory, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
    except OSError as error:
        raise _link_error(directory, error) from error
    try:
        return os.open(name, flags | _NOFOLLOW, mode, dir_fd=folder)
    except OSError as error:
        raise _link_error(directory / name, error) from error
    finally:
        os.close(folder)


def _link_error(path: Path, error: OSError) -> OSError:
    if error.errno in (errno.ELOOP, errno.ENOTDIR) and path.is_symlink():
        return StoreError(
            f"{path}: is a symbolic link; a phasetodo store never follows links, "
            "so that no planted link can make it write outside its folder"
        )
    return error


def _event_version(line: bytes) -> int | None:
    """The version at the start of an event line, or None if it is not there."""
    match = _VERSION.match(line)
    if match is not None:
        return int(match.group(1))
    try:
        version = json.loads(line).get("version")
    except (ValueError, AttributeError, RecursionError):
        return None
    return version if type(version) is int else None


def _encode(data: dict[str, Any]) -> bytes:
    # ASCII escapes keep lone surrogates and odd line terminators out of the file.
    return json.dumps(data, separators=(",", ":")).encode("ascii") + b"\n"


def _reverse_lines(fd: int, end: int) -> Iterator[tuple[int, bytes]]:
    """Complete lines before ``end`` (just past a newline), newest first, as
    ``(offset, line without its newline)``. Reads blocks from the end only.
    """
    if end <= 0:
        return
    base = end - 1  # file offset of ``buf[0]``; the final newline is dropped
    buf = b""
    limit = 0  # ``buf[:limit]`` is what is left to split; slicing it would copy the block
    block = _BLOCK
    while True:
        cut = buf.rfind(b"\n", 0, limit)
        if cut >= 0:
            yield base + cut + 1, buf[cut + 1 : limit]
            limit = cut
            continue
        if base == 0:
            yield 0, buf[:limit]
            return
        size = min(block, base)
        base -= size
        buf = os.pread(fd, size, base) + buf[:limit]
        limit = len(buf)
        block = min(block * 2, 1 << 24)


def _forward_lines(fd: int, start: int, end: int) -> Iterator[tuple[int, bytes]]:
    """Complete lines in ``[start, end)`` in order, as ``(offset, line without newline)``."""
    pending = b""
    offset = pos = start
    while pos < end:
        chunk = os.pread(fd, min(_BLOCK, end - pos), pos)
        if not chunk:
            return
        pos += len(chunk)
        pending += chunk
        lines = pending.split(b"\n")
        pending = lines.pop()
        for line in lines:
            yield offset, line
            offset += len(line) + 1


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
        self._pid = os.getpid()
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd = self._open_log()
        self._end = -1  # file size up to which ``_latest`` is known
        self._latest: Event | None = None
        self._body = 0  # offset of the first event line (after the header)
        self._first_checked = False
        try:
            with self.lock():
                self.owner = self._header(session_id, owner)
        except BaseException:
            os.close(self._fd)
            raise

    def _open_log(self) -> int:
        return _open_inside(self.path.parent, self.path.name, os.O_RDWR | os.O_CREAT | os.O_APPEND)

    # -- locking ---------------------------------------------------------------

    def _after_fork(self) -> None:
        """In a forked child: a file description (and flock) of our own, and fresh thread state."""
        inherited = self._fd
        self._pid = os.getpid()
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd = self._open_log()
        self._end = -1
        if inherited >= 0:
            os.close(inherited)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the session across threads and processes (re-entrant)."""
        if self._pid != os.getpid():
            self._after_fork()
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
            named = data.get("session")
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
            raise CorruptLog(str(self.path), 1, f"not a phasetodo session header ({error})") from None
        if type(version) is not int or not 1 <= version <= FORMAT:
            raise CorruptLog(str(self.path), 1, f"header.format: unsupported log format {version!r}")
        if named != session_id:
            raise CorruptLog(
                str(self.path), 1, f"header.session: names {named!r}, not this session {session_id!r}"
            )
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
        fd = _open_inside(aside.parent, aside.name, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        with os.fdopen(fd, "ab") as handle:
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
            lines = _reverse_lines(self._fd, end)
            for offset, line in lines:
                if offset < self._body:
                    break
                try:
                    latest = event_from_json(json.loads(line))
                except (ValueError, RecursionError) as error:
                    self._corrupt(offset, str(error))
                    continue
                self._check_step(offset, latest.version, lines)
                break
            self._end, self._latest = end, latest
            return latest

    def _check_step(self, offset: int, version: int, earlier: Iterator[tuple[int, bytes]]) -> None:
        """The newest event must follow the one before it (or be version 1 if it is the first)."""
        before = next(earlier, None)
        if before is None or before[0] < self._body:
            expected = 1
        else:
            previous = _event_version(before[1])
            if previous is None:  # a corrupt line before it: events() reports that one
                return
            expected = previous + 1
            if not self._first_checked:  # the log only grows: one look at its first event will do
                first = os.pread(self._fd, min(256, offset - self._body), self._body)
                if _event_version(first) not in (1, None):
                    raise CorruptLog(str(self.path), 2, "version: the first event is not version 1")
                self._first_checked = True
        if version != expected:
            raise CorruptLog(
                str(self.path), self._line_number(offset), f"version {version} follows version {expected - 1}"
            )

    def events(self) -> Iterator[Event]:
        """Every event up to now, in order; corrupt lines raise or are skipped."""
        with self.lock():
            end = self._clean_end()
            fd = self._fd
        last, skipped = 0, False
        for offset, line in _forward_lines(fd, self._body, end):
            try:
                event = event_from_json(json.loads(line))
            except (ValueError, RecursionError) as error:
                self._corrupt(offset, str(error))
                skipped = True
                continue
            if event.version <= last or (event.version != last + 1 and not skipped):
                number = self._line_number(offset)
                raise CorruptLog(str(self.path), number, f"version {event.version} follows version {last}")
            last, skipped = event.version, False
            yield event

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
