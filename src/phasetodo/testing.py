"""Hypothesis strategies for phasetodo: lists, ops, tool arguments and Markdown.

For the property tests of phasetodo itself and of the hosts that embed it::

    from hypothesis import given
    from phasetodo import testing

    @given(testing.calls())
    def test_one_active_task(call):
        phases, params = call
        ...

Every strategy takes keyword knobs (sizes, alphabet, duplicates, how often an
op names a task that exists). ``Phase``, ``Task``, ``PhaseItems`` and the op
classes are registered with :func:`hypothesis.strategies.from_type` through
the ``hypothesis`` entry point, so ``st.from_type(Phase)`` works in any test
run once phasetodo is installed; importing phasetodo registers nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ._core import schema
from ._core.codec import converter
from ._core.jsstring import WHITESPACE, is_blank
from ._core.model import REFERENCE_STATUSES, Phase, Status, Task
from ._core.ops import OP_NAMES, OPS, Append, Done, Drop, Init, Note, Op, PhaseItems, Rm, Start
from ._views.status import LOOKS
from .errors import install_hint

#: Whether Hypothesis called the hook while this module was still being imported.
_CALLED_EARLY = False


def _hypothesis_setup_hook() -> None:
    """Register the strategies for phasetodo's types; Hypothesis calls this on start.

    Named in ``[project.entry-points.hypothesis]`` so that ``st.from_type``
    knows ``Phase``, ``Task``, ``PhaseItems`` and every op without anyone
    importing this module. Defined before Hypothesis is imported: when this
    module is imported first, Hypothesis's own import calls the hook before the
    strategies below exist, and the module registers them once it has them.
    """
    global _CALLED_EARLY
    register = globals().get("_register")
    if register is None:
        _CALLED_EARLY = True
        return
    register()


try:
    from hypothesis import strategies as st
    from hypothesis.errors import InvalidArgument
except ImportError as error:  # pragma: no cover - exercised only without Hypothesis
    raise ImportError(f"phasetodo.testing needs Hypothesis: {install_hint('testing')}") from error


__all__ = [
    "calls",
    "markdown_documents",
    "names",
    "note_texts",
    "op_batches",
    "ops",
    "params",
    "phase",
    "phases",
    "statuses",
    "tasks",
]

#: The characters that end a line somewhere in phasetodo: Python's split, the
#: Markdown reader (``\r?\n``) or a JavaScript ``.`` (``\r``, U+2028, U+2029).
_TERMINATORS = "\n\r\u2028\u2029"
#: Markers ``markdown_to_phases`` accepts, by status; the first is the one written.
_MARKERS = {status: look.markers for status, look in LOOKS.items()}
#: Single characters that are not a status marker (``- [?] task`` is a parse error).
_BAD_MARKERS = "?!*aozQ0#"


# -- knobs ---------------------------------------------------------------------------


def _check_range(low: int, high: int | None, what: str) -> None:
    if low < 0:
        raise InvalidArgument(f"min_{what}={low}: must be at least 0")
    if high is not None and high < low:
        raise InvalidArgument(f"max_{what}={high}: must be at least min_{what}={low}")


def _check_share(value: float, what: str) -> None:
    if not 0.0 <= value <= 1.0:
        raise InvalidArgument(f"{what}={value!r}: must be between 0 and 1")


def _chance(draw: st.DrawFn, share: float) -> bool:
    """True with probability ``share``; shrinks toward True."""
    if share >= 1.0:
        return True
    if share <= 0.0:
        return False
    return draw(st.integers(0, 999)) < round(share * 1000)


def _text_of(alphabet: str | st.SearchStrategy[str] | None) -> st.SearchStrategy[str]:
    """A character strategy for ``st.text``: Hypothesis's default when ``None``."""
    if alphabet is None:
        return st.characters(codec="utf-8")  # every character but surrogates
    if isinstance(alphabet, str):
        if not alphabet:
            raise InvalidArgument("alphabet='': must hold at least one character")
        return st.sampled_from(sorted(set(alphabet)))
    return alphabet


def _markdown_safe_name(text: str) -> str:
    """``text`` without line terminators and edge whitespace (JavaScript's set)."""
    for char in _TERMINATORS:
        text = text.replace(char, " ")
    return text.strip(WHITESPACE)


def _markdown_safe_note(text: str) -> str:
    """``text`` with no ``\\r``, U+2028, U+2029, empty lines or edge newlines."""
    for char in "\r\u2028\u2029":
        text = text.replace(char, " ")
    return "\n".join(line for line in text.split("\n") if line)


# -- values ----------------------------------------------------------------------------


def statuses(*, allowed: Iterable[Status | str] | None = None) -> st.SearchStrategy[Status]:
    """One of the reference's task statuses; ``allowed`` narrows or widens the choice
    (``["pending", "completed"]``, or ``["blocked"]`` for team plans)."""
    if allowed is None:
        return st.sampled_from(REFERENCE_STATUSES)
    chosen = []
    for value in allowed:
        try:
            chosen.append(Status(value))
        except ValueError:
            known = ", ".join(s.value for s in Status)
            raise InvalidArgument(f"allowed: {value!r} is not one of {known}") from None
    if not chosen:
        raise InvalidArgument("allowed: must name at least one status")
    return st.sampled_from(chosen)


def names(
    *,
    alphabet: str | st.SearchStrategy[str] | None = None,
    min_size: int = 1,
    max_size: int = 16,
    markdown_safe: bool = False,
) -> st.SearchStrategy[str]:
    """A task content or phase name.

    ``markdown_safe`` keeps only names that survive a Markdown round trip: no
    line terminator, no leading or trailing whitespace, not empty.
    """
    return _texts(alphabet, min_size, max_size, _markdown_safe_name if markdown_safe else None)


def note_texts(
    *,
    alphabet: str | st.SearchStrategy[str] | None = None,
    min_size: int = 1,
    max_size: int = 24,
    markdown_safe: bool = False,
) -> st.SearchStrategy[str]:
    """The text of one note, possibly over several lines.

    ``markdown_safe`` keeps notes that a Markdown round trip returns unchanged:
    not empty, no empty line, no ``\\r``, U+2028 or U+2029.
    """
    return _texts(alphabet, min_size, max_size, _markdown_safe_note if markdown_safe else None)


def _texts(
    alphabet: str | st.SearchStrategy[str] | None,
    min_size: int,
    max_size: int,
    make_safe: Callable[[str], str] | None,
) -> st.SearchStrategy[str]:
    """Texts of the given sizes, passed through ``make_safe`` (dropping what it empties)."""
    _check_range(min_size, max_size, "size")
    drawn = st.text(_text_of(alphabet), min_size=min_size, max_size=max_size)
    return drawn if make_safe is None else drawn.map(make_safe).filter(bool)


def tasks(
    *,
    contents: st.SearchStrategy[str] | None = None,
    status: st.SearchStrategy[Status] | None = None,
    max_notes: int = 2,
    notes: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[Task]:
    """One task; its content, status and notes each come from a strategy."""
    _check_range(0, max_notes, "notes")
    return st.builds(
        Task,
        contents if contents is not None else names(),
        status if status is not None else statuses(),
        st.lists(notes if notes is not None else note_texts(), max_size=max_notes).map(tuple),
    )


def phase(
    *,
    name: st.SearchStrategy[str] | None = None,
    task: st.SearchStrategy[Task] | None = None,
    min_tasks: int = 0,
    max_tasks: int = 5,
) -> st.SearchStrategy[Phase]:
    """One phase on its own (for a whole list, use :func:`phases`)."""
    _check_range(min_tasks, max_tasks, "tasks")
    return st.builds(
        Phase,
        name if name is not None else names(),
        st.lists(task if task is not None else tasks(), min_size=min_tasks, max_size=max_tasks).map(tuple),
    )


def _normalized(items: list[Phase]) -> tuple[Phase, ...]:
    """The single-active rule, written out here so the strategy does not trust the engine."""
    flat = [(p, t) for p, ph in enumerate(items) for t, _ in enumerate(ph.tasks)]
    active = [pt for pt in flat if items[pt[0]].tasks[pt[1]].status is Status.IN_PROGRESS]
    if len(active) > 1:
        change, to = active[1:], Status.PENDING
    elif not active:
        pending = [pt for pt in flat if items[pt[0]].tasks[pt[1]].status is Status.PENDING]
        change, to = pending[:1], Status.IN_PROGRESS
    else:
        change, to = [], Status.PENDING
    out = [list(ph.tasks) for ph in items]
    for p, t in change:
        old = out[p][t]
        out[p][t] = Task(old.content, to, old.notes)
    return tuple(Phase(ph.name, tuple(ts)) for ph, ts in zip(items, out, strict=True))


@st.composite
def _phase_list(
    draw: st.DrawFn,
    *,
    min_size: int,
    max_size: int,
    min_tasks: int,
    max_tasks: int,
    max_notes: int,
    name: st.SearchStrategy[str],
    note: st.SearchStrategy[str],
    status: st.SearchStrategy[Status],
    duplicates: bool,
    normalized: bool,
) -> tuple[Phase, ...]:
    sizes = draw(st.lists(st.integers(min_tasks, max_tasks), min_size=min_size, max_size=max_size))
    total = sum(sizes)
    if duplicates:
        phase_pool = draw(st.lists(name, min_size=1, max_size=3))
        task_pool = draw(st.lists(name, min_size=1, max_size=3))
        phase_names = draw(
            st.lists(st.one_of(st.sampled_from(phase_pool), name), min_size=len(sizes), max_size=len(sizes))
        )
        contents = draw(st.lists(st.one_of(st.sampled_from(task_pool), name), min_size=total, max_size=total))
    else:
        phase_names = draw(st.lists(name, min_size=len(sizes), max_size=len(sizes), unique=True))
        contents = draw(st.lists(name, min_size=total, max_size=total, unique=True))
    made: list[Phase] = []
    start = 0
    for phase_name, size in zip(phase_names, sizes, strict=True):
        made.append(
            Phase(
                phase_name,
                tuple(
                    Task(
                        content,
                        draw(status),
                        tuple(draw(st.lists(note, max_size=max_notes))),
                    )
                    for content in contents[start : start + size]
                ),
            )
        )
        start += size
    return _normalized(made) if normalized else tuple(made)


def phases(
    *,
    min_size: int = 0,
    max_size: int = 4,
    min_tasks: int = 0,
    max_tasks: int = 5,
    max_notes: int = 2,
    alphabet: str | st.SearchStrategy[str] | None = None,
    names: st.SearchStrategy[str] | None = None,
    notes: st.SearchStrategy[str] | None = None,
    status: st.SearchStrategy[Status] | None = None,
    duplicates: bool = False,
    normalized: bool = False,
    markdown_safe: bool = False,
) -> st.SearchStrategy[tuple[Phase, ...]]:
    """A whole todo list: a tuple of ``Phase`` values, as ``apply`` takes it.

    ``min_size``/``max_size`` bound the phases, ``min_tasks``/``max_tasks`` the
    tasks of each. Names come from ``names`` (else from ``alphabet``). Phase
    names and task contents are unique unless ``duplicates`` lets them repeat
    (then they often do). ``normalized`` keeps exactly one task in progress
    while any is open, as every tool result does; otherwise the list is as a
    host may hand it over. ``markdown_safe`` lists survive a Markdown round
    trip (use it with ``normalized`` and ``min_size=1``).
    """
    _check_range(min_size, max_size, "size")
    _check_range(min_tasks, max_tasks, "tasks")
    _check_range(0, max_notes, "notes")
    name = names if names is not None else _names(alphabet, markdown_safe)
    note = notes if notes is not None else note_texts(alphabet=alphabet, markdown_safe=markdown_safe)
    return _phase_list(
        min_size=min_size,
        max_size=max_size,
        min_tasks=min_tasks,
        max_tasks=max_tasks,
        max_notes=max_notes,
        name=name,
        note=note,
        status=status if status is not None else statuses(),
        duplicates=duplicates,
        normalized=normalized,
    )


def _names(alphabet: str | st.SearchStrategy[str] | None, markdown_safe: bool) -> st.SearchStrategy[str]:
    return names(alphabet=alphabet, markdown_safe=markdown_safe)


def _short_names() -> st.SearchStrategy[str]:
    """Fresh names for ops: short, so that they sometimes meet existing ones."""
    return names(max_size=8)


# -- ops ---------------------------------------------------------------------------------


class _Known:
    """The task contents and phase names an op may target, kept up to date in a batch."""

    def __init__(self, phases: Sequence[Phase]) -> None:
        self.tasks = list(dict.fromkeys(t.content for p in phases for t in p.tasks))
        self.phases = list(dict.fromkeys(p.name for p in phases))

    def learn(self, op: Op) -> None:
        if isinstance(op, Init):
            self.tasks, self.phases = [], []
            for entry in op.list or ():
                self.phases.append(entry.phase)
                self.tasks.extend(entry.items)
        elif isinstance(op, Append) and op.phase:
            self.phases.append(op.phase)
            self.tasks.extend(op.items or ())


def _target(draw: st.DrawFn, known: list[str], existing: float, fresh: st.SearchStrategy[str]) -> str:
    if known and _chance(draw, existing):
        return draw(st.sampled_from(known))
    return draw(fresh)


def _draw_op(
    draw: st.DrawFn,
    kind: str,
    known: _Known,
    existing: float,
    incomplete: float,
    fresh: st.SearchStrategy[str],
    note: st.SearchStrategy[str],
) -> Op:
    """One op of ``kind``; ``incomplete`` ones lack a field the op needs."""
    broken = _chance(draw, incomplete) if incomplete else False
    if kind == "init":
        if broken:
            return Init(None)
        entries = draw(
            st.lists(
                st.builds(PhaseItems, fresh, st.lists(fresh, min_size=1, max_size=4).map(tuple)),
                max_size=3,
            )
        )
        return Init(tuple(entries))
    if kind == "append":
        if broken:
            if draw(st.booleans()):
                return Append(draw(st.sampled_from([None, ""])), (draw(fresh),))
            return Append(_target(draw, known.phases, existing, fresh), None)
        items = draw(
            st.lists(
                # now and then an item that already exists: the reference reports it
                st.one_of(fresh, fresh, fresh, _target_strategy(known.tasks, fresh)),
                min_size=1,
                max_size=4,
            )
        )
        return Append(_target(draw, known.phases, existing, fresh), tuple(items))
    if broken and kind == "start":
        return Start(draw(st.sampled_from([None, ""])))
    if broken and kind == "note" and draw(st.booleans()):
        return Note(draw(st.sampled_from([None, ""])), draw(note))
    if kind == "start":
        return Start(_target(draw, known.tasks, existing, fresh))
    if kind == "note":
        if broken:
            text = draw(st.sampled_from(["", "  \t", None]))
        else:
            # a note that is blank once trimmed is an incomplete op, not a complete one
            text = draw(note.filter(lambda t: not is_blank(t)))
        return Note(_target(draw, known.tasks, existing, fresh), text)
    cls: type[Done | Drop | Rm] = OPS[kind]  # type: ignore[assignment]
    aim = draw(st.sampled_from(["task", "task", "phase", "all"]))
    if aim == "task":
        return cls(task=_target(draw, known.tasks, existing, fresh))
    if aim == "phase":
        return cls(phase=_target(draw, known.phases, existing, fresh))
    return cls()


def _target_strategy(known: list[str], fresh: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(known) if known else fresh


def _check_kinds(kinds: Iterable[str] | None) -> list[str]:
    chosen = list(OP_NAMES if kinds is None else kinds)
    unknown = [k for k in chosen if k not in OPS]
    if unknown or not chosen:
        raise InvalidArgument(f"kinds={chosen!r}: must be a non-empty choice of {', '.join(OP_NAMES)}")
    return chosen


@st.composite
def _batch(
    draw: st.DrawFn,
    phases: Sequence[Phase],
    min_size: int,
    max_size: int,
    kinds: list[str],
    existing: float,
    incomplete: float,
    fresh: st.SearchStrategy[str],
    note: st.SearchStrategy[str],
) -> tuple[Op, ...]:
    known = _Known(phases)
    size = draw(st.integers(min_size, max_size))
    batch: list[Op] = []
    for _ in range(size):
        op = _draw_op(draw, draw(st.sampled_from(kinds)), known, existing, incomplete, fresh, note)
        known.learn(op)
        batch.append(op)
    return tuple(batch)


def op_batches(
    phases: Sequence[Phase] = (),
    *,
    min_size: int = 1,
    max_size: int = 6,
    kinds: Iterable[str] | None = None,
    existing: float = 0.75,
    incomplete: float = 0.05,
    names: st.SearchStrategy[str] | None = None,
    notes: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[tuple[Op, ...]]:
    """An ordered batch of ops for one ``todo_write`` call on ``phases``.

    With probability ``existing`` an op names a task or phase known at that
    point of the batch (in ``phases`` or made by an earlier ``init`` or
    ``append``; one removed earlier in the batch may still be named);
    otherwise a fresh name from ``names``, usually reported as not found. About
    one ``append`` item in four repeats a known task (reported as existing).
    ``incomplete`` is the share of ops missing a field they need (``start``
    without a task, a blank note). ``kinds`` narrows the op names.
    """
    _check_range(min_size, max_size, "size")
    _check_share(existing, "existing")
    _check_share(incomplete, "incomplete")
    return _batch(
        tuple(phases),
        min_size,
        max_size,
        _check_kinds(kinds),
        existing,
        incomplete,
        names if names is not None else _short_names(),
        notes if notes is not None else note_texts(),
    )


def ops(
    phases: Sequence[Phase] = (),
    *,
    kinds: Iterable[str] | None = None,
    existing: float = 0.75,
    incomplete: float = 0.05,
    names: st.SearchStrategy[str] | None = None,
    notes: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[Op]:
    """One op on ``phases``; the knobs are those of :func:`op_batches`."""
    return op_batches(
        phases,
        min_size=1,
        max_size=1,
        kinds=kinds,
        existing=existing,
        incomplete=incomplete,
        names=names,
        notes=notes,
    ).map(lambda batch: batch[0])


# -- tool arguments ------------------------------------------------------------------------


def _op_json(op: Op) -> dict[str, Any]:
    """One op as the JSON a model sends; ``None`` fields are left out (the codec's form)."""
    out: dict[str, Any] = converter.unstructure(op)
    return out


def _as_params(batch: Sequence[Op]) -> dict[str, Any]:
    return {"ops": [_op_json(op) for op in batch]}


_JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=4)
)
_NOT_STRING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.lists(st.text(max_size=3), max_size=2),
    st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
)
_NOT_ARRAY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.text(max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_NOT_OBJECT = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4), st.lists(st.integers(), max_size=2)
)


def _break(draw: st.DrawFn, valid: dict[str, Any]) -> object:
    """``valid`` tool arguments with one thing the schema rejects."""
    ops_ = valid["ops"]
    where = draw(st.integers(0, len(ops_) - 1))
    entry = dict(ops_[where])
    how = draw(
        st.sampled_from(
            [
                "params",
                "no ops",
                "ops type",
                "ops empty",
                "op type",
                "op missing",
                "op name",
                "op name type",
                "field type",
                "items",
                "list",
            ]
        )
    )
    if how == "params":
        return draw(_NOT_OBJECT)
    if how == "no ops":
        return {key: value for key, value in valid.items() if key != "ops"}
    if how == "ops type":
        return {**valid, "ops": draw(_NOT_ARRAY)}
    if how == "ops empty":
        return {**valid, "ops": []}
    if how == "op type":
        entry_value: object = draw(_NOT_OBJECT)
    elif how == "op missing":
        entry.pop("op")
        entry_value = entry
    elif how == "op name":
        entry["op"] = draw(st.text(max_size=8).filter(lambda name: name not in OPS))
        entry_value = entry
    elif how == "op name type":
        entry["op"] = draw(_NOT_STRING)
        entry_value = entry
    elif how == "field type":
        entry[draw(st.sampled_from(["task", "phase", "text"]))] = draw(_NOT_STRING)
        entry_value = entry
    elif how == "items":
        entry["items"] = draw(
            st.one_of(_NOT_ARRAY, st.just([]), st.lists(_NOT_STRING, min_size=1, max_size=2))
        )
        entry_value = entry
    else:
        entry["list"] = draw(
            st.one_of(
                _NOT_ARRAY,
                st.lists(_NOT_OBJECT, min_size=1, max_size=2),
                st.just([{"phase": "P"}]),
                st.just([{"items": ["a"]}]),
                st.just([{"phase": "P", "items": []}]),
                st.just([{"phase": 1, "items": ["a"]}]),
            )
        )
        entry_value = entry
    return {**valid, "ops": [*ops_[:where], entry_value, *ops_[where + 1 :]]}


@st.composite
def _params(
    draw: st.DrawFn,
    batches: st.SearchStrategy[tuple[Op, ...]],
    valid: bool | None,
    extras: bool,
) -> Any:
    batch = draw(batches)
    made = _as_params(batch)
    if extras:
        # keys the schema does not name are allowed and ignored
        for entry in made["ops"]:
            if draw(st.booleans()):
                entry[draw(st.sampled_from(["extra", "task", "phase", "why"]))] = (
                    draw(st.text(max_size=6)) if draw(st.booleans()) else draw(_JSON_SCALARS)
                )
        made = {**made, **draw(st.dictionaries(st.sampled_from(["meta", "why"]), _JSON_SCALARS, max_size=1))}
        made = made if schema.is_valid(made) else _as_params(batch)
    broken = not draw(st.booleans()) if valid is None else not valid
    if not broken:
        return made
    wrong = _break(draw, made)
    assert not schema.is_valid(wrong), wrong
    return wrong


def params(
    phases: Sequence[Phase] = (),
    *,
    valid: bool | None = True,
    min_ops: int = 1,
    max_ops: int = 6,
    existing: float = 0.75,
    incomplete: float = 0.05,
    kinds: Iterable[str] | None = None,
    extras: bool = False,
    names: st.SearchStrategy[str] | None = None,
    notes: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[Any]:
    """``todo_write`` tool arguments, as a model would send them (JSON data).

    ``valid=True`` gives arguments the schema accepts, built from
    :func:`op_batches` on ``phases``; ``valid=False`` breaks exactly one thing
    the schema checks (a missing ``ops``, an unknown op, a number where a
    string goes, an empty ``items`` ...), so ``todo_write`` must raise
    ``InvalidParams``; ``None`` mixes both. ``extras`` adds keys the schema
    ignores. ``existing``, ``incomplete``, ``kinds``, ``names`` and ``notes``
    go to :func:`op_batches`.
    """
    if min_ops < 1:
        raise InvalidArgument(f"min_ops={min_ops}: must be at least 1 (the schema's minItems)")
    _check_range(min_ops, max_ops, "ops")
    batches = op_batches(
        phases,
        min_size=min_ops,
        max_size=max_ops,
        kinds=kinds,
        existing=existing,
        incomplete=incomplete,
        names=names,
        notes=notes,
    )
    return _params(batches, valid, extras)


def calls(
    *,
    valid: bool | None = True,
    existing: float = 0.75,
    max_ops: int = 6,
    **phase_knobs: Any,
) -> st.SearchStrategy[tuple[tuple[Phase, ...], Any]]:
    """A stored list and tool arguments aimed at it: ``(phases, params)``.

    ``phase_knobs`` go to :func:`phases`; the others to :func:`params`.
    """
    return phases(**phase_knobs).flatmap(
        lambda drawn: st.tuples(
            st.just(drawn), params(drawn, valid=valid, existing=existing, max_ops=max_ops)
        )
    )


# -- Markdown ------------------------------------------------------------------------------


@st.composite
def _markdown(
    draw: st.DrawFn,
    listing: st.SearchStrategy[tuple[Phase, ...]],
    broken: bool,
    orphans: bool,
) -> str:
    lines: list[str] = []
    space = st.sampled_from(["", " ", "  ", "\t"])
    if orphans:
        # tasks before any heading go to a "Todos" phase
        for content in draw(st.lists(names(markdown_safe=True, max_size=8), max_size=2)):
            lines.append(f"- [ ] {content}")
    for item in draw(listing):
        lines.append(f"{'#' * draw(st.integers(1, 6))} {item.name}{draw(space)}")
        for task in item.tasks:
            marker = draw(st.sampled_from(_MARKERS[task.status]))
            bullet = draw(st.sampled_from("-*+"))
            gap = draw(space)
            lines.append(f"{draw(space)}{bullet}{gap}[{marker}] {task.content}{draw(space)}")
            for index, note in enumerate(task.notes):
                if index:
                    lines.append("  >")
                lines.extend(f"  > {line}" for line in note.split("\n"))
        if draw(st.booleans()):
            lines.append("")
    if broken:
        for _ in range(draw(st.integers(1, 3))):
            word = draw(names(markdown_safe=True, max_size=8))
            bad = draw(
                st.sampled_from([f"? {word}", f"- [{draw(st.sampled_from(_BAD_MARKERS))}] {word}", f"{word}"])
            )
            if bad == word and word[0] in "#-*+>":
                bad = f"? {word}"
            lines.insert(draw(st.integers(0, len(lines))), bad)
    end = draw(st.sampled_from(["\n", "\r\n"]))
    last: bool = bool(lines) and draw(st.booleans())
    return end.join(lines) + (end if last else "")


def markdown_documents(
    *,
    broken: bool = False,
    orphans: bool = True,
    **phase_knobs: Any,
) -> st.SearchStrategy[str]:
    """A Markdown checklist in the format ``markdown_to_phases`` reads.

    Well-formed documents vary what the reader accepts (``*``/``+`` bullets,
    ``[X]``/``[>]``/``[~]`` markers, heading levels, padding, CRLF, tasks
    before the first heading) and parse without errors. ``broken=True`` adds
    one to three lines the reader reports (unknown syntax, unknown marker).
    ``phase_knobs`` go to :func:`phases` (always ``markdown_safe``).
    """
    knobs = {"max_size": 3, "max_tasks": 4, **phase_knobs, "markdown_safe": True}
    return _markdown(phases(**knobs), broken, orphans)


# -- registration ------------------------------------------------------------------------------


def _op_strategy(kind: str) -> Callable[[type[Any]], st.SearchStrategy[Any]]:
    return lambda _: ops(kinds=[kind])


def _register() -> None:
    """What the hook does: a strategy for each of phasetodo's types."""
    st.register_type_strategy(Task, tasks())
    st.register_type_strategy(Phase, phase())
    st.register_type_strategy(
        PhaseItems, st.builds(PhaseItems, names(), st.lists(names(), min_size=1).map(tuple))
    )
    for kind, cls in OPS.items():
        st.register_type_strategy(cls, _op_strategy(kind))


if _CALLED_EARLY:
    _register()
