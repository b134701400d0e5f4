"""What one agent reads back from a team call.

The text opens with the caller's own task and the ready tasks, then who is
on what, what is blocked and why, what waits for what, and then the plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, count, repeat
from operator import is_, is_not
from typing import Any

from ..._core import native
from ..._core.model import Phase, Status
from ..._views.summary import PREFIXES, SYMBOLS
from .engine import Place, TeamColumn, TeamWork

__all__ = ["TeamView", "format_team_head", "format_team_summary", "team_view"]

#: How many ready tasks the head lists before "and N more" (the plan shows them all).
READY_SHOWN = 10

_PENDING, _ACTIVE, _BLOCKED = Status.PENDING, Status.IN_PROGRESS, Status.BLOCKED
_CLOSED = (Status.COMPLETED, Status.ABANDONED)
_WIRE = {s: s.value for s in Status}


def _task_line(col: TeamColumn, index: int) -> str:
    status = col.statuses[index]
    assert status is not None
    ident = col.ids[index]
    line = f"    {SYMBOLS[status]} {col.contents[index]}" if ident is None else (
        f"    {SYMBOLS[status]} {ident} {col.contents[index]}"
    )
    owner, reason, after, notes = col.owners[index], col.reasons[index], col.afters[index], col.notes[index]
    if owner is not None:
        line += f" [{owner}]"
    if status is _BLOCKED and reason:
        line += f" — blocked: {reason}"
    if after:
        line += f" (after: {', '.join(after)})"
    if notes:
        size = len(notes)
        line += f" (+{size} note{'' if size == 1 else 's'})"
    return line


def _task_json(col: TeamColumn, index: int) -> dict[str, Any]:
    """A task as ``details.phases`` holds it (see ``dump_task``)."""
    out: dict[str, Any] = {"content": col.contents[index], "status": _WIRE[col.statuses[index]]}  # type: ignore[index]
    if col.notes[index]:
        out["notes"] = list(col.notes[index])
    if col.owners[index] is not None:
        out["owner"] = col.owners[index]
    if col.reasons[index] is not None:
        out["reason"] = col.reasons[index]
    if col.afters[index]:
        out["after"] = list(col.afters[index])
    if col.ids[index] is not None:
        out["id"] = col.ids[index]
    return out


def _add_ids(cols: Sequence[TeamColumn], dumped: list[dict[str, Any]]) -> None:
    """Each dumped task's ``"id"`` (last, as ``dump_task`` puts it)."""
    for col, phase in zip(cols, dumped, strict=True):
        ids = col.ids
        if ids.count(None) == len(ids):
            continue
        for task, ident in zip(phase["tasks"], ids, strict=True):
            if ident is not None:
                task.pop("id", None)
                task["id"] = ident


def _tree(cols: Sequence[TeamColumn]) -> list[str]:
    """The plan's lines: a phase's name, then a line per task with its id."""
    out: list[str] = []
    for col in cols:
        out.append(f"  {col.name}:")
        out += [_task_line(col, i) for i in range(len(col.contents))]
    return out


class _Shown:
    """A column as ``native.parts`` reads it, with the team's own tasks made plain.

    A task whose only team field is its owner is shown as ``content [owner]``: the
    reference's tree line for that content is the team's line for the task.
    """

    __slots__ = ("contents", "name", "notes", "statuses")

    def __init__(self, col: TeamColumn, owned: list[int], others: list[int]) -> None:
        self.name, self.contents = col.name, col.contents
        self.statuses, self.notes = col.statuses, col.notes
        if owned:
            self.contents = list(col.contents)
            for index in owned:
                self.contents[index] = f"{col.contents[index]} [{col.owners[index]}]"
        if others:
            self.statuses, self.notes = list(col.statuses), list(col.notes)
            for index in others:  # their lines and dicts are written here, not by parts
                self.statuses[index], self.notes[index] = _PENDING, None


def _special(col: TeamColumn) -> tuple[list[int], list[int]]:
    """Positions whose summary line or ``details`` entry a plain column would get wrong:
    those with an owner only, and the others (a reason, ``after``, blocked, active notes)."""
    if col.plain:  # no team fields: only an active task's notes (on a plan not yet repaired)
        if _ACTIVE not in col.statuses:
            return [], []
        return [], [i for i in compress(count(), map(is_, col.statuses, repeat(_ACTIVE))) if col.notes[i]]
    others: set[int] = set()
    size = len(col.contents)
    if col.reasons.count(None) != size:
        others.update(compress(count(), map(is_not, col.reasons, repeat(None))))
    if any(col.afters):
        others.update(compress(count(), col.afters))
    if _BLOCKED in col.statuses:
        others.update(compress(count(), map(is_, col.statuses, repeat(_BLOCKED))))
    if _ACTIVE in col.statuses:
        others.update(i for i in compress(count(), map(is_, col.statuses, repeat(_ACTIVE))) if col.notes[i])
    owned: list[int] = []
    if col.owners.count(None) != size:
        owned = [i for i in compress(count(), map(is_not, col.owners, repeat(None))) if i not in others]
    return owned, sorted(others)


def _plan(cols: Sequence[TeamColumn]) -> tuple[list[str], list[dict[str, Any]]]:
    """The plan's text (a phase's name, then a line per task) in pieces, and ``details.phases``.

    The plain tasks go through ``native.parts`` (the reference's tree line is the
    team's line for a task with no team fields and no active notes, and for an owned
    task shown as ``content [owner]``), a run of plain phases in one call; a phase
    with the team's own tasks from its own call, those tasks' lines and dicts
    replaced here.
    """
    pieces: list[str] = []
    dumped: list[dict[str, Any]] = []
    run: list[TeamColumn] = []

    def flush() -> None:
        if run:
            tree, _, _, phases, _ = native.parts(run, PREFIXES)
            pieces.append(tree)
            dumped.extend(phases)
            run.clear()

    for col in cols:
        owned, others = _special(col)
        if not owned and not others:
            run.append(col)
            continue
        flush()
        tree, _, _, phases, _ = native.parts([_Shown(col, owned, others)], PREFIXES)
        tasks = phases[0]["tasks"]
        for index in owned:
            task = tasks[index]
            task["content"] = col.contents[index]
            task["owner"] = col.owners[index]
        if others:
            lines = tree.split("\n")
            if len(lines) != 1 + len(col.contents):  # a newline in a content, an owner or the name
                lines = [f"  {col.name}:", *(_task_line(col, i) for i in range(len(col.contents)))]
            for index in others:
                lines[1 + index] = _task_line(col, index)
                tasks[index] = _task_json(col, index)
            tree = "\n".join(lines)
        pieces.append(tree)
        dumped.extend(phases)
    flush()
    return pieces, dumped


class TeamView:
    """What one caller reads back from a team plan: the summary and the JSON details' parts."""

    __slots__ = ("dumped", "ready", "text")

    def __init__(self, text: str, dumped: list[dict[str, Any]], ready: list[str]) -> None:
        self.text = text
        self.dumped = dumped
        self.ready = ready


def team_view(
    work: TeamWork,
    agent: str | None,
    errors: Sequence[str] = (),
    notices: Sequence[str] = (),
    scope: str | None = None,
    *,
    plan: bool = True,
    dump: bool = True,
) -> TeamView:
    """The summary for ``agent`` (``None``: a person's view of the whole team), the shown
    phases as ``details.phases`` (with ``dump``) and the ready tasks' contents.

    With ``scope`` (a phase name) only that phase is shown, as a scoped
    handle's caller sees the plan.
    """
    cols = [c for c in work.cols if scope is None or c.name == scope]
    lines: list[str] = []
    dumped: list[dict[str, Any]] = []
    if dump:
        _, dumped = _plan(cols)
        _add_ids(cols, dumped)
        mark = work.id_mark()
        if dumped and mark and scope is None:
            dumped[0]["last_id"] = mark
    if plan:
        lines = _tree(cols)
    contents: list[str] = []
    ready: list[tuple[str, str]] = []  # the first READY_SHOWN, with their phases
    for col in cols:
        mask = work.ready_mask(col)
        if mask is None:
            continue
        found = list(compress(col.contents, mask))
        if len(ready) < READY_SHOWN:
            ready += [(col.name, c) for c in found[: READY_SHOWN - len(ready)]]
        contents += found
    out: list[str] = []
    if errors:
        out.append("Errors — nothing was applied, the plan is unchanged:")
        out += [f"- {e}" for e in errors]
        out.append("")
    out += notices
    total = sum(len(col.contents) for col in cols)
    if not total:
        out.append("The plan is empty.")
        return TeamView("\n".join(out), dumped, contents)
    if scope is not None:
        out.append(f'Phase "{scope}" is yours to work; the rest of the plan is not shown.')
    ids = {id(col) for col in cols}
    mine: Place | None = None
    working: list[Place] = []
    for col, index in work.order(p for p in work.active if id(p[0]) in ids):
        if agent is not None and mine is None and col.owners[index] == agent:
            mine = (col, index)
        else:
            working.append((col, index))
    blocked: list[Place] = []
    waiting: list[tuple[Place, list[str]]] = []
    closed = 0
    for col in cols:
        statuses = col.statuses
        closed += statuses.count(_CLOSED[0]) + statuses.count(_CLOSED[1])
        if col.plain:
            continue
        if _BLOCKED in statuses:
            blocked += [(col, i) for i in compress(count(), map(is_, statuses, repeat(_BLOCKED)))]
        if any(col.afters):
            for index in compress(count(), col.afters):
                if statuses[index] is _PENDING:
                    waits = work.waits_for(col.afters[index])
                    if waits:
                        waiting.append(((col, index), waits))
    if agent is not None:
        if mine is not None:
            col, index = mine
            out.append(f'You ({agent}) are on "{col.contents[index]}" ({col.name}).')
            for number, note in enumerate(col.notes[index] or ()):
                if number:
                    out.append("    ---")
                out.extend(f"    {line}" for line in note.split("\n"))
        elif contents:
            out.append(f"You ({agent}) have no task: start {{}} claims the next ready one.")
        else:
            out.append(f"You ({agent}) have no task, and none is ready.")
    if contents:
        shown = ", ".join(f'"{c}" ({p})' for p, c in ready)
        more = f", and {len(contents) - READY_SHOWN} more" if len(contents) > READY_SHOWN else ""
        out.append(f"Ready ({len(contents)}): {shown}{more}")
    else:
        out.append("Ready: none.")
    if working:
        out.append("On it:")
        out += [
            f'  {col.owners[i] or "?"} → "{col.contents[i]}" ({col.name})' for col, i in working
        ]
    if blocked:
        out.append(f"Blocked ({len(blocked)}):")
        for col, i in blocked:
            by = f" [{col.owners[i]}]" if col.owners[i] else ""
            out.append(f'  ⊘ "{col.contents[i]}" ({col.name}) — {col.reasons[i] or "no reason given"}{by}')
    if waiting:
        out.append(f"Waiting ({len(waiting)}):")
        for (col, i), waits in waiting:
            names = ", ".join(f'"{c}"' for c in waits)
            out.append(f'  "{col.contents[i]}" ({col.name}) after {names}')
    if plan:
        out.append(f"Plan ({closed}/{total} closed):")
        out += lines
    return TeamView("\n".join(out), dumped, contents)


def format_team_summary(
    phases: Sequence[Phase],
    agent: str | None,
    errors: Sequence[str] = (),
    notices: Sequence[str] = (),
    scope: str | None = None,
    *,
    plan: bool = True,
) -> str:
    """The summary for ``agent`` of a plan held as values (see :func:`team_view`)."""
    work = TeamWork(tuple(phases))
    return team_view(work, agent, errors, notices, scope, plan=plan, dump=False).text


def format_team_head(phases: Sequence[Phase], agent: str | None = None) -> str:
    """The summary without the plan: the agent's task, ready tasks, who is on what,
    what is blocked and what waits (``phasetodo ready``)."""
    return format_team_summary(phases, agent, plan=False)
