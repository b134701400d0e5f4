"""Apply an ordered batch of ops to a copy of the phases, as the reference does.

The working copy keeps two indexes, content -> tasks (in list order) and
name -> first phase, so an op costs what it touches rather than a scan of the
whole list. Untouched phases are shared with the input, which is never mutated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter

import attrs

from ..errors import InvalidOptionType
from . import texts
from .columns import Columns, apply_columns, load_columns
from .jsstring import trim_end
from .model import Phase, Status, Task, make_task
from .ops import Append, Done, Drop, Init, Note, Op, Rm, Start, View

__all__ = ["Outcome", "PhaseDraft", "TaskSlot", "WorkingCopy", "apply", "normalize"]

_PENDING = Status.PENDING
_ACTIVE = Status.IN_PROGRESS
_status_of = attrgetter("status")


@attrs.frozen
class Outcome:
    """What a batch produced: the normalized phases and the non-fatal errors.

    ``columns`` is the working copy the phases were frozen from when the batch
    ran on columns (else ``None``): a report writes the result from it in one
    pass. It is never changed after the batch.
    """

    phases: tuple[Phase, ...]
    errors: tuple[str, ...] = ()
    columns: Columns | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)


class _Slot:
    """A task in the working copy; ``task`` is the input value it came from."""

    __slots__ = ("content", "notes", "phase", "status", "task")

    def __init__(self, task: Task | None, content: str, status: Status, phase: _Draft) -> None:
        self.task = task
        self.content = content
        self.status = status
        self.notes: tuple[str, ...] = task.notes if task is not None else ()
        self.phase = phase

    def freeze(self) -> Task:
        task = self.task
        if (
            task is not None
            and task.status is self.status
            and task.notes is self.notes
        ):
            return task
        if task is not None and task.has_team_fields:  # carried through untouched
            return attrs.evolve(task, status=self.status, notes=self.notes)
        return make_task(self.content, self.status, self.notes)


class _Draft:
    """A phase in the working copy; ``source`` is reused when nothing changed."""

    __slots__ = ("dirty", "name", "slots", "source", "uniform")

    def __init__(self, name: str, source: Phase | None) -> None:
        self.name = name
        self.source = source
        self.slots: list[_Slot] = []
        self.dirty = source is None
        self.uniform: Status | None = None  # every task has this status (set by a whole-phase op)

    def freeze(self) -> Phase:
        if not self.dirty and self.source is not None:
            return self.source
        return Phase(self.name, tuple(s.freeze() for s in self.slots))


class _Work:
    """The mutable working copy one batch is applied to."""

    def __init__(self, phases: Iterable[Phase]) -> None:
        self.errors: list[str] = []
        #: Bumped whenever a task or a phase is added or removed: what a profile caches
        #: about the list's shape (strict's hint index) is stale once it changes.
        self.shape = 0
        self._reset()
        by_content = self.by_content
        for phase in phases:
            draft = self._add_phase(phase.name, phase)
            draft.slots = slots = [_Slot(t, t.content, t.status, draft) for t in phase.tasks]
            for slot in slots:
                same = by_content.get(slot.content)
                if same is None:
                    by_content[slot.content] = [slot]
                else:
                    same.append(slot)
                if slot.status is _ACTIVE:
                    self.active[slot] = None
            self.count += len(slots)

    def _reset(self) -> None:
        self.shape += 1
        self.drafts: list[_Draft] = []
        self.by_name: dict[str, _Draft] = {}
        self.by_content: dict[str, list[_Slot]] = {}
        self.active: dict[_Slot, None] = {}
        self.count = 0
        self.uniform: Status | None = None  # every task has this status (set by a whole-list op)

    def _add_phase(self, name: str, source: Phase | None) -> _Draft:
        self.shape += 1
        draft = _Draft(name, source)
        self.drafts.append(draft)
        self.by_name.setdefault(name, draft)
        return draft

    def _add_slot(self, draft: _Draft, slot: _Slot) -> None:
        self.shape += 1
        draft.slots.append(slot)
        same = self.by_content.get(slot.content)
        if same is None:
            self.by_content[slot.content] = [slot]
        else:
            same.append(slot)
        if slot.status is _ACTIVE:
            self.active[slot] = None
        self.count += 1
        draft.uniform = self.uniform = None

    def _unindex(self, slot: _Slot) -> None:
        self.shape += 1
        same = self.by_content[slot.content]
        same.remove(slot)
        if not same:
            del self.by_content[slot.content]
        self.active.pop(slot, None)
        self.count -= 1

    def _set(self, slot: _Slot, status: Status) -> None:
        if slot.status is status:
            return
        if slot.status is _ACTIVE:
            del self.active[slot]
        elif status is _ACTIVE:
            self.active[slot] = None
        slot.status = status
        slot.phase.dirty = True
        slot.phase.uniform = self.uniform = None

    # -- lookups ---------------------------------------------------------------

    def find_task(self, content: str | None) -> _Slot | None:
        if not content:
            self.errors.append(texts.MISSING_CONTENT)
            return None
        same = self.by_content.get(content)
        if same:
            return same[0]
        hint = texts.EMPTY_HINT if self.count == 0 else self.miss_hint(content, "task")
        self.errors.append(texts.task_not_found(content, hint))
        return None

    def find_phase(self, name: str) -> _Draft | None:
        draft = self.by_name.get(name)
        if draft is None:
            self.errors.append(texts.phase_not_found(name, self.miss_hint(name, "phase")))
        return draft

    def miss_hint(self, query: str, kind: str) -> str:
        """Text added to a "not found" error; the reference adds none."""
        return ""

    def targets(self, op: Done | Drop | Rm) -> Sequence[_Slot]:
        if op.task:
            slot = self.find_task(op.task)
            return [slot] if slot is not None else []
        if op.phase:
            draft = self.find_phase(op.phase)
            return list(draft.slots) if draft is not None else []
        return [s for d in self.drafts for s in d.slots]

    # -- ops ---------------------------------------------------------------------

    def init(self, op: Init) -> None:
        if op.list is None:
            self.errors.append(texts.MISSING_LIST)
            self._reset()
            return
        self._reset()
        for entry in op.list:
            draft = self._add_phase(entry.phase, None)
            for content in entry.items:
                self._add_slot(draft, _Slot(None, content, _PENDING, draft))

    def start(self, op: Start) -> None:
        slot = self.find_task(op.task)
        if slot is None:
            return
        for other in list(self.active):
            if other is not slot:
                self._set(other, _PENDING)
        self._set(slot, _ACTIVE)

    def mark(self, op: Done | Drop, status: Status) -> None:
        """Repeating a whole-phase or whole-list mark costs nothing: it is idempotent."""
        if not op.task and not op.phase:
            if self.uniform is not status:
                for draft in self.drafts:
                    self._mark_draft(draft, status)
                self.uniform = status
            return
        if not op.task and op.phase:
            found = self.find_phase(op.phase)
            if found is not None:
                self._mark_draft(found, status)
            return
        for slot in self.targets(op):
            self._set(slot, status)

    def _mark_draft(self, draft: _Draft, status: Status) -> None:
        if draft.uniform is status:
            return
        for slot in draft.slots:
            self._set(slot, status)
        draft.uniform = status

    def rm(self, op: Rm) -> None:
        if op.task:
            slot = self.find_task(op.task)
            if slot is not None:
                slot.phase.slots.remove(slot)
                slot.phase.dirty = True
                self._unindex(slot)
            return
        drafts: Iterable[_Draft]
        if op.phase:
            draft = self.find_phase(op.phase)
            drafts = () if draft is None else (draft,)
        elif not self.count:
            return  # every phase is already empty: repeating it costs nothing
        else:
            drafts = self.drafts
        for draft in drafts:
            if not draft.slots:
                continue
            for slot in draft.slots:
                self._unindex(slot)
            draft.slots = []
            draft.dirty = True

    def append(self, op: Append) -> None:
        if not op.phase:
            self.errors.append(texts.MISSING_PHASE_NAME)
            return
        if not op.items:
            self.errors.append(texts.MISSING_ITEMS)
            return
        draft = self.by_name.get(op.phase) or self._add_phase(op.phase, None)
        for content in op.items:
            if content in self.by_content:
                self.errors.append(texts.already_exists(content))
                continue
            self._add_slot(draft, _Slot(None, content, _PENDING, draft))
            draft.dirty = True

    def note(self, op: Note) -> None:
        slot = self.find_task(op.task)
        if slot is None:
            return
        text = trim_end(op.text or "")
        if not text:
            self.errors.append(texts.MISSING_TEXT)
            return
        slot.notes = (*slot.notes, text)
        slot.phase.dirty = True

    def run(self, op: Op | View) -> None:
        if isinstance(op, (Done, Drop)):
            self.mark(op, Status.COMPLETED if isinstance(op, Done) else Status.ABANDONED)
        elif isinstance(op, Start):
            self.start(op)
        elif isinstance(op, Note):
            self.note(op)
        elif isinstance(op, Rm):
            self.rm(op)
        elif isinstance(op, Append):
            self.append(op)
        elif isinstance(op, Init):
            self.init(op)
        elif isinstance(op, View):
            self.view(op)
        else:
            raise InvalidOptionType(f"op: {op!r} is not a todo_write op")

    def view(self, op: View) -> None:
        """A read-only op: changes nothing; a profile that shows views overrides it."""

    # -- the end of a batch ----------------------------------------------------------

    def normalize(self) -> None:
        """Keep exactly one task active: the first one, else the first pending."""
        if len(self.active) == 1 or self.count == 0:
            return
        first: _Slot | None = None
        for draft in self.drafts:
            for slot in draft.slots:
                if self.active:
                    if slot.status is _ACTIVE:
                        if first is None:
                            first = slot
                        else:
                            self._set(slot, _PENDING)
                elif slot.status is _PENDING:
                    self._set(slot, _ACTIVE)
                    return

    def freeze(self) -> tuple[Phase, ...]:
        return tuple(d.freeze() for d in self.drafts)


def apply(phases: Iterable[Phase], ops: Iterable[Op | View]) -> Outcome:
    """Apply ``ops`` in order to a copy of ``phases``, then normalize.

    Errors are collected, not raised: each op that cannot apply adds the
    reference's message and the batch goes on. ``phases`` is left untouched.
    """
    items = phases if type(phases) in (list, tuple) else tuple(phases)
    batch = ops if type(ops) in (list, tuple) else tuple(ops)
    fast = load_columns(items)
    if fast is not None and apply_columns(fast, batch):
        return Outcome(fast.phases(), tuple(fast.errors), columns=fast)
    work = _Work(items)
    for op in batch:
        work.run(op)
    work.normalize()
    return Outcome(work.freeze(), tuple(work.errors))


def normalize(phases: Iterable[Phase]) -> tuple[Phase, ...]:
    """The single-active rule on its own: what an empty batch would return.

    Several tasks in progress: the first stays, the others become pending.
    None: the first pending task is started. Unchanged phases are reused.
    """
    items = tuple(phases)
    columns = [list(map(_status_of, phase.tasks)) for phase in items]
    active = [
        (p, t)
        for p, statuses in enumerate(columns)
        if _ACTIVE in statuses
        for t, status in enumerate(statuses)
        if status is _ACTIVE
    ]
    if len(active) > 1:
        return _restatus(items, active[1:], _PENDING)
    if active:
        return items
    for p, statuses in enumerate(columns):
        if _PENDING in statuses:
            return _restatus(items, [(p, statuses.index(_PENDING))], _ACTIVE)
    return items


def _restatus(
    phases: tuple[Phase, ...], places: Iterable[tuple[int, int]], status: Status
) -> tuple[Phase, ...]:
    by_phase: dict[int, list[int]] = {}
    for p, t in places:
        by_phase.setdefault(p, []).append(t)
    out = list(phases)
    for p, indexes in by_phase.items():
        tasks = list(out[p].tasks)
        for t in indexes:
            tasks[t] = attrs.evolve(tasks[t], status=status)
        out[p] = attrs.evolve(out[p], tasks=tuple(tasks))
    return tuple(out)


# -- hooks for profiles ------------------------------------------------------------
#
# A profile with its own op rules subclasses :class:`WorkingCopy` and overrides
# its hooks: ``miss_hint(query, kind)`` (text added to a "not found" error),
# ``run(op)`` and the per-op methods ``init``, ``start``, ``mark``, ``rm``,
# ``append``, ``note``, ``view``; it reads ``drafts`` (the phases, in order,
# as :class:`PhaseDraft` with ``slots``), ``by_content`` (content -> the
# :class:`TaskSlot` values with it), ``count``, ``shape`` (bumped whenever a task
# or phase is added or removed) and ``errors``, and finishes with
# ``normalize()`` and ``freeze()``. The strict profile is the example.

#: The mutable working copy one batch is applied to (a profile's extension point).
WorkingCopy = _Work
#: A phase of the working copy: ``name``, ``slots``, ``dirty``.
PhaseDraft = _Draft
#: A task of the working copy: ``content``, ``status``, ``notes``, ``phase``, ``task``.
TaskSlot = _Slot

