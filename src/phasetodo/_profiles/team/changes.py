"""What changed in a team plan between two versions, told as the summary opens with it.

A caller's summary starts with what the other agents (and people) did since its last
look: who completed, claimed, took over, blocked, added or removed what. Tasks are
matched by their ids, so a rename or a move is told as one. Unchanged phases and
tasks are skipped by identity first (the engine and the stores share what a write left
alone), so this costs what changed, not what the plan holds.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._core.model import Phase, Status, Task

__all__ = ["changes_since"]

#: The most changes told (the summary shows fewer); past this the rest are counted.
MOST = 200


def _tasks(phase: Phase, skip: set[int]) -> dict[str, tuple[Task, str]]:
    return {t.id: (t, phase.name) for t in phase.tasks if t.id is not None and id(t) not in skip}


def changes_since(seen: Sequence[Phase], now: Sequence[Phase]) -> list[str]:
    """One line per task that changed from ``seen`` to ``now`` (at most :data:`MOST`, then
    how many more), in ``now``'s order; removed tasks last."""
    before = {p.name: p for p in seen}
    old: dict[str, tuple[Task, str]] = {}
    new: dict[str, tuple[Task, str]] = {}
    names = set()
    for phase in now:
        names.add(phase.name)
        prev = before.get(phase.name)
        if prev is phase or (prev is not None and prev == phase):
            continue
        kept = set(map(id, prev.tasks)) if prev is not None else set()
        new.update(_tasks(phase, kept))
        if prev is not None:
            old.update(_tasks(prev, set(map(id, phase.tasks))))
    for phase in seen:
        if phase.name not in names:
            old.update(_tasks(phase, set()))
    out: list[str] = []
    for ident, (task, where) in new.items():
        was = old.pop(ident, None)
        line = _told(ident, task, where, was)
        if line is not None:
            out.append(line)
    out += [f'removed {ident} "{task.content}" ({where})' for ident, (task, where) in old.items()]
    if len(out) > MOST:
        out = [*out[:MOST], f"and {len(out) - MOST} more changes"]
    return out


def _told(ident: str, task: Task, where: str, was: tuple[Task, str] | None) -> str | None:
    """How one task's change reads, or ``None`` when nothing the team cares about changed."""
    name = f'{ident} "{task.content}"'
    who = task.owner or "someone"
    if was is None:
        return f"added {name} ({where})"
    old, old_where = was
    parts: list[str] = []
    if old.content != task.content:
        parts.append(f'renamed {ident} "{old.content}" to "{task.content}"')
    if old_where != where:
        parts.append(f"moved {name} to {where}")
    status = task.status
    if old.status is not status or (status is Status.IN_PROGRESS and old.owner != task.owner):
        if status is Status.COMPLETED:
            parts.append(f"{who} completed {name}")
        elif status is Status.ABANDONED:
            parts.append(f"{who} dropped {name}")
        elif status is Status.BLOCKED:
            parts.append(f"{task.owner + ' ' if task.owner else ''}blocked {name}: {task.reason or '?'}")
        elif status is Status.IN_PROGRESS:
            lease = task.lease
            if old.status is Status.IN_PROGRESS and lease is not None and lease.lapsed == old.owner:
                parts.append(f"{who} took over {name} from {old.owner} (lease lapsed)")
            else:
                parts.append(f"{who} claimed {name}")
        else:
            parts.append(f"{name} is pending again")
    if len(task.notes) > len(old.notes):
        parts.append(f"a note on {name}")
    return "; ".join(parts) if parts else None
