"""What one agent reads back from a team call.

The text opens with the caller's own task and the ready tasks, then who is
on what, what is blocked and why, what waits for what, and then the plan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import compress, count, islice, repeat
from operator import is_, is_not, or_
from typing import Any

from ..._core.codec import dump_lease
from ..._core.model import Phase, Renewal, Status
from ..._views.summary import SYMBOLS, phase_dicts
from .engine import Place, TeamColumn, TeamWork, format_time

__all__ = ["TEXT_LIMIT", "TeamView", "format_team_head", "format_team_summary", "shown_phases", "team_view"]

#: How many ready tasks the head lists before "and N more" (``details.ready`` has them all).
READY_SHOWN = 10
#: The most characters a team summary has, whatever the plan's size: it is read into a
#: context window; the whole plan is in ``details.phases`` and on the board.
TEXT_LIMIT = 4000
#: The most entries each of the summary's lists shows (on it, blocked, waiting, lapsed).
LIST_SHOWN = 10
#: The most changes since the caller's last look the summary lists.
CHANGES_SHOWN = 12
#: The most errors the summary lists (``details.errors`` has them all).
ERRORS_SHOWN = 8
#: Characters kept free for the plan's line (its tree or its counts) at the end.
RESERVED = 300
#: The most lines of the caller's task's notes the summary shows.
NOTE_LINES = 12
#: The most characters of a content, a reason or a note line in the summary.
LINE_CHARS = 120
#: Plans of at most this many tasks are shown as a tree when it fits; larger ones counted.
TREE_TASKS = 150

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
    lease = col.leases[index]
    if lease is not None:
        out["lease"] = dump_lease(lease)
    return out


def _tree(cols: Sequence[TeamColumn]) -> list[str]:
    """The plan's lines: a phase's name, then a line per task with its id."""
    out: list[str] = []
    for col in cols:
        out.append(f"  {col.name}:")
        out += [_task_line(col, i) for i in range(len(col.contents))]
    return out


class _Shown:
    """A column as ``phase_dicts`` reads it: the team's own tasks (blocked, waiting, with a
    reason) made plain, since their dicts are written here instead."""

    __slots__ = ("contents", "ids", "name", "notes", "statuses")

    def __init__(self, col: TeamColumn, others: list[int]) -> None:
        self.name, self.contents, self.ids = col.name, col.contents, col.ids
        self.statuses, self.notes = col.statuses, col.notes
        if others:
            self.statuses, self.notes = list(col.statuses), list(col.notes)
            for index in others:
                self.statuses[index], self.notes[index] = _PENDING, None


def _special(col: TeamColumn) -> tuple[list[int], list[int]]:
    """Positions whose summary line or ``details`` entry a plain column would get wrong:
    those with an owner or a lease only, and the others (a reason, ``after``, blocked, active notes)."""
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
    if col.owners.count(None) != size or col.leases.count(None) != size:
        held = map(or_, map(is_not, col.owners, repeat(None)), map(is_not, col.leases, repeat(None)))
        owned = [i for i in compress(count(), held) if i not in others]
    return owned, sorted(others)


def _dumped(cols: Sequence[TeamColumn]) -> list[dict[str, Any]]:
    """``details.phases`` of the shown phases.

    The plain tasks (ids included) go through ``phase_dicts``, a run of plain phases in
    one call; a phase with the team's own tasks from its own call, those tasks' dicts
    replaced here (an owner goes before the id, as ``dump_task`` orders them).
    """
    dumped: list[dict[str, Any]] = []
    run: list[TeamColumn] = []
    for col in cols:
        owned, others = _special(col)
        if not owned and not others:
            run.append(col)
            continue
        if run:
            dumped += phase_dicts(run)
            run.clear()
        phases = phase_dicts([_Shown(col, others)])
        tasks = phases[0]["tasks"]
        for index in (*owned, *others):
            tasks[index] = _task_json(col, index)
        dumped += phases
    if run:
        dumped += phase_dicts(run)
    return dumped


def shown_phases(work: TeamWork, scope: str | None = None) -> list[dict[str, Any]]:
    """``details.phases`` of a team call: the plan's phases (only ``scope``, if given) as
    JSON, the id high-water mark on the first phase of a whole plan."""
    dumped = _dumped([c for c in work.cols if scope is None or c.name == scope])
    mark = work.id_mark()
    if dumped and mark and scope is None:
        dumped[0]["last_id"] = mark
    return dumped


class TeamView:
    """What one caller reads back from a team plan: the summary and the JSON details' parts."""

    __slots__ = ("_ready", "dumped", "lapsed", "text")

    def __init__(
        self,
        text: str,
        dumped: list[dict[str, Any]],
        ready: Callable[[], list[str]],
        lapsed: list[dict[str, Any]] | None = None,
    ) -> None:
        self.text = text
        self.dumped = dumped
        self._ready: Callable[[], list[str]] | list[str] = ready
        #: The claims whose lease lapsed: task, id, agent and when (``details.lapsed``).
        self.lapsed = lapsed or []

    @property
    def ready(self) -> list[str]:
        """The ready tasks' contents in plan order (``details.ready``), listed on first read."""
        if callable(self._ready):
            self._ready = self._ready()
        return self._ready


def _clip(text: str, size: int = LINE_CHARS) -> str:
    """``text`` on one line and at most ``size`` characters (an ellipsis says it was cut)."""
    flat = text.replace("\n", " ")
    return flat if len(flat) <= size else flat[: size - 1] + "…"


def _name(col: TeamColumn, index: int) -> str:
    """A task as the summary's lists name it: its id and quoted content, clipped."""
    ident = col.ids[index]
    quoted = f'"{_clip(col.contents[index])}"'
    return quoted if ident is None else f"{ident} {quoted}"


def _capped(title: str, shown: Sequence[str], total: int) -> list[str]:
    """A titled list: the ``shown`` lines of its ``total`` items, then how many more there are."""
    out = [f"{title} ({total}):", *shown]
    if total > len(shown):
        out.append(f"  … and {total - len(shown)} more (in details.phases)")
    return out


def _ready_head(work: TeamWork, cols: Sequence[TeamColumn]) -> tuple[list[Place], int]:
    """The first :data:`READY_SHOWN` ready tasks of ``cols`` and how many are ready in all
    (a plain phase's are its pending tasks: counted, not listed)."""
    first: list[Place] = []
    total = 0
    for col in cols:
        if col.plain:
            found = col.statuses.count(_PENDING)
            if found and len(first) < READY_SHOWN:
                pending = compress(count(), map(is_, col.statuses, repeat(_PENDING)))
                first += [(col, i) for i in islice(pending, READY_SHOWN - len(first))]
            total += found
            continue
        mask = work.ready_mask(col)
        if mask is None:
            continue
        mask = mask if isinstance(mask, list) else list(mask)
        if len(first) < READY_SHOWN:
            first += [(col, i) for i in islice(compress(count(), mask), READY_SHOWN - len(first))]
        total += mask.count(True)
    return first, total


def _ready_contents(work: TeamWork, cols: Sequence[TeamColumn]) -> list[str]:
    """The ready tasks' contents of ``cols``, in plan order (``details.ready``)."""
    contents: list[str] = []
    for col in cols:
        mask = work.ready_mask(col)
        if mask is not None:
            contents += compress(col.contents, mask)
    return contents


def team_view(
    work: TeamWork,
    agent: str | None,
    errors: Sequence[str] = (),
    notices: Sequence[str] = (),
    scope: str | None = None,
    *,
    plan: bool = True,
    dump: bool = True,
    changes: Sequence[str] = (),
) -> TeamView:
    """The summary for ``agent`` (``None``: a person's view of the whole team), the shown
    phases as ``details.phases`` (with ``dump``) and the ready tasks' contents.

    The text is bounded (:data:`TEXT_LIMIT` characters, whatever the plan's size): it
    opens with the errors and what changed since the caller's last look (``changes``),
    then the caller's task, the ready tasks, the lapsed claims, who is on what, what is
    blocked and what waits, each list capped, then the plan's tree when it fits, else
    its counts. With ``scope`` (a phase name) only that phase is shown, as a scoped
    handle's caller sees the plan.
    """
    cols = [c for c in work.cols if scope is None or c.name == scope]
    dumped = shown_phases(work, scope) if dump else []
    ready, ready_count = _ready_head(work, cols)
    contents = partial(_ready_contents, work, cols)
    ids = {id(col) for col in cols}
    lapsed = [p for p in work.order(work.lapsed) if id(p[0]) in ids]
    lapsed_json = [
        {
            "task": col.contents[i],
            "id": col.ids[i],
            "agent": col.owners[i],
            "at": work.until_of(col, i),
        }
        for col, i in lapsed
    ]
    out: list[str] = []

    def add(lines: list[str], short: str) -> None:
        """``lines`` if they fit beside what is there (and the plan's line), else ``short``."""
        used = sum(len(line) + 1 for line in out)
        if used + sum(len(line) + 1 for line in lines) <= TEXT_LIMIT - RESERVED:
            out.extend(lines)
        elif used + len(short) + 1 <= TEXT_LIMIT - RESERVED:
            out.append(short)

    if errors:
        out.append("Errors — nothing was applied, the plan is unchanged:")
        out += [f"- {_clip(e, 300)}" for e in errors[:ERRORS_SHOWN]]
        if len(errors) > ERRORS_SHOWN:
            out.append(f"- … and {len(errors) - ERRORS_SHOWN} more (in details.errors)")
        out.append("")
    out += [_clip(n, 200) for n in notices[:LIST_SHOWN]]
    if len(notices) > LIST_SHOWN:
        out.append(f"… and {len(notices) - LIST_SHOWN} more changes to after")
    if changes:
        add(
            _capped(
                "Since your last look", [f"  {_clip(c, 200)}" for c in changes[:CHANGES_SHOWN]], len(changes)
            ),
            f"Since your last look: {len(changes)} changes (see details.phases).",
        )
    total = sum(len(col.contents) for col in cols)
    if not total:
        out.append("The plan is empty.")
        return TeamView("\n".join(out), dumped, contents, lapsed_json)
    if scope is not None:
        out.append(f'Phase "{scope}" is yours to work; the rest of the plan is not shown.')
    mine: Place | None = None
    working: list[Place] = []
    for col, index in work.order(p for p in work.active if id(p[0]) in ids):
        if agent is not None and mine is None and col.owners[index] == agent:
            mine = (col, index)
        elif (col, index) not in work.lapsed:
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
            out.append(f"You ({agent}) are on {_name(col, index)} ({_clip(col.name, 80)}).")
            note_lines = [
                line for note in (col.notes[index] or ()) for line in ("---", *note.split("\n"))
            ][1:]
            out += [f"    {_clip(line)}" for line in note_lines[:NOTE_LINES]]
            if len(note_lines) > NOTE_LINES:
                out.append(f"    … {len(note_lines) - NOTE_LINES} more note lines (in details.phases)")
        elif ready_count:
            out.append(f"You ({agent}) have no task: start {{}} claims the next ready one.")
        else:
            out.append(f"You ({agent}) have no task, and none is ready.")
    if ready_count:
        shown = ", ".join(f"{_name(c, i)} ({_clip(c.name, 60)})" for c, i in ready)
        more = f", and {ready_count - READY_SHOWN} more" if ready_count > READY_SHOWN else ""
        add([f"Ready ({ready_count}): {shown}{more}"], f"Ready: {ready_count} (in details.ready).")
    else:
        out.append("Ready: none.")
    if lapsed:
        add(
            _capped(
            "Lapsed",
            [
                f"  {_name(c, i)} ({_clip(c.name, 60)}) — {c.owners[i]}'s lease lapsed at "
                f"{format_time(work.until_of(c, i))}; start it to take it over"
                for c, i in lapsed[:LIST_SHOWN]
                ],
                len(lapsed),
            ),
            f"Lapsed: {len(lapsed)} claims whose lease lapsed (in details.lapsed).",
        )
    if working:
        lines = ["On it:"] + [
            f"  {_clip(c.owners[i] or '?', 60)} → {_name(c, i)} ({_clip(c.name, 60)})"
            for c, i in working[:LIST_SHOWN]
        ]
        if len(working) > LIST_SHOWN:
            lines.append(f"  … and {len(working) - LIST_SHOWN} more")
        add(lines, f"On it: {len(working)} agents (in details.phases).")
    if blocked:
        items = []
        for c, i in blocked[:LIST_SHOWN]:
            owner = c.owners[i]
            by = f" [{_clip(owner, 60)}]" if owner else ""
            items.append(
                f"  ⊘ {_name(c, i)} ({_clip(c.name, 60)}) — {_clip(c.reasons[i] or 'no reason given')}{by}"
            )
        add(_capped("Blocked", items, len(blocked)), f"Blocked: {len(blocked)} (in details.phases).")
    if waiting:
        items = [
            f"  {_name(c, i)} ({_clip(c.name, 60)}) after " + _clip(", ".join(f'"{w}"' for w in waits))
            for (c, i), waits in waiting[:LIST_SHOWN]
        ]
        add(_capped("Waiting", items, len(waiting)), f"Waiting: {len(waiting)} (in details.phases).")
    if plan:
        head = f"Plan ({closed}/{total} closed):"
        used = sum(len(line) + 1 for line in out)
        tree = _tree(cols) if total <= TREE_TASKS else None
        if tree is not None and used + len(head) + sum(len(line) + 1 for line in tree) <= TEXT_LIMIT - 50:
            out.append(head)
            out += tree
        else:
            active = len(work.active)
            out.append(
                f"{head} {total - closed} open ({active} in progress, {len(blocked)} blocked) in "
                f"{len(cols)} phase{'' if len(cols) == 1 else 's'}; the whole plan is in "
                "details.phases and on the board."
            )
    text = "\n".join(out)
    if len(text) > TEXT_LIMIT:  # the caps keep it under; this is the guarantee
        tail = "\n… (cut to fit: the whole plan is in details.phases)"
        text = text[: TEXT_LIMIT - len(tail)] + tail
    return TeamView(text, dumped, contents, lapsed_json)


def format_team_summary(
    phases: Sequence[Phase],
    agent: str | None,
    errors: Sequence[str] = (),
    notices: Sequence[str] = (),
    scope: str | None = None,
    *,
    plan: bool = True,
    now: float | None = None,
    renewals: Mapping[str, Renewal] | None = None,
) -> str:
    """The summary for ``agent`` of a plan held as values (see :func:`team_view`); with
    ``now``, the claims whose lease lapsed by then are listed (and ready), heartbeats'
    ``renewals`` counted."""
    work = TeamWork(tuple(phases), agent, now=now, renewals=renewals)
    return team_view(work, agent, errors, notices, scope, plan=plan, dump=False).text


def format_team_head(
    phases: Sequence[Phase],
    agent: str | None = None,
    *,
    now: float | None = None,
    renewals: Mapping[str, Renewal] | None = None,
) -> str:
    """The summary without the plan: the agent's task, ready tasks, lapsed claims, who is on
    what, what is blocked and what waits (``phasetodo ready``)."""
    return format_team_summary(phases, agent, plan=False, now=now, renewals=renewals)
