"""The embedded default store: one JSON Lines file per session.

``<directory>/<session_id>.jsonl`` starts with a header line (format, session
id, owner) followed by one event per line. An append is a single ``write`` of
one whole line on a file opened with ``O_APPEND``; a lock (``flock`` on the log
file plus a thread lock) keeps one writer at a time. The writer lets the lock go,
then flushes the file (``fdatasync``) before its write returns: the flush covers every line
before its own, so the next writer need not wait for the disk, and no acknowledged
write can outlive a line it was built on.

Opening decodes the newest checkpoint and the lines after it only: the file is
scanned backwards from its end in blocks, so the decoding does not grow with the
history. It also reads every line once, forward, to check its link in the hash
chain (see :mod:`._chain`; nothing is decoded), which costs what the history weighs.
A last line torn by a crash (no newline) is moved to ``<session_id>.jsonl.torn``
and reported with a :class:`~phasetodo.errors.TornTailWarning`; the next
append then starts on a clean line.

Identify first, repair second: before the store moves, truncates or writes
anything in an existing file, it checks that the file is this session's log (its
first line is the header, or the file is empty, or it holds only a prefix of the
header, as a crash while creating the log leaves it). Any other file, such as
another tool's JSON Lines or a database, raises :class:`~phasetodo.errors.CorruptLog`
naming it and keeps every byte.

The store never follows a symbolic link: its folder and every file it opens are
opened with ``O_NOFOLLOW`` (a planted link raises :class:`~phasetodo.errors.StoreError`).
A log object used in a process forked from the one that opened it reopens its
file there, so the ``flock`` of parent and children exclude each other.

Heartbeats' renewed deadlines live beside the log in ``<session_id>.jsonl.beat`` (see
:mod:`._renewals`), rewritten in place under the lock and never part of the history.
"""

from __future__ import annotations

import errno
import os
import re
import threading
import warnings
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Literal, Protocol, cast

import attrs

from .._core.model import Phase, Renewal
from ..errors import (
    CorruptLog,
    CorruptLogWarning,
    InvalidOption,
    StoreError,
    TamperedLogWarning,
    TornTailWarning,
    VersionConflict,
)
from . import _checked
from ._base import CachedLog, Event, check_session_id
from ._chain import (
    CONFLICT_REASON,
    Verification,
    caller_level,
    check_owner,
    conflict_marked,
    first_break,
    follow,
    seal,
    unseal,
    verify_records,
)
from ._records import FORMAT, Tail, decode, dumps, encode_next, is_checkpoint, is_slow, loads, plan_of
from ._renewals import dump_renewals, load_renewals
from ._requests import WINDOW, request_from_json

try:  # POSIX; elsewhere only threads of one process are kept apart.
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms we test
    fcntl = None  # type: ignore[assignment]

__all__ = ["FORMAT", "JsonlLog", "JsonlStore", "OnCorrupt"]

_BLOCK = 1 << 16
#: The suffix of the file beside a log that holds its heartbeats' renewals.
_BEAT = ".beat"
#: How many recent events a log keeps to serve ``events(after)`` to watchers.
_RECENT = 512
#: Reading backwards starts small (a tail of deltas is short) and doubles.
_FIRST_BLOCK = 1 << 12
#: Flushes the data and the size (what a reader needs), skipping timestamps.
_datasync = getattr(os, "fdatasync", os.fsync)
OnCorrupt = Literal["raise", "skip"]
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: Marks a line that may be a checkpoint (the key of the whole list), to parse only those.
_CHECKPOINT = re.compile(rb'"phases"\s*:')
#: Our writer puts ``version`` first; this reads it without parsing the snapshot.
_VERSION = re.compile(rb'\{\s*"version"\s*:\s*([0-9]+)\s*[,}]')
#: How every header we ever wrote begins; a long first line without it is not ours.
_HEADER_START = re.compile(rb'\{\s*"format"\s*:')
_SQLITE_MAGIC = b"SQLite format 3\x00"


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


def _torn_header(data: bytes, session_id: str) -> bool:
    """Whether ``data`` (holding no newline) can be this session's header cut short by a crash."""
    named = dumps(session_id).encode("ascii")
    for version in range(1, FORMAT + 1):
        stem = b'{"format":%d,"session":%s,"owner":' % (version, named)
        if stem.startswith(data[: len(stem)]):
            rest = data[len(stem) :]
            if b"null}".startswith(rest) or rest.startswith(b'"'):
                return True
    return False


def _event_version(line: bytes) -> int | None:
    """The version at the start of an event line, or None if it is not there."""
    match = _VERSION.match(line)
    if match is not None:
        return int(match.group(1))
    try:
        version = loads(line).get("version")
    except (ValueError, AttributeError):
        return None
    return version if type(version) is int else None


class _Counter(Protocol):
    bytes_read: int


def _encode(data: dict[str, Any]) -> bytes:
    # ASCII escapes keep lone surrogates and odd line terminators out of the file.
    return dumps(data).encode("ascii") + b"\n"


def _sealed_line(record: dict[str, Any], previous: str | None) -> tuple[bytes, str]:
    """A record's line, its hash chaining it to ``previous``, and that hash."""
    text, digest = seal(dumps(record), previous)
    return text.encode("ascii") + b"\n", digest


def _reverse_lines(fd: int, end: int, counter: _Counter) -> Iterator[tuple[int, bytes]]:
    """Complete lines before ``end`` (just past a newline), newest first, as
    ``(offset, line without its newline)``. Reads blocks from the end only.
    """
    if end <= 0:
        return
    base = end - 1  # file offset of ``buf[0]``; the final newline is dropped
    buf = b""
    limit = 0  # ``buf[:limit]`` is what is left to split; slicing it would copy the block
    block = _FIRST_BLOCK
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
        chunk = os.pread(fd, size, base)
        counter.bytes_read += len(chunk)
        buf = chunk + buf[:limit]
        limit = len(buf)
        block = min(block * 2, 1 << 24)


def _forward_lines(
    fd: int, start: int, end: int, counter: _Counter, block: int = _BLOCK
) -> Iterator[tuple[int, bytes]]:
    """Complete lines in ``[start, end)`` in order, as ``(offset, line without newline)``.

    A line longer than a block (a checkpoint) is gathered in parts and joined once, so
    reading costs the bytes read, whatever the lines' lengths."""
    parts: list[bytes] = []  # the start of a line that goes on in the next block
    offset = pos = start
    while pos < end:
        chunk = os.pread(fd, min(block, end - pos), pos)
        if not chunk:
            return
        counter.bytes_read += len(chunk)
        pos += len(chunk)
        cut = chunk.rfind(b"\n")
        if cut < 0:
            parts.append(chunk)
            continue
        if parts:
            parts.append(chunk[: cut + 1])
            data = b"".join(parts)
            parts = [chunk[cut + 1 :]]
        else:
            data, parts = chunk[: cut + 1], [chunk[cut + 1 :]]
        lines = data.split(b"\n")
        lines.pop()  # the empty string after the last newline
        for line in lines:
            yield offset, line
            offset += len(line) + 1


class JsonlLog(CachedLog):
    """One session's JSONL file. Use through :class:`JsonlStore`.

    The file is created, with its header, at the first write; until then the
    log reads as empty, and a file that cannot be written is still read.
    ``bytes_read`` counts the bytes read from the file and ``records_read`` the records
    decoded (for cost checks).
    """

    storage: Literal["session"] = "session"

    def __init__(
        self,
        path: Path,
        session_id: str,
        owner: str | None,
        *,
        fsync: bool,
        on_corrupt: OnCorrupt,
        profile: str | None = None,
    ) -> None:
        self.path = path
        self.session_id = session_id
        self.owner = owner
        self._wanted_owner = owner
        #: The profile the log's chained first record names (None: not recorded, or no log yet).
        self.profile: str | None = None
        self._wanted_profile = profile
        self._fsync = fsync
        self._on_corrupt = on_corrupt
        self._thread_lock = threading.RLock()
        self.bytes_read = 0
        #: How many records were decoded (for cost checks).
        self.records_read = 0
        self._warned = False  # a broken hash chain is reported once per log object
        self._quiet = False  # while the tail that opening checked raw is decoded
        self._fd = -1
        self._unsynced = False  # written under the lock, flushed when it is let go
        self._reset()
        try:
            self._open_log(create=False)  # raises, changing nothing, if the file is not ours
            if self._fd >= 0 and self._writable and self._complete_end() < os.fstat(self._fd).st_size:
                with self.lock():  # moves a torn tail aside now, with the warning
                    pass
            else:
                self._catch_up()
        except BaseException:
            self.close()
            raise

    def _reset(self) -> None:
        self._pid = os.getpid()
        self._depth = 0
        self._writable = False
        self._inode = -1
        self._format = FORMAT
        self._body = 0  # offset of the first event line (after the header); 0: header unread
        self._end = 0  # file offset up to which ``_latest`` is known
        self._latest: Event | None = None
        self._tail = Tail()
        self._recent: deque[Event] = deque(maxlen=_RECENT)
        #: Request id -> version, once a write asked (the last WINDOW lines, then every new one).
        self._requests: dict[str, int] | None = None
        #: The hash of the newest record read or written (None: none, or it has none).
        self._head: str | None = None
        #: The file's size and mtime when ``_latest`` was last brought up to date.
        self._stamp: tuple[int, int] | None = None

    def _open_log(self, *, create: bool) -> None:
        """Open the file if it exists (read-only when it cannot be written), or create it."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._reset()
        flags = os.O_RDWR | os.O_APPEND
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            flags |= os.O_CREAT
        try:
            self._fd = _open_inside(self.path.parent, self.path.name, flags)
            self._writable = True
        except (PermissionError, OSError) as error:
            if isinstance(error, StoreError):
                raise
            if error.errno == errno.ENOENT and not create:
                return
            if error.errno not in (errno.EACCES, errno.EROFS, errno.EPERM) or create:
                raise
            self._fd = _open_inside(self.path.parent, self.path.name, os.O_RDONLY)
        self._inode = os.fstat(self._fd).st_ino
        try:
            self._identify()
        except BaseException:
            os.close(self._fd)
            self._fd = -1
            raise

    def _identify(self) -> None:
        """Raise :class:`CorruptLog` unless the open file is this session's log; reads only.

        Ours: an empty file (a creation cut short), a file whose first line is a session
        header, or one holding nothing but a prefix of this session's header (a crash
        while writing it). Anything else is left exactly as it is.
        """
        size = os.fstat(self._fd).st_size
        if size == 0:
            return
        first, block = b"", 512
        while True:
            chunk = self._pread(block, len(first))
            if not chunk:
                break
            first += chunk
            block = min(block * 2, _BLOCK)
            cut = first.find(b"\n")
            if cut >= 0:
                first = first[: cut + 1]
                break
            if not first.startswith(b"{") or (len(first) >= 64 and _HEADER_START.match(first) is None):
                break
        if first.startswith(_SQLITE_MAGIC):
            raise self._foreign("it is a SQLite database")
        if not first.startswith(b"{"):
            raise self._foreign("it does not begin with a session header")
        if not first.endswith(b"\n"):
            if not _torn_header(first, self.session_id):
                raise self._foreign("its first line is no session header and has no end")
            return
        self._parse_header(first)

    def _foreign(self, reason: str) -> CorruptLog:
        return CorruptLog(
            str(self.path), 1, f"not a phasetodo session log ({reason}); the file was left unchanged"
        )

    # -- locking ---------------------------------------------------------------

    def _replaced(self) -> bool:
        """Whether the path now names another file (a compaction replaced it) or none."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return self._fd >= 0
        return st.st_ino != self._inode

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the session across threads and processes (re-entrant); creates the file."""
        with self._thread_lock:
            if self._pid != os.getpid():  # a forked child: a file description (and flock) of its own
                self._open_log(create=False)
            if self._depth == 0:
                self._acquire()
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release()

    def _release(self) -> None:
        """Let the next writer in, then make what this one wrote durable: the flush covers the
        whole file, so no acknowledged write ever depends on a line still unflushed, and the
        next writer does not wait for the disk."""
        if fcntl is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        if self._unsynced:
            self._unsynced = False
            _datasync(self._fd)

    def _acquire(self) -> None:
        while True:
            if self._fd < 0 or self._replaced():
                self._open_log(create=True)
            if not self._writable:
                raise StoreError(f"{self.path}: the log is read-only here, so it cannot be written")
            if fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            if not self._replaced():
                break
            if fcntl is not None:  # compacted while we waited: lock the new file instead
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            self._open_log(create=True)
        try:
            if self._body == 0:  # again under the lock: identify first, repair second
                self._identify()
            if self._clean_end() == 0:
                header = {"format": FORMAT, "session": self.session_id, "owner": self._wanted_owner}
                self._write(_encode(header))
                if self._fsync:
                    _fsync_dir(self.path.parent)
            self._catch_up()
        except BaseException:
            if fcntl is not None and self._fd >= 0:  # an error leaves the file unlocked for others
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            raise

    # -- reading ---------------------------------------------------------------

    def _pread(self, size: int, offset: int) -> bytes:
        data = os.pread(self._fd, size, offset)
        self.bytes_read += len(data)
        return data

    def _read_header(self, end: int) -> None:
        first, block = b"", 512
        while b"\n" not in first:  # a clean end follows a newline, so there is one
            chunk = self._pread(block, len(first))
            block = min(block * 2, _BLOCK)
            if not chunk:
                raise CorruptLog(str(self.path), 1, "the file shrank while it was read")
            first += chunk
            if len(first) > end:
                break
        if b"\n" not in first[:end]:
            raise CorruptLog(str(self.path), 1, "the header line is torn")
        first = first[: first.index(b"\n") + 1]
        recorded, version = self._parse_header(first)
        self.owner, self._format, self._body = recorded, version, len(first)

    def _parse_header(self, first: bytes) -> tuple[str | None, int]:
        """The owner and format a header line records; raises :class:`CorruptLog` if it is none."""
        try:
            data = loads(first)
            version = data["format"]
            recorded = data.get("owner")
            named = data.get("session")
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise self._foreign(f"its first line is no session header: {error}") from None
        if type(version) is not int or not 1 <= version <= FORMAT:
            raise CorruptLog(str(self.path), 1, f"header.format: unsupported log format {version!r}")
        if named != self.session_id:
            raise CorruptLog(
                str(self.path), 1, f"header.session: names {named!r}, not this session {self.session_id!r}"
            )
        if recorded is not None and type(recorded) is not str:
            raise CorruptLog(str(self.path), 1, "header.owner: must be a string")
        return recorded, version

    def _complete_end(self) -> int:
        """The offset just past the last newline: complete lines only (no lock needed)."""
        size = os.fstat(self._fd).st_size
        if size == self._end:
            return size
        start, block = size, _FIRST_BLOCK
        while start > self._end:
            step = min(block, start - self._end)
            chunk = self._pread(step, start - step)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                return start - step + cut + 1
            start -= step
            block = min(block * 2, _BLOCK)
        return self._end

    def _clean_end(self) -> int:
        """The file size after moving a torn last line aside (writer lock held)."""
        size = os.fstat(self._fd).st_size
        end = self._complete_end()
        if end < size:
            self._set_aside(end, size)
        return end

    def _set_aside(self, start: int, size: int) -> None:
        torn = self._pread(size - start, start)
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
            stacklevel=5,
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
        if conflict_marked(os.pread(self._fd, 8, offset)):
            reason = CONFLICT_REASON
        if self._on_corrupt == "raise":
            raise CorruptLog(str(self.path), line, reason)
        warnings.warn(
            f"{self.path}:{line}: skipped a corrupt session log line: {reason}",
            CorruptLogWarning,
            stacklevel=5,
        )

    def _catch_up(self) -> None:
        """Bring ``_latest`` up to the file's complete lines: the whole log the first
        time (newest checkpoint plus the tail after it), only new lines after that.
        """
        with self._thread_lock:
            # Forked, created by another writer, or compacted. Under the lock the file stays the
            # one locked (reopening would drop the lock): a write there is refused by append.
            reopen = self._fd < 0 or self._replaced()
            if self._pid != os.getpid() or (reopen and self._depth == 0):
                self._open_log(create=False)
            if self._fd < 0:
                return
            end = self._complete_end()
            if end < self._end or (end == self._end and self._stamp not in (None, self._stat_stamp())):
                self._reread()  # rewritten in place: shorter, or as long but changed
            if end == self._end:
                return
            if self._body == 0:
                self._read_header(end)
                self._end = self._body
                found = self._chain_break(end)
                self._quiet = True  # the tail is inside what was just checked
                try:
                    self._open_tail(end)  # a CorruptLog raised here names the damage itself
                finally:
                    self._quiet = False
                if found is not None:
                    self._tampered(*found)
                self._read_plan(end)
            else:
                for _ in self._advance(self._end, end):
                    pass
            self._stamp = self._stat_stamp()

    def _reread(self) -> None:
        """Forget what was read of the open file (kept open, and locked if it was): read it anew."""
        kept = self._fd, self._depth, self._writable, self._inode
        self._reset()
        self._fd, self._depth, self._writable, self._inode = kept

    def _stat_stamp(self) -> tuple[int, int]:
        """The open file's size and modification time: what a rewrite in place changes."""
        st = os.fstat(self._fd)
        return st.st_size, st.st_mtime_ns if st.st_size == self._end else -1

    def _reading(self) -> threading.RLock:
        return self._thread_lock

    def _key(self) -> object:
        """The file's identity (device, inode) and the newest record's hash."""
        if self._fd < 0:
            return None
        st = os.fstat(self._fd)
        return st.st_dev, st.st_ino, self._head

    def _read_plan(self, end: int) -> None:
        """Take the owner and profile from the chained first record, when it names them; warn
        when the header's owner (outside the chain) is another."""
        first = next(_forward_lines(self._fd, self._body, end, self, _FIRST_BLOCK), None)
        try:
            plan = plan_of(first[1] if first is not None else None, self.session_id)
        except ValueError as error:
            self._corrupt(self._body, str(error))
            return
        if plan is None:
            return
        if plan["owner"] != self.owner:
            self._tampered(1, f"header.owner: {self.owner!r} is not the owner its first record names")
        self.owner, self.profile = plan["owner"], plan["profile"]

    def _plan(self) -> dict[str, Any]:
        """What the first record chains: this session, its owner and its profile."""
        profile = self.profile if self._latest is not None else self._wanted_profile
        return {"session": self.session_id, "owner": self.owner, "profile": profile}

    def _chain_break(self, end: int) -> tuple[int, str] | None:
        """The first break in the hash chain or version order of the records before ``end``,
        checked raw (see :func:`~._chain.first_break`): opening warns wherever in the history a
        record was altered, removed or reordered, not only in the tail it decodes.

        What this user checked before (:mod:`._checked`) is taken as checked when its last
        record is still there with the same hash: only the records after it are read.
        """
        start, version, previous = self._checked_until(end)
        lines = _forward_lines(self._fd, start, end, self)
        found = first_break(((None, line) for _, line in lines), start=version, previous=previous)
        if found is not None:
            _checked.forget(self._mark_key())
        elif end > start:
            newest = _reverse_lines(self._fd, end, self)
            offset, last = next(newest)
            before = next(newest, (0, None))[1] if offset > start else previous
            mark = _checked.mark_of(end, _event_version(last), last, before)
            if mark is not None:
                _checked.save(self._mark_key(), mark)
        return found

    def _mark_key(self) -> str:
        return _checked.key_of(self.path, os.fstat(self._fd))

    def _checked_until(self, end: int) -> tuple[int, int, str | None]:
        """Where the chain check starts: the offset, the version there and the hash before it."""
        mark = _checked.load(self._mark_key())
        if mark is not None and self._body < mark.end <= end and self._pread(1, mark.end - 1) == b"\n":
            offset, last = next(_reverse_lines(self._fd, mark.end, self))
            if offset >= self._body and _checked.holds(mark, _event_version(last), last):
                return mark.end, mark.version + 1, mark.digest
        return self._body, 1, None

    def _open_tail(self, end: int) -> None:
        """Find the newest checkpoint reading backwards, then replay the lines after it."""
        start, base = self._body, None
        lines = _reverse_lines(self._fd, end, self)
        for offset, line in lines:
            if offset < self._body:
                break
            if _CHECKPOINT.search(line) is not None or self._format == 1:
                try:
                    data = loads(line)
                    if is_checkpoint(data):
                        base = decode(data, None)
                except ValueError as error:
                    self._corrupt(offset, str(error))
                    continue
                if base is not None:
                    self._check_previous(offset, base.version, lines)
                    start = offset + len(line) + 1
                    break
        if base is not None:
            self._latest = base
            self._recent.append(base)
            self._tail = Tail(base=_checkpoint_size(line))
            self._head = unseal(line)[1]  # its own hash is taken as read: the chain is checked after it
        for _ in self._advance(start, end):
            pass

    def _check_previous(self, offset: int, version: int, earlier: Iterator[tuple[int, bytes]]) -> None:
        """A checkpoint must follow the line before it (or be version 1 if it is the first)."""
        before = next(earlier, None)
        if before is None or before[0] < self._body:
            expected = 1
        else:
            previous = _event_version(before[1])
            if previous is None:  # a corrupt line before it: events() reports that one
                return
            expected = previous + 1
            first = self._pread(min(256, offset - self._body), self._body)
            if _event_version(first) not in (1, None):
                raise CorruptLog(str(self.path), 2, "version: the first event is not version 1")
        if version != expected:
            raise CorruptLog(
                str(self.path), self._line_number(offset), f"version {version} follows version {expected - 1}"
            )

    def _advance(self, start: int, end: int) -> Iterator[Event]:
        """Decode the lines in ``[start, end)`` on top of ``_latest``, adopting each event."""
        skipped = False
        for offset, line in _forward_lines(self._fd, start, end, self):
            latest = self._latest
            last = latest.version if latest is not None else 0
            self.records_read += 1
            try:
                data = loads(line)
                in_turn = latest is not None and not skipped and isinstance(data, dict)
                in_turn = in_turn and data.get("version") == last + 1  # the record right after latest
                event = decode(data, latest.phases if latest is not None else (), in_turn=in_turn)
            except ValueError as error:
                self._corrupt(offset, str(error))
                skipped = True
                continue
            if event.version <= last or (event.version != last + 1 and not skipped):
                number = self._line_number(offset)
                raise CorruptLog(str(self.path), number, f"version {event.version} follows version {last}")
            digest, problem = follow(line, self._head)
            if problem is not None and not skipped:  # after a skipped line the chain cannot be told
                self._tampered(event.version, problem)
            skipped = False
            self._head = digest
            self._latest, self._end = event, offset + len(line) + 1
            self._recent.append(event)
            if self._requests is not None and event.request is not None:
                self._requests[event.request.key] = event.version
            self._tail.add(
                len(line) + 1, _checkpoint_size(line) if is_checkpoint(data) else None, slow=is_slow(data)
            )
            yield event
        self._end = end

    def events(self, after: int = 0) -> Iterator[Event]:
        """Every event above version ``after`` up to now, in order; corrupt lines raise or are skipped."""
        with self._thread_lock:
            self._catch_up()
            if self._fd < 0:
                return iter(())
            latest = self._latest
            if latest is not None and after == latest.version:
                return iter(())
            recent = self._recent
            if after > 0 and recent and recent[0].version <= after + 1:  # a watcher's step
                return iter([e for e in recent if e.version > after])
            end = self._end
            reader = JsonlLog.__new__(JsonlLog)  # a private cursor over the same file
            reader.__dict__.update(self.__dict__)
            reader._reset()
            reader._fd = os.dup(self._fd)
            reader._body, reader._format, reader._thread_lock = self._body, self._format, threading.RLock()
            reader.bytes_read = reader.records_read = 0
        return reader._replay(after, end, self)

    def _replay(self, after: int, end: int, parent: JsonlLog) -> Iterator[Event]:
        """Events above ``after``: from the newest checkpoint at or below ``after + 1``, found
        reading backwards from the end, so the cost follows the distance, not the whole log."""
        try:
            start, base = self._start_for(after, end)
            if base is not None:
                self._latest = base
                if base.version > after:
                    yield base
            for event in self._advance(start, end):
                if event.version > after:
                    yield event
        finally:
            os.close(self._fd)
            self._fd = -1
            parent.bytes_read += self.bytes_read  # the reader's reads count for the log
            parent.records_read += self.records_read

    def _start_for(self, after: int, end: int) -> tuple[int, Event | None]:
        """Where to read from for the events above ``after``: just past a checkpoint at or below
        ``after + 1`` (and that checkpoint's event), or the first event line."""
        if after <= 0:
            return self._body, None
        for offset, line in _reverse_lines(self._fd, end, self):
            if offset < self._body:
                break
            version = _event_version(line)
            if version is None or version > after + 1:
                continue
            if self._format != 1 and _CHECKPOINT.search(line) is None:
                continue
            try:
                data = loads(line)
                base = decode(data, None) if is_checkpoint(data) else None
            except ValueError:
                continue  # a corrupt line: a checkpoint further back will do
            if base is not None:
                self.records_read += 1
                self._head = unseal(line)[1]
                return offset + len(line) + 1, base
        return self._body, None

    def _tampered(self, version: int, problem: str) -> None:
        if self._warned or self._quiet:
            return
        self._warned = True
        warnings.warn(
            f"{self.path}: version {version}: {problem}; the log's history was altered, removed "
            "or reordered there (phasetodo verify names the first such version)",
            TamperedLogWarning,
            stacklevel=caller_level(),
        )

    def verify(self) -> Verification:
        """Check the hash chain of every record in the file, in order (see :func:`verify_file`)."""
        return verify_file(self.path)

    def find_request(self, key: str) -> Event | None:
        """The event a write with request ``key`` appended, among the last :data:`WINDOW` lines
        (read backwards once, at the first call of this log object) and every line after them."""
        with self._thread_lock:
            self._catch_up()
            if self._fd < 0:
                return None
            if self._requests is None:
                self._requests = self._index_requests()
            if len(self._requests) > 2 * WINDOW:  # keep the index bounded: the newest WINDOW events'
                oldest = self._latest_version() - WINDOW
                self._requests = {rid: v for rid, v in self._requests.items() if v > oldest}
            version = self._requests.get(key)
        if version is None:
            return None
        return next(iter(self.events(version - 1)), None)

    def _index_requests(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for count, (offset, line) in enumerate(_reverse_lines(self._fd, self._end, self)):
            if offset < self._body or count >= WINDOW:
                break
            if b'"request":' not in line:
                continue
            try:
                data = loads(line)
                request = request_from_json(data.get("request"), data.get("agent"))
                version = data.get("version")
            except (ValueError, AttributeError):
                continue  # a corrupt line: reading the log reports it
            if request is not None and type(version) is int:
                found.setdefault(request.key, version)
        return found

    # -- heartbeats, beside the log (see :mod:`._renewals`) ------------------------

    def renewals(self) -> dict[str, Renewal]:
        """The claims' renewed deadlines, by task id, from ``<id>.jsonl.beat`` (none if it is
        missing or does not read back, as after a crash while it was rewritten)."""
        try:
            fd = _open_inside(self.path.parent, self.path.name + _BEAT, os.O_RDONLY)
        except FileNotFoundError:
            return {}
        try:
            return load_renewals(b"".join(iter(lambda: os.read(fd, _BLOCK), b"")))
        finally:
            os.close(fd)

    def renew(self, renewals: Mapping[str, Renewal]) -> None:
        """Rewrite ``<id>.jsonl.beat`` with ``renewals`` (under :meth:`lock`, with no ``fsync``:
        a lost table only lets claims lapse at their last write's deadline)."""
        with self.lock():
            body = dump_renewals(renewals).encode("ascii")
            fd = _open_inside(self.path.parent, self.path.name + _BEAT, os.O_WRONLY | os.O_CREAT)
            try:
                os.pwrite(fd, body, 0)
                os.ftruncate(fd, len(body))
            finally:
                os.close(fd)

    # -- writing ---------------------------------------------------------------

    def append(self, event: Event) -> None:
        """Write one line; it is fsynced when the lock is let go (at the end of this call, or of
        the caller's :meth:`lock`), before that returns."""
        with self.lock():
            latest = self._latest
            version = latest.version if latest is not None else 0
            if event.version != version + 1:
                raise VersionConflict(self.session_id, event.version - 1, version)
            before = latest.phases if latest is not None else ()
            record, checkpoint = encode_next(
                event, before, self._tail, checkpoint=self._format == 1, plan=self._plan()
            )
            line, digest = _sealed_line(record, self._head)
            self._write(line)
            if self._replaced():  # swapped without our lock (a checkout): the line went with the old file
                raise StoreError(
                    f"{self.path}: the log was replaced while version {event.version} was written "
                    "(a checkout or a restore), so that write is not in it; nothing was applied"
                )
            self._head = digest
            self._latest, self._end = event, os.fstat(self._fd).st_size
            self._stamp = self._stat_stamp()
            self._recent.append(event)
            if self._requests is not None and event.request is not None:
                self._requests[event.request.key] = event.version
            self._tail.add(len(line), _checkpoint_size(line) if checkpoint else None, slow=is_slow(record))
            if event.version == 1:
                self.profile = self._wanted_profile

    def compact(self) -> None:
        """Rewrite the file in the newest format (history kept) and swap it in atomically."""
        with self.lock():
            end = self._end
            temp = self.path.with_name(self.path.name + ".compact")
            try:
                _unlink_inside(temp)
                fd = _open_inside(temp.parent, temp.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
                with os.fdopen(fd, "wb") as out:
                    out.write(_encode({"format": FORMAT, "session": self.session_id, "owner": self.owner}))
                    tail, before = Tail(), cast("tuple[Phase, ...]", ())
                    previous: str | None = None  # the chain starts again, over every record
                    for event in self.events():
                        last = event.version == self._latest_version()
                        record, checkpoint = encode_next(
                            event, before, tail, checkpoint=last, plan=self._plan()
                        )
                        line, previous = _sealed_line(record, previous)
                        out.write(line)
                        size = _checkpoint_size(line) if checkpoint else None
                        tail.add(len(line), size, slow=is_slow(record))
                        before = event.phases
                    out.flush()
                    os.fsync(out.fileno())
                if os.fstat(self._fd).st_size != end:
                    raise StoreError(f"{self.path}: the log changed while it was compacted")
                _rename_inside(temp, self.path)
                if self._fsync:
                    _fsync_dir(self.path.parent)
            except BaseException:
                _unlink_inside(temp)
                raise
        self._open_log(create=False)
        self._catch_up()

    def _latest_version(self) -> int:
        return self._latest.version if self._latest is not None else 0

    def _write(self, data: bytes) -> None:
        """Write ``data`` whole; it is flushed to disk once the lock is let go (``_release``)."""
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        self._unsynced = self._fsync

    def close(self) -> None:
        """Close the file."""
        with self._thread_lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def verify_file(path: Path) -> Verification:
    """The hash chain and version order of a session file's records, read as stored (nothing is
    decoded or repaired, so a log too damaged to open is checked too). A torn last line is no
    record; a file that is missing holds none."""
    try:
        fd = _open_inside(path.parent, path.name, os.O_RDONLY)
    except FileNotFoundError:
        return Verification(True, 0, 0)

    class _Count:
        bytes_read = 0

    try:
        end = os.fstat(fd).st_size
        lines = _forward_lines(fd, 0, end, _Count())
        header = next(lines, None)
        if header is None or _HEADER_START.match(header[1]) is None:
            raise CorruptLog(str(path), 1, "not a phasetodo session log: its first line is no header")
        first: list[bytes] = []

        def records() -> Iterator[tuple[None, bytes]]:
            for _, line in lines:
                if not first:
                    first.append(line)
                yield None, line

        found = verify_records(records())
        try:
            owner = loads(header[1]).get("owner")
            plan = plan_of(first[0] if first else None, path.name[: -len(".jsonl")])
        except (ValueError, AttributeError) as error:
            return attrs.evolve(found, ok=False, version=1, reason=str(error))
        return check_owner(found, plan, owner)
    finally:
        os.close(fd)


def _checkpoint_size(line: bytes) -> int:
    """Roughly the bytes of a checkpoint's list: its whole line."""
    return len(line)


def _unlink_inside(path: Path) -> None:
    with suppress(FileNotFoundError):
        os.unlink(path)


def _rename_inside(source: Path, target: Path) -> None:
    if target.is_symlink():
        raise StoreError(f"{target}: is a symbolic link; a phasetodo store never follows links")
    os.rename(source, target)


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
        self.directory = Path(directory)  # made at the first write, not before
        self.fsync = fsync
        self.on_corrupt: OnCorrupt = on_corrupt

    def path_for(self, session_id: str) -> Path:
        """The log file of ``session_id`` (after checking the id is safe)."""
        return self.directory / f"{check_session_id(session_id)}.jsonl"

    def open(self, session_id: str, *, owner: str | None = None, profile: str | None = None) -> JsonlLog:
        """Open the session's file, creating it with a header naming ``owner``; its first record
        chains ``owner`` and ``profile``."""
        return JsonlLog(
            self.path_for(session_id), session_id, owner, fsync=self.fsync, on_corrupt=self.on_corrupt,
            profile=profile,
        )

    def verify(self, session_id: str) -> Verification:
        """Check the hash chain of the session's file without opening it as a log (so a log
        that no longer opens is checked too)."""
        return verify_file(self.path_for(session_id))

    def sessions(self) -> list[str]:
        """The ids of the ``*.jsonl`` logs in the directory."""
        if not self.directory.is_dir():
            return []
        return sorted(p.name[: -len(".jsonl")] for p in self.directory.glob("*.jsonl"))

    def close(self) -> None:
        """Nothing to release: each log owns its file handle."""

    def __repr__(self) -> str:
        return f"JsonlStore({str(self.directory)!r})"
