"""Durable sessions: one agent's todo list kept as an append-only event log.

Every successful ``todo_write`` appends an event holding the validated ops it
applied (and the profile that ran them); a person's edit appends a distinct
``user_edit`` event and auto-clear a ``clear`` event, each as a structural
diff. Now and then the store writes a checkpoint (the whole list), so that
reopening a session reads one checkpoint and replays a bounded tail. Writes
hold the store's lock, build on the newest version in the log (another process
may have written since) and return only once their event is durable. Reads
(:attr:`Session.phases`, :attr:`Session.version`) look at the store's newest
version first, so they are never stale; :meth:`Session.watch` follows new events.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from operator import is_
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import attrs

from . import _watching
from ._core.codec import as_phases
from ._core.limits import DEFAULT_LIMITS, Limits
from ._core.model import Phase, Renewal, Status, keep_id_mark
from ._profiles.builtin import BUILTIN, ProfileLike
from ._profiles.options import Options, OptionsHolder, ParsedCall, PerCall
from ._profiles.registry import CallContext, Profile
from ._profiles.result import ResultJSON, Storage, ToolResult
from ._schedule import ClearSchedule
from .errors import (
    InvalidOption,
    InvalidOptionType,
    InvalidParams,
    NoAgentSession,
    NotSessionOwner,
    ProfileMismatch,
    RequestIdReused,
    SessionClosed,
    VersionConflict,
)
from .session_changes import Change, change, remove_closed, strip_closed
from .stores import Event, EventKind, JsonlStore, Log, Store, Verification
from .stores._base import Head, check_agent, head_of, newest_of
from .stores._renewals import LazyRenewals
from .stores._requests import (
    WINDOW,
    Request,
    answer,
    check_json_params,
    check_request_id,
    params_digest,
    reply_of,
    request_key,
)
from .stores._url import default_directory, store_from_url, warn_if_at_former_default

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "ResumePolicy",
    "ScopedSession",
    "Session",
    "default_directory",
    "recorded_profile",
    "run_auto_clear",
]

#: ``"strip"`` (the reference's default) drops completed and abandoned tasks
#: and the phases left empty when a session with history is reopened;
#: ``"keep"`` resumes the newest snapshot as it is.
ResumePolicy = Literal["strip", "keep"]

_T = TypeVar("_T")

#: A write's result, or what makes it once the plan's lock is let go (see :meth:`Session.write`).
_Reported = ToolResult | Callable[[], ToolResult]


def _reported(made: _Reported) -> ToolResult:
    """The write's result, made now if it was left for after the lock."""
    return made if isinstance(made, ToolResult) else made()


def _check_policies(resume: object, clear_delay: object) -> None:
    if resume not in ("strip", "keep"):
        raise InvalidOption(f"resume: must be 'strip' or 'keep', not {resume!r}")
    if isinstance(clear_delay, bool) or not isinstance(clear_delay, (int, float)):
        raise InvalidOptionType(f"clear_delay: must be a number of seconds, not {clear_delay!r}")
    if math.isnan(clear_delay):
        raise InvalidOption("clear_delay: must be a number of seconds, not NaN")


class Session(OptionsHolder):
    """One agent's todo list, durable in a store. Create it with :meth:`open`.

    ``phases`` and ``version`` are fresh: each read first looks at the store's
    newest version (a ``stat`` for JSONL, one indexed query for SQLite and
    PostgreSQL) and catches up when another writer appended.
    """

    def __init__(
        self,
        log: Log,
        *,
        agent: str | None = None,
        resume: ResumePolicy = "strip",
        clear_delay: float = 60.0,
        clock: Callable[[], float] = time.time,
        own_store: Store | None = None,
        profile: ProfileLike = "parity",
        limits: Limits | None = DEFAULT_LIMITS,
        options: Options | None = None,
    ) -> None:
        _check_policies(resume, clear_delay)
        base = Options(profile, limits) if options is None else options
        #: The defaults of every call: profile, limits, dry run, the agent it writes as, the storage.
        who = base.agent if agent is None else agent
        self.options = base.override(agent=check_agent(who), storage=log.storage)
        self._log = log
        self._clear_delay = float(clear_delay)
        self._clock = clock
        self._own_store = own_store
        self._closed = False
        #: The time the call under way runs at (read under the writer lock; the event's time).
        self._moment: float | None = None
        #: The newest event's time, as the last :meth:`_sync` read it (the plan's time so far).
        self._newest_time: float | None = None
        self._written: int | None = None
        self._schedule = ClearSchedule()
        self._last: tuple[tuple[Phase, ...], tuple[Phase, ...]] | Change | None = None
        #: The history this view holds (newest record's identity): compared, not the length.
        #: Read with the newest event as one (reading takes no lock and creates nothing).
        self._head, latest = newest_of(log)
        self._version = latest.version if latest is not None else 0
        phases = latest.phases if latest is not None else ()
        self._phases = strip_closed(phases) if resume == "strip" else phases
        #: What a stripped resume removed is logged as its own ``clear`` event (source
        #: ``"resume"``) just before the next change, so the history does not blame that change.
        self._strip_unlogged = self._phases != phases
        self._stripped = sum(len(p.tasks) for p in phases) - sum(len(p.tasks) for p in self._phases)
        self._reschedule()

    @classmethod
    def open(
        cls,
        session_id: str,
        store: Store | str | None = None,
        *,
        agent: str | None = None,
        resume: ResumePolicy | None = None,
        clear_delay: float = 60.0,
        clock: Callable[[], float] = time.time,
        profile: ProfileLike | None = None,
        limits: Limits | None = DEFAULT_LIMITS,
        lead: str | None = None,
        options: Options | None = None,
        lease: float | None = None,
    ) -> Session:
        """Open (or start) the session ``session_id`` in ``store``.

        ``store`` defaults to a :class:`JsonlStore` in :func:`default_directory`
        (``$PHASETODO_HOME/sessions``, else ``./.phasetodo``), the command's default too.
        It may also be any store string the command's ``--store`` takes (``todo.db``,
        ``sqlite:PATH``, ``jsonl:DIR``, a folder, ``memory:``, ``postgresql://...``), read
        by the same resolver with the same errors; the session then closes that store.
        ``agent`` names the agent that owns the session: a new log records it,
        and an existing log owned by another agent raises
        :class:`~phasetodo.errors.NotSessionOwner`. ``resume`` chooses what a
        session with history resumes with; ``clear_delay`` is the auto-clear
        delay in seconds (below 0 never, 0 at the next :meth:`tick`); ``clock``
        returns the time in seconds and is injectable for tests. ``profile`` (a
        name or a :class:`~phasetodo.Profile`) and ``limits`` (``None``: no
        limits) are the defaults of every call; a call may give its own.

        A plan's profile is recorded in its log (chained in its first record): an
        existing plan opened without ``profile`` runs in the profile it was made
        with (see :func:`recorded_profile`), and naming another raises
        :class:`~phasetodo.errors.ProfileMismatch`. A new plan without one is ``parity``.

        A shared profile (``profile="team"``) opens a plan many agents work:
        ``agent`` is the agent this handle writes as (``None``: a person), no
        agent is shut out, and a new log records the plan's lead (``lead``, else
        ``agent``). ``resume`` then defaults to ``"keep"``, since one agent's
        reopening must not strip the plan everyone shares (else ``"strip"``).

        ``options`` gives profile, limits and agent as one
        :class:`~phasetodo.tool.Options` value instead (then leave those out).

        ``lease`` (seconds, on a shared plan) lets this agent's claim lapse that
        long after its last write or :meth:`heartbeat`: another agent's ``start``
        may then take the task over, and this agent's later writes on it are
        refused. Without it claims never lapse. Expiry is reckoned from the times
        the log's events record (this session's ``clock``). A plan that is not
        shared has no claims: a lease there raises :class:`~phasetodo.errors.InvalidOption`.
        """
        named = profile is not None or options is not None
        if options is not None:
            if profile is not None or limits is not DEFAULT_LIMITS or agent is not None:
                raise InvalidOption("options: give profile, limits and agent in it, not beside it")
            agent = options.agent
        else:
            options = Options("parity" if profile is None else profile, limits, agent=agent)
        check_agent(agent)
        if lease is not None:
            if isinstance(lease, bool) or not isinstance(lease, (int, float)) or not 0 < lease < math.inf:
                raise InvalidOption(f"lease: must be a positive number of seconds, not {lease!r}")
            options = options.override(lease=float(lease))
        chosen = options.profile
        own: Store | None = None
        default: JsonlStore | None = None
        if store is None:
            store = own = default = JsonlStore(default_directory())
        elif isinstance(store, str):  # the command's store strings, through its own resolver
            store = own = store_from_url(store)
        log = store.open(
            session_id, owner=(lead or agent) if chosen.shared else agent, profile=chosen.name
        )
        try:
            options = _plan_options(log, options, named=named)
            chosen = options.profile
            if options.lease is not None and not chosen.shared:
                raise InvalidOption(
                    f"lease: session {session_id!r} is a {chosen.name} plan, whose tasks no agent "
                    "claims; a lease is for a team plan (profile='team'; --profile team on the command)"
                )
            if resume is None:
                resume = "keep" if chosen.shared else "strip"
            _check_policies(resume, clear_delay)
            if default is not None:
                warn_if_at_former_default(session_id, default.directory)
            if agent is not None and log.owner == agent:
                with log.lock():  # an agent's session is claimed at open; others create nothing
                    pass
            if chosen.shared:
                pass  # every agent may write a shared plan; the log's owner is its lead
            elif agent is not None and log.owner is not None and agent != log.owner:
                raise NotSessionOwner(
                    f"session {session_id!r} belongs to agent {log.owner!r}, not {agent!r}"
                )
            return cls(
                log, agent=agent, resume=resume, clear_delay=clear_delay, clock=clock,
                own_store=own, options=options,
            )
        except BaseException:
            log.close()
            if own is not None:
                own.close()
            raise

    # -- state -------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        """The session's id in its store."""
        return self._log.session_id

    @property
    def owner(self) -> str | None:
        """The agent the session belongs to, if the log records one."""
        return self._log.owner

    @property
    def storage(self) -> Storage:
        """What results report in ``details.storage``: ``"session"`` or ``"memory"``."""
        return self._log.storage

    @property
    def phases(self) -> tuple[Phase, ...]:
        """The current list: the newest event in the store, whoever wrote it."""
        self._fresh()
        return self._phases

    @property
    def version(self) -> int:
        """How many events the store's log holds now (0 for a new session)."""
        self._fresh()
        return self._version

    @property
    def renewals(self) -> Mapping[str, Renewal]:
        """The claims' deadlines that heartbeats renewed, by task id, as the store keeps them
        beside the log (see :meth:`heartbeat`); empty on a store that has no such table."""
        read = getattr(self._log, "renewals", None)
        return dict(read()) if callable(read) else {}

    def _lazy_renewals(self, profile: Profile) -> Mapping[str, Renewal]:
        """:attr:`renewals` for a call of ``profile``, read only if the engine looks."""
        if not profile.shared or not callable(getattr(self._log, "renewals", None)):
            return {}
        return LazyRenewals(lambda: self.renewals)

    @property
    def written(self) -> int | None:
        """The version the newest write through this session object was acknowledged at, or None.

        That is the event it appended, or, for a retry answered from its request id, the event
        the first call appended. Unlike :attr:`version` it never moves when other writers append.
        """
        return self._written

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    @property
    def last_change(self) -> Change | None:
        """What the newest change this session saw did (``.completed`` for UIs)."""
        last = self._last
        if isinstance(last, tuple):  # the diff is built on first use, not on every write
            last = self._last = change(*last)
        return last

    @property
    def clock(self) -> Callable[[], float]:
        """The clock that stamps events and drives auto-clear."""
        return self._clock

    def refresh(self) -> tuple[Phase, ...]:
        """Catch up with events other writers appended; returns the list.

        Reading :attr:`phases` or :attr:`version` does this already.
        """
        self._check_open()
        return self._sync()

    def events(self, after: int = 0) -> Iterator[Event]:
        """The log's events above version ``after`` in order, each with the list after it."""
        self._check_open()
        return self._log.events(after)

    def logged_phases(self) -> tuple[Phase, ...]:
        """The newest list in the log, before any resume stripping."""
        self._check_open()
        latest = self._log.latest()
        return latest.phases if latest is not None else ()

    def watch(self, timeout: float | None = None, *, after: int | None = None) -> Iterator[Event]:
        """Yield each new event as it lands in the store, whoever wrote it, in version order.

        Starts after this session's current version (or after ``after``) and
        keeps :attr:`phases` up to date as it goes. Stops once ``timeout``
        seconds pass without a new event (``None``: never) or the session
        closes. JSONL and SQLite poll cheaply; PostgreSQL waits on LISTEN/NOTIFY.
        A log replaced under the watch (a checkout, a restore) is adopted whole.
        """
        return _watching.watch(_Followed(self), timeout, after=after)

    def awatch(self, timeout: float | None = None, *, after: int | None = None) -> AsyncIterator[Event]:
        """:meth:`watch` for asyncio: waits in a worker thread, never blocking the loop.

        The waits run on a pool of the session layer (32 threads, made on first
        use), not on the loop's default pool, and each holds its thread for at
        most a quarter of a second before queueing again: any number of
        watchers share the pool in turn, none waits behind another's quiet
        session, and a closed session stops within a slice.
        """
        return _watching.awatch(_Followed(self), timeout, after=after)

    def compact(self) -> None:
        """Rewrite the log in the newest format (deltas and checkpoints), keeping its history.

        Every record gets a hash chaining it to the one before (a log written before
        the chain existed gains it here); the chain starts again over the whole log.
        """
        self._check_open()
        self._log.compact()

    def verify(self) -> Verification:
        """Check every record of the log against the hash chain and the version order.

        Returns a :class:`~phasetodo.stores.Verification`: ``ok``, or the first
        ``version`` whose record was altered, removed or reordered and the
        ``reason``. Opening a log already checks every record's link, raw, and warns
        with :class:`~phasetodo.errors.TamperedLogWarning` naming the same version;
        this also parses every record and returns what it found.
        """
        self._check_open()
        check = getattr(self._log, "verify", None)
        if not callable(check):
            raise InvalidOption(f"verify: the log of session {self.session_id!r} cannot be verified")
        result: Verification = check()
        return result

    # -- writes ------------------------------------------------------------------

    def todo_write(
        self,
        params: Mapping[str, Any],
        *,
        agent: str | None = None,
        expected_version: int | None = None,
        request_id: str | None = None,
        **given: Unpack[PerCall],
    ) -> ResultJSON:
        """One ``todo_write`` call on the session, durable before it returns.

        Returns the same dict as :func:`phasetodo.todo_write`, with
        ``details.storage`` naming the store kind; :meth:`write` gives the
        typed result. Raises :class:`~phasetodo.InvalidParams` (nothing
        appended) for bad arguments, :class:`~phasetodo.errors.VersionConflict`
        when ``expected_version`` is given and the log has moved on, and
        :class:`~phasetodo.errors.NoAgentSession` or
        :class:`~phasetodo.errors.NotSessionOwner` when the session belongs to
        an agent and the call does not come from it.

        ``request_id`` makes the call exactly once: a call whose id is already in
        the log (written by any process, within at least the last 10,000 events)
        returns the first call's result again and appends nothing; the same id
        with other params raises :class:`~phasetodo.errors.RequestIdReused`. A
        refused call (an error result that appends nothing) is not remembered.
        """
        return self.write(
            params, agent=agent, expected_version=expected_version, request_id=request_id, **given
        ).to_json()

    def write(
        self,
        params: Mapping[str, Any],
        *,
        agent: str | None = None,
        expected_version: int | None = None,
        scope: str | None = None,
        request_id: str | None = None,
        **given: Unpack[PerCall],
    ) -> ToolResult:
        """:meth:`todo_write`, returning the typed :class:`~phasetodo.ToolResult`.

        ``profile``, ``limits`` and ``dry_run`` (:class:`~phasetodo.tool.PerCall`)
        override the session's :attr:`options` for this call only; left out
        (``UNSET``; ``profile=None`` too) they are the session's. An error result
        of an all-or-nothing profile (strict) appends nothing. ``dry_run=True``
        applies the call to the newest list without appending anything and
        returns the would-be result with ``details.diff``. ``scope`` limits a
        call on a shared plan to one phase (see :meth:`scoped`). ``request_id``
        is as in :meth:`todo_write` (a dry run ignores it).
        """
        request_id = check_request_id(request_id)
        check_json_params(params)  # what the log could not record (nor a request id digest)
        options = self.options.per_call(given).override(scope=scope)
        chosen = options.profile
        seen = self._phases if chosen.shared else None  # what this handle last saw of the plan
        options = options.override(agent=self._writer(agent, chosen))
        try:
            parsed: ParsedCall | None = options.parse(params)  # needs no list: before the lock
        except InvalidParams:
            if request_id is None:
                raise
            parsed = None  # a reused request id is reported first: parsed again under the lock

        def make(current: tuple[Phase, ...]) -> tuple[tuple[Phase, ...] | None, _Reported]:
            # The lead is read when the call runs: taking the lock may have created the log;
            # the time is the one the event will record, so a lease lapses by the log's times.
            lead = self._log.owner if chosen.shared else None
            call = CallContext(
                options.agent, lead, options.scope, self._moment, options.lease, seen,
                self._lazy_renewals(chosen),
            )
            run = parsed or options.parse(params)
            outcome = run.apply(current, call)
            if outcome.errors and chosen.atomic:  # an atomic profile's errors are its error results
                return None, run.report(outcome, current)  # refused: nothing applied, nothing appended
            if request_id is not None:  # the reply is logged with the event, under the lock
                return outcome.phases, run.report(outcome, current)
            return outcome.phases, lambda: run.report(outcome, current)  # made once the lock is let go

        if options.dry_run:
            self._moment = float(self._clock())
            return _reported(make(self.refresh())[1])

        # The log keeps the validated ops and replays them with the same built-in
        # profile and agent; a call of a profile it could not name again is kept
        # as what it changed. So is a call on a shared plan: it also depends on
        # the plan's lead and the call's scope, which a replay would not know.
        replayable = _builtin(chosen) and not chosen.shared and not chosen.own_json and scope is None

        def ops() -> tuple[Any, ...] | None:  # asked once the call validated them
            return tuple(params["ops"]) if replayable else None

        if request_id is None:
            return _reported(self._commit("write", make, expected_version, options=options, ops=ops))
        return _reported(self._commit(
            "write", make, expected_version, options=options, ops=ops,
            request=(request_id, params_digest(params)),
        ))

    def heartbeat(self) -> float | None:
        """Say that this handle's agent is alive: its claim's lease starts again from now.

        On a shared plan with a ``lease`` (see :meth:`open`), an agent that works long
        between writes calls this so that its claim does not lapse. Every store of this
        package keeps the new deadline beside the log, not in it (:attr:`renewals`, one
        entry per agent, replaced under the plan's lock): every process sees it and the
        permanent history does not grow. A store without such a table gets a ``write``
        event (with no ops) instead. Returns that deadline, or ``None`` when nothing was
        renewed (no lease, no agent, or the agent holds no task).
        """
        return self._beat(self.options)

    def _beat(self, options: Options) -> float | None:
        """:meth:`heartbeat` with ``options``' agent, scope and lease."""
        chosen = options.profile
        if options.lease is None or options.agent is None or not chosen.shared:
            return None
        if callable(getattr(self._log, "renew", None)):
            renewed = self._renew(options.agent, options.lease)
            if renewed is not False:
                return renewed

        def make(current: tuple[Phase, ...]) -> tuple[tuple[Phase, ...] | None, float | None]:
            call = CallContext(options.agent, self._log.owner, options.scope, self._moment, options.lease)
            after = chosen.apply(current, (), call).phases
            if len(after) == len(current) and all(map(is_, after, current)):
                return None, None  # nothing to renew: the engine gave the same values back
            return after, (self._moment or 0.0) + (options.lease or 0.0)

        return self._commit("write", make, None, options=options)

    def _renew(self, agent: str, lease: float) -> float | Literal[False] | None:
        """Renew ``agent``'s claim in the store's table beside the log, under the plan's lock;
        the new deadline, ``None`` if it holds no task, or False for a claim with no lease
        yet (its first deadline is a write's)."""
        self._check_open()
        with self._log.lock():
            held = _claim_of(self._sync(), agent)
            if held is None:
                return None
            ident, epoch = held
            if ident is None or epoch is None:
                return False
            self._moment = moment = self._plan_now()
            renewal = Renewal(ident, agent, epoch, moment + lease)
            kept = {
                r.task: r
                for r in self.renewals.values()
                if r.agent != agent and r.task != ident and r.until > moment - _RENEWALS_KEPT
            }
            self._log.renew({**kept, ident: renewal})  # type: ignore[attr-defined]
        return renewal.until

    def scoped(self, *, agent: str, phase: str) -> ScopedSession:
        """A handle for a subagent that sees and changes only ``phase`` of this shared plan.

        Its calls are made as ``agent`` in this session's profile; ``start {}``
        looks only in ``phase``. Closing it leaves this session open. ``phase``
        need not be in the plan yet (a later ``init`` or ``append`` may add it),
        but every call of the handle while the plan lacks it is an error result
        that names it and the plan's phases, and changes nothing.
        """
        if not self.profile.shared:
            raise InvalidOption(f"scoped: needs a shared profile such as 'team', not {self.profile.name!r}")
        return ScopedSession(self, agent, phase)

    def user_edit(
        self,
        phases: Iterable[Phase | Mapping[str, Any]],
        *,
        source: str = "markdown",
        expected_version: int | None = None,
    ) -> Change:
        """Replace the list with a person's edit; returns what changed.

        Appends a ``user_edit`` event tagged with ``source`` (``"markdown"``,
        ``"cli"``, ...); feed the returned :class:`Change` to
        :func:`phasetodo.reminders.user_edit_reminder` to tell the model.
        """
        if not isinstance(source, str) or not source:
            raise InvalidOption("source: must be a non-empty string")
        load = self.profile.load  # a profile with JSON of its own reads it (todo: blockers, drops)
        edited = tuple(as_phases(phases)) if load is None else load(list(phases))
        repair = self.profile.repair

        def make(current: tuple[Phase, ...]) -> tuple[tuple[Phase, ...], None]:
            new = keep_id_mark(edited, current)  # ids are never issued twice, edits or not
            return (repair(new) if repair is not None else new), None

        self._commit("user_edit", make, expected_version, source=source)
        last = self.last_change
        assert last is not None
        return last

    def tick(self) -> Change | None:
        """Auto-clear the settled tasks whose delay has passed (completed and abandoned ones;
        the profile may say otherwise: see :attr:`~phasetodo.Profile.settled`).

        A host calls it between turns (or runs :func:`run_auto_clear`); it
        appends a ``clear`` event when something was due and returns its change.
        """
        self._check_open()
        now = self._clock()
        if not self._schedule.any_due(now):
            return None
        with self._log.lock():
            current = self._sync()
            due = self._schedule.due(now)
            after = remove_closed(current, due, self.profile.settled)
            if after == current:
                return None
            version = self._version + 1
            self._log.append(Event(version, "clear", self._plan_now(), after))
        self._advance_to(version, after)  # committed once the lock is released
        return self.last_change

    def next_deadline(self) -> float | None:
        """The clock time of the next auto-clear, or None when nothing waits."""
        return self._schedule.next()

    def close(self) -> None:
        """Release the log (and the default store, if this session made it)."""
        if self._closed:
            return
        self._closed = True
        self._log.close()
        if self._own_store is not None:
            self._own_store.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def resume_stripped(self) -> int:
        """How many finished tasks ``resume="strip"`` left out of the list this session
        resumed with (0 once the list moved on: a write, or another writer's newer list).
        They are still in the log (:meth:`logged_phases`, ``phasetodo show``)."""
        return self._stripped if self._strip_unlogged else 0

    def _stripped_note(self) -> str:
        """What the resume left out and how to keep it, while this view shows the stripped list."""
        count = self.resume_stripped
        if not count:
            return ""
        tasks = "task" if count == 1 else "tasks"
        return (
            f"resume='strip' left out {count} finished {tasks} (in the log: logged_phases(); "
            "Session.open(..., resume='keep') keeps them)"
        )

    def __repr__(self) -> str:
        note = self._stripped_note()
        return (
            f"<Session {self.session_id!r} version={self._version} storage={self.storage!r}"
            f"{' closed' if self._closed else ''}{'; ' + note if note else ''}>"
        )

    # -- notebook display (see phasetodo._views.render) -----------------------------------

    def _display_title(self) -> str:
        note = self._stripped_note()
        return f"session {self.session_id} · version {self.version}{' · ' + note if note else ''}"

    def _repr_html_(self) -> str:
        from ._views.render import render_html

        return render_html(self.phases, title=self._display_title())

    def _repr_markdown_(self) -> str:
        from ._views.render import render_markdown

        return render_markdown(self.phases, title=self._display_title())

    def _repr_mimebundle_(
        self, include: object = None, exclude: object = None
    ) -> dict[str, str]:
        from ._views.render import mimebundle

        return mimebundle(self.phases, title=self._display_title())

    # -- internals ---------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise SessionClosed(f"session {self.session_id!r} is closed")

    def _writer(self, agent: str | None, profile: Profile) -> str | None:
        writer = agent if agent is not None else self.options.agent
        if profile.shared:
            return writer  # any agent, or a person, writes a shared plan
        owner = self._log.owner
        if owner is None:
            return writer
        if writer is None:
            raise NoAgentSession(
                f"session {self.session_id!r} belongs to agent {owner!r}: todo_write needs "
                f"that agent's session (Session.open(..., agent={owner!r}) or agent=...)"
            )
        if writer != owner:
            raise NotSessionOwner(
                f"session {self.session_id!r} belongs to agent {owner!r}, not {writer!r}"
            )
        return writer

    def _commit(
        self,
        kind: EventKind,
        make: Callable[[tuple[Phase, ...]], tuple[tuple[Phase, ...] | None, _T]],
        expected_version: int | None,
        *,
        source: str | None = None,
        options: Options | None = None,
        ops: Callable[[], tuple[Any, ...] | None] | None = None,
        request: tuple[str, str] | None = None,
    ) -> _T:
        """Append what ``make`` builds on the newest list, under the lock; returns its result.

        ``options`` are a write's (its writer and profile go into the event);
        ``ops`` gives the validated ops to log, once ``make`` checked them.
        ``request`` (a write's request id and params digest) answers a retry from
        the event that id already made, and records the reply with a new event.
        """
        self._check_open()
        ahead = getattr(self._log, "read_ahead", None)
        if callable(ahead):  # what others appended is read before the lock, not under it
            ahead()
        with self._log.lock():
            if options is not None:  # the lock created the log, maybe with another agent as owner
                self._writer(options.agent, options.profile)
            current = self._sync()
            if request is not None:  # before the version check: a retry comes after its own write
                found = self._find_request(self._request_key(request[0], options))
                if found is not None and found.request is not None:
                    if found.request.params != request[1]:
                        raise RequestIdReused(self.session_id, request[0], found.version)
                    self._written = found.version  # the retry is acknowledged where its first call was
                    return answer(found.request, found.phases).with_storage(self.storage)  # type: ignore[return-value]
            if expected_version is not None and expected_version != self._version:
                raise VersionConflict(self.session_id, expected_version, self._version)
            self._moment = moment = self._plan_now()  # what ``make`` runs at, the event's time
            after, result = make(current)
            if after is None:  # the call was refused: nothing to append
                return result
            if self._strip_unlogged:  # the resume's strip, logged before what builds on it
                self._log.append(Event(self._version + 1, "clear", moment, current, "resume"))
                self._version += 1
                self._strip_unlogged = False
            version = self._version + 1
            done = ops() if ops is not None else None
            agent = options.agent if options is not None else None
            profile = options.profile.name if options is not None else None
            asked = None
            if request is not None and isinstance(result, ToolResult):
                reply = reply_of(result, after, dumped=_lists(options))
                asked = Request(request[0], request[1], reply, agent, options.scope if options else None)
            event = Event(
                version, kind, moment, after, source, agent, done, profile, asked
            )  # the profile even without ops: it tells a team plan's writes from others
            self._log.append(event)
        # Only once the lock is released is the event committed (SQLite commits then):
        # a failed commit raised above and left this view on the saved state.
        self._written = version
        self._advance_to(version, after)
        return result

    @staticmethod
    def _request_key(request_id: str, options: Options | None) -> str:
        """What the log remembers ``request_id`` by for this caller: its agent and scope too."""
        if options is None:
            return request_key(None, None, request_id)
        return request_key(options.agent, options.scope, request_id)

    def _plan_now(self) -> float:
        """The plan's time for the write under way: the store's clock where it has one (the
        PostgreSQL server's), else this session's, but never before the newest event's time
        (read by :meth:`_sync` under the lock), so event times never go backwards and lease
        deadlines are reckoned on one time line (see docs/teams.md, Clocks)."""
        served = getattr(self._log, "now", None)
        now = served() if callable(served) else None
        now = float(self._clock()) if now is None else now
        newest = self._newest_time
        return now if newest is None or now >= newest else newest

    def _find_request(self, key: str) -> Event | None:
        """The event a write with request ``key`` appended, among at least the last WINDOW events."""
        find = getattr(self._log, "find_request", None)
        if callable(find):
            found: Event | None = find(key)
            return found
        for event in self._log.events(max(0, self._version - WINDOW)):
            if event.request is not None and event.request.key == key:
                return event
        return None

    def _fresh(self) -> None:
        """Catch up if the store holds another history than this view (a cheap look)."""
        if not self._closed and head_of(self._log) != self._head:
            self._sync()

    def _sync(self) -> tuple[Phase, ...]:
        """Adopt the log's newest event if another writer appended, or the log was replaced.

        The history is told by its head (the newest record's identity), not its
        length: a log replaced by one with as many events, or fewer, is adopted whole,
        so no write is built on a list the log no longer holds.
        """
        head, latest = newest_of(self._log)
        version = latest.version if latest is not None else 0
        self._newest_time = latest.time if latest is not None else None
        phases = latest.phases if latest is not None else ()
        if head == self._head or (version == self._version and phases == self._phases):
            self._head = head  # the same history (re-hashed by a compaction, or our own write)
        elif version > self._version:
            self._advance_to(version, phases)
        else:  # another history with as many events, or fewer: adopt it whole
            self._version = -1
            self._advance_to(version, phases)
        self._head = head
        return self._phases

    def _advance_to(self, version: int, phases: tuple[Phase, ...]) -> None:
        """Adopt ``phases`` as ``version``, unless this view already saw a newer one."""
        if version <= self._version and version != 0:
            return
        self._last = (self._phases, phases)
        self._version, self._phases = version, phases
        self._strip_unlogged = False  # a newer list than the one the resume stripped
        self._reschedule()

    def _reschedule(self) -> None:
        """Deadlines for closed tasks: kept while closed, dropped when reverted."""
        if self._clear_delay < 0:
            self._schedule.clear()
        else:
            self._schedule.update(self._phases, self._clock(), self._clear_delay, self.profile.settled)


@attrs.frozen
class _Followed:
    """A session's view of its log as :mod:`phasetodo._watching` follows it."""

    session: Session

    @property
    def log(self) -> Log:
        return self.session._log

    @property
    def head(self) -> Head:
        return self.session._head

    @property
    def closed(self) -> bool:
        return self.session._closed

    @property
    def version(self) -> int:
        return self.session.version

    def sync(self) -> tuple[Phase, ...]:
        return self.session._sync()

    def advance_to(self, version: int, phases: tuple[Phase, ...]) -> None:
        self.session._advance_to(version, phases)


async def run_auto_clear(session: Session, *, poll: float = 1.0) -> None:
    """Call ``session.tick()`` as deadlines fall due, until the session closes.

    An asyncio helper for hosts with an event loop; it sleeps until the next
    deadline (at most ``poll`` seconds, so it notices new ones and closing).
    """
    import asyncio  # only hosts with an event loop pay for importing it

    while not session.closed:
        session.tick()
        deadline = session.next_deadline()
        wait = poll if deadline is None else min(poll, max(0.0, deadline - session.clock()))
        await asyncio.sleep(wait)




def recorded_profile(log: Log) -> str | None:
    """The name of the profile a plan was made with: what its log's chained first record names;
    for a log written before the profile was recorded, ``"team"`` when a task carries an owner,
    reason or ``after`` or the newest event is a team write; None for an empty log or no answer.

    This is the one answer to "what kind of plan is this" (a session's :attr:`Session.profile`
    is taken from it); the inference for old logs lives here only.
    """
    latest = log.latest()  # reads the log first: its first record names the profile
    recorded = getattr(log, "profile", None)
    if isinstance(recorded, str):
        return recorded
    if latest is None:
        return None
    if any(t.has_team_fields for p in latest.phases for t in p.tasks):
        return "team"
    return "team" if latest.profile == "team" else None  # no scan: opening must stay cheap


def _plan_options(log: Log, options: Options, *, named: bool) -> Options:
    """``options`` with the profile the plan records; raises
    :class:`~phasetodo.errors.ProfileMismatch` when ``named`` names another."""
    recorded = recorded_profile(log)
    asked = options.profile.name
    if recorded is None or recorded == asked:
        return options
    if named or recorded not in BUILTIN:
        raise ProfileMismatch(log.session_id, recorded, asked)
    return options.override(profile=BUILTIN[recorded])


#: How long a renewal stays in the table after its deadline passed, in seconds: kept that
#: long, a lapsed claim's deadline reads as its holder last renewed it.
_RENEWALS_KEPT = 3600.0


def _claim_of(phases: tuple[Phase, ...], agent: str) -> tuple[str | None, int | None] | None:
    """The id and lease epoch of ``agent``'s claim (its in-progress task), None if it has none."""
    for phase in phases:
        for task in phase.tasks:
            if task.owner == agent and task.status is Status.IN_PROGRESS:
                lease = task.lease
                return task.id, lease.epoch if lease is not None and lease.until is not None else None
    return None


def _builtin(profile: Profile) -> bool:
    """Whether ``profile`` is one of phasetodo's own (whose behaviour the log can rely on)."""
    return BUILTIN.get(profile.name) is profile


def _lists(options: Options | None) -> bool:
    """Whether a call's ``details.phases`` is its whole list as JSON: a built-in profile's
    unscoped call (a scoped one shows one phase; another profile may show anything)."""
    if options is None or options.scope is not None:
        return False
    return _builtin(options.profile) and not options.profile.own_json


class ScopedSession:
    """A subagent's handle on one phase of a shared plan (see :meth:`Session.scoped`).

    Calls are made as ``agent`` and may only see and change ``phase``; the
    parent session, and every other handle, sees the whole plan. It is a
    :class:`~phasetodo.tool.TodoState`, so a ``TodoWriteTool`` can sit on it.

    The phase must be in the plan when a call runs: on the newest version,
    under the store's writer lock, a call on a plan without it is refused as an
    error result (``is_error``, nothing appended) that names the phase and the
    plan's phases, whatever its ops (an ``append`` to the phase included: the
    lead adds it). Reads of such a handle (:attr:`phases`) are empty.
    """

    def __init__(self, parent: Session, agent: str, phase: str) -> None:
        if not isinstance(agent, str) or not agent:
            raise InvalidOptionType("agent: must be a non-empty string")
        if not isinstance(phase, str) or not phase:
            raise InvalidOptionType("phase: must be a non-empty string")
        self.parent = parent
        self.agent = agent
        self.phase = phase

    @property
    def storage(self) -> Storage:
        """What results report in ``details.storage``."""
        return self.parent.storage

    @property
    def phases(self) -> tuple[Phase, ...]:
        """The scoped phase, as the parent last saw the plan."""
        return tuple(p for p in self.parent.phases if p.name == self.phase)

    @property
    def plan(self) -> tuple[Phase, ...]:
        """The whole plan, as the parent last saw it (what the scoped phase's tasks may wait for)."""
        return self.parent.phases

    def refresh(self) -> tuple[Phase, ...]:
        """Catch up with other writers; returns the scoped phase."""
        self.parent.refresh()
        return self.phases

    def write(
        self,
        params: Mapping[str, Any],
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        **given: Unpack[PerCall],
    ) -> ToolResult:
        """One call as this handle's agent, limited to its phase (an error result
        if the plan does not have the phase); ``request_id`` as in :meth:`Session.todo_write`."""
        return self.parent.write(
            params, agent=self.agent, expected_version=expected_version, scope=self.phase,
            request_id=request_id, **given,
        )

    def todo_write(
        self,
        params: Mapping[str, Any],
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        **given: Unpack[PerCall],
    ) -> ResultJSON:
        """:meth:`write`, as the JSON result."""
        return self.write(params, expected_version=expected_version, request_id=request_id, **given).to_json()

    def heartbeat(self) -> float | None:
        """:meth:`Session.heartbeat` for this handle's agent: its claim in the phase starts its
        lease again from now; the new deadline, or ``None`` when nothing was appended."""
        return self.parent._beat(self.parent.options.override(agent=self.agent, scope=self.phase))
