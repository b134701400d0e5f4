"""Reminder texts a host injects into the conversation.

Three moments need one: a ``todo_write`` call failed (the model must retry,
or its progress is invisible); the agent is about to stop with work left; a
person edited the list (the model must know what changed). Each builder
returns the text, wrapped in ``<system-reminder>`` tags; the host decides
how to deliver it (hidden next-turn message, developer message, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from ._core.model import Phase, Status, Task
from ._profiles.builtin import ProfileLike, resolve
from ._views.diff import format_diff
from .session_changes import Change

__all__ = [
    "DEFAULT_STOP_ATTEMPTS",
    "ERROR_REMINDER_TYPE",
    "StopGuard",
    "failed_call_reminder",
    "stop_reminder",
    "user_edit_reminder",
]

#: The ``customType`` the reference gives the hidden failed-call reminder.
ERROR_REMINDER_TYPE = "todo-write-error-reminder"
#: How many times the stop reminder is given before the agent may stop anyway.
DEFAULT_STOP_ATTEMPTS = 3


def _wrap(lines: Iterable[str]) -> str:
    return "<system-reminder>\n" + "\n".join(lines) + "\n</system-reminder>"


def failed_call_reminder(error: object = None) -> str:
    """The hidden next-turn reminder after a failed ``todo_write`` call."""
    lines = ["Your last todo_write call failed, so the todo list did not change."]
    if error is not None and str(error):
        lines.append(f"The error was: {error}")
    lines.append(
        "The user cannot see your progress until a todo_write call succeeds: "
        "fix the arguments and call it again."
    )
    return _wrap(lines)


def _open_work(
    phases: Sequence[Phase], agent: str | None, profile: ProfileLike = "parity"
) -> list[tuple[str, list[Task]]]:
    """The unsettled tasks per phase (``profile`` says which are settled: by default the
    completed and abandoned ones); for an ``agent`` of a team plan, only its own active
    task and the ready ones. Blocked tasks are never open work, and neither is a pending
    task still waiting for its ``after``."""
    status = {t.content: t.status for p in phases for t in p.tasks}
    settled = resolve(profile).is_settled

    def counts(task: Task) -> bool:
        if task.status is Status.BLOCKED or settled(task):
            return False
        if task.status is Status.IN_PROGRESS:
            return agent is None or task.owner == agent
        waiting = any(not status.get(c, Status.COMPLETED).is_closed for c in task.after)
        return not waiting and (agent is None or task.owner is None)

    found = [(p.name, [t for t in p.tasks if counts(t)]) for p in phases]
    return [(name, tasks) for name, tasks in found if tasks]


def _open_lines(
    phases: Sequence[Phase], agent: str | None = None, profile: ProfileLike = "parity"
) -> list[str]:
    out: list[str] = []
    for name, tasks in _open_work(phases, agent, profile):
        if tasks:
            out.append(f"{name}:")
            out.extend(f"  - {t.content} [{t.status.value}]" for t in tasks)
    return out


def stop_reminder(
    phases: Sequence[Phase],
    attempt: int,
    max_attempts: int = DEFAULT_STOP_ATTEMPTS,
    *,
    agent: str | None = None,
    profile: ProfileLike = "parity",
) -> str | None:
    """The stop-time reminder listing incomplete tasks per phase, or None if all are done.

    Blocked tasks and tasks waiting for their ``after`` do not count, nor do the
    tasks the plan's ``profile`` counts as settled (by default completed and abandoned
    ones; in ``todo`` a task the model abandoned still counts, one a person dropped does
    not). With ``agent`` (a team plan) only that agent's active task and the ready tasks do.
    """
    listed = _open_lines(phases, agent, profile)
    if not listed:
        return None
    return _wrap(
        [
            f"You are about to stop, but the todo list has incomplete tasks "
            f"(reminder {attempt}/{max_attempts}):",
            *listed,
            f"Carry on with them, or record with {resolve(profile).tool} that they are done or dropped.",
        ]
    )


@attrs.define
class StopGuard:
    """Counts stop reminders: at most ``max_attempts`` per user prompt.

    Call :meth:`user_prompt` when a new user prompt arrives and
    :meth:`before_stop` when the agent wants to stop; it returns the reminder
    to inject, or None to let the agent stop.
    """

    max_attempts: int = DEFAULT_STOP_ATTEMPTS
    attempts: int = 0

    def user_prompt(self) -> None:
        """A new user prompt: the count starts again."""
        self.attempts = 0

    def before_stop(
        self, phases: Sequence[Phase], *, agent: str | None = None, profile: ProfileLike = "parity"
    ) -> str | None:
        """The reminder for this stop attempt, or None (no open work, or attempts used up).

        ``agent``: the stopping agent of a team plan; ``profile``: the plan's (a session's
        :attr:`~phasetodo.Session.profile`), which says what is settled (see :func:`stop_reminder`).
        """
        if not _open_work(phases, agent, profile):
            self.attempts = 0
            return None
        if self.attempts >= self.max_attempts:
            return None
        self.attempts += 1
        return stop_reminder(phases, self.attempts, self.max_attempts, agent=agent, profile=profile)


def user_edit_reminder(change: Change) -> str | None:
    """Tell the model what a person's edit changed; None when it changed nothing."""
    if not change.changed:
        return None
    what = "(tasks or phases reordered)" if change.diff.is_empty else format_diff(change.diff)
    return _wrap(
        [
            "The user edited the todo list by hand. What changed:",
            what,
            "The list is now:",
            *_tree(change.after),
            "Work from the edited list; do not undo the user's changes.",
        ]
    )


def _tree(phases: Sequence[Phase]) -> list[str]:
    if not phases:
        return ["  (empty)"]
    out = []
    for phase in phases:
        out.append(f"  {phase.name}:")
        out.extend(f"    - {t.content} [{t.status.value}]" for t in phase.tasks)
    return out
