"""A person's edits of a plan, with one meaning in the command, on the board and in the library.

Done, Drop, Start, Block and Unblock are the engine's own ops, run with the plan's
profile and recorded as one ``user_edit``: Done on the active task starts the next
one, as the model's ``done`` does. On a team plan the batch is all or nothing, and a
start claims the task for the agent named; the team engine refuses one that names
none, so a claim always has an owner. Putting a task back to pending, which no op
does, is the one direct change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ._core.model import Phase, Status
from ._profiles.registry import Profile
from .errors import InvalidParams
from .session import Session
from .tool import call

__all__ = [
    "EditOutcome", "all_or_nothing", "apply_edit", "can_block", "edit_profile", "remove_everything",
    "reset_to_pending", "status_ops",
]

#: The op that gives a task each status a person can choose (pending has none).
_STATUS_OPS = {"completed": "done", "abandoned": "drop", "in_progress": "start", "blocked": "block"}


@attrs.frozen
class EditOutcome:
    """What a person's edit did: the list after it, the op errors, whether a ``user_edit`` was recorded."""

    phases: tuple[Phase, ...]
    errors: tuple[str, ...] = ()
    changed: bool = False


def session_is_team(session: Session) -> bool:
    """Whether the session is a team plan: its profile, which :meth:`Session.open` took from the
    log (:func:`phasetodo.session.recorded_profile`, the one place old logs are inferred)."""
    return session.profile.shared


def edit_profile(session: Session) -> Profile:
    """The profile a person's edits of ``session`` run in: its profile's ``person`` when it has
    one (``todo``: the tool's ops as a person's), else the session's own profile."""
    own = session.profile
    return own.person or own


def all_or_nothing(session: Session) -> bool:
    """Whether a person's edit with any op error changes nothing (team, strict and todo plans)."""
    return edit_profile(session).atomic


def can_block(session: Session) -> bool:
    """Whether a person can mark a task of ``session`` blocked: its edits take a ``block`` op
    (team and todo plans; the reference's older tool has no blocked status)."""
    try:
        edit_profile(session).parse({"ops": [{"op": "block", "task": "t", "reason": "r"}]})
    except InvalidParams:
        return False
    return True


def status_ops(status: str, task: str, reason: str | None = None) -> list[dict[str, Any]]:
    """The ops that give the task named ``task`` the status ``status`` (not ``pending``)."""
    name = _STATUS_OPS.get(status)
    if name is None:
        raise ValueError(f"status: must be one of {', '.join([*_STATUS_OPS, 'pending'])}")
    op: dict[str, Any] = {"op": name, "task": task}
    if name == "block":
        op["reason"] = reason or "blocked by a person"
    return [op]


def apply_edit(
    session: Session,
    ops: Sequence[Mapping[str, Any]],
    *,
    source: str,
    agent: str | None = None,
) -> EditOutcome:
    """Run ``ops`` as a person's edit of ``session`` and record the result as one ``user_edit``.

    The ops run in the session's own profile (the one its log records), or in its
    ``person`` profile when it has one (a ``todo`` plan: the tool's ops as a person's);
    ``agent`` is the agent a person claims a task for. Raises
    :class:`~phasetodo.InvalidParams` for ops that break the schema; nothing is recorded
    then, nor when any op fails in an all-or-nothing profile (a team, strict or todo
    plan: the errors say why).
    """
    before, version = tuple(session.phases), session.version
    profile = edit_profile(session)
    outcome = call({"ops": list(ops)}, before, profile=profile, agent=agent)
    if profile.atomic and outcome.errors:
        return EditOutcome(before, tuple(outcome.errors))
    return _record(session, outcome.phases, source, version, tuple(outcome.errors))


def reset_to_pending(session: Session, task: str, *, source: str) -> EditOutcome:
    """Put the first task named ``task`` back to pending (and unowned), as one ``user_edit``."""
    before, version = tuple(session.phases), session.version
    after = []
    done = False
    for phase in before:
        tasks = list(phase.tasks)
        for i, found in enumerate(tasks):
            if not done and found.content == task:
                tasks[i] = attrs.evolve(found, status=Status.PENDING, owner=None, reason=None)
                done = True
        after.append(attrs.evolve(phase, tasks=tuple(tasks)))
    if not done:
        return EditOutcome(before, (f'Task "{task}" not found',))
    return _record(session, tuple(after), source, version, ())


def remove_everything(session: Session, *, source: str) -> EditOutcome:
    """Remove every task and phase, as one ``user_edit``.

    What the reference's ``/todo rm`` with no target commits: no phases at all (the
    ``rm`` op of ``todo_write`` keeps the emptied phases).
    """
    return _record(session, (), source, session.version, ())


def _record(
    session: Session, phases: tuple[Phase, ...], source: str, version: int, errors: tuple[str, ...]
) -> EditOutcome:
    """Record ``phases`` as a user edit unless they equal the stored list."""
    if phases == tuple(session.phases):
        return EditOutcome(phases, errors)
    session.user_edit(phases, source=source, expected_version=version)
    return EditOutcome(tuple(session.phases), errors, changed=True)
