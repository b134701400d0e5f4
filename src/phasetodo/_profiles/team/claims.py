"""Claims and leases of a team plan: who holds a task, until when, and who was fenced off.

A claim carries an epoch; a takeover of a lapsed claim voids it, and every voided claim
stays void (fencing), whoever holds the task next.
"""

from __future__ import annotations

import time

import attrs

from ..._core.model import Lease
from .columns import ACTIVE, PENDING, TeamColumn
from .ids import TaskIds

__all__ = ["Claims", "format_time"]

#: What an op does to a task, as a refusal says it (others: ``"<op> it"``).
_DOING = {"done": "mark it done", "rm": "remove it", "after": "make it wait"}


def _voided(held: Lease | None) -> tuple[str, ...]:
    """The agents whose claims on a task were voided by takeovers (a log written before
    ``voided`` was kept names only the last, as ``lapsed``)."""
    if held is None:
        return ()
    if held.lapsed is not None and held.lapsed not in held.voided:
        return (*held.voided, held.lapsed)
    return held.voided


def format_time(moment: float | None) -> str:
    """A time of the session clock as the summaries show it: UTC, to the second."""
    if moment is None:
        return "an unknown time"
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


class Claims(TaskIds):
    """The working copy's claims: lapsed leases, fencing, who may change what, claiming and renewing."""

    def fenced(self, col: TeamColumn, index: int) -> bool:
        """Whether the caller lost this task when its lease lapsed (another agent took it
        over since); adds the error, which names the new holder, when so."""
        held = col.leases[index]
        agent = self.agent
        if held is None or agent is None or col.owners[index] == agent or not held.is_void_for(agent):
            return False
        owner = col.owners[index]
        holder = f'agent "{owner}"' if owner is not None else "another agent"
        if held.lapsed == agent:
            why = f"after your lease lapsed at {format_time(held.lapsed_at)}"
        else:  # voided by an earlier takeover: the task changed hands again since
            why = "after your lease lapsed (and has changed hands since)"
        self.errors.append(
            f'Task "{col.contents[index]}" was taken over by {holder} (claim {held.epoch}) {why}: '
            "your claim on it is void"
        )
        return True

    def may_change(self, col: TeamColumn, index: int, verb: str) -> bool:
        """Whether the caller may ``verb`` the task; adds the error when not."""
        if self.fenced(col, index):
            return False
        if (col, index) in self.lapsed and verb != "note":
            return True  # a lapsed claim is anyone's again
        if self.privileged or not self.held_by_other(col, index):
            return True
        lead = f' ("{self.lead}")' if self.lead is not None else ""
        self.errors.append(
            f'Task "{col.contents[index]}" belongs to agent "{col.owners[index]}": '
            f"only it or the lead{lead} may {_DOING.get(verb, verb + ' it')}"
        )
        return False

    def claim(self, col: TeamColumn, index: int) -> None:
        """The task becomes the caller's: in progress, owned, with a new claim (epoch) and,
        with leases, a deadline; a lapsed holder's claim is taken over (and recorded)."""
        assert self.agent is not None
        previous = self.active_of(self.agent)
        if previous is not None and previous != (col, index):
            self._set(previous[0], previous[1], PENDING)
            previous[0].owners[previous[1]] = None
        held = col.leases[index]
        if self.lease is not None or held is not None:
            epoch = held.epoch + 1 if held is not None else 1
            # Every claim a takeover voided stays void, whoever claims the task next; the
            # caller's own claim is made anew.
            voided = tuple(a for a in _voided(held) if a != self.agent)
            if (col, index) in self.lapsed:
                del self.lapsed[(col, index)]
                assert held is not None
                former = col.owners[index]  # kept as ``lapsed``; the ones before it in ``voided``
                voided = tuple(a for a in voided if a != former)
                col.leases[index] = Lease(epoch, self.deadline(), former, self.until_of(col, index), voided)
            else:
                col.leases[index] = Lease(epoch, self.deadline(), voided=voided)
        self._set(col, index, ACTIVE)
        col.owners[index], col.reasons[index] = self.agent, None
        col.touch(index)

    def deadline(self) -> float | None:
        """When a claim the caller holds lapses if it neither writes nor beats again."""
        if self.lease is None or self.now is None:
            return None
        return self.now + self.lease

    def renew(self) -> None:
        """Push the caller's claim's deadline to ``now + lease`` (every write and heartbeat)."""
        if self.agent is None or self.lease is None or self.now is None:
            return
        mine = self.active_of(self.agent)
        if mine is None:
            return
        col, index = mine
        held = col.leases[index]
        until = self.deadline()
        if held is None:
            col.leases[index] = Lease(1, until)
        elif held.until != until:
            col.leases[index] = attrs.evolve(held, until=until)
        else:
            return
        col.touch(index)

    def claimed(self) -> str | None:
        """The task the caller holds, if it holds one."""
        if self.agent is None:
            return None
        found = self.active_of(self.agent)
        return found[0].contents[found[1]] if found is not None else None
