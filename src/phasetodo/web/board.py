"""What the board shows and changes, as JSON-ready data, over one session store.

Everything here is synchronous and thread-safe; the web app calls it from a
worker thread. It reads through the store's logs (the public ``Store``/``Log``
protocol) and writes through ``Session.user_edit``, using only phasetodo's
public names, and never creates a session: an id the store does not hold is
unknown.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import attrs

import phasetodo

from .. import person
from .._profiles.builtin import shared_by_name
from ..session import recorded_profile
from ..stores._base import Head, newest_of
from . import edits

__all__ = ["MAX_PAGE", "PAGE", "Board", "Listing", "plan_changes"]

#: Sessions on one page of the sessions page, by default and at most.
PAGE = 50
MAX_PAGE = 100
#: How many recent versions' lists a session keeps, for the live feed's deltas from them.
RECENT_LISTS = 16
#: The statuses of a finished task, as the JSON spells them.
_CLOSED = frozenset(("completed", "abandoned"))


def _counts(phases: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(edits.STATUSES, 0)
    found = Counter(task.get("status") for phase in phases for task in phase.get("tasks", []))
    counts.update(found)
    tasks = sum(found.values())
    counts["tasks"] = tasks
    counts["open"] = tasks - counts["completed"] - counts["abandoned"]
    return counts


@attrs.frozen
class _Facts:
    """What the board reads off one version's list, once: its task owners and the counts by status."""

    version: int
    owners: frozenset[str]
    counts: Mapping[str, int]


def _facts_of(version: int, phases: Sequence[Mapping[str, Any]]) -> _Facts:
    owners: set[str] = set()
    for phase in phases:
        for task in phase.get("tasks", []):
            owner = task.get("owner")
            if isinstance(owner, str):
                owners.add(owner)
    return _Facts(version, frozenset(owners), _counts(phases))


def _combine(version: int, parts: Sequence[_Facts]) -> _Facts:
    """The facts of a whole list from those of its phases."""
    owners: set[str] = set()
    counts: Counter[str] = Counter()
    for part in parts:
        owners |= part.owners
        counts.update(part.counts)
    return _Facts(version, frozenset(owners), {**_counts([]), **counts})


def plan_changes(
    before: Sequence[phasetodo.Phase], after: Sequence[phasetodo.Phase], *, most: int
) -> list[dict[str, Any]] | None:
    """What turns the list ``before`` into ``after``, by position, for a page that shows
    ``before``: ``{"at": i, "phase": ...}`` replaces phase ``i`` (a new or reshaped phase),
    ``{"at": i, "tasks": [[t, task], ...]}`` replaces tasks ``t`` of phase ``i`` (same name
    and number of tasks); the page cuts its list to ``len(after)`` phases. None when more
    than ``most`` tasks would be sent: then the whole list is cheaper.

    Phases and tasks the engine left alone are the same objects in both lists, so this
    costs what changed (plus a pass over the tasks of a changed phase), not the list.
    """
    out: list[dict[str, Any]] = []
    sent = 0
    for at, phase in enumerate(after):
        old = before[at] if at < len(before) else None
        if old is phase:
            continue
        if old is not None and (old.name, old.last_id, len(old.tasks)) == (
            phase.name, phase.last_id, len(phase.tasks)
        ):
            pairs = enumerate(zip(old.tasks, phase.tasks, strict=True))
            moved = [(t, task) for t, (was, task) in pairs if was is not task and was != task]
            if not moved:
                continue
            dumped = phasetodo.dump_phases([phasetodo.Phase(phase.name, tuple(task for _, task in moved))])
            tasks = dumped[0]["tasks"]
            out.append({"at": at, "tasks": [[t, d] for (t, _), d in zip(moved, tasks, strict=True)]})
            sent += len(moved)
        elif old != phase:
            out.append({"at": at, "phase": phasetodo.dump_phases([phase])[0]})
            sent += len(phase.tasks) + 1
        if sent > most:
            return None
    return out


def _event_head(event: phasetodo.Event | None) -> dict[str, Any]:
    if event is None:
        return {"version": 0, "time": None, "kind": None, "source": None, "agent": None}
    return {
        "version": event.version,
        "time": event.time,
        "kind": event.kind,
        "source": event.source,
        "agent": event.agent,
    }


@attrs.frozen
class Listing:
    """One page of the store's sessions from one listing: how many there are, and the
    page's ids with their newest versions (what the sessions feed compares)."""

    total: int
    offset: int
    versions: tuple[tuple[str, int], ...]


#: What a head id looks like: the version, a dash, 16 hex digits of the newest record's identity.
HEAD_ID = re.compile(r"[0-9]{1,18}-[0-9a-f]{16}")


def head_id(head: Head) -> str:
    """A short text naming one history at its newest record: what a page sends back (``since``,
    ``Last-Event-ID``) so that a delta is only ever computed from the list it shows."""
    digest = hashlib.blake2b(repr(head.key).encode(), digest_size=8).hexdigest()
    return f"{head.version}-{digest}"


def _phases_of(latest: phasetodo.Event | None) -> tuple[phasetodo.Phase, ...] | None:
    """The list a board's facts are read off (None for an empty log)."""
    return latest.phases if latest is not None else None


def _continues(log: Any, before: Head, seen: phasetodo.Event | None, head: Head) -> bool:
    """Whether the history at ``head`` extends the one read at ``before`` (whose newest
    event was ``seen``): it is longer and holds that same event at that version."""
    if head.version <= before.version:
        return False
    if seen is None:
        return before.version == 0
    return next(iter(log.events(seen.version - 1)), None) == seen


class _Entry:
    """One open log, the agents seen in it, and how many calls use it now."""

    def __init__(self, log: Any) -> None:
        self.log = log  # the store's Log: ``latest()`` reads the newest event only
        self.lock = threading.Lock()
        self.users = 0
        self.head: Head | None = None  # the history read last
        self.seen: phasetodo.Event | None = None  # its newest event
        self.ident = head_id(Head(0))  # its head id (see :func:`head_id`), what pages send back
        self.making = threading.Lock()  # held while ``text`` is made, so it is made once
        self.forget()

    def forget(self) -> None:
        """Drop what was read of the log: it was replaced by another history (lock held)."""
        self.agents: set[str] = set()
        self.agents_version = 0
        self.facts: _Facts | None = None  # the newest version's owners and team fields
        self.facts_of: tuple[phasetodo.Phase, ...] | None = None  # the list ``facts`` were read off
        self.text: tuple[str, str] | None = None  # the newest plan as JSON, with its head id
        #: The lists of the last heads read, by head id (the feed's deltas start from one of them).
        self.lists: OrderedDict[str, tuple[phasetodo.Phase, ...]] = OrderedDict()
        #: Each phase of the newest list read, with its facts, by the phase object's id.
        self.phase_facts: dict[int, tuple[phasetodo.Phase, _Facts]] = {}


class Board:
    """The sessions of one store, as the board reads and edits them.

    Reads go through the store's logs (newest event from the end, history in
    order); an edit opens a :class:`phasetodo.Session` for its one
    ``user_edit``. At most ``keep_open`` logs stay open, the least recently
    used closed first, so a store of thousands of sessions does not run out of
    file handles. ``read_only`` refuses every edit (the app checks it first;
    this is the second guard). ``close`` releases every log and tells live
    feeds to stop.
    """

    def __init__(self, store: phasetodo.Store, *, read_only: bool = False, keep_open: int = 128) -> None:
        self.store = store
        self.read_only = read_only
        self.closing = threading.Event()
        self._keep_open = keep_open
        self._lock = threading.Lock()
        self._open: OrderedDict[str, _Entry] = OrderedDict()

    # -- sessions --------------------------------------------------------------------------------

    def session_ids(self) -> list[str]:
        """The ids of every session in the store, sorted."""
        return self.store.sessions()

    @contextmanager
    def _use(self, session_id: str, *, listed: bool = False) -> Iterator[_Entry]:
        """The open log of one session (opened on first use, never created); ``listed``:
        the caller has just seen it in a listing, so the store is not listed again."""
        with self._lock:
            entry = self._open.get(session_id)
            if entry is None:
                if not listed and session_id not in self.store.sessions():
                    raise LookupError(f"No session named {session_id!r} in this store.")
                entry = self._open[session_id] = _Entry(self.store.open(session_id))
            self._open.move_to_end(session_id)
            entry.users += 1
            self._trim()
        try:
            yield entry
        finally:
            with self._lock:
                entry.users -= 1
                self._trim()

    def _trim(self) -> None:
        """Close the least recently used idle logs beyond ``keep_open`` (lock held)."""
        extra = len(self._open) - self._keep_open
        for session_id in [sid for sid, e in self._open.items() if e.users == 0][: max(0, extra)]:
            self._open.pop(session_id).log.close()

    @staticmethod
    def _latest(entry: _Entry) -> phasetodo.Event | None:
        """The newest event of the log, read from its end (not a scan of the history); its
        list is kept among the recent ones by its head id, for deltas from it.

        A log replaced under the board (a checkout, a restore) is another history, whatever
        its length: what was read of the old one is dropped.
        """
        head, latest = newest_of(entry.log)
        with entry.lock:
            before, seen = entry.head, entry.seen
        other = before is not None and head != before and not _continues(entry.log, before, seen, head)
        with entry.lock:
            if other:
                entry.forget()
            entry.head, entry.ident, entry.seen = head, head_id(head), latest
            if latest is not None:
                entry.lists[entry.ident] = latest.phases
                entry.lists.move_to_end(entry.ident)
                while len(entry.lists) > RECENT_LISTS:
                    entry.lists.popitem(last=False)
        return latest

    def head(self, session_id: str) -> str:
        """The id of the history the board reads now (see :func:`head_id`)."""
        with self._use(session_id) as entry:
            self._latest(entry)
            with entry.lock:
                return entry.ident

    def version(self, session_id: str, *, listed: bool = False) -> int:
        """The session's newest version in the log (another process may have written)."""
        with self._use(session_id, listed=listed) as entry:
            latest = self._latest(entry)
        return latest.version if latest is not None else 0

    @staticmethod
    def _facts(
        entry: _Entry, latest: phasetodo.Event | None, phases: Sequence[Mapping[str, Any]] | None = None
    ) -> _Facts:
        """The owners and counts of the newest list (``phases``, its dump, when at hand),
        read once per version."""
        version = latest.version if latest is not None else 0
        with entry.lock:
            known = entry.facts
        if known is not None and known.version == version and entry.facts_of is _phases_of(latest):
            return known
        if latest is None:
            facts = _facts_of(version, [])
        else:  # by phase: a phase the version left alone keeps the facts worked out before
            with entry.lock:
                cached = entry.phase_facts
            kept: dict[int, tuple[phasetodo.Phase, _Facts]] = {}
            for at, phase in enumerate(latest.phases):
                found = cached.get(id(phase))
                if found is None or found[0] is not phase:
                    dumped = [phases[at]] if phases is not None else phasetodo.dump_phases([phase])
                    found = (phase, _facts_of(version, dumped))
                kept[id(phase)] = found
            facts = _combine(version, [kept[id(phase)][1] for phase in latest.phases])
            with entry.lock:
                entry.phase_facts = kept
        with entry.lock:
            entry.facts, entry.facts_of = facts, _phases_of(latest)
        return facts

    def _agents(
        self, entry: _Entry, latest: phasetodo.Event | None, phases: Sequence[Mapping[str, Any]] | None = None
    ) -> list[str]:
        """Every agent named in the log (owner, writers, task owners); rescanned only on change."""
        version = latest.version if latest is not None else 0
        with entry.lock:
            if version != entry.agents_version:
                if latest is not None and version == entry.agents_version + 1:
                    events: Iterator[phasetodo.Event] = iter((latest,))
                elif 0 < entry.agents_version < version:  # only what is new (a watcher's step)
                    events = entry.log.events(entry.agents_version)
                else:
                    entry.agents = set()
                    events = entry.log.events()
                for event in events:
                    if event.agent is not None:
                        entry.agents.add(event.agent)
                entry.agents_version = version
            names = set(entry.agents)
        if latest is not None:
            names |= self._facts(entry, latest, phases).owners
        owner: str | None = entry.log.owner
        names.discard(owner)
        return ([owner] if owner else []) + sorted(names)

    def _is_team(self, entry: _Entry) -> bool:
        """Whether the plan is a team plan: the profile its log records, or for a log written
        before profiles were recorded the one inference of :func:`phasetodo.session.recorded_profile`."""
        return shared_by_name(recorded_profile(entry.log))

    def summary(self, session_id: str, *, listed: bool = False) -> dict[str, Any]:
        """One session for the sessions page: progress, agents, last change."""
        with self._use(session_id, listed=listed) as entry:
            latest = self._latest(entry)
            phases = phasetodo.dump_phases(latest.phases) if latest is not None else []
            agents = self._agents(entry, latest, phases)
            owner = entry.log.owner
        active = [
            task["content"]
            for phase in phases
            for task in phase.get("tasks", [])
            if task.get("status") == "in_progress"
        ]
        return {
            "id": session_id,
            "owner": owner,
            "agents": agents,
            "phases": len(phases),
            "active": active,
            **_counts(phases),
            **_event_head(latest),
        }

    def listing(self, offset: int = 0, limit: int = PAGE) -> Listing:
        """The sessions ``offset`` to ``offset + limit`` (by id) with their versions: one
        listing of the store, one cheap version read per session on the page."""
        ids = self.session_ids()
        page = ids[offset : offset + limit]
        return Listing(len(ids), offset, tuple((sid, self.version(sid, listed=True)) for sid in page))

    def sessions(self, offset: int = 0, limit: int = PAGE, listing: Listing | None = None) -> dict[str, Any]:
        """One page of the store's sessions (all of them, ``limit`` at a time), for the sessions
        page; from ``listing`` when given, else from a new one."""
        if listing is None:
            ids = self.session_ids()
            total, page = len(ids), ids[offset : offset + limit]
        else:
            total, page = listing.total, [sid for sid, _ in listing.versions]
        return {
            "read_only": self.read_only,
            "total": total,
            "offset": offset,
            "limit": limit,
            "sessions": [self.summary(sid, listed=True) for sid in page],
        }

    def fingerprint(self, offset: int = 0, limit: int = PAGE) -> Listing:
        """What changes when a session on the page (or how many there are) changes."""
        return self.listing(offset, limit)

    # -- one plan --------------------------------------------------------------------------------

    def _plan_head(
        self,
        session_id: str,
        entry: _Entry,
        latest: phasetodo.Event | None,
        phases: Sequence[Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Everything :meth:`plan` tells but the list itself."""
        with entry.lock:
            head = entry.ident
        return {
            "id": session_id,
            "head": head,
            "owner": entry.log.owner,
            "agents": self._agents(entry, latest, phases),
            "team": self._is_team(entry),
            "read_only": self.read_only,
            "counts": dict(self._facts(entry, latest, phases).counts),
            **_event_head(latest),
        }

    def plan(self, session_id: str) -> dict[str, Any]:
        """The newest list of one session with its version and last change."""
        with self._use(session_id) as entry:
            latest = self._latest(entry)
            phases = phasetodo.dump_phases(latest.phases) if latest is not None else []
            head = self._plan_head(session_id, entry, latest, phases)
        return {**head, "phases": phases}

    def plan_delta(self, session_id: str, since: str) -> tuple[str, str] | None:
        """The newest plan as a change from the list of head id ``since``, as compact JSON with
        its head id: :meth:`plan`'s fields but ``phases``, with ``since``, ``length`` (the number
        of phases) and ``changes`` (see :func:`plan_changes`). None when the board no longer
        holds that list (one of the last :data:`RECENT_LISTS` heads read, of this history),
        when nothing is newer, or when the change is most of the list: the whole plan is sent then.
        """
        with self._use(session_id) as entry:
            latest = self._latest(entry)
            with entry.lock:
                before = entry.lists.get(since)
                now = entry.ident
            if latest is None or before is None or now == since:
                return None
            total = sum(len(phase.tasks) for phase in latest.phases)
            changes = plan_changes(before, latest.phases, most=max(64, total // 4))
            if changes is None:
                return None
            head = self._plan_head(session_id, entry, latest)
        delta = {**head, "since": since, "length": len(latest.phases), "changes": changes}
        return head["head"], json.dumps(delta, separators=(",", ":"))

    def plan_text(self, session_id: str) -> tuple[str, str]:
        """:meth:`plan` as compact JSON with its head id, made once per head (a long plan's
        JSON takes a while, and every page that follows the plan wants the same text): callers
        that ask at once wait for the one making it."""
        with self._use(session_id) as entry, entry.making:
            self._latest(entry)
            with entry.lock:
                now = entry.ident
            cached = entry.text
            if cached is not None and cached[0] == now:
                return cached
            plan = self.plan(session_id)
            made = (plan["head"], json.dumps(plan, separators=(",", ":")))
            entry.text = made
        return made

    def markdown(self, session_id: str) -> dict[str, Any]:
        """The newest list as Markdown, for editing, with the version it shows."""
        with self._use(session_id) as entry:
            latest = self._latest(entry)
        phases = latest.phases if latest is not None else ()
        return {
            "id": session_id,
            "version": latest.version if latest is not None else 0,
            "markdown": phasetodo.phases_to_markdown(phases),
        }

    def history(self, session_id: str, since: int = 0, limit: int | None = None) -> dict[str, Any]:
        """The events after ``since`` (the newest ``limit`` of them): kind, who, when,
        and the diff from the event before; ``omitted`` counts the older ones left out."""
        previous: tuple[phasetodo.Phase, ...] = ()
        window: deque[tuple[tuple[phasetodo.Phase, ...], phasetodo.Event]] = deque(maxlen=limit)
        total = 0
        with self._use(session_id) as entry:
            owner = entry.log.owner
            for event in entry.log.events():
                if event.version > since:
                    window.append((previous, event))  # diffs only for what is kept
                    total += 1
                previous = event.phases
        out = [
            {
                **_event_head(event),
                "diff": phasetodo.diff_phases(before, event.phases).to_json(),
                **_counts(phasetodo.dump_phases(event.phases)),
            }
            for before, event in window
        ]
        return {
            "id": session_id,
            "owner": owner,
            "read_only": self.read_only,
            "version": out[-1]["version"] if out else self.version(session_id),
            "omitted": total - len(out),
            "events": out,
        }

    def at_version(self, session_id: str, version: int) -> dict[str, Any]:
        """The list as it was at ``version``; raises ``LookupError`` for a version the log lacks."""
        latest = self.version(session_id)
        with self._use(session_id) as entry:
            owner = entry.log.owner
            found = next((e for e in entry.log.events() if e.version == version), None)
        if found is not None:
            phases = phasetodo.dump_phases(found.phases)
            return {
                "id": session_id,
                "owner": owner,
                "read_only": self.read_only,
                "latest": latest,
                "phases": phases,
                "counts": _counts(phases),
                **_event_head(found),
            }
        raise LookupError(f"version: session {session_id!r} has versions 1 to {latest}, not {version}")

    # -- edits -----------------------------------------------------------------------------------

    def edit(self, session_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Apply one edit from the board as a ``user_edit`` event; returns the new plan.

        ``body`` holds ``expected_version`` (the version the page showed) and
        ``action`` with its fields. Raises :class:`phasetodo.VersionConflict`
        when the log has moved on, ``LookupError`` for an unknown session and
        ``ValueError`` naming the field for a bad edit; either way nothing is
        recorded. An edit that changes nothing records nothing. On a team plan the
        edit is a person's edit of the team profile, repaired to the team rules
        (a person claims nothing) before it is compared and recorded.
        """
        if self.read_only:
            raise PermissionError("the board is read-only")
        expected = body.get("expected_version")
        if type(expected) is not int or expected < 0:
            raise ValueError("expected_version: must be the version the page showed (an integer >= 0)")
        action = body.get("action")
        make = _ACTIONS.get(action) if isinstance(action, str) else None
        if make is None and action not in ("status", "unblock"):
            raise ValueError(f"action: must be one of {', '.join(['status', 'unblock', *_ACTIONS])}")
        with self._use(session_id):  # unknown ids fail here: Session.open would create them
            session = phasetodo.Session.open(session_id, self.store, resume="keep", clear_delay=-1)
        with session:
            if session.version != expected:
                raise phasetodo.VersionConflict(session_id, expected, session.version)
            if action == "status":  # a person's status change: the same path as the command's
                changed, waited = _person_status(session, body)
                return {"changed": changed, "plan": self.plan(session_id), "waited_for": waited}
            if action == "unblock":  # the team engine's own op, as ``phasetodo unblock`` runs it
                changed = _person_unblock(session, body)
                return {"changed": changed, "plan": self.plan(session_id)}
            current = phasetodo.dump_phases(session.phases)
            assert make is not None
            new = make(self, session_id, current, body)
            repair = session.profile.repair
            if repair is not None:  # what Session.user_edit will record, to compare with
                new = phasetodo.dump_phases(repair(phasetodo.load_phases(new)))
            changed = new != current
            if changed:  # the log's lock checks expected_version again as it appends
                session.user_edit(new, source="board", expected_version=expected)
        return {"changed": changed, "plan": self.plan(session_id)}

    def close(self) -> None:
        """Stop live feeds and release every open session."""
        self.closing.set()
        with self._lock:
            for entry in self._open.values():
                entry.log.close()
            self._open.clear()


_Make = Callable[[Board, str, list[dict[str, Any]], Mapping[str, Any]], list[dict[str, Any]]]


def _person_status(session: phasetodo.Session, body: Mapping[str, Any]) -> tuple[bool, list[str]]:
    """Give the task the page showed at ``phase``/``task`` the status ``status`` through
    :mod:`phasetodo.person`: whether a ``user_edit`` was recorded, and for a Done on a task that
    still waited for others, those (a person may close it anyway; the page says so). A refused
    edit raises ``ValueError`` naming the field; on a team plan a start names the ``agent`` it
    claims for."""
    current = phasetodo.dump_phases(session.phases)
    found = edits.task_at(current, body.get("phase"), body.get("task"), body.get("content"))
    waited = _open_after(current, found) if body.get("status") == "completed" else []
    status, agent = body.get("status"), body.get("agent")
    if agent is not None and (not isinstance(agent, str) or not agent.strip()):
        raise ValueError("agent: must be the name of the agent who claims the task")
    if status == "pending":
        outcome = person.reset_to_pending(session, found["content"], source="board")
    else:
        ops = person.status_ops(str(status) if isinstance(status, str) else "", found["content"])
        outcome = person.apply_edit(session, ops, source="board", agent=agent)
    if outcome.errors and not outcome.changed:
        raise ValueError("status: " + "; ".join(outcome.errors))
    return outcome.changed, waited if outcome.changed else []


def _open_after(phases: Sequence[Mapping[str, Any]], task: Mapping[str, Any]) -> list[str]:
    """The tasks ``task`` comes after (``after``, by content or id) that are still open, by content."""
    after = task.get("after") or []
    tasks = [t for phase in phases for t in phase.get("tasks", [])]
    named = {t.get("content"): t for t in tasks} | {t["id"]: t for t in tasks if t.get("id")}
    found = (named.get(name) for name in after)
    return [t["content"] for t in found if t is not None and t.get("status") not in _CLOSED]


def _person_unblock(session: phasetodo.Session, body: Mapping[str, Any]) -> bool:
    """Unblock the task the page showed at ``phase``/``task`` with the plan's ``unblock`` op (a team
    or todo plan's) through :mod:`phasetodo.person` (the command's path); whether a ``user_edit``
    was recorded."""
    if not person.can_block(session):
        raise ValueError("action: unblock is for team and todo plans (blocked tasks belong to them)")
    current = phasetodo.dump_phases(session.phases)
    found = edits.task_at(current, body.get("phase"), body.get("task"), body.get("content"))
    ops = [{"op": "unblock", "task": found["content"]}]
    outcome = person.apply_edit(session, ops, source="board")
    if outcome.errors and not outcome.changed:
        raise ValueError("unblock: " + "; ".join(outcome.errors))
    return outcome.changed


def _add(board: Board, sid: str, current: list[dict[str, Any]], body: Mapping[str, Any]) -> Any:
    return edits.add_task(current, body.get("phase"), body.get("content"))


def _rename(board: Board, sid: str, current: list[dict[str, Any]], body: Mapping[str, Any]) -> Any:
    return edits.rename(current, body.get("phase"), body.get("task"), body.get("name"), body.get("old"))


def _markdown(board: Board, sid: str, current: list[dict[str, Any]], body: Mapping[str, Any]) -> Any:
    text = body.get("markdown")
    if not isinstance(text, str):
        raise ValueError("markdown: must be the list as Markdown text")
    phases, errors = phasetodo.markdown_to_phases(text)
    if errors:
        raise ValueError("markdown: " + "; ".join(str(e) for e in errors))
    return phasetodo.dump_phases(phases)


def _restore(board: Board, sid: str, current: list[dict[str, Any]], body: Mapping[str, Any]) -> Any:
    version = body.get("version")
    if type(version) is not int:
        raise ValueError("version: must be the version to restore (an integer)")
    try:
        return board.at_version(sid, version)["phases"]
    except LookupError as error:
        raise ValueError(str(error)) from error


_ACTIONS: dict[str, _Make] = {
    "add": _add,
    "rename": _rename,
    "markdown": _markdown,
    "restore": _restore,
}
