"""The options of a call, as one frozen value: :class:`Options`.

A session or tool is made with its options (profile, limits, dry run, who
writes); each call may override some of them (:meth:`Options.override`), which
builds that call's options once. Internals pass the one value on instead of
re-declaring every option. :data:`UNSET` is "not given" for a per-call option,
where ``None`` can be a value of its own (``limits=None``: no limits).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypedDict

import attrs

from .._core.codec import as_phases
from .._core.engine import Outcome
from .._core.limits import DEFAULT_LIMITS, Limits
from .._core.model import Phase
from .builtin import ProfileLike, resolve
from .parity import PARITY
from .registry import CallContext, Profile
from .result import Storage, ToolResult

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["UNSET", "Options", "OptionsHolder", "Overrides", "ParsedCall", "PerCall", "Unset"]


class Unset(enum.Enum):
    """The type of :data:`UNSET`."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


#: "Not given": the option is the session's or tool's own (``None`` may mean "off").
UNSET: Final = Unset.UNSET


class PerCall(TypedDict, total=False):
    """What one call may override of its session's or state's options (``UNSET``: not given).

    ``profile=None`` is "not given" too; ``limits=None`` means no limits.
    """

    profile: ProfileLike | Unset | None
    limits: Limits | Unset | None
    dry_run: bool | Unset


#: The names :class:`PerCall` holds, checked at run time (a TypedDict is not).
_PER_CALL = frozenset(PerCall.__annotations__)


class Overrides(PerCall, total=False):
    """Every override :meth:`Options.override` takes: :class:`PerCall`'s and who writes, where."""

    agent: str | Unset | None
    lead: str | Unset | None
    scope: str | Unset | None
    storage: Storage | Unset
    lease: float | Unset | None


@attrs.frozen
class Options:
    """The options of a call: set when a session or tool is made, overridden per call.

    ``profile`` is a :class:`~phasetodo.Profile` or a built-in's name;
    ``limits=None`` means no limits; ``dry_run`` saves nothing; ``agent`` is
    who writes, ``lead`` a shared plan's lead and ``scope`` the phase a call on
    it is limited to; ``storage`` is what results report in ``details.storage``;
    ``lease`` (seconds) lets a shared plan's claims lapse that long after their
    holder's last write. Settings only: what a call runs at (its time, the list the
    caller last saw) is its :class:`~phasetodo.profiles.CallContext`, which a session builds.
    """

    profile: Profile = attrs.field(default=PARITY, converter=resolve)
    limits: Limits | None = DEFAULT_LIMITS
    dry_run: bool = False
    agent: str | None = None
    lead: str | None = None
    scope: str | None = None
    storage: Storage = "memory"
    lease: float | None = None

    def override(self, **given: Unpack[Overrides]) -> Options:
        """A copy with the values given; ``UNSET`` (and ``profile=None``) keep this one's."""
        changes: dict[str, Any] = {
            name: value
            for name, value in given.items()
            if value is not UNSET and not (name == "profile" and value is None)
        }
        return attrs.evolve(self, **changes) if changes else self

    def per_call(self, given: PerCall) -> Options:
        """:meth:`override` by a call's keywords, which may only be :class:`PerCall`'s."""
        unknown = sorted(set(given) - _PER_CALL)
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r}")
        return self.override(**given)

    @property
    def context(self) -> CallContext:
        """Who makes the call and on what, as these options say (no time, no list seen)."""
        if self.agent is None and self.lead is None and self.scope is None and self.lease is None:
            return _NOBODY
        return CallContext(self.agent, self.lead, self.scope, lease=self.lease)

    def run(
        self,
        params: object,
        phases: Sequence[Phase | Mapping[str, Any]] = (),
        context: CallContext | None = None,
    ) -> ToolResult:
        """One call with these options, arguments to result: the one pipeline every entry takes.

        Parse the arguments, check them against the limits, apply them for the call's
        :attr:`context`, report. Raises :class:`~phasetodo.InvalidParams` (nothing
        applied) for arguments that break the profile's schema or the limits. ``phases``
        is never modified: ``Phase`` values, or JSON dicts for a profile that
        ``takes_json`` (read once, into the working copy; a malformed list raises
        :class:`~phasetodo.InvalidPhases` naming the place). A dry run's result says what
        the call would change; saving it is the caller's choice (sessions do not).
        ``context`` is the call's, when its caller knows more than these options (a
        session: the plan's lead, the time, the list last seen); else :attr:`context`.
        """
        return self.parse(params).run(phases, context)

    def parse(self, params: object) -> ParsedCall:
        """The first half of :meth:`run`: the arguments parsed and checked against the limits,
        which needs no list (a session does it before it takes its plan's lock)."""
        ops = self.profile.parse(params)
        grows = self.limits is not None and self.limits.check_ops(ops)
        return ParsedCall(self, ops, grows)


@attrs.frozen
class ParsedCall:
    """A call's ops, parsed and within the limits (see :meth:`Options.parse`); ``grows``: whether
    they may add phases or tasks, so that the result is checked against the limits too."""

    options: Options
    ops: Any
    grows: bool

    def run(
        self, phases: Sequence[Phase | Mapping[str, Any]] = (), context: CallContext | None = None
    ) -> ToolResult:
        """The second half of :meth:`Options.run`: apply the ops to ``phases`` and report."""
        current = phases if isinstance(phases, tuple) else tuple(phases)
        return self.report(self.apply(current, context), current)

    def apply(
        self, phases: tuple[Phase | Mapping[str, Any], ...], context: CallContext | None = None
    ) -> Outcome:
        """The ops applied to ``phases``, the result checked against the limits (which raise
        ``InvalidParams``): what a write must do under the plan's lock."""
        options = self.options
        profile, limits = options.profile, options.limits
        outcome = profile.apply(phases, self.ops, context or options.context)  # type: ignore[arg-type]
        if self.grows:
            assert limits is not None
            count_phases, count_tasks = outcome.size()
            if count_phases > limits.max_phases or count_tasks > limits.max_tasks:
                limits.check_result(as_phases(phases), outcome.phases)
        return outcome

    def report(self, outcome: Outcome, phases: tuple[Phase | Mapping[str, Any], ...]) -> ToolResult:
        """The result of :meth:`apply`'s ``outcome`` on ``phases``: it needs no lock, so a
        session makes it once the write is appended and the lock let go."""
        options = self.options
        result = options.profile.report(outcome, options.storage)
        return result.as_dry_run(as_phases(phases)) if options.dry_run else result


#: The context of a call with no agent, lead or scope (most calls): made once.
_NOBODY = CallContext()


class OptionsHolder:
    """What a holder of one :class:`Options` (a session, a memory state) shows of it."""

    options: Options

    @property
    def profile(self) -> Profile:
        """The profile calls run in unless they name another."""
        return self.options.profile

    @property
    def limits(self) -> Limits | None:
        """The limits calls are checked against unless they give others (``None``: none)."""
        return self.options.limits

    @property
    def agent(self) -> str | None:
        """The agent calls write as (and, on a team plan, lead as) when they name none."""
        return self.options.agent
