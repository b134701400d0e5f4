"""The team profile: many agents, one plan, no task done twice.

Each call comes from one agent (or a person): ``start`` claims a task for it,
an agent holds one active task at a time, ``block``/``unblock`` say why work
waits, and ``after`` dependencies are enforced. Calls are all or nothing.
The rules live in :mod:`.engine`, the arguments in :mod:`.schema`,
what the agent reads in :mod:`.summary`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._core.engine import Outcome
from ..._core.model import Phase
from ...errors import InvalidPhases
from ..registry import CallContext, Profile
from ..result import Storage, ToolResult
from .details import Later, TeamDetails
from .engine import TeamOutcome, TeamWork, apply_team, normalize_team, team_problems
from .ops import TeamOp
from .schema import TEAM_PARAMS_SCHEMA, parse_team_params
from .summary import TeamView, format_team_summary, shown_phases, team_view

__all__ = [
    "TEAM",
    "TEAM_DESCRIPTION",
    "read_team_plan",
    "repair_team_plan",
    "team_details",
    "team_report",
    "team_text",
]

#: What the model reads about the tool in a team plan.
TEAM_DESCRIPTION = """\
Work a phased plan shared with other agents. You are one agent of a team: \
each call applies an ordered list of operations ("ops") as you, all or \
nothing, and answers with your task, the ready tasks, who is on what, what is \
blocked, and the plan.

Tasks are named by their exact content; phases by their exact name.

Operations, applied in the order given:
- init {list: [{phase, items}]}: replace the whole plan (only the lead may, once others hold tasks).
  An item is a string, or {content, after: [task, ...]} when it must wait for other tasks.
- start {task}: claim a ready task for yourself; your previous task goes back to pending.
  start {} claims the next ready task. A task another agent is on cannot be taken.
- done {task} | {phase} | {}: complete your task (or unowned ones; others' only as lead).
  When you complete your task you pick up the next ready one.
- drop {task} | {phase} | {}: abandon instead of completing.
- rm {task} | {phase} | {}: remove tasks; they leave every other task's "after".
- append {phase, items}: add pending tasks (items as in init).
- note {task, text}: attach a note for the team.
- block {task, reason}: the task cannot go on; say why. Blocked tasks are never claimed.
- unblock {task}: the task may go on again (pending, unowned).
- after {task, after: [task, ...]}: a pending task must also wait for these tasks.

A task is ready when it is pending, nobody is on it, it is not blocked and \
everything it comes after is completed or dropped.

Examples:
{"ops": [{"op": "start"}]}
{"ops": [{"op": "done", "task": "Write the parser"}, {"op": "start"}]}
{"ops": [{"op": "append", "phase": "Test", "items": [{"content": "Fuzz the parser", "after": ["Write the parser"]}]}]}
{"ops": [{"op": "block", "task": "Deploy", "reason": "waiting for credentials"}]}
"""  # noqa: E501 - one JSON example per line


def _work(outcome: Outcome) -> TeamWork:
    """The working copy a team outcome was frozen from (read again from its phases if none)."""
    work = outcome.columns
    return work if isinstance(work, TeamWork) else TeamWork(outcome.phases)


def _view(
    outcome: Outcome,
    agent: str | None,
    scope: str | None,
    *,
    plan: bool = True,
    dump: bool = True,
    work: TeamWork | None = None,
) -> TeamView:
    """The caller's view of a team outcome, from the working copy it was frozen from."""
    work = _work(outcome) if work is None else work
    notices = outcome.notices if isinstance(outcome, TeamOutcome) else ()
    changes = outcome.changes if isinstance(outcome, TeamOutcome) else ()
    return team_view(
        work, agent, outcome.errors, notices, scope, plan=plan, dump=dump, changes=changes
    )


def team_text(outcome: Outcome, agent: str | None, scope: str | None = None) -> str:
    """The summary text of a team outcome for ``agent`` (only phase ``scope``, if given)."""
    return _view(outcome, agent, scope).text


def team_details(
    outcome: Outcome, storage: str, agent: str | None, scope: str | None = None
) -> dict[str, Any]:
    """``details`` of a team result: phases and storage, plus the profile, the
    agent, its task, the ready tasks and, on error, the errors. With ``scope``
    the phases and ready tasks are those of that phase only (and ``scope`` says so)."""
    return _details(outcome, _view(outcome, agent, scope, plan=False), storage, agent, scope)


def _details(
    outcome: Outcome, view: TeamView, storage: str, agent: str | None, scope: str | None
) -> dict[str, Any]:
    return {"phases": view.dumped, **_rest(outcome, view, storage, agent, scope, view.ready)}


def _rest(
    outcome: Outcome, view: TeamView, storage: str, agent: str | None, scope: str | None, ready: object
) -> dict[str, Any]:
    """``details`` but its ``phases``, with ``ready`` (the list, or a :class:`Later` one)."""
    claimed = outcome.claimed if isinstance(outcome, TeamOutcome) else None
    details: dict[str, Any] = {
        "storage": storage,
        "profile": "team",
        "agent": agent,
        "task": claimed,
        "ready": ready,
    }
    if scope is not None:
        details["scope"] = scope
    if view.lapsed:
        details["lapsed"] = view.lapsed
    if outcome.errors:
        details["errors"] = list(outcome.errors)
    return details


def team_report(outcome: Outcome, storage: Storage) -> ToolResult:
    """The result of a team call: the agent's summary, the team details and ``isError``.

    ``phases`` is the whole plan after the call, even for a scoped call whose
    ``details.phases`` shows only its phase.
    """
    agent = outcome.agent if isinstance(outcome, TeamOutcome) else None
    scope = outcome.scope if isinstance(outcome, TeamOutcome) else None
    work = _work(outcome)
    view = _view(outcome, agent, scope, dump=False, work=work)  # details.phases made when read
    return ToolResult(
        view.text,
        TeamDetails({
            "phases": Later(lambda: shown_phases(work, scope)),
            **_rest(outcome, view, storage, agent, scope, Later(lambda: view.ready)),
        }),
        is_error=bool(outcome.errors),
        phases=outcome.phases,
        errors=outcome.errors,
        flags_error=True,
    )


def _apply(phases: tuple[Phase, ...], ops: Sequence[TeamOp], call: CallContext) -> Outcome:
    return apply_team(
        phases, ops, agent=call.agent, lead=call.lead, scope=call.scope, now=call.now,
        lease=call.lease, seen=call.seen, renewals=call.renewals,
    )


def repair_team_plan(phases: tuple[Phase, ...]) -> tuple[Phase, ...]:
    """A person's edit of a team plan, repaired to the team rules.

    Raises :class:`~phasetodo.InvalidPhases` for what cannot be repaired: a
    content used twice, or tasks that wait for each other.
    """
    found = team_problems(phases)
    if found:
        raise InvalidPhases(found)
    return normalize_team(phases)


def read_team_plan(phases: tuple[Phase, ...], call: CallContext) -> str:
    """What ``todo_read`` shows an agent of a team plan: its summary, no errors."""
    return format_team_summary(
        phases, call.agent, scope=call.scope, now=call.now, renewals=call.renewals
    )


#: Many agents, one plan: claims, one active task per agent, ``blocked``, ``after``; all or nothing.
TEAM = Profile(
    "team",
    schema=TEAM_PARAMS_SCHEMA,
    description=TEAM_DESCRIPTION,
    parse=parse_team_params,
    apply=_apply,
    report=team_report,
    atomic=True,
    shared=True,
    repair=repair_team_plan,
    read=read_team_plan,
)
