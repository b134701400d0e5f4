"""Where a team call's tasks are: the working copy's lookups, in the caller's view.

:class:`TeamPlaces` is the base of a team call's working copy (see
:class:`~phasetodo._profiles.team.engine.TeamWork`): it holds who calls, on what scope and
at what time, and answers where a task is, who holds it and what the caller sees.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..._core.columns import Columns
from ..._core.model import Phase, Renewal, Status, lapses_at
from .columns import BLOCKED, HELD, Place, TeamColumn, live, team_columns

__all__ = ["TeamPlaces"]


class TeamPlaces(Columns):
    """The working copy of one team call, on the shared columns, for one caller.

    ``agent`` is the caller (``None``: a person), ``lead`` the agent that may change
    tasks other agents hold, ``scope`` the one phase the caller sees (``None``: all),
    ``now`` the call's time and ``lease`` the seconds the caller's claim lasts after it;
    ``renewals`` the heartbeats' deadlines kept beside the log, by task id (see
    :meth:`until_of`).
    """

    cols: list[TeamColumn]  # type: ignore[assignment]
    column = TeamColumn

    def __init__(
        self,
        phases: Sequence[Phase],
        agent: str | None = None,
        lead: str | None = None,
        scope: str | None = None,
        now: float | None = None,
        lease: float | None = None,
        renewals: Mapping[str, Renewal] | None = None,
    ) -> None:
        super().__init__(phases, team_columns(phases))  # type: ignore[arg-type]
        self.now = now
        self.lease = lease
        self.renewals: Mapping[str, Renewal] = {} if renewals is None else renewals  # read when looked at
        #: Claims of other agents whose lease lapsed by ``now``: ready to be taken over.
        self.lapsed: dict[Place, None] = {}
        self.agent = agent
        self.find_lapsed()
        self.scope = scope
        self.privileged = agent is None or (lead is not None and agent == lead)
        self.lead = lead
        self.notices: list[str] = []
        self.released = False  # the caller closed or blocked its active task
        #: The plan's id high-water mark: the number of the last ``t<N>`` issued (``None``
        #: until first needed; then read from the phases' ``last_id``, else the ids).
        self.last_read = max((p.last_id for p in phases), default=0)
        self.last_issued: int | None = None
        self._by_id: dict[str, str] | None = None  # id -> content, built after a few id lookups
        self.id_scans = 0  # ids looked up by scanning the columns so far

    def find_lapsed(self) -> None:
        """The claims of other agents whose lease ended by ``now`` (:attr:`lapsed`)."""
        now, agent = self.now, self.agent
        self.lapsed = {}
        if now is None:
            return
        for col, index in self.active:
            held = col.leases[index]
            if held is None or held.until is None or held.until > now or col.owners[index] == agent:
                continue  # a renewal only moves a deadline later: no need to look it up
            until = self.until_of(col, index)
            if until is not None and until <= now:
                self.lapsed[(col, index)] = None

    def until_of(self, col: TeamColumn, index: int) -> float | None:
        """When the claim on the task lapses: its lease's deadline, or a later one that a
        heartbeat of the same claim left in :attr:`renewals`."""
        held, ident = col.leases[index], col.ids[index]
        if held is None or held.until is None or ident is None:  # no deadline: renewals not read
            return None if held is None else held.until
        return lapses_at(held, col.owners[index], self.renewals.get(ident))

    def place(self, content: str) -> Place | None:
        """Where the live task ``content`` is (its first place), or None: the first few
        lookups of a call scan the columns, later ones build the content index."""
        return self.locate(content)  # type: ignore[return-value]

    def status_of(self, content: str) -> Status | None:
        """The status of the live task ``content``, or None when there is none."""
        found = self.locate(content)
        return None if found is None else found[0].statuses[found[1]]

    def order(self, places: Iterable[Place]) -> list[Place]:
        """``places`` in plan order."""
        number = {id(col): n for n, col in enumerate(self.cols)}
        return sorted(places, key=lambda p: (number[id(p[0])], p[1]))

    def shown(self) -> list[TeamColumn]:
        """The phases the caller sees."""
        scope = self.scope
        return self.cols if scope is None else [c for c in self.cols if c.name == scope]

    def in_scope(self) -> Iterable[Place]:
        """The tasks the caller may see and change, in plan order."""
        for col in self.shown():
            for index in live(col):
                yield col, index

    def active_of(self, agent: str) -> Place | None:
        """The task ``agent`` has in progress (the first in plan order), or None."""
        mine = [p for p in self.active if p[0].owners[p[1]] == agent]
        if len(mine) > 1:
            mine = self.order(mine)
        return mine[0] if mine else None

    def held(self) -> list[Place]:
        """The tasks in progress or blocked, in plan order."""
        out = list(self.active)
        for col in self.cols:
            if BLOCKED in col.statuses:
                out += [(col, i) for i, s in enumerate(col.statuses) if s is BLOCKED]
        return self.order(out)

    def held_by_other(self, col: TeamColumn, index: int) -> bool:
        """Whether another agent than the caller holds the task (in progress or blocked)."""
        owner = col.owners[index]
        return owner is not None and owner != self.agent and col.statuses[index] in HELD

    def _new_col(self, name: str) -> TeamColumn:
        col = super()._new_col(name)
        assert isinstance(col, TeamColumn)
        return col
