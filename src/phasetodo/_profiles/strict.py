"""The strict profile: all-or-nothing batches and errors that help the model fix its call.

The parity profile copies the reference, whose half-applied batches and bare
"not found" errors leave a model guessing what state the list is in. Here the
same ops run on the same engine with these differences:

* any error leaves the list exactly as it was, and the result says so
  (``"isError": true``, the errors, and the unchanged list);
* ``init`` rejects duplicate or blank phase names and task contents;
* ``append`` checks all its items before adding any;
* an empty ``task`` or ``phase`` is an error rather than "every task";
* a miss suggests the closest existing task or phase ("did you mean …");
  an id such as ``task-3`` gets a hint that tasks are named by content;
* a read-only ``view`` op shows a task with its notes, a phase, or everything;
* ``details.transitions`` lists every task whose status the call changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Union

import attrs

from .._core import schema
from .._core.codec import _structure_op, as_phases
from .._core.columns import Column, Columns
from .._core.engine import Outcome, load
from .._core.jsstring import is_blank
from .._core.model import Phase, Status
from .._core.ops import Append, Done, Drop, Init, Op, Rm, View
from .._views.diff import StatusChange
from .._views.summary import SYMBOLS, summary_parts
from ..errors import InvalidParams
from .hints import HINT_BUDGET, Hints, id_number
from .parity import DESCRIPTION
from .registry import CallContext, Profile
from .result import Storage, ToolResult

__all__ = [
    "STRICT",
    "STRICT_NOTE",
    "StrictOp",
    "StrictOutcome",
    "View",
    "apply_strict",
    "not_found_hint",
    "parse_strict_params",
    "strict_report",
]


_OPEN = frozenset((Status.PENDING, Status.IN_PROGRESS))

StrictOp = Union[Op, View]  # noqa: UP007 - a runtime alias on 3.10


@attrs.frozen
class StrictOutcome(Outcome):
    """A strict batch's outcome: applied whole, or not at all.

    When ``errors`` is non-empty nothing was applied and ``phases`` is
    ``before``, the list the call started from, as it was given.
    """

    before: tuple[Phase, ...] = ()
    views: tuple[str, ...] = ()
    transitions: tuple[StatusChange, ...] = ()

    @property
    def applied(self) -> bool:
        """Whether the batch was applied (it had no errors)."""
        return not self.errors


def parse_strict_params(params: object) -> tuple[StrictOp, ...]:
    """Check tool arguments against the strict schema and turn them into ops.

    Raises :class:`InvalidParams` listing every problem, like ``parse_params``.
    """
    if not schema.is_valid_strict(params):
        raise InvalidParams(
            schema.problems(params, schema.STRICT_PARAMS_SCHEMA) or ["params: must be JSON-shaped data"]
        )
    assert isinstance(params, dict)
    return tuple(
        View(entry.get("task"), entry.get("phase"))
        if entry["op"] == "view"
        else _structure_op(entry, Op)
        for entry in params["ops"]
    )


def _ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def _miss_hint(query: str, hints: Hints | None, kind: str) -> str:
    """What to add to a "not found" error: an id hint or a did-you-mean.

    ``hints`` is ``None`` once the call's hint budget is spent: then only the
    id hint is given, without naming the n-th task.
    """
    number = id_number(query)
    if number is not None:
        hint = f" — {kind}s have no ids or numbers: name a {kind} by its exact " + (
            "content" if kind == "task" else "name"
        )
        index = int(number)
        if hints is not None and 1 <= index <= len(hints.names):
            hint += f'; the {_ordinal(index)} {kind} in the list is "{hints.names[index - 1]}"'
        return hint
    guess = hints.closest(query) if hints is not None else None
    return f' — did you mean "{guess}"?' if guess is not None else ""


#: The hint text for other profiles' "not found" errors (the team profile's).
not_found_hint = _miss_hint


class _TaskView:
    """A ``view`` of one task: where it is, and what it was when the call removed it."""

    __slots__ = ("col", "content", "gone", "index")

    def __init__(self, col: Column, index: int) -> None:
        self.col, self.index, self.content = col, index, col.contents[index]
        self.gone: tuple[str, Status, tuple[str, ...]] | None = None  # phase, status, notes

    def settle(self) -> None:
        """The task is about to leave the list: keep how it looked."""
        if self.gone is None:
            col, i = self.col, self.index
            status = col.statuses[i]
            assert status is not None
            self.gone = (col.name, status, tuple(col.notes[i] or ()))

    def render(self) -> str:
        col, i = self.col, self.index
        if self.gone is not None:
            phase, status, notes = self.gone
        else:
            phase, status, notes = col.name, col.statuses[i], tuple(col.notes[i] or ())  # type: ignore[assignment]
        return _view_task(self.content, phase, status, notes, self.gone is not None)


class _StrictWork(Columns):
    """The engine's working copy with the strict profile's checks and messages."""

    def __init__(self, phases: Sequence[Phase | Mapping[str, Any]]) -> None:
        self.hints: dict[str, tuple[int, Hints]] = {}
        self.hint_spent = 0
        super().__init__(phases)
        self.views: list[Callable[[], str]] = []
        self.task_views: list[_TaskView] = []

    def miss_hint(self, query: str, kind: str) -> str:
        """The hint for a miss; names are indexed once per shape of the list, within the budget."""
        cached = self.hints.get(kind)
        if cached is not None and cached[0] == self.shape:
            hints: Hints | None = cached[1]
        else:
            size = self.count if kind == "task" else len(self.cols)
            spent = self.hint_spent + (cached[1].spent if cached is not None else 0)
            if spent + size > HINT_BUDGET:
                hints = None
            else:
                if kind == "task":
                    names = [col.contents[i] for col, i in self.live()]
                else:
                    names = [col.name for col in self.cols]
                self.hint_spent = spent + size
                hints = Hints(names, budget=HINT_BUDGET - self.hint_spent)
                self.hints[kind] = (self.shape, hints)
        return _miss_hint(query, hints, kind)

    def init(self, op: Init) -> None:
        if op.list is not None:
            phases: set[str] = set()
            tasks: dict[str, str] = {}
            for number, entry in enumerate(op.list):
                place = f"list[{number}]"
                if is_blank(entry.phase):
                    self.errors.append(f"{place}.phase: a phase name must not be blank")
                elif entry.phase in phases:
                    self.errors.append(f'{place}.phase: duplicate phase "{entry.phase}"')
                phases.add(entry.phase)
                for index, item in enumerate(entry.items):
                    where = f"{place}.items[{index}]"
                    if is_blank(item):
                        self.errors.append(f"{where}: a task must not be blank")
                    elif item in tasks:
                        self.errors.append(
                            f'{where}: duplicate task "{item}" (already in phase "{tasks[item]}")'
                        )
                    tasks.setdefault(item, entry.phase)
        for view in self.task_views:
            view.settle()
        super().init(op)

    def append(self, op: Append) -> None:
        if op.phase and op.items:
            found: list[str] = []
            if is_blank(op.phase):
                found.append("phase: a phase name must not be blank")
            seen: set[str] = set()
            self.expect(len(op.items))
            for index, item in enumerate(op.items):
                where = f"items[{index}]"
                held = self.locate(item)
                if is_blank(item):
                    found.append(f"{where}: a task must not be blank")
                elif held is not None:
                    found.append(f'{where}: Task "{item}" already exists (in phase "{held[0].name}")')
                elif item in seen:
                    found.append(f'{where}: duplicate task "{item}" in this append')
                seen.add(item)
            if found:
                self.errors.extend(found)
                return
        super().append(op)

    def rm(self, op: Rm) -> None:
        if self.task_views:
            self._settle_removed(op)
        super().rm(op)

    def _settle_removed(self, op: Rm) -> None:
        """Keep how each viewed task looks that ``op`` is about to remove."""
        if op.task:
            gone = self.locate(op.task)
            doomed = (lambda v: (v.col, v.index) == gone) if gone is not None else None
        else:
            col = self.by_name.get(op.phase or "")
            doomed = (lambda v: v.col is col) if col is not None else None
        if doomed is None:
            return
        for view in self.task_views:
            if view.gone is None and doomed(view):
                view.settle()

    def run(self, op: StrictOp) -> None:
        if isinstance(op, (Done, Drop, Rm)) and (op.task == "" or op.phase == ""):
            field = "task" if op.task == "" else "phase"
            self.errors.append(
                f'"{field}" is empty, which would target every task: name a task or a phase'
            )
            return
        if isinstance(op, (Done, Drop, Rm)) and op.task is None and op.phase is None:
            self.errors.append(
                f"{op.name} needs an explicit target: name a task or a phase (the strict profile "
                "never completes, drops or removes every task in one op; go phase by phase)"
            )
            return
        super().run(op)

    # -- view ----------------------------------------------------------------------

    def view(self, op: View) -> None:
        """Resolve the view's target now; it is rendered as the call leaves it."""
        if op.task is not None:
            found = self.find_task(op.task)
            if found is not None:
                view = _TaskView(*found)
                self.task_views.append(view)
                self.views.append(view.render)
        elif op.phase is not None:
            col = self.find_phase(op.phase)
            if col is not None:
                self.views.append(lambda: _view_phase(col, "View of phase"))
        else:
            self.views.append(self._view_all)

    def _view_all(self) -> str:
        closed = sum(1 for col, i in self.live() if col.statuses[i] not in _OPEN)
        count = len(self.cols)
        head = (
            f"View of the whole list ({count} phase{'' if count == 1 else 's'}, "
            f"{closed}/{self.count} tasks closed):"
        )
        return "\n".join([head, *(_view_phase(col, "Phase", "  ") for col in self.cols)])

    def transitions(self) -> tuple[StatusChange, ...]:
        """Every task of the final list whose status differs from where it started."""
        out: list[StatusChange] = []
        for col in self.cols:
            if not col.dirty:
                continue
            tasks = col.tasks
            for i, status in enumerate(col.statuses):
                if status is None:
                    continue
                task = tasks[i] if tasks is not None else None
                was = task.status if task is not None else Status.PENDING
                if status is not was:
                    out.append(StatusChange(col.name, col.contents[i], was, status))
        return tuple(out)


def _note_lines(notes: Sequence[str], indent: str) -> list[str]:
    lines: list[str] = []
    for number, note in enumerate(notes, 1):
        first, *rest = note.split("\n")
        lines.append(f"{indent}{number}. {first}")
        pad = " " * (len(str(number)) + 2)
        lines += [f"{indent}{pad}{line}" for line in rest]
    return lines


def _view_task(content: str, phase: str, status: Status, notes: tuple[str, ...], removed: bool) -> str:
    count = len(notes)
    said = "no notes" if not count else f"{count} note{'' if count == 1 else 's'}"
    where = f'phase "{phase}"' + (", removed by this call" if removed else "")
    head = f'View of task "{content}" ({where}): {status.value}, {said}'
    return "\n".join([head, *_note_lines(notes, "  ")])


def _view_phase(col: Column, label: str, indent: str = "") -> str:
    rows = zip(col.contents, col.statuses, col.notes, strict=True)
    live = [(c, s, tuple(n or ())) for c, s, n in rows if s is not None]
    closed = sum(1 for _, status, _ in live if not status.is_open)
    lines = [f'{indent}{label} "{col.name}" ({closed}/{len(live)} tasks closed):']
    for content, status, notes in live:
        lines.append(f"{indent}  {SYMBOLS[status]} {content}")
        lines += _note_lines(notes, f"{indent}      ")
    return "\n".join(lines)


def apply_strict(phases: Iterable[Phase | Mapping[str, Any]], ops: Iterable[StrictOp]) -> StrictOutcome:
    """Apply ``ops`` all or nothing: on any error, ``phases`` come back unchanged.

    Every op still runs so that one call reports every problem; each error
    names its op, as in ``ops[2] done: Task "Fix teh bug" not found — did you
    mean "Fix the bug"?``.
    """
    items = phases if type(phases) in (list, tuple) else tuple(phases)
    work = load(items, _StrictWork)
    for index, op in enumerate(ops):
        mark = len(work.errors)
        work.run(op)
        if len(work.errors) > mark:
            work.errors[mark:] = [f"ops[{index}] {op.name}: {e}" for e in work.errors[mark:]]
    before = _before(items)
    if work.errors:
        return StrictOutcome(before, tuple(work.errors), before=before)
    work.normalize()
    views = tuple(view() for view in work.views)  # before ``phases()`` moves positions
    return StrictOutcome(
        work.phases(), before=before, views=views, transitions=work.transitions(), columns=work
    )


def _before(phases: Iterable[Phase | Mapping[str, Any]]) -> tuple[Phase, ...]:
    items = tuple(phases)
    return items if all(isinstance(p, Phase) for p in items) else as_phases(items)  # type: ignore[return-value]


#: The strict profile's addition to the parity prompt.
STRICT_NOTE = """
This tool runs in the strict profile: a call is all or nothing. If any \
operation fails (an unknown task or phase, a duplicate name, a blank note), \
nothing is applied and the result is an error that names each failing \
operation, with a suggestion where one is close. Tasks have no ids such as \
"task-3": name them by their exact content. done, drop and rm need a task or \
a phase: they never act on every task at once. To read a task's notes, a phase or \
the whole list without changing anything, use view {task} | {phase} | {}.
"""



def strict_report(outcome: Outcome, storage: Storage) -> ToolResult:
    """The result of a strict call.

    ``isError`` is always in its JSON. ``details`` adds ``profile``, ``transitions``
    and, on error, ``errors`` to the reference's ``phases`` and ``storage``.
    """
    phases = outcome.phases
    transitions = outcome.transitions if isinstance(outcome, StrictOutcome) else ()
    views = outcome.views if isinstance(outcome, StrictOutcome) else ()
    work = outcome.columns if outcome.columns is not None and not outcome.errors else Columns(phases)
    listing, written = summary_parts(work, storage)
    if not work.count:
        listing = "The todo list is empty."
    details: dict[str, Any] = {
        **written,
        "profile": "strict",
        "transitions": [t.to_json() for t in transitions],
    }
    if outcome.errors:
        lines = ["Errors — nothing was applied, the list is unchanged:"]
        lines += [f"- {error}" for error in outcome.errors]
        details["errors"] = list(outcome.errors)
        text = "\n".join(lines) + "\n\n" + listing
    else:
        text = "\n\n".join([listing, *views])
    return ToolResult(
        text,
        details,
        is_error=bool(outcome.errors),
        phases=phases,
        errors=outcome.errors,
        transitions=transitions,
        flags_error=True,
    )


def _apply(phases: tuple[Phase, ...], ops: Sequence[StrictOp], call: CallContext) -> Outcome:
    return apply_strict(phases, ops)


#: The opt-in profile: all or nothing, errors that help the model fix its call, ``view``.
STRICT = Profile(
    "strict",
    schema=schema.STRICT_PARAMS_SCHEMA,
    description=DESCRIPTION + STRICT_NOTE,
    parse=parse_strict_params,
    apply=_apply,
    report=strict_report,
    atomic=True,
)
