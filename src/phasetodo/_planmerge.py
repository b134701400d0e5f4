"""The merge of two histories of one session: both sides' later events re-applied as changes.

The history both sides share (a prefix) is kept; then every later event of either
side, in time order, is applied as the change it made to its own list: tasks
matched by id (else by phase and content), phases by identity (the phase of the
same name, else the one a renamed phase took most of its tasks from), moves and
reorders as the fewest tasks (or phases) moved. Changes that collide keep the later
one and are recorded as a ``merge-conflict`` event that notes both values.
:mod:`phasetodo.gitplan` reads and writes the files; this module only merges events.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from itertools import compress
from operator import attrgetter, is_not
from typing import Any

import attrs

from . import _planorder
from ._core.codec import dump_phases
from ._core.model import Phase, Status, Task
from ._views.diff import diff_phases
from .stores import Event

__all__ = ["CONFLICT_SOURCE", "Conflict", "MergeResult", "NotedConflict", "merge_events", "noted_conflicts"]

#: The ``source`` of the ``user_edit`` event that records a merge's conflicts.
CONFLICT_SOURCE = "merge-conflict"
#: The fields of a task whose two different new values are a conflict (``notes`` merge).
_FIELDS = ("content", "status", "owner", "reason", "after", "lease")
_REPORTED = frozenset(("content", "status", "owner", "reason", "after"))
#: The anchor of a task added (or moved) last in its phase: it goes last in the merged phase too.
_LAST = Task("")
#: The most names an order conflict's note lists.
_SHOWN = 8


@attrs.frozen
class Conflict:
    """Two branches changed one thing differently: ``kept`` (the later change, at ``time``)
    won over ``lost``.

    ``field`` is a task's field, ``removed`` (removed on one branch, changed on the
    other), ``phase`` (a task moved to two phases), ``order`` (a phase's tasks
    reordered two ways), ``phase name`` or ``phase order``. ``task`` is the task the
    note goes on (its id, else its content; for a phase, its first task, else the
    plan's; empty when the plan has none); ``phase`` names the phase of a phase's conflict.
    """

    task: str
    field: str
    kept: str
    lost: str
    time: float
    phase: str | None = None

    def text(self) -> str:
        """The note the conflict leaves on its task."""
        when = datetime.fromtimestamp(self.time, UTC).isoformat(timespec="seconds")
        if self.field == "removed":
            return f"merge conflict: removed on one branch, changed on the other ({self.kept}); kept"
        what = self.field if self.field != "order" else f"order of {self.phase}"
        return (
            f"merge conflict: {what} {self.lost} on one branch, {self.kept} on the other; "
            f"kept {self.kept}, the later change ({when})"
        )

    def noted(self, phases: Sequence[Phase]) -> NotedConflict | None:
        """Where this conflict's note is in ``phases`` (the merged plan); None when no task there
        carries it (a plan without tasks, or a task a later change removed)."""
        for phase in phases:
            for task in phase.tasks:
                if self.text() in task.notes and self.task in (task.id, task.content):
                    return NotedConflict(phase.name, task.content, task.id, self.text())
        return None


@attrs.frozen
class NotedConflict:
    """A conflict as a person finds it: its note ``text`` on the task ``task`` (its content;
    ``id`` when it has one) in the phase ``phase``."""

    phase: str
    task: str
    id: str | None
    text: str

    def line(self) -> str:
        """One line naming the task and its phase, then the note."""
        if not self.task:
            return f"{self.phase}: {self.text}"
        named = f'"{self.task}"' + (f" ({self.id})" if self.id else "")
        return f"{named} in {self.phase}: {self.text}"

    def to_json(self) -> dict[str, str | None]:
        """JSON-ready form: ``{"phase", "task", "id", "text"}``."""
        return {"phase": self.phase, "task": self.task, "id": self.id, "text": self.text}


def noted_conflicts(before: Sequence[Phase], after: Sequence[Phase]) -> list[NotedConflict]:
    """The conflicts a ``merge-conflict`` event noted: the notes it added between its list
    ``before`` and ``after``, each with its task and phase."""
    ids = {(p.name, t.content): t.id for p in after for t in p.tasks}
    return [
        NotedConflict(n.phase, n.content, ids.get((n.phase, n.content)), n.text)
        for n in diff_phases(before, after).notes_added
    ]


@attrs.frozen
class MergeResult:
    """A merged log: its ``events`` (versions from 1), the final list and the conflicts recorded."""

    events: tuple[Event, ...]
    phases: tuple[Phase, ...]
    conflicts: tuple[Conflict, ...]
    common: int


def _id_number(task_id: str | None) -> int | None:
    if task_id is None or not task_id.startswith("t") or not task_id[1:].isdigit():
        return None
    return int(task_id[1:])


def _mark(phases: Sequence[Phase]) -> int:
    ids = (_id_number(t.id) or 0 for p in phases for t in p.tasks)
    return max(max((p.last_id for p in phases), default=0), max(ids, default=0))


def _shown(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return "none" if value is None else str(value)


def _label(task: Task) -> str:
    return task.id or task.content


def _listed(names: Sequence[str]) -> str:
    shown = list(names[:_SHOWN]) + (["…"] if len(names) > _SHOWN else [])
    return "[" + ", ".join(shown) + "]"


_task_id = attrgetter("id")
_content = attrgetter("content")


class _Numbers(dict[str | None, int]):
    """Each task id's number (0 for none), worked out once per id: lookups run in C."""

    def __missing__(self, task_id: str | None) -> int:
        number = self[task_id] = _id_number(task_id) or 0
        return number


def _window(old: Sequence[Any], new: Sequence[Any]) -> tuple[int, int, int]:
    """Where ``new`` differs from ``old`` (two tuples, or two lists): ``(start, old_end, new_end)``
    with ``old[:start] == new[:start]`` and ``old[old_end:] == new[new_end:]``, both as long as
    they can be without overlapping. Slices are compared (identical items in C), halving the
    span each time, so a change in a long phase costs a few passes in C, not one in Python."""
    count = min(len(old), len(new))
    if len(old) == len(new) and old == new:
        return count, count, count
    low, high = 0, count
    while low < high:
        middle = (low + high + 1) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle - 1
    start, old_end, new_end = low, len(old), len(new)
    low, high = 0, count - start
    while low < high:
        middle = (low + high + 1) // 2
        if old[old_end - middle : old_end - low] == new[new_end - middle : new_end - low]:
            low = middle
        else:
            high = middle - 1
    return start, old_end - low, new_end - low


#: A run of a phase's tasks that changed: ``(start, old_end, new_end)`` as :func:`_window` gives.
_Span = tuple[int, int, int]
#: The longest window whose changed tasks are looked for one by one, and the most runs kept.
_LONG, _RUNS = 16, 16


def _spans(old: Sequence[Any], new: Sequence[Any]) -> list[_Span]:
    """The runs of ``new`` that differ from ``old`` (none when they are equal): the window of
    :func:`_window`, or, when it is long and holds as many items either way, the runs of
    items in it that are not the very same objects (a few changes far apart)."""
    start, old_end, new_end = _window(old, new)
    if start == old_end == new_end:
        return []
    if old_end - start == new_end - start > _LONG:
        changed = list(compress(range(start, old_end), map(is_not, old[start:old_end], new[start:new_end])))
        runs: list[list[int]] = []
        for at in changed:
            if runs and runs[-1][1] == at:
                runs[-1][1] = at + 1
            else:
                runs.append([at, at + 1])
        if len(runs) <= _RUNS:
            return [(first, end, end) for first, end in runs]
    return [(start, old_end, new_end)]


#: An event's change told by windows: each phase (by index) whose tasks it changed, with the
#: runs of them it changed (:func:`_spans`); the phases, their names and order as they were.
_Windows = dict[int, list[_Span]]


def _each(windows: _Windows) -> Iterator[tuple[int, int, int, int]]:
    """Each run of ``windows`` with its phase's index, phase by phase, in order."""
    for index in sorted(windows):
        for start, old_end, new_end in windows[index]:
            yield index, start, old_end, new_end


def _windows(before: Sequence[Phase], after: Sequence[Phase]) -> _Windows | None:
    """The windows of the tasks an event changed; None when it added, removed or renamed a phase."""
    if len(before) != len(after):
        return None
    out: _Windows = {}
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        if old is new:
            continue
        if old.name != new.name:
            return None
        if old.tasks is not new.tasks:
            out[index] = _spans(old.tasks, new.tasks)
    return out


# -- phases and tasks in one list ----------------------------------------------------------

#: A phase in one list: its name and which phase of that name it is (0 for the first).
_Slot = tuple[str, int]
#: A task in one list: ``("id", id)``, else ``("c", slot, content, copy)``.
_Key = tuple[Any, ...]


def _slots(phases: Sequence[Phase]) -> list[_Slot]:
    names = [phase.name for phase in phases]
    if len(set(names)) == len(names):  # no name twice: each phase is the first of its name
        return [(name, 0) for name in names]
    seen: dict[str, int] = {}
    out: list[_Slot] = []
    for name in names:
        out.append((name, seen.get(name, 0)))
        seen[name] = out[-1][1] + 1
    return out


def _ident(task: Task) -> tuple[str, str]:
    return ("id", task.id) if task.id is not None else ("c", task.content)


def phase_map(before: Sequence[Phase], after: Sequence[Phase]) -> dict[int, int]:
    """Which phase of ``before`` each phase of ``after`` is (by index): the one of the same
    name, else, for a phase whose name is new, the unmatched phase of ``before`` that held
    most of its tasks (a rename; ties to the earlier phases). A new phase maps to none."""
    return _phase_map(before, after, _slots(before), _slots(after))


def _phase_map(
    before: Sequence[Phase], after: Sequence[Phase], bslots: Sequence[_Slot], aslots: Sequence[_Slot]
) -> dict[int, int]:
    """:func:`phase_map` given both lists' slots."""
    where = {slot: i for i, slot in enumerate(bslots)}
    out = {a: where[slot] for a, slot in enumerate(aslots) if slot in where}
    taken = set(out.values())
    home = {_ident(t): r for r, p in enumerate(before) if r not in taken for t in p.tasks}
    scores: Counter[tuple[int, int]] = Counter()
    for a, phase in enumerate(after):
        if a not in out:
            for task in phase.tasks:
                r = home.get(_ident(task))
                if r is not None:
                    scores[(a, r)] += 1
    for (a, r), _ in sorted(scores.items(), key=lambda item: (-item[1], item[0])):
        if a not in out and r not in taken:
            out[a] = r
            taken.add(r)
    return out


def _keys(
    phases: Sequence[Phase], slots: Sequence[_Slot], indexes: Sequence[int]
) -> dict[_Key, tuple[int, Task]]:
    """Each task of the phases at ``indexes`` by its key (its id, else phase slot, content and
    which copy), with its phase's index."""
    out: dict[_Key, tuple[int, Task]] = {}
    seen: Counter[tuple[_Slot, str]] = Counter()
    for index in indexes:
        for task in phases[index].tasks:
            if task.id is not None:
                out[("id", task.id)] = (index, task)
            else:
                slot = slots[index]
                out[("c", slot, task.content, seen[(slot, task.content)])] = (index, task)
                seen[(slot, task.content)] += 1
    return out


def _frames(bslots: Sequence[_Slot], aslots: Sequence[_Slot], pmap: dict[int, int]) -> list[_Slot]:
    """The slot each phase of ``after`` goes by in its event's diff: its phase's in ``before``."""
    return [bslots[pmap[a]] if a in pmap else aslots[a] for a in range(len(aslots))]


def _within(tasks: Sequence[Task]) -> list[tuple[Any, ...]]:
    """The keys of a phase's tasks among themselves: id, else content and which copy."""
    seen: Counter[str] = Counter()
    out: list[tuple[Any, ...]] = []
    for task in tasks:
        if task.id is not None:
            out.append(("id", task.id))
        else:
            out.append(("c", task.content, seen[task.content]))
            seen[task.content] += 1
    return out


def _key_in(slot: _Slot, task: Task) -> _Key:
    """The key of a task the only one of its content in its phase (see :func:`_keys`)."""
    return ("id", task.id) if task.id is not None else ("c", slot, task.content, 0)


# -- the merged list -----------------------------------------------------------------------


class _Merged:
    """The merged list being built: phases (by an identity of their own) in order, each with
    its name and tasks.

    Every change to a phase's tasks goes through :meth:`touch`; the indexes (task id to phase,
    the agents holding tasks in progress, each phase's id numbers, each phase frozen) are then
    brought up to date from the window of that phase's tasks that changed since they were last
    read (:func:`_window`): an event costs what it changed, not the size of its phases.
    """

    def __init__(self, phases: Sequence[Phase]) -> None:
        self.order: list[int] = list(range(len(phases)))
        self.names: dict[int, str] = {i: p.name for i, p in enumerate(phases)}
        self.tasks: dict[int, list[Task]] = {i: list(p.tasks) for i, p in enumerate(phases)}
        self.next = len(phases)
        self.mark = _mark(phases)
        self.numbers = _Numbers()
        self.indexed: dict[int, tuple[Task, ...]] = {}  # each phase's tasks the indexes hold
        self.where: dict[str, dict[int, int]] = {}  # each task id: the phases holding it, how often
        self.tops: dict[int, dict[int, int]] = {}  # each phase: its tasks' id numbers, how often
        self.busy: Counter[str] = Counter()  # each agent: its tasks in progress
        self.at: dict[str | None, int] = {}  # where a task id was last seen in its phase (a guess)
        self.frozen: dict[int, Phase] = {}
        self.source: dict[int, tuple[Task, ...]] = {}  # the side's tasks a phase was last set to
        self.first: tuple[Phase, int, Phase] | None = None  # the first phase with the mark on it
        self.dirty: set[int] = set(self.tasks)  # phases changed since the indexes were built
        self.unmarked: set[int] = set(self.tasks)  # phases changed since the mark was taken

    def touch(self, pid: int) -> None:
        """Phase ``pid``'s tasks changed (or it was removed): its indexes catch up when next read."""
        self.dirty.add(pid)
        self.unmarked.add(pid)
        self.frozen.pop(pid, None)
        self.source.pop(pid, None)

    def sync(self) -> None:
        """Bring the indexes up to date with the phases changed since they were last read."""
        for pid in self.dirty:
            old = self.indexed.get(pid, ())
            new = tuple(self.tasks.get(pid, ()))
            for start, old_end, new_end in _spans(old, new):
                for task in old[start:old_end]:
                    self.count(pid, task, -1)
                for task in new[start:new_end]:
                    self.count(pid, task, 1)
            if new:
                self.indexed[pid] = new
            else:
                self.indexed.pop(pid, None)
        self.dirty.clear()

    def count(self, pid: int, task: Task, step: int) -> None:
        """Count ``task`` in phase ``pid`` into the indexes (``step`` 1), or out of them (-1)."""
        if task.id is not None:
            _tally(self.where.setdefault(task.id, {}), pid, step)
            if not self.where[task.id]:
                del self.where[task.id]
        _tally(self.tops.setdefault(pid, {}), self.numbers[task.id], step)
        if task.status is Status.IN_PROGRESS and task.owner is not None:
            self.busy[task.owner] += step

    def doubled(self) -> bool:
        """Whether some agent holds two tasks in progress."""
        self.sync()
        return any(count > 1 for count in self.busy.values())

    def new_mark(self) -> int:
        """The highest id number of the tasks of the phases changed since the last call (the
        others' were taken before)."""
        self.sync()
        top = 0
        for pid in self.unmarked:
            numbers = self.tops.get(pid)
            if numbers:
                top = max(top, max(numbers))
        self.unmarked.clear()
        return top

    def freeze(self) -> tuple[Phase, ...]:
        out: list[Phase] = []
        for pid in self.order:
            phase = self.frozen.get(pid)
            if phase is None or phase.name != self.names[pid]:
                phase = self.frozen[pid] = Phase(self.names[pid], tuple(self.tasks[pid]))
            out.append(phase)
        if out and self.mark:
            if self.first is None or self.first[0] is not out[0] or self.first[1] != self.mark:
                self.first = (out[0], self.mark, attrs.evolve(out[0], last_id=self.mark))
            out[0] = self.first[2]
        return tuple(out)

    def alive(self, pid: int) -> bool:
        return pid in self.tasks

    def make(self, name: str) -> int:
        """A new phase identity named ``name``, not yet placed in the list."""
        self.next += 1
        self.names[self.next] = name
        return self.next

    def place(self, pid: int, order: Sequence[int]) -> None:
        """Put phase ``pid`` in the list after the phase before it in ``order`` that the list
        holds, else before the one after it, else last."""
        if pid in self.tasks:
            return
        self.tasks[pid] = []
        self.touch(pid)
        index = list(order).index(pid) if pid in order else len(order)
        at = len(self.order)
        for prior in reversed(order[:index]):
            if prior in self.tasks and prior != pid and prior in self.order:
                at = self.order.index(prior) + 1
                break
        else:
            for later in order[index + 1 :]:
                if later in self.order:
                    at = self.order.index(later)
                    break
        self.order.insert(at, pid)

    def remove(self, pid: int) -> None:
        if pid in self.tasks:
            self.order.remove(pid)
            del self.tasks[pid]
            self.touch(pid)

    def find_id(self, task_id: str) -> tuple[int, int] | None:
        self.sync()
        holders = self.where.get(task_id)
        if not holders:
            return None
        pid = next(iter(holders)) if len(holders) == 1 else next(p for p in self.order if p in holders)
        tasks = self.tasks[pid]
        at = self.at.get(task_id)
        if holders[pid] == 1 and at is not None and at < len(tasks) and tasks[at].id == task_id:
            return pid, at
        ids = list(map(_task_id, tasks))
        self.at.update(zip(ids, range(len(ids)), strict=True))
        return (pid, ids.index(task_id)) if task_id in ids else None

    def find_content(self, pid: int | None, content: str, copy: int) -> tuple[int, int] | None:
        if pid is None or pid not in self.tasks:
            return None
        for i in _indexes(self.tasks[pid], content):
            if self.tasks[pid][i].id is None:
                if copy == 0:
                    return pid, i
                copy -= 1
        return None

    def has_id(self, task_id: str) -> bool:
        self.sync()
        return task_id in self.where

    def named(self, name: str, besides: Sequence[int]) -> int | None:
        return next((p for p in self.order if self.names[p] == name and p not in besides), None)

    def insert(self, pid: int, task: Task, after: Task | None, order: Sequence[int]) -> None:
        self.place(pid, order)
        tasks = self.tasks[pid]
        self.touch(pid)
        at = len(tasks)
        if after is None:
            at = 0
        elif after is not _LAST:
            found = (
                _index_of(list(map(_task_id, tasks)), after.id)
                if after.id is not None
                else next((i for i in _indexes(tasks, after.content) if tasks[i] == after), None)
            )
            if found is not None:
                at = found + 1
        tasks.insert(at, task)

    def first_task(self, pid: int | None) -> str:
        """The label of the first task of phase ``pid``, else of the plan, else empty."""
        if pid is not None and self.tasks.get(pid):
            return _label(self.tasks[pid][0])
        return next((_label(self.tasks[p][0]) for p in self.order if self.tasks[p]), "")


def _tally(counts: dict[Any, int], key: Any, step: int) -> None:
    """Add ``step`` to ``counts[key]``, dropping the key at 0."""
    number = counts.get(key, 0) + step
    if number:
        counts[key] = number
    else:
        del counts[key]


def _index_of(items: list[Any], item: Any) -> int | None:
    """Where ``item`` first is in ``items``, else None."""
    try:
        return items.index(item)
    except ValueError:
        return None


def _indexes(tasks: Sequence[Task], content: str) -> list[int]:
    """Where the tasks of content ``content`` are in ``tasks``, in order (found in C)."""
    contents = list(map(_content, tasks))
    out: list[int] = []
    at = _index_of(contents, content)
    while at is not None:
        out.append(at)
        try:
            at = contents.index(content, at + 1)
        except ValueError:
            at = None
    return out


@attrs.define
class _Side:
    """One branch's task ids as the merged list names them, and its phases' identities there."""

    ids: dict[str, str] = attrs.field(factory=dict)
    phases: dict[_Slot, int] = attrs.field(factory=dict)
    renamed: bool = False  # whether some id is named otherwise in the merged list


# -- one event, applied as its change --------------------------------------------------------


class _Merge:
    """The merge under way: the merged list, each side's names for its tasks and phases."""

    def __init__(self, start: Sequence[Phase], top: int) -> None:
        self.merged = _Merged(start)
        self.start_mark = _mark(start)
        slots = {slot: pid for pid, slot in enumerate(_slots(start))}
        self.sides = (_Side(phases=dict(slots)), _Side(phases=dict(slots)))
        self.fresh = top  # the next id a collision gets is above every id either side issued
        #: Which side last moved each task (by phase and key) or phase (by None and identity).
        self.moves: dict[tuple[int | None, Any], int] = {}
        #: The events (by ``id``) whose list before or after holds a task id twice.
        self.twice: set[int] = set()
        #: The events (by ``id``) that changed tasks alone, each only one of its content: their windows.
        self.windows: dict[int, _Windows] = {}
        #: The sides an event of which was not applied (another copy of it was): their lists may
        #: hold ids this merge has not named yet, so their events are diffed whole.
        self.skipped: set[int] = set()

    def windows_of(self, side: int, event: Event) -> _Windows | None:
        """The windows ``event`` changed, when its change can be told from them alone: every
        task of the side's list before it named by the merge already, no id held twice."""
        if side in self.skipped or id(event) in self.twice:
            return None
        return self.windows.get(id(event))

    def translate(self, side: int, task: Task) -> Task:
        """``task`` of ``side`` with its id as the merged list names it."""
        number = _id_number(task.id)
        if task.id is None or number is None or number <= self.start_mark:
            return task
        ids = self.sides[side].ids
        if task.id not in ids:
            if self.merged.has_id(task.id) or task.id in self.sides[1 - side].ids.values():
                self.fresh += 1
                ids[task.id] = f"t{self.fresh}"
                self.sides[side].renamed = True
            else:
                ids[task.id] = task.id
        new = ids[task.id]
        return task if new == task.id else attrs.evolve(task, id=new)

    def pid_for(self, phases: dict[_Slot, int], slot: _Slot) -> int:
        """The merged phase a side's phase ``slot`` is: as the side's map says, else by name."""
        if slot in phases:
            return phases[slot]
        found = self.merged.named(slot[0], ())
        return found if found is not None else self.merged.make(slot[0])

    def find(self, side: int, key: _Key, task: Task) -> tuple[int, int] | None:
        """Where the merged list holds the task ``side`` calls ``key``."""
        if key[0] == "id":
            return self.merged.find_id(self.translate(side, task).id or "")
        _, slot, content, copy = key
        return self.merged.find_content(self.sides[side].phases.get(slot), content, copy)

    def apply(
        self, side: int, before: tuple[Phase, ...], event: Event, prior: tuple[Phase, ...]
    ) -> list[Conflict]:
        """Apply what ``event`` changed on its side (from ``before``) to the merged list (``prior``
        until then); its conflicts."""
        step = _Step(self, side, before, event)
        found = step.run()
        if not found and _same_list(prior, before):
            step.exactly()  # the merged list was this side's: the event's list is the result
        self.sides[side].phases = dict(zip(step.aslots, step.apids, strict=True))
        return found


def _same_list(one: Sequence[Phase], other: Sequence[Phase]) -> bool:
    """Whether two lists have the same phases (by name) with the same tasks (``last_id`` aside)."""
    return len(one) == len(other) and all(
        a.name == b.name and (a.tasks is b.tasks or a.tasks == b.tasks)
        for a, b in zip(one, other, strict=True)
    )


class _Marks:
    """The id mark of lists (:func:`_mark`), each phase's taken once: lists share their unchanged
    phases, and a phase an event changed follows from the one before it and the window changed."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[Phase, int, int]] = {}  # a phase: its mark, its tasks' highest
        self.lists: dict[int, tuple[Sequence[Phase], int]] = {}
        self.numbers = _Numbers()

    def of(self, phases: Sequence[Phase]) -> int:
        listed = self.lists.get(id(phases))
        if listed is not None and listed[0] is phases:
            return listed[1]
        top = max((self.phase(phase)[1] for phase in phases), default=0)
        self.lists[id(phases)] = (phases, top)
        return top

    def phase(self, phase: Phase) -> tuple[Phase, int, int]:
        known = self.seen.get(id(phase))
        if known is None or known[0] is not phase:
            highest = self.highest(phase.tasks)
            known = self.seen[id(phase)] = (phase, max(phase.last_id, highest), highest)
        return known

    def highest(self, tasks: Sequence[Task]) -> int:
        return max(map(self.numbers.__getitem__, map(_task_id, tasks)), default=0)

    def follow(self, before: Sequence[Phase], after: Sequence[Phase], windows: _Windows) -> None:
        """Take the marks of ``after``'s phases that changed from ``before``'s by ``windows``."""
        for index, spans in windows.items():
            old, new = before[index], after[index]
            highest = self.phase(old)[2]
            if highest and max((self.highest(old.tasks[s:e]) for s, e, _ in spans), default=0) >= highest:
                continue  # its highest number may have gone: taken whole when asked
            highest = max([highest, *(self.highest(new.tasks[s:e]) for s, _, e in spans)])
            self.seen[id(new)] = (new, max(new.last_id, highest), highest)


class _Step:
    """One event applied: its phases matched to the merged list's, then its task changes,
    then its moves within phases and of phases."""

    def __init__(self, merge: _Merge, side: int, before: tuple[Phase, ...], event: Event) -> None:
        self.merge, self.merged, self.side = merge, merge.merged, side
        self.before, self.after, self.time, self.event = before, event.phases, event.time, event
        self.bslots, self.aslots = _slots(before), _slots(event.phases)
        self.pmap = _phase_map(before, event.phases, self.bslots, self.aslots)
        own = merge.sides[side].phases
        self.bpids = [merge.pid_for(own, slot) for slot in self.bslots]
        self.apids: list[int] = []
        self.found: list[Conflict] = []
        #: The event's change by windows (see :meth:`_Merge.windows_of`), else None: diffed whole.
        self.windows = merge.windows_of(side, event)

    def run(self) -> list[Conflict]:
        self.match_phases()
        self.tasks()
        removed = set(range(len(self.before))) - set(self.pmap.values())
        for r in sorted(removed):
            pid = self.bpids[r]
            if self.merged.alive(pid) and not self.merged.tasks[pid]:
                self.merged.remove(pid)
        for a, r in sorted(self.pmap.items()):
            if self.before[r].tasks is not self.after[a].tasks:
                self.reorder_tasks(a, r)
        self.reorder_phases()
        return self.found

    def conflict(self, pid: int | None, field: str, kept: str, lost: str, task: str | None = None) -> None:
        label = task if task is not None else self.merged.first_task(pid)
        phase = self.merged.names.get(pid) if pid is not None and task is None else None
        if field == "phase order":
            phase = None
        self.found.append(Conflict(label, field, kept, lost, self.time, phase))

    # -- phases

    def match_phases(self) -> None:
        """Each phase of the event's list as a merged phase: renames carried over (both sides
        renaming one phase differently is a conflict), new phases made (or joined by name)."""
        merged = self.merged
        for a, phase in enumerate(self.after):
            r = self.pmap.get(a)
            if r is None:
                pid = merged.named(phase.name, self.apids)
                self.apids.append(pid if pid is not None else merged.make(phase.name))
                continue
            pid = self.bpids[r]
            self.apids.append(pid)
            was, now = self.before[r].name, merged.names[pid]
            if phase.name == was or not merged.alive(pid):
                if not merged.alive(pid):
                    merged.names[pid] = phase.name
                continue
            if now not in (was, phase.name):
                self.conflict(pid, "phase name", phase.name, now)
            merged.names[pid] = phase.name
        for a, pid in enumerate(self.apids):
            if a not in self.pmap:
                merged.place(pid, self.apids)

    def reorder_phases(self) -> None:
        """Carry over the phases this side moved; both sides moving one phase to two places is
        a conflict, the later place kept."""
        merged = self.merged
        stayed = {self.apids[a] for a in self.pmap if merged.alive(self.apids[a])}
        was = [pid for pid in self.bpids if pid in stayed]
        now = [pid for pid in self.apids if pid in stayed]
        if was == now or len(set(now)) != len(now):
            return
        full = [pid for pid in self.apids if merged.alive(pid)]
        clash = self.rearrange(None, merged.order, was, now, full)
        if clash is not None:
            prior, pid = clash
            lost, kept = [merged.names[p] for p in prior], [merged.names[p] for p in merged.order]
            self.conflict(pid, "phase order", _listed(kept), _listed(lost))

    def rearrange(
        self, scope: int | None, current: list[Any], was: list[Any], now: list[Any], full: list[Any]
    ) -> tuple[list[Any], Any] | None:
        """Carry this side's moves from ``was`` to ``now`` into ``current`` (in ``scope``: a
        phase, or None for the phases); a conflict's order before and the item moved two ways."""
        items = _planorder.moved(was, now)
        prior = list(current)
        clash = None
        if not _planorder.arrange(was, now, full, current):
            _planorder.impose(current, full)
            clash = items[0]
        else:
            moves, other = self.merge.moves, 1 - self.side
            here = set(current)
            clash = next(
                (
                    k
                    for k in items
                    if k in here and moves.get((scope, k)) == other and _near(prior, k) != _near(current, k)
                ),
                None,
            )
        for key in items:
            self.merge.moves[(scope, key)] = self.side
        return (prior, clash) if clash is not None else None

    # -- tasks

    def tasks(self) -> None:
        """Removals, additions, changes and moves between phases, as the event made them."""
        old, new, previous = self.diffed() if self.windows is None else self.windowed(self.windows)
        for key, (_, task) in old.items():
            if key not in new:
                self.removed(key, task)
        for key, (a, task) in new.items():
            known = old.get(key)
            same_phase = known is not None and self.pmap.get(a) == known[0]
            if known is not None and (known[1] is task or known[1] == task) and same_phase:
                continue  # unchanged on this side: nothing to look up
            prior = previous[id(task)]
            anchor = prior if prior is None or prior is _LAST else self.merge.translate(self.side, prior)
            self.changed(key, a, task, known, anchor)

    def diffed(
        self,
    ) -> tuple[dict[_Key, tuple[int, Task]], dict[_Key, tuple[int, Task]], dict[int, Task | None]]:
        """The tasks of the phases the event changed, before and after (by key), and the task
        before each task after (:data:`_LAST` for the last)."""
        frames = _frames(self.bslots, self.aslots, self.pmap)
        kept = {a: r for a, r in self.pmap.items() if self.before[r].tasks is self.after[a].tasks}
        if id(self.event) in self.merge.twice:
            kept = {}  # an id held twice: the last place of each tells it, as the whole lists do
        unchanged = set(kept.values())  # phases whose tasks the event left as they were
        olds = [r for r in range(len(self.before)) if r not in unchanged]
        news = [a for a in range(len(self.after)) if a not in kept]
        old, new = _keys(self.before, self.bslots, olds), _keys(self.after, frames, news)
        previous: dict[int, Task | None] = {}
        for listed in (self.after[a] for a in news):
            last: Task | None = None
            for task in listed.tasks:
                previous[id(task)] = last
                last = task
            if last is not None and len(listed.tasks) > 1:
                previous[id(last)] = _LAST
        return old, new, previous

    def windowed(
        self, windows: _Windows
    ) -> tuple[dict[_Key, tuple[int, Task]], dict[_Key, tuple[int, Task]], dict[int, Task | None]]:
        """:meth:`diffed` from the windows the event changed alone: the tasks around them are
        the same before and after, and so are their keys (each content in a window is the
        only one of its content)."""
        old: dict[_Key, tuple[int, Task]] = {}
        new: dict[_Key, tuple[int, Task]] = {}
        previous: dict[int, Task | None] = {}
        for index, start, old_end, new_end in _each(windows):
            slot = self.bslots[index]
            for task in self.before[index].tasks[start:old_end]:
                old[_key_in(slot, task)] = (index, task)
            tasks = self.after[index].tasks
            for at in range(start, new_end):
                new[_key_in(slot, tasks[at])] = (index, tasks[at])
                previous[id(tasks[at])] = tasks[at - 1] if at else None
            if new_end == len(tasks) > 1 and new_end > start:
                previous[id(tasks[-1])] = _LAST
        return old, new, previous

    def removed(self, key: _Key, task: Task) -> None:
        where = self.merge.find(self.side, key, task)
        if where is None:
            return
        current = self.merged.tasks[where[0]][where[1]]
        if current == self.merge.translate(self.side, task):
            del self.merged.tasks[where[0]][where[1]]
            self.merged.touch(where[0])
        else:
            self.conflict(where[0], "removed", _what(task, current), "", _label(current))

    def changed(
        self, key: _Key, a: int, task: Task, known: tuple[int, Task] | None, anchor: Task | None
    ) -> None:
        mine = self.merge.translate(self.side, task)
        where = self.merge.find(self.side, key, task)
        target = self.apids[a]
        if known is None:
            if where is None:
                self.merged.insert(target, mine, anchor, self.apids)
            return
        r, was = known
        if where is None:  # removed on the other side, changed on this one: nothing is lost
            self.merged.insert(target, mine, anchor, self.apids)
            self.conflict(target, "removed", _what(was, task), "", _label(mine))
            return
        updated = self.updated(self.merged.tasks[where[0]][where[1]], was, task, mine)
        if self.pmap.get(a) == r or where[0] == target:
            self.merged.tasks[where[0]][where[1]] = updated
            self.merged.touch(where[0])
            return
        if where[0] != self.bpids[r]:  # the other side moved it to another phase: the later move wins
            now = self.merged.names[where[0]]
            self.conflict(target, "phase", self.after[a].name, now, _label(updated))
        del self.merged.tasks[where[0]][where[1]]
        self.merged.touch(where[0])
        self.merged.insert(target, updated, anchor, self.apids)

    def updated(self, current: Task, was: Task, task: Task, mine: Task) -> Task:
        """``current`` with the fields this side changed from ``was`` to ``task``."""
        theirs = self.merge.translate(self.side, was)
        changes: dict[str, Any] = {}
        for field in _FIELDS:
            was_value, new_value, now = getattr(theirs, field), getattr(mine, field), getattr(current, field)
            if was_value == new_value or now == new_value:
                continue
            changes[field] = new_value
            if now != was_value and field in _REPORTED:
                self.conflict(None, field, _shown(new_value), _shown(now), _label(current))
        if task.notes != was.notes:
            changes["notes"] = _notes(was.notes, task.notes, current.notes)
        return attrs.evolve(current, **changes) if changes else current

    def reorder_tasks(self, a: int, r: int) -> None:
        """Carry over the tasks this side moved within a phase it kept; both sides reordering
        a task to two places is a conflict, the later place kept."""
        pid = self.apids[a]
        if not self.merged.alive(pid) or self.before[r].tasks == self.after[a].tasks:
            return
        translate = self.merge.translate
        if self.windows is not None and a in self.windows and self.kept_order(a, r, self.windows[a]):
            return
        was = _within([translate(self.side, t) for t in self.before[r].tasks])
        full = _within([translate(self.side, t) for t in self.after[a].tasks])
        stayed = set(was) & set(full)
        was = [k for k in was if k in stayed]
        now = [k for k in full if k in stayed]
        if was == now:
            return
        tasks = self.merged.tasks[pid]
        current = _within(tasks)
        by_key = dict(zip(current, tasks, strict=True))
        for key in _planorder.moved(was, now):
            if key not in by_key:
                self.fetch(pid, key, current, by_key)
        clash = self.rearrange(pid, current, was, now, full)
        if clash is not None:
            prior, key = clash
            lost, kept = [by_key[k].content for k in prior], [by_key[k].content for k in current]
            moved = by_key.get(key)  # None: the other side removed it; the note goes on the phase
            self.conflict(pid, "order", _listed(kept), _listed(lost), _label(moved) if moved else None)
            self.found[-1] = attrs.evolve(self.found[-1], phase=self.merged.names[pid])
        self.merged.tasks[pid] = [by_key[k] for k in current]
        self.merged.touch(pid)

    def kept_order(self, a: int, r: int, spans: list[_Span]) -> bool:
        """Whether the tasks of phase ``r`` before that stayed in phase ``a`` after kept their
        order, told from the runs the event changed (the tasks around them stayed, in order)."""
        translate = self.merge.translate
        was: list[tuple[Any, ...] | None] = []
        now: list[tuple[Any, ...] | None] = []
        for start, old_end, new_end in spans:  # None between runs: each run is compared with its own
            was += [*_within([translate(self.side, t) for t in self.before[r].tasks[start:old_end]]), None]
            now += [*_within([translate(self.side, t) for t in self.after[a].tasks[start:new_end]]), None]
        stayed = set(was) & set(now)
        return [k for k in was if k in stayed] == [k for k in now if k in stayed]

    def fetch(self, pid: int, key: tuple[Any, ...], current: list[Any], by_key: dict[Any, Task]) -> None:
        """Bring back a task this side moved within phase ``pid`` that the other side moved to
        another phase: the later move wins, a conflict."""
        where = self.merged.find_id(key[1]) if key[0] == "id" else None
        if where is None or where[0] == pid:
            return
        task = self.merged.tasks[where[0]].pop(where[1])
        self.merged.touch(where[0])
        self.conflict(None, "phase", self.merged.names[pid], self.merged.names[where[0]], _label(task))
        current.append(key)
        by_key[key] = task

    def exactly(self) -> None:
        """Make the merged list the event's own (its ids as merged), phase for phase."""
        merged = self.merged
        if len(set(self.apids)) != len(self.apids):
            return
        for pid, phase in zip(self.apids, self.after, strict=True):
            merged.names[pid] = phase.name
            if merged.source.get(pid) is not phase.tasks:  # else it holds them, as merged
                merged.tasks[pid] = self.translated(phase)
                merged.touch(pid)
                merged.source[pid] = phase.tasks
        kept = set(self.apids)
        for pid in [p for p in merged.order if p not in kept]:
            merged.remove(pid)
        merged.order = list(self.apids)

    def translated(self, phase: Phase) -> list[Task]:
        """The tasks of ``phase`` (of the event's list) with their ids as merged."""
        if self.windows is not None and not self.merge.sides[self.side].renamed:
            return list(phase.tasks)  # every task of the list already named by the merge, as itself
        return [self.merge.translate(self.side, t) for t in phase.tasks]


def _near(items: Sequence[Any], key: Any) -> tuple[Any, Any]:
    """The items either side of ``key`` in ``items``."""
    at = items.index(key)
    return (items[at - 1] if at else None, items[at + 1] if at + 1 < len(items) else None)


def _notes(was: tuple[str, ...], mine: tuple[str, ...], current: tuple[str, ...]) -> tuple[str, ...]:
    """The notes after this side changed them from ``was`` to ``mine`` and the merged list has ``current``."""
    if current == was:
        return mine
    notes = list(current)  # the other side changed them too: both changes
    for note in (Counter(was) - Counter(mine)).elements():
        if note in notes:
            notes.remove(note)
    seen: Counter[str] = Counter()
    old_count = Counter(was)
    for note in mine:  # this side's new notes, in its order
        seen[note] += 1
        if seen[note] > old_count[note]:
            notes.append(note)
    return tuple(notes)


def _what(was: Task, now: Task) -> str:
    parts = [
        f"{field} {_shown(getattr(now, field))}"
        for field in _FIELDS
        if getattr(was, field) != getattr(now, field)
    ]
    if was.notes != now.notes:
        parts.append("notes")
    return ", ".join(parts) or "changed"


def _note(merged: _Merged, conflict: Conflict) -> None:
    for pid in merged.order:
        tasks = merged.tasks[pid]
        for i, task in enumerate(tasks):
            if task.id == conflict.task or (task.id is None and task.content == conflict.task):
                tasks[i] = attrs.evolve(task, notes=(*task.notes, conflict.text()))
                merged.touch(pid)
                return


# -- the merge -------------------------------------------------------------------------------

#: One later event: its place in the merged order, the event, its side's list before it, its side.
_Place = tuple[float, str, str, int]
_Item = tuple[_Place, Event, tuple[Phase, ...], int]


def _phases_hash(phases: Sequence[Phase]) -> str:
    return hashlib.sha256(json.dumps(dump_phases(phases), sort_keys=True).encode()).hexdigest()


def _signature(before: Sequence[Phase], after: Sequence[Phase]) -> frozenset[str]:
    """The contents of the tasks an event added, changed, moved or removed (told without task
    ids, which a copy in a merged log may have others of, nor values, which a merge may have
    reconciled)."""
    old, new = _places(before), _places(after)
    out = {content for content, place in new.items() if old.get(content) != place}
    out.update(content for content in old if content not in new)
    return frozenset(out)


def _places(phases: Sequence[Phase]) -> dict[str, tuple[Any, ...]]:
    """Each task's content with its phase's name, the task before it and its values but its id."""
    out: dict[str, tuple[Any, ...]] = {}
    for phase in phases:
        prior = None
        for task in phase.tasks:
            out.setdefault(task.content, (phase.name, prior, _values(task)))
            prior = task.content
    return out


def _values(task: Task) -> tuple[Any, ...]:
    return (task.status, task.notes, task.owner, task.reason, task.after, task.lease)


class _Signs:
    """Events' signatures (:func:`_signature`) told from the phases each changed: lists share
    their unchanged phases, whose tasks' places stay as they were."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[Phase, dict[str, tuple[Any, ...]]]] = {}

    def sign(
        self, before: Sequence[Phase], after: Sequence[Phase], counts: Counter[str] | None = None
    ) -> frozenset[str]:
        """:func:`_signature` of ``before`` and ``after``, in time for the phases not in both.
        ``counts``, when given, counts the contents of ``before``'s tasks, and is made ``after``'s."""
        in_before, in_after = {id(p) for p in before}, {id(p) for p in after}
        kept_before = [p for p in before if id(p) in in_after]
        kept_after = [p for p in after if id(p) in in_before]
        gone = [p for p in before if id(p) not in in_after]
        made = [p for p in after if id(p) not in in_before]
        old_counts = Counter(t.content for p in gone for t in p.tasks)
        new_counts = Counter(t.content for p in made for t in p.tasks)
        if counts is not None:
            # a content no kept phase holds has its places in the changed phases alone
            alone = {c for c in old_counts.keys() | new_counts.keys() if counts[c] == old_counts[c]}
            counts.subtract(old_counts)
            counts.update(new_counts)
        else:
            alone = set()
        if len(kept_before) != len(kept_after) or any(
            b is not a for b, a in zip(kept_before, kept_after, strict=True)
        ):
            return _signature(before, after)  # the phases kept were moved: every place may change
        shared = (old_counts.keys() | new_counts.keys()) - alone
        old = {**self.places(gone, alone), **self.places(before, shared)}
        new = {**self.places(made, alone), **self.places(after, shared)}
        out = {content for content, place in new.items() if old.get(content) != place}
        out.update(content for content in old if content not in new)
        for phase in gone:  # kept for the lists to come only: a long history holds no dead places
            self.seen.pop(id(phase), None)
        return frozenset(out)

    def windowed(
        self, before: Sequence[Phase], after: Sequence[Phase], windows: _Windows, counts: Counter[str]
    ) -> frozenset[str] | None:
        """:meth:`sign` from the windows an event changed, when each content in them (and the
        task after each) is the only one of its content before and after: then only those
        tasks' places may have changed. None (``counts`` left as it was) when one is not."""
        gone = Counter(t.content for i, s, e, _ in _each(windows) for t in before[i].tasks[s:e])
        came = Counter(t.content for i, s, _, e in _each(windows) for t in after[i].tasks[s:e])
        edges = [before[i].tasks[e].content for i, _, e, _ in _each(windows) if e < len(before[i].tasks)]
        if any(counts[c] > 1 or counts[c] - gone[c] + came[c] > 1 for c in {*gone, *came, *edges}):
            return None
        counts.subtract(gone)
        counts.update(came)
        old: dict[str, tuple[Any, ...]] = {}
        new: dict[str, tuple[Any, ...]] = {}
        for index, start, old_end, new_end in _each(windows):
            _window_places(before[index], start, old_end, old)
            _window_places(after[index], start, new_end, new)
            self.seen.pop(id(before[index]), None)
        out = {content for content, place in new.items() if old.get(content) != place}
        out.update(content for content in old if content not in new)
        return frozenset(out)

    def places(self, phases: Sequence[Phase], contents: set[str]) -> dict[str, tuple[Any, ...]]:
        """:func:`_places` of ``phases`` for the tasks of ``contents`` only."""
        out: dict[str, tuple[Any, ...]] = {}
        left = set(contents)
        seen = self.seen
        for phase in phases:
            if not left:
                break
            known = seen.get(id(phase))
            within = known[1] if known is not None and known[0] is phase else self.within(phase)
            for content in within.keys() & left:
                out[content] = within[content]
                left.discard(content)
        return out

    def within(self, phase: Phase) -> dict[str, tuple[Any, ...]]:
        """Each content's first place in ``phase`` (as :func:`_places` tells it), once per phase."""
        known = self.seen.get(id(phase))
        if known is None or known[0] is not phase:
            places: dict[str, tuple[Any, ...]] = {}
            prior = None
            for task in phase.tasks:
                places.setdefault(task.content, (phase.name, prior, _values(task)))
                prior = task.content
            known = self.seen[id(phase)] = (phase, places)
        return known[1]


def _window_places(phase: Phase, start: int, end: int, out: dict[str, tuple[Any, ...]]) -> None:
    """:func:`_places` of the tasks of ``phase`` from ``start`` to ``end``, and of the one after
    them (whose task before may have changed), each the only one of its content."""
    tasks = phase.tasks
    prior = tasks[start - 1].content if start else None
    for task in tasks[start : end + 1]:
        out[task.content] = (phase.name, prior, _values(task))
        prior = task.content


def _rank(event: Event) -> str:
    """A hash of what makes an event itself, the same for its copies and on either side."""
    return hashlib.sha256(json.dumps(same_event(event), default=str).encode()).hexdigest()


def same_event(event: Event) -> tuple[Any, ...]:
    """What tells two copies of one event apart from two events (a previous merge's copy)."""
    return (event.kind, event.time, event.agent, event.source, event.request.id if event.request else None)


class _Twice:
    """The task ids of a side's list that it holds twice, kept as the list changes phase by phase."""

    def __init__(self, phases: Sequence[Phase]) -> None:
        self.counts = Counter(t.id for p in phases for t in p.tasks if t.id is not None)
        self.twice = sum(1 for n in self.counts.values() if n > 1)

    def change(self, before: Sequence[Phase], after: Sequence[Phase], windows: _Windows | None) -> bool:
        """Make it ``after``'s (from ``before``'s, changed by ``windows`` when known); whether
        either holds an id twice."""
        held = self.twice > 0
        if windows is None:
            in_before, in_after = {id(p) for p in before}, {id(p) for p in after}
            gone = [t for p in before if id(p) not in in_after for t in p.tasks]
            came = [t for p in after if id(p) not in in_before for t in p.tasks]
        else:
            gone = [t for i, s, e, _ in _each(windows) for t in before[i].tasks[s:e]]
            came = [t for i, s, _, e in _each(windows) for t in after[i].tasks[s:e]]
        for task_id in (t.id for t in gone):
            if task_id is not None:
                self.twice -= self.counts[task_id] == 2
                self.counts[task_id] -= 1
        for task_id in (t.id for t in came):
            if task_id is not None:
                self.counts[task_id] += 1
                self.twice += self.counts[task_id] == 2
        return held or self.twice > 0


@attrs.define
class _Told:
    """What the merge tells of each later event before applying any, by the event's ``id()``:
    its signature (:func:`_signature`), whether its lists hold an id twice, the windows it
    changed (:func:`_windows`, when its change can be told from them), and the lists' marks."""

    signs: dict[int, frozenset[str]] = attrs.field(factory=dict)
    signer: _Signs = attrs.field(factory=_Signs)
    twice: set[int] = attrs.field(factory=set)
    windows: dict[int, _Windows] = attrs.field(factory=dict)
    marks: _Marks = attrs.field(factory=_Marks)

    def tell(self, before: tuple[Phase, ...], event: Event, counts: Counter[str], ids: _Twice) -> None:
        """Tell ``event`` (its side's list ``before`` it; ``counts`` and ``ids`` that list's, made its)."""
        windows = _windows(before, event.phases)
        if ids.change(before, event.phases, windows):
            self.twice.add(id(event))
        sign = None
        if windows is not None:
            self.marks.follow(before, event.phases, windows)
            sign = self.signer.windowed(before, event.phases, windows, counts)
        if sign is None:
            sign = self.signer.sign(before, event.phases, counts)
        else:
            self.windows[id(event)] = windows or {}
        self.signs[id(event)] = sign


def _later(
    start: tuple[Phase, ...], ours: Sequence[Event], theirs: Sequence[Event], told: _Told
) -> list[_Item]:
    """Both sides' later events in the merged order, each with its side's list before it
    (``told`` gets what each event changed)."""
    later: list[_Item] = []
    for side, events in ((0, ours), (1, theirs)):
        before = start
        counts = Counter(t.content for p in start for t in p.tasks)
        ids = _Twice(start)
        key: _Place = (-math.inf, "", "", 0)  # the shared history comes first
        for event in events:
            told.tell(before, event, counts, ids)
            if event.source == CONFLICT_SOURCE:  # a previous merge's record stays after its change
                key = (key[0], key[1], key[2], key[3] + 1)
            else:
                listed = sorted(told.signs[id(event)])
                key = (event.time, _rank(event), hashlib.sha256(repr(listed).encode()).hexdigest(), 0)
            later.append((key, event, before, side))
            before = event.phases
    later.sort(key=lambda item: item[0])
    return later


def _groups(
    later: Sequence[_Item], signs: dict[int, frozenset[str]], signer: _Signs
) -> tuple[dict[int, list[int]], dict[int, int]]:
    """Copies of one event that a previous merge already brought over (same kind, time, agent,
    source and request id, on the other side, touching a task it touched, or one of them
    changing nothing): each group is applied once."""
    groups: dict[int, list[int]] = {}
    group_of: dict[int, int] = {}
    candidates: dict[tuple[Any, ...], list[tuple[int, frozenset[str]]]] = {}
    for number, item in enumerate(later):
        sign = signs.get(id(item[1]))
        same, sign = same_event(item[1]), sign if sign is not None else signer.sign(item[2], item[1].phases)
        for leader, other_sign in candidates.get(same, []):
            sides_in = {later[i][3] for i in groups[leader]}
            if item[3] not in sides_in and (sign & other_sign or not sign or not other_sign):
                groups[leader].append(number)
                group_of[number] = leader
                break
        else:
            groups[number] = [number]
            group_of[number] = number
            candidates.setdefault(same, []).append((number, sign))
    return groups, group_of


#: The fields of an event its equality compares, but its list.
_EVENT_FIELDS = tuple(f.name for f in attrs.fields(Event) if f.eq and f.name != "phases")


def _shared(ours: Sequence[Event], theirs: Sequence[Event]) -> int:
    """How many events the two histories share (equal events from the first on). Each pair of
    phases is compared once: a log's lists share their unchanged phases."""
    equal: dict[tuple[int, int], tuple[Phase, Phase]] = {}

    def same(one: Phase, other: Phase) -> bool:
        known = equal.get((id(one), id(other)))
        if one is other or (known is not None and known[0] is one and known[1] is other):
            return True
        if one != other:
            return False
        equal[(id(one), id(other))] = (one, other)
        return True

    common = 0
    for one, other in zip(ours, theirs, strict=False):
        if one is not other and (
            any(getattr(one, name) != getattr(other, name) for name in _EVENT_FIELDS)
            or len(one.phases) != len(other.phases)
            or not all(same(a, b) for a, b in zip(one.phases, other.phases, strict=True))
        ):
            break
        common += 1
    return common


def merge_events(base: Sequence[Event], ours: Sequence[Event], theirs: Sequence[Event]) -> MergeResult:
    """Merge two histories of one session that grew from a common one.

    The events both sides share (a prefix) are kept; then every later event of
    either side, in time order (ties by a hash of their content, so swapping the
    sides gives the same log), is applied as the change it made to its own list.
    ``base`` is the version git found in common; the shared prefix is read off the
    two sides themselves, so a base that is no prefix of theirs (a rebase) still merges.
    """
    del base  # the sides' own shared prefix is what counts
    common = _shared(ours, theirs)
    start = tuple(ours[common - 1].phases) if common else ()
    told = _Told()
    later = _later(start, ours[common:], theirs[common:], told)
    marks = told.marks
    top = max([marks.of(start), *(marks.of(item[1].phases) for item in later)])
    merge = _Merge(start, top)
    merge.twice, merge.windows = told.twice, told.windows
    merged = merge.merged
    out: list[Event] = list(ours[:common])
    conflicts: list[Conflict] = []
    groups, group_of = _groups(later, told.signs, told.signer)
    done: set[int] = set()
    for number in range(len(later)):
        leader = group_of[number]
        if leader in done:
            continue
        done.add(leader)
        members = [later[i] for i in groups[leader]]
        _, event, before, side = (
            members[0]
            if len(members) == 1
            else max(
                members, key=lambda c: (c[1].version, c[0], _phases_hash(c[1].phases), _phases_hash(c[2]))
            )
        )
        prior = merged.freeze()
        found = merge.apply(side, before, event, prior)
        found.extend(_one_active(merged, prior, event.time))
        merged.mark = max(merged.mark, marks.of(event.phases), merged.new_mark())
        after = merged.freeze()
        for _, other, other_before, other_side in members:
            if other is not event:
                _map_copies(merge, event, side, other, other_side, other_before)
                merge.skipped.add(other_side)
        keep_ops = event.ops is not None and _same_list(prior, before) and after == event.phases
        out.append(
            Event(
                len(out) + 1,
                event.kind,
                event.time,
                after,
                event.source,
                event.agent,
                event.ops if keep_ops else None,
                event.profile,
                event.request,
            )
        )
        if found:
            conflicts.extend(found)
            for conflict in found:
                _note(merged, conflict)
            out.append(Event(len(out) + 1, "user_edit", event.time, merged.freeze(), CONFLICT_SOURCE))
    final = out[-1].phases if out else ()
    return MergeResult(tuple(out), tuple(final), tuple(conflicts), common)


def _active(tasks: Sequence[Task]) -> dict[str, list[Task]]:
    """The tasks each agent holds in progress."""
    out: dict[str, list[Task]] = {}
    for task in tasks:
        if task.status is Status.IN_PROGRESS and task.owner is not None:
            out.setdefault(task.owner, []).append(task)
    return out


def _one_active(merged: _Merged, prior: Sequence[Phase], time: float) -> list[Conflict]:
    """Keep a team plan's rule through the merge: one task in progress per agent. An agent
    holding two (claimed on two branches) keeps the one claimed by the event just applied (the
    later claim; the first in the list when that tells none) and the other is released to
    pending, a conflict."""
    if not merged.doubled():
        return []
    held = _active([t for pid in merged.order for t in merged.tasks[pid]])
    before = {_ident(t) for tasks in _active([t for p in prior for t in p.tasks]).values() for t in tasks}
    found: list[Conflict] = []
    for owner, tasks in sorted(held.items()):
        if len(tasks) < 2:
            continue
        kept = next((t for t in tasks if _ident(t) not in before), tasks[0])
        for task in tasks:
            if task is not kept:
                _release(merged, task)
                found.append(
                    Conflict(_label(task), f"active task of {owner}", _label(kept), _label(task), time)
                )
    return found


def _release(merged: _Merged, task: Task) -> None:
    """Put ``task`` back to pending with no owner (a claim the merge voided)."""
    for pid in merged.order:
        tasks = merged.tasks[pid]
        for i, other in enumerate(tasks):
            if other is task:
                tasks[i] = attrs.evolve(task, status=Status.PENDING, owner=None, lease=None)
                merged.touch(pid)
                return


def _map_copies(
    merge: _Merge, first: Event, first_side: int, copy: Event, side: int, copy_before: Sequence[Phase]
) -> None:
    """Name the tasks and phases a copy of an event made as the first copy's are named."""
    if first_side == side:
        return
    sides = merge.sides
    by_content = {(t.content, p.name): t.id for p in first.phases for t in p.tasks if t.id is not None}
    for phase in copy.phases:
        for task in phase.tasks:
            if task.id is None or task.id in sides[side].ids:
                continue
            other = by_content.get((task.content, phase.name))
            if other is not None:
                sides[side].ids[task.id] = sides[first_side].ids.get(other, other)
                sides[side].renamed |= sides[side].ids[task.id] != task.id
    theirs, own = sides[first_side].phases, sides[side].phases
    pmap, was = phase_map(copy_before, copy.phases), _slots(copy_before)
    out: dict[_Slot, int] = {}
    for a, slot in enumerate(_slots(copy.phases)):
        if slot in theirs:
            out[slot] = theirs[slot]
        else:  # the copy's own phase, followed through its renames
            out[slot] = merge.pid_for(own, was[pmap[a]] if a in pmap else slot)
    sides[side].phases = out
