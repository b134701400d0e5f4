"""What the database stores share: a log whose events are rows keyed by (session, version).

A row holds one record (see :mod:`._records`) and says whether it is a
checkpoint. Opening checks every row's link in the hash chain (by the store, in
one snapshot, decoding nothing), then finds the newest checkpoint by index and
replays the rows after it; afterwards only rows newer than the cached version are read, so
:meth:`RowLog.version` is one indexed ``max(version)`` and a read is fresh.
The cache is dropped when a write's transaction does not commit.
"""

from __future__ import annotations

import threading
import warnings
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Generic, Literal, Protocol, TypeVar

import attrs

from .._core.model import Phase, Renewal
from ..errors import CorruptLog, TamperedLogWarning, VersionConflict
from ._base import CachedLog, Event
from ._chain import (
    Verification,
    caller_level,
    check_owner,
    first_break,
    follow,
    seal,
    unseal,
    verify_records,
)
from ._records import Tail, decode, dumps, encode_next, is_checkpoint, is_slow, loads, plan_of
from ._renewals import dump_renewals, load_renewals

__all__ = ["RowLog", "RowStore"]

#: How many recent events a log keeps to serve ``events(after)`` to watchers.
_RECENT = 512
#: How many rows one read of the log fetches.
_PAGE = 256


def _raw(body: object) -> bytes:
    return body if isinstance(body, bytes) else b""


class RowStore(Protocol):
    """What a database store gives its logs: its name in messages and its connection's lock."""

    @property
    def where(self) -> str:
        """The database, as errors name it (never with a password)."""
        ...

    @property
    def _mutex(self) -> threading.RLock: ...


_S = TypeVar("_S", bound=RowStore)


class RowLog(CachedLog, Generic[_S]):
    """The store-independent half of a database log; a store subclasses the row access.

    ``owner`` is the agent the log records; ``wanted`` the one a new log is to record.
    """

    storage: Literal["session"] = "session"

    def __init__(
        self, store: _S, session_id: str, owner: str | None, wanted: str | None, profile: str | None = None
    ) -> None:
        self.store = store
        self.where = store.where
        self.session_id = session_id
        self.owner = owner
        self._wanted = wanted
        #: The profile the log's chained first record names (None: not recorded, or no log yet).
        self.profile: str | None = None
        self._wanted_profile = profile
        self._planned = False  # the owner came from the chained first row
        #: How many rows were read (for cost checks).
        self.records_read = 0
        self._warned = False  # a broken hash chain is reported once per log object
        self._checked = 0  # while opening decodes its tail: the rows up to here were checked raw
        self._local = threading.local()
        self._forget()

    @property
    def _state(self) -> threading.RLock:
        """Guards the cache: the store's connection lock, so that the two are always taken in one order."""
        return self.store._mutex

    def _reading(self) -> threading.RLock:
        return self._state

    # -- what a database provides ------------------------------------------------------

    def _transaction(self) -> AbstractContextManager[object]:
        raise NotImplementedError

    def _newest(self, *, checkpoint: bool, upto: int | None = None) -> object:
        """The newest version of this session's rows (of its checkpoints; at most ``upto``), as the
        database gives it."""
        raise NotImplementedError

    def _page(self, after: int, limit: int) -> list[tuple[object, object]]:
        """``(version, body)`` of at most ``limit`` rows above ``after``, in order (body as text or
        bytes). It reads no hash column: tables from before hashes are read before they gain it."""
        raise NotImplementedError

    def _since(self, version: int, limit: int) -> list[tuple[object, object, object]]:
        """``(version, hash, body)`` of at most ``limit`` rows from ``version`` on, in order."""
        raise NotImplementedError

    def _insert(self, version: int, body: str, checkpoint: bool, request: str | None) -> None:
        raise NotImplementedError

    def _replace_all(self, rows: list[tuple[int, str, bool, str | None]]) -> None:
        raise NotImplementedError

    def _stored_hash(self, version: int) -> str | None:
        """The hash column of this session's row ``version`` (None: no such row, or it has none)."""
        raise NotImplementedError

    def _request_version(self, request_id: str) -> object:
        """The version of this session's row made with ``request_id`` (an indexed lookup), or None."""
        raise NotImplementedError

    def _renewals_body(self) -> object:
        """The JSON text of this session's renewals row (None: it has none)."""
        raise NotImplementedError

    def _put_renewals(self, body: str) -> None:
        """Replace this session's renewals row with ``body`` (inside :meth:`lock`)."""
        raise NotImplementedError

    # -- heartbeats, beside the log (see :mod:`._renewals`) ------------------------------

    def renewals(self) -> dict[str, Renewal]:
        """The claims' renewed deadlines, by task id (a row that does not read back: none)."""
        body = self._renewals_body()
        return load_renewals(body if isinstance(body, (str, bytes)) else None)

    def renew(self, renewals: Mapping[str, Renewal]) -> None:
        """Replace the renewals with ``renewals`` (under :meth:`lock`); the log is unchanged."""
        self._put_renewals(dump_renewals(renewals))

    def _first_break(self) -> tuple[int, str] | None:
        """The first version whose row breaks the hash chain or the version order, and why (see
        :func:`~._chain.first_break`); a database may check in one statement (one snapshot)."""
        return first_break(
            (version, body.encode("utf-8", "surrogatepass") if isinstance(body, str) else _raw(body))
            for version, body in self._rows(0)
        )

    def _max_version(self) -> int:
        value = self._newest(checkpoint=False)
        if value is None:
            return 0
        if type(value) is not int:
            raise CorruptLog(self.where, 0, f"session {self.session_id!r}: a version is not an integer")
        return value

    def _last_checkpoint(self) -> int:
        value = self._newest(checkpoint=True)
        return value if type(value) is int else 0

    def _rows(self, after: int) -> Iterator[tuple[object, object]]:
        """``(version, body)`` of every row above ``after``, in order, a page at a time."""
        while True:
            rows = self._page(after, _PAGE)
            self.records_read += len(rows)
            yield from rows
            last = rows[-1][0] if rows else None
            if len(rows) < _PAGE or type(last) is not int:
                return
            after = last

    # -- the log ---------------------------------------------------------------------

    def _forget(self) -> None:
        self._local.read = False  # read again, even under the lock (a compaction replaced the rows)
        self._local.held = None
        self._latest: Event | None = None
        self._tail = Tail()
        self._recent: deque[Event] = deque(maxlen=_RECENT)
        #: The hash of the newest record read or written (None: none, or it has none).
        self._head: str | None = None

    @contextmanager
    def lock(self) -> Iterator[None]:
        """The store's write transaction with this session's writer lock (re-entrant)."""
        local = self._local
        if getattr(local, "depth", 0):  # already inside, in this thread: one round trip less
            local.depth += 1
            try:
                yield
            finally:
                local.depth -= 1
            return
        try:
            with self._transaction():
                local.depth, local.read, local.held = 1, False, None
                try:
                    yield
                finally:
                    local.depth, local.read, local.held = 0, False, None
        except BaseException:
            with self._state:  # nothing appended in it was committed
                self._forget()
            raise

    def _decode(
        self, version: object, body: object, before: Event | None, expected: int
    ) -> tuple[Event, int, bool, bool]:
        try:
            if type(version) is not int:
                raise ValueError("the version column is not an integer")
            data = loads(body if isinstance(body, (str, bytes)) else b"")
            in_turn = before is not None and version == expected == before.version + 1
            event = decode(data, before.phases if before is not None else (), in_turn=in_turn)
            checkpoint, slow = is_checkpoint(data), is_slow(data)
        except ValueError as error:
            raise CorruptLog(
                self.where, version if type(version) is int else 0,
                f"session {self.session_id!r}, event {version}: {error}",
            ) from None
        if event.version != expected or event.version != version:
            raise CorruptLog(
                self.where, version, f"session {self.session_id!r}: row {version} holds event "
                f"{event.version} where event {expected} belongs",
            )
        size = len(body) if isinstance(body, (str, bytes)) else 0
        return event, size, checkpoint, slow

    def _catch_up(self) -> None:
        local = self._local
        if getattr(local, "read", False) and local.depth:
            return  # read once under this lock: only this writer appends until it is released
        with self._state:
            self._catch_up_rows()
            if getattr(local, "depth", 0):
                local.read = True

    def _catch_up_rows(self) -> None:
        """Read the rows appended since the newest one read (all of them if the log was replaced)."""
        with self._state:
            if self._follow_on():
                return
            newest = self._max_version()
            latest = self._latest
            if latest is not None and newest >= latest.version and not self._still_holds(latest.version):
                latest = None  # the rows were replaced (a restore, another branch's log): read anew
            if latest is not None and newest == latest.version:
                return
            found = None
            if latest is None or newest < latest.version:
                self._forget()
                if newest > 0:  # every row's link, wherever it breaks; the events from the checkpoint
                    found = self._first_break()
                    self._checked = newest  # the tail's rows up to it were just checked
                after = max(self._last_checkpoint() - 1, 0)  # from the newest checkpoint on
            else:
                after = latest.version
            try:
                self._read_tail(after)  # a CorruptLog raised here names the damage itself
            finally:
                self._checked = 0
            if found is not None:
                self._tampered(*found)
            if latest is None and newest > 0:
                self._read_plan()

    def _following(self) -> int | None:
        """The version :meth:`_follow_on` would read from next (the row read last), or None
        when it would take the careful path."""
        latest = self._latest
        return latest.version if latest is not None and self._head is not None else None

    def _follow_on(self) -> bool:
        """Catch up in one query where the row read last is still stored with its hash (no other
        branch's log or restore replaced it): that row and the ones after it. False: the
        careful reading is needed (no row read yet, no hash, or the row changed or is gone)."""
        after = self._following()
        if after is None:
            return False
        rows = self._since(after, _PAGE)
        if not rows or rows[0][0] != after or rows[0][1] != self._head:
            return False
        self.records_read += len(rows) - 1
        self._adopt_rows(after, ((version, body) for version, _, body in rows[1:]))
        last, stored = rows[-1][0], rows[-1][1]
        self._local.held = (last, stored)  # what the next row chains to, if no other is read
        if len(rows) == _PAGE and type(last) is int:  # a long way behind: the rest a page at a time
            self._read_tail(last)
        return True

    def _first_plan(self) -> dict[str, Any] | None:
        """The plan the first row chains (see :func:`~._records.plan_of`), or None."""
        rows = self._page(0, 1)
        body = rows[0][1] if rows and rows[0][0] == 1 else None
        try:
            return plan_of(body if isinstance(body, (str, bytes)) else None, self.session_id)
        except ValueError as error:
            raise CorruptLog(self.where, 1, f"session {self.session_id!r}, event 1: {error}") from None

    def _read_plan(self) -> None:
        """Take the owner and profile from the chained first row, when it names them; warn when
        the sessions row's owner (outside the chain) is another."""
        plan = self._first_plan()
        if plan is None:
            return
        if plan["owner"] != self.owner:
            self._tampered(1, f"sessions.owner: {self.owner!r} is not the owner its first record names")
        self.owner, self.profile, self._planned = plan["owner"], plan["profile"], True

    def _take_owner(self, recorded: str | None) -> None:
        """Adopt the sessions row's owner, unless the chained first row named the owner (then a
        different row is a tampering, reported)."""
        if not self._planned:
            self.owner = recorded
        elif recorded != self.owner:
            self._tampered(1, f"sessions.owner: {recorded!r} is not the owner its first record names")

    def _plan(self) -> dict[str, Any]:
        """What the first record chains: this session, its owner and its profile."""
        profile = self.profile if self._latest is not None else self._wanted_profile
        return {"session": self.session_id, "owner": self.owner, "profile": profile}

    def _still_holds(self, version: int) -> bool:
        """Whether the stored row ``version`` is the record this log read last (by its hash)."""
        if self._head is None:  # a log without hashes: only its length tells
            return True
        stored = self._stored_hash(version)
        self._local.held = (version, stored)  # what the next row chains to, if no other is read
        return stored is None or stored == self._head

    def _read_tail(self, after: int) -> None:
        """Decode and adopt the rows above ``after``, checking each one's link in the chain."""
        self._adopt_rows(after, self._rows(after))

    def _adopt_rows(self, after: int, rows: Iterable[tuple[object, object]]) -> None:
        """Decode and adopt ``rows`` (those above ``after``), checking each one's link in the chain."""
        with self._state:
            for version, body in rows:
                before = self._latest
                expected = before.version + 1 if before is not None else after + 1
                event, size, checkpoint, slow = self._decode(version, body, before, expected)
                if before is None and after > 0 and not checkpoint:
                    raise CorruptLog(
                        self.where, event.version, f"session {self.session_id!r}: row {version} "
                        "is marked as a checkpoint but holds no list",
                    )
                raw = body if isinstance(body, (str, bytes)) else b""
                if before is None and after > 0:  # the newest checkpoint: its hash is taken as read
                    digest = unseal(raw)[1]
                else:
                    digest, problem = follow(raw, self._head)
                    if problem is not None:  # or another process compacted: the chain began again
                        stored = self._stored_hash(event.version - 1) if event.version > 1 else None
                        if stored != self._head:
                            digest, problem = follow(raw, stored)
                    if problem is not None:
                        self._tampered(event.version, problem)
                self._adopt(event, size, checkpoint, slow, digest)

    def _tampered(self, version: int, problem: str) -> None:
        if self._warned or version <= self._checked:
            return
        self._warned = True
        warnings.warn(
            f"{self.where}: session {self.session_id!r}, version {version}: {problem}; the log's "
            "history was altered, removed or reordered there (phasetodo verify names the first such version)",
            TamperedLogWarning,
            stacklevel=caller_level(),
        )

    def verify(self) -> Verification:
        """Check the hash chain and version order of every row of this session, as stored."""
        with self._state:
            found = verify_records(
                (version, body if isinstance(body, (str, bytes)) else b"") for version, body in self._rows(0)
            )
            if not found.ok:
                return found
            try:
                plan = self._first_plan()
            except CorruptLog as error:
                return attrs.evolve(found, ok=False, version=1, reason=str(error))
            return check_owner(found, plan, self._stored_owner())

    def _stored_owner(self) -> str | None:
        """The owner the sessions row keeps (outside the chain)."""
        raise NotImplementedError

    def _adopt(self, event: Event, size: int, checkpoint: bool, slow: bool, digest: str | None) -> None:
        self._head = digest
        self._latest = event
        self._tail.add(size, size if checkpoint else None, slow=slow)
        self._recent.append(event)

    def events(self, after: int = 0) -> Iterator[Event]:
        """Events above version ``after``: from the recent ones when they reach back far enough."""
        with self._state:
            self._catch_up()
            recent = self._recent
            if recent and recent[0].version <= after + 1:
                return iter([e for e in recent if e.version > after])
            if self._latest is None:
                return iter(())
        return self._replay(after)

    def _replay(self, after: int) -> Iterator[Event]:
        """Events above ``after``, read from the newest checkpoint at or below ``after + 1``
        (an indexed range query), so the cost follows the distance, not the whole log."""
        start = 0
        if after > 0:
            found = self._newest(checkpoint=True, upto=after + 1)
            start = found - 1 if type(found) is int and found > 0 else 0
        before: Event | None = None
        for version, body in self._rows(start):
            expected = before.version + 1 if before is not None else start + 1
            event, _, checkpoint, _ = self._decode(version, body, before, expected)
            if before is None and start > 0 and not checkpoint:
                raise CorruptLog(
                    self.where, event.version, f"session {self.session_id!r}: row {version} "
                    "is marked as a checkpoint but holds no list",
                )
            before = event
            if event.version > after:
                yield event

    def append(self, event: Event) -> None:
        """Insert the event's record; durable when the enclosing lock commits."""
        with self.lock(), self._state:
            self._catch_up()
            latest = self._latest
            version = latest.version if latest is not None else 0
            if event.version != version + 1:
                raise VersionConflict(self.session_id, event.version - 1, version)
            before = latest.phases if latest is not None else ()
            record, checkpoint = encode_next(event, before, self._tail, plan=self._plan())
            # Chained to the newest row as stored: another process may have compacted (and so
            # re-hashed) the log since this one read it.
            held = self._local.held if getattr(self._local, "read", False) else None
            if held is not None and held[0] == version:  # looked up under this lock already
                previous = held[1]
            else:
                previous = self._stored_hash(version) if version > 0 else None
            body, digest = seal(dumps(record), previous)
            self._insert(event.version, body, checkpoint, event.request.key if event.request else None)
            self._adopt(event, len(body), checkpoint, is_slow(record), digest)
            if event.version == 1:
                self.profile = self._wanted_profile

    def compact(self) -> None:
        """Rewrite this session's rows in the newest format, in one transaction."""
        with self.lock(), self._state:
            rows: list[tuple[int, str, bool, str | None]] = []
            tail = Tail()
            before: tuple[Phase, ...] = ()
            previous: str | None = None  # the chain starts again, over every record
            events = list(self.events())
            for event in events:
                record, checkpoint = encode_next(
                    event, before, tail, checkpoint=event is events[-1], plan=self._plan()
                )
                body, previous = seal(dumps(record), previous)
                rows.append((event.version, body, checkpoint, event.request.key if event.request else None))
                tail.add(len(body), len(body) if checkpoint else None, slow=is_slow(record))
                before = event.phases
            self._replace_all(rows)
            self._forget()

    def find_request(self, key: str) -> Event | None:
        """The event a write with request ``key`` appended (every id is remembered), or None."""
        version = self._request_version(key)
        if type(version) is not int:
            return None
        found = next(iter(self.events(version - 1)), None)
        return found if found is not None and found.request is not None else None

    def close(self) -> None:
        """Nothing to release: the store owns the connection."""
