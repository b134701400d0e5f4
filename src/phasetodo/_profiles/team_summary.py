"""What one agent reads back from a team call.

The text opens with the caller's own task and the ready tasks, then who is
on what, what is blocked and why, what waits for what, and then the plan.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._core.model import Phase, Status, Task
from .._views.summary import SYMBOLS
from .team_engine import ready_tasks

__all__ = ["format_team_head", "format_team_summary"]

#: How many ready tasks the head lists before "and N more" (the plan shows them all).
READY_SHOWN = 10


def _task_line(task: Task) -> str:
    line = f"    {SYMBOLS[task.status]} {task.content}"
    if task.owner is not None:
        line += f" [{task.owner}]"
    if task.status is Status.BLOCKED and task.reason:
        line += f" — blocked: {task.reason}"
    if task.after:
        line += f" (after: {', '.join(task.after)})"
    if task.notes:
        count = len(task.notes)
        line += f" (+{count} note{'' if count == 1 else 's'})"
    return line


def format_team_summary(
    phases: Sequence[Phase],
    agent: str | None,
    errors: Sequence[str] = (),
    notices: Sequence[str] = (),
    scope: str | None = None,
    *,
    plan: bool = True,
) -> str:
    """The summary for ``agent`` (``None``: a person's view of the whole team).

    With ``scope`` (a phase name) only that phase is shown, as a scoped
    handle's caller sees the plan.
    """
    out: list[str] = []
    if errors:
        out.append("Errors — nothing was applied, the plan is unchanged:")
        out += [f"- {e}" for e in errors]
        out.append("")
    out += notices
    if not any(p.tasks for p in phases if scope is None or p.name == scope):
        out.append("The plan is empty.")
        return "\n".join(out)
    mine: tuple[str, Task] | None = None
    working: list[tuple[str, str, Task]] = []
    blocked: list[tuple[str, Task]] = []
    waiting: list[tuple[str, Task]] = []
    closed = total = 0
    status_of = {t.content: t.status for p in phases for t in p.tasks}
    ready = [(p, t) for p, t in ready_tasks(phases) if scope is None or p == scope]
    if scope is not None:
        phases = [p for p in phases if p.name == scope]
        out.append(f'Phase "{scope}" is yours to work; the rest of the plan is not shown.')
    for phase in phases:
        for task in phase.tasks:
            total += 1
            closed += task.status.is_closed
            if task.status is Status.IN_PROGRESS:
                if agent is not None and task.owner == agent and mine is None:
                    mine = (phase.name, task)
                else:
                    working.append((task.owner or "?", phase.name, task))
            elif task.status is Status.BLOCKED:
                blocked.append((phase.name, task))
            elif task.status is Status.PENDING and any(
                not status_of.get(c, Status.COMPLETED).is_closed for c in task.after
            ):
                waiting.append((phase.name, task))
    if agent is not None:
        if mine is not None:
            out.append(f'You ({agent}) are on "{mine[1].content}" ({mine[0]}).')
            for index, note in enumerate(mine[1].notes):
                if index:
                    out.append("    ---")
                out.extend(f"    {line}" for line in note.split("\n"))
        elif ready:
            out.append(f"You ({agent}) have no task: start {{}} claims the next ready one.")
        else:
            out.append(f"You ({agent}) have no task, and none is ready.")
    if ready:
        shown = ", ".join(f'"{t.content}" ({p})' for p, t in ready[:READY_SHOWN])
        more = f", and {len(ready) - READY_SHOWN} more" if len(ready) > READY_SHOWN else ""
        out.append(f"Ready ({len(ready)}): {shown}{more}")
    else:
        out.append("Ready: none.")
    if working:
        out.append("On it:")
        out += [f'  {who} → "{t.content}" ({p})' for who, p, t in working]
    if blocked:
        out.append(f"Blocked ({len(blocked)}):")
        for p, t in blocked:
            by = f" [{t.owner}]" if t.owner else ""
            out.append(f'  ⊘ "{t.content}" ({p}) — {t.reason or "no reason given"}{by}')
    if waiting:
        out.append(f"Waiting ({len(waiting)}):")
        for p, t in waiting:
            open_ = [c for c in t.after if not status_of.get(c, Status.COMPLETED).is_closed]
            names = ", ".join(f'"{c}"' for c in open_)
            out.append(f'  "{t.content}" ({p}) after {names}')
    if not plan:
        return "\n".join(out)
    out.append(f"Plan ({closed}/{total} closed):")
    for phase in phases:
        out.append(f"  {phase.name}:")
        out += [_task_line(t) for t in phase.tasks]
    return "\n".join(out)


def format_team_head(phases: Sequence[Phase], agent: str | None = None) -> str:
    """The summary without the plan: the agent's task, ready tasks, who is on what,
    what is blocked and what waits (``phasetodo ready``)."""
    return format_team_summary(phases, agent, plan=False)
