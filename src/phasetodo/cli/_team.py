"""The verbs for team plans: ``ready`` (who is on what, what may start next), ``block`` and ``unblock``
(``block`` and ``unblock`` on ``todo`` plans too).

``block`` and ``unblock`` are a person's edits through :mod:`phasetodo.person`,
the path the board's status changes take: ``block`` gives the task the board's
"blocked" status (with the same default reason), ``unblock`` is the team
profile's own op, which leaves the task pending and unowned as the board's
"pending" does.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import IO, Any

from .. import person
from .._core.model import Renewal, Status, Task, lapses_at
from .._profiles.team.engine import ready_tasks
from .._profiles.team.summary import format_team_head
from ..session import Session
from ._context import OK, json_text, open_session, raw, usage
from ._report import person_edit
from ._targets import find_target

__all__ = ["run_block", "run_ready", "run_unblock"]


def run_ready(args: argparse.Namespace, out: IO[str]) -> int:
    """``ready [--agent NAME]``: the ready tasks, who is on what and what is blocked."""
    with open_session(args, must_exist=True) as session:
        _must_be_team(session, "ready")
        phases = tuple(session.refresh())
        now = float(session.clock())
        renewals = session.renewals
    if args.json:
        ready = [
            {"phase": p, "task": t.content, "id": t.id, **_lapse(t, now, renewals)}
            for p, t in ready_tasks(phases, now=now, renewals=renewals)
        ]
        raw(out).write(json_text(ready))
        return OK
    out.write(format_team_head(phases, getattr(args, "agent", None), now=now, renewals=renewals) + "\n")
    return OK


def _must_block(session: Session, verb: str) -> None:
    """Stop with a usage error unless a person can block tasks of ``session`` (team and todo plans)."""
    if not person.can_block(session):
        usage(
            f"{verb}: session {session.session_id!r} has no blocked status (blocked tasks belong to "
            "plans written with --profile team or --profile todo); nothing changed"
        )


def _must_be_team(session: Session, verb: str) -> None:
    """Stop with a usage error naming how to make a team plan, unless ``session`` is one."""
    if not person.session_is_team(session):
        usage(
            f"{verb}: session {session.session_id!r} is not a team plan (owners, claims and blocked "
            "tasks belong to plans written with --profile team; `phasetodo show` shows this one); "
            "nothing changed"
        )


def _lapse(task: Task, now: float, renewals: Mapping[str, Renewal]) -> dict[str, Any]:
    """``lapsed`` (whose lease on an in-progress task ended) and ``lapsed_at``, when it did
    (a heartbeat's renewal counted)."""
    renewal = renewals.get(task.id) if task.id is not None else None
    until = lapses_at(task.lease, task.owner, renewal)
    if task.status is not Status.IN_PROGRESS or until is None or until > now:
        return {}
    return {"lapsed": task.owner, "lapsed_at": until}


#: The ops that give a task the verb's status, from its content.
_Ops = Callable[[str], list[dict[str, Any]]]


def _blocking(args: argparse.Namespace, out: IO[str], make: _Ops) -> int:
    """Resolve the TASK, refuse a plan that is not a team plan, run ``make(task)``'s ops."""
    verb: str = args.verb
    with open_session(args, must_exist=True) as session:
        phases = tuple(session.refresh())
        _must_block(session, verb)
        target = find_target(args, phases, kinds=("task",))
        if target is None:
            usage(f"{verb}: name the TASK to {verb}")
        return person_edit(session, make(target.name), verb, args, out)


def run_block(args: argparse.Namespace, out: IO[str]) -> int:
    """``block TASK [--reason TEXT]``: the task cannot go on, and the reason says why."""
    return _blocking(args, out, lambda task: person.status_ops("blocked", task, args.reason))


def run_unblock(args: argparse.Namespace, out: IO[str]) -> int:
    """``unblock TASK``: a blocked task may go on again (pending; unowned on a team plan)."""
    return _blocking(args, out, lambda task: [{"op": "unblock", "task": task}])
