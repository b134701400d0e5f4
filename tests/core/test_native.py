"""The optional C module against its pure-Python twins: equal results, equal refusals, no leaks.

``phasetodo._core.native`` binds each loop to its C twin when ``_speedups`` is
built; these tests call both sides directly, so they run the same whether
``PHASETODO_PURE`` is set or not. In CI the module must be built.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import tracemalloc
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phasetodo import load_phases, markdown_to_phases, phases_to_markdown, todo_write
from phasetodo._core import native, schema
from phasetodo._core.codec import _structure_op
from phasetodo._core.columns import _PROTO, _UNTOUCHED, Column, plain_work, read_columns
from phasetodo._core.limits import DEFAULT_LIMITS
from phasetodo._core.model import Phase, Status, Task, make_tasks
from phasetodo._core.ops import Append, Done, Init, Note, Op, PhaseItems, Start, View
from phasetodo._profiles.team.ops import Block
from phasetodo._views.summary import PREFIXES as _PREFIXES
from phasetodo.testing import op_batches
from phasetodo.testing import params as tool_params
from phasetodo.testing import phases as phase_lists

from ..budget import examples

_C = native.load_compiled()
if _C is None and os.environ.get("CI"):
    pytest.fail("phasetodo._core._speedups is not built: CI builds and tests it", pytrace=False)
pytestmark = pytest.mark.skipif(_C is None, reason="the C module is not built here")
C: ModuleType = _C  # type: ignore[assignment]

REFUSED = (TypeError, KeyError, ValueError, AttributeError)
MARKERS = ("[ ]", "[/]", "[x]", "[-]")
ROW_MARKERS = (" ", "/", "x", "-")
STATUS_OF = {
    " ": Status.PENDING,
    "x": Status.COMPLETED,
    "X": Status.COMPLETED,
    "/": Status.IN_PROGRESS,
    ">": Status.IN_PROGRESS,
    "-": Status.ABANDONED,
    "~": Status.ABANDONED,
}


def _outcome(function: Any, *args: Any) -> tuple[str, Any]:
    """What a call gives: its value, or that it refused (one of the fallback errors)."""
    try:
        return "ok", function(*args)
    except REFUSED:
        return "refused", None


_WIRE = st.sampled_from(["pending", "in_progress", "completed", "abandoned"])
_BAD = st.one_of(
    st.none(), st.integers(), st.text(max_size=2), st.just([]), st.just(["n", 5]), st.just("blocked")
)


@st.composite
def _task_dict(draw: st.DrawFn) -> Any:
    """A task dict, mostly well-formed; now and then wrong in one of the ways a host gets it wrong."""
    task: dict[str, Any] = {"content": draw(st.text(max_size=8)), "status": draw(_WIRE)}
    if draw(st.booleans()):
        task["notes"] = draw(st.one_of(st.none(), st.lists(st.text(max_size=6), max_size=3)))
    if draw(st.integers(0, 9)) == 0:
        task["other"] = 1  # unknown keys are ignored by both
    if draw(st.integers(0, 14)) == 0:
        field = draw(st.sampled_from(["content", "status", "notes", "owner", "reason", "after", "drop"]))
        if field == "drop":
            del task[draw(st.sampled_from(["content", "status"]))]
        else:
            task[field] = draw(_BAD)
    return task if draw(st.integers(0, 49)) else draw(_BAD)


@st.composite
def _phase_dicts(draw: st.DrawFn) -> Any:
    """A list of phase dicts as a host might pass it, mostly well-formed."""
    out: list[Any] = []
    for _ in range(draw(st.integers(0, 4))):
        tasks = draw(st.lists(_task_dict(), max_size=5))
        phase: dict[str, Any] = {
            "name": draw(st.text(max_size=6)),
            "tasks": tasks if draw(st.booleans()) else tuple(tasks),
        }
        if draw(st.integers(0, 29)) == 0:
            phase[draw(st.sampled_from(["name", "tasks"]))] = draw(_BAD)
        out.append(phase if draw(st.integers(0, 49)) else [phase])
    return out


class TestRows:
    @settings(max_examples=examples(400))
    @given(_phase_dicts())
    def test_c_and_python_agree(self, phases: list[Any]) -> None:
        """On any host input both give the same columns, or both refuse it."""
        assert _outcome(C.rows, phases) == _outcome(native._rows, phases)

    def test_notes_are_the_hosts_lists(self) -> None:
        """Columns hold the input's notes list itself, not a copy, as the Python loop does."""
        notes = ["a", "b"]
        ((_, _, _, cells),) = C.rows(
            [{"name": "P", "tasks": [{"content": "t", "status": "pending", "notes": notes}]}]
        )
        assert cells[0] is notes


class TestValueRows:
    @settings(max_examples=examples(200))
    @given(phase_lists(max_size=4, max_tasks=5))
    def test_c_and_python_agree_on_plain_lists(self, phases: tuple[Phase, ...]) -> None:
        """Plain Phase values give equal columns, holding the input's strings and tuples."""
        got = C.value_rows(phases)
        assert got == native._value_rows(phases)
        for row, phase in zip(got, phases, strict=True):
            assert all(a is t.notes for a, t in zip(row[3], phase.tasks, strict=True))

    @pytest.mark.parametrize(
        "task",
        [
            Task("t", Status.BLOCKED),
            Task("t", owner="a"),
            Task("t", reason="r"),
            Task("t", after=("u",)),
            Task(5),  # type: ignore[arg-type]
            Task("t", notes=(5,)),  # type: ignore[arg-type]
        ],
    )
    def test_team_fields_and_bad_types_refused_by_both(self, task: Task) -> None:
        """A team plan's fields or a field of the wrong type send both to the general engine."""
        phases = (Phase("P", (task,)),)
        assert _outcome(C.value_rows, phases) == _outcome(native._value_rows, phases) == ("refused", None)

    def test_non_phase_refused(self) -> None:
        """Dicts among values are refused by both."""
        phases = [Phase("P"), {"name": "Q", "tasks": []}]
        assert _outcome(C.value_rows, phases) == _outcome(native._value_rows, phases) == ("refused", None)


def _columns(phases: tuple[Phase, ...]) -> list[Any]:
    cols = read_columns(phases)
    assert cols is not None
    return cols


class _WithIds:
    """A column with a team plan's ``ids`` beside the core's fields."""

    def __init__(self, col: Any, ids: Any) -> None:
        self.name, self.contents, self.statuses, self.notes = col.name, col.contents, col.statuses, col.notes
        if ids is not None:
            self.ids = ids


def _id_lists(size: int) -> st.SearchStrategy[list[str | None]]:
    return st.lists(st.none() | st.from_regex(r"[0-9]{1,3}", fullmatch=True), min_size=size, max_size=size)


class TestPartsAndRender:
    @settings(max_examples=examples(200))
    @given(phase_lists(max_size=4, max_tasks=6))
    def test_parts_agree(self, phases: tuple[Phase, ...]) -> None:
        """The summary lines, details.phases and current phase are equal from both."""
        cols = _columns(phases)
        assert C.parts(cols, _PREFIXES) == native._parts(cols, _PREFIXES)

    @settings(max_examples=examples(200))
    @given(phase_lists(max_size=4, max_tasks=6))
    def test_dumped_agrees_and_is_parts_details(self, phases: tuple[Phase, ...]) -> None:
        """details.phases alone is equal from both, and is what parts gives as its fourth part."""
        cols = _columns(phases)
        assert C.dumped(cols) == native._dumped(cols) == native._parts(cols, _PREFIXES)[3]

    @settings(max_examples=examples(200))
    @given(phase_lists(max_size=4, max_tasks=6), st.data())
    def test_dumped_with_ids_agrees(self, phases: tuple[Phase, ...], data: st.DataObject) -> None:
        """A column's ``ids`` (a team plan's) give each task with one its ``"id"``, last, in both."""
        cols = [_WithIds(col, data.draw(_id_lists(len(col.contents)))) for col in _columns(phases)]
        got = C.dumped(cols)
        assert got == native._dumped(cols)
        for col, phase in zip(cols, got, strict=True):
            for ident, task in zip(col.ids, phase["tasks"], strict=True):
                assert task.get("id") == ident
                assert ident is None or list(task)[-1] == "id"

    def test_dumped_refuses_ids_of_another_length(self) -> None:
        """An ``ids`` list that is not one of the column's length is a TypeError from both."""
        (col,) = _columns((Phase("P", (Task("t"), Task("u"))),))
        for ids in (["a"], ("a", "b"), None):
            cols = [_WithIds(col, ids)]
            if ids is None:
                assert C.dumped(cols) == native._dumped(cols)
                continue
            with pytest.raises(TypeError):
                C.dumped(cols)
            with pytest.raises(TypeError):
                native._dumped(cols)

    def test_dumped_survives_ids_that_empty_the_column(self) -> None:
        """Reading ``ids`` may run code that empties the column: a TypeError, no crash."""

        class Emptying:
            name = "P"

            def __init__(self) -> None:
                self.contents, self.statuses, self.notes = ["t"], [Status.PENDING], [None]

            @property
            def ids(self) -> list[str | None]:
                self.contents.clear()
                return ["1"]

        with pytest.raises(TypeError):
            C.dumped([Emptying()])

    def test_dumped_refuses_what_parts_refuses(self) -> None:
        """A status outside the reference's four, or a list that is not one, is a TypeError."""
        cols = _columns((Phase("P", (Task("t"),)),))
        cols[0].statuses[0] = "nonsense"
        with pytest.raises(TypeError):
            C.dumped(cols)
        with pytest.raises(TypeError):
            C.dumped(tuple(cols))

    @settings(max_examples=examples(200))
    @given(phase_lists(min_size=1, max_size=4, max_tasks=6))
    def test_render_agrees(self, phases: tuple[Phase, ...]) -> None:
        """The Markdown checklist is equal from both."""
        cols = _columns(phases)
        assert C.render(cols, ROW_MARKERS) == native._render(cols, ROW_MARKERS)

    @settings(max_examples=examples(200))
    @given(phase_lists(max_size=4, max_tasks=6, duplicates=True))
    def test_index_agrees(self, phases: tuple[Phase, ...]) -> None:
        """The name, content and in-progress lookups are equal from both, duplicates included."""
        cols = _columns(phases)
        assert C.index(cols) == native._index(cols)
        assert list(C.index(cols)[2]) == list(native._index(cols)[2])  # list order

    def test_details_are_fresh(self) -> None:
        """details.phases never shares a notes list with the columns it came from."""
        notes = ["n"]
        cols = read_columns(
            [{"name": "P", "tasks": [{"content": "t", "status": "in_progress", "notes": notes}]}]
        )
        assert cols is not None
        _, _, _, dumped, _ = C.parts(cols, _PREFIXES)
        assert dumped[0]["tasks"][0]["notes"] == notes
        assert dumped[0]["tasks"][0]["notes"] is not notes

    def test_foreign_status_refused(self) -> None:
        """A cell that is not a reference status is refused, not rendered as something else."""
        cols = _columns((Phase("P", (Task("t"),)),))
        cols[0].statuses[0] = Status.BLOCKED
        with pytest.raises(TypeError):
            C.parts(cols, _PREFIXES)
        with pytest.raises(TypeError):
            C.render(cols, ROW_MARKERS)


class TestPartsWriter:
    @settings(max_examples=examples(200))
    @given(
        phase_lists(max_size=3, max_tasks=5),
        st.tuples(*[st.text(max_size=3)] * 4),
    )
    def test_any_prefixes_and_character_widths(self, phases: tuple[Phase, ...], prefixes: Any) -> None:
        """Texts of any width (ASCII, Latin-1, BMP, astral) in names, contents, notes and prefixes
        give the Python loop's strings: equal, so of the same (narrowest) kind too."""
        cols = _columns(phases)
        got = C.parts(cols, prefixes)
        assert got == native._parts(cols, prefixes)
        for text in got[:2]:
            assert text == "".join(list(text))  # a canonical str compares equal to a rebuilt one

    @settings(max_examples=examples(200))
    @given(
        phase_lists(min_size=1, max_size=3, max_tasks=5),
        st.tuples(*[st.text(max_size=2)] * 4),
    )
    def test_markdown_of_any_width(self, phases: tuple[Phase, ...], markers: Any) -> None:
        """The Markdown writer gives the Python loop's string for texts and markers of any width."""
        cols = _columns(phases)
        assert C.render(cols, markers) == native._render(cols, markers)

    @pytest.mark.parametrize(
        "notes",
        [("",), ("\n",), ("a\n",), ("\nb",), ("é\nx",), ("x", "ü\n\n€"), ("\U0001f600\nz",), ("a",) * 20],
    )
    def test_active_notes_split_as_python_splits(self, notes: tuple[str, ...]) -> None:
        """An active task's notes are spelled out line by line, as ``str.split("\\n")`` splits them."""
        phases = (Phase("P", (Task("t", Status.IN_PROGRESS, notes), Task("u"))),)
        cols = _columns(phases)
        for prefixes in (_PREFIXES, (" ", "/", "x", "-")):
            assert C.parts(cols, prefixes) == native._parts(cols, prefixes)
            assert C.render(cols, prefixes) == native._render(cols, prefixes)


def _loaded(loaded: Any) -> Any:
    """What ``columns`` gave, as plain data: every slot of each column, the lookups by column number."""
    cols, by_name, by_content, active, count = loaded
    number = {id(col): n for n, col in enumerate(cols)}
    fields = [{slot: getattr(col, slot) for slot in Column.__slots__} for col in cols]
    return (
        fields,
        {name: number[id(col)] for name, col in by_name.items()},
        {content: number[id(col)] for content, col in by_content.items()},
        [(number[id(col)], index) for col, index in active],
        count,
    )


def _load_outcome(function: Any, *args: Any) -> tuple[str, Any]:
    kind, value = _outcome(function, *args)
    return kind, None if value is None else _loaded(value)


class TestColumns:
    @settings(max_examples=examples(400))
    @given(_phase_dicts())
    def test_c_and_python_agree(self, phases: list[Any]) -> None:
        """On any host input both give equal columns (every field) and lookups, or both refuse it."""
        assert _load_outcome(C.columns, phases, _PROTO) == _load_outcome(native._columns, phases, _PROTO)

    def test_columns_are_what_init_makes(self) -> None:
        """Each column holds what ``Column(name, contents, statuses, notes)`` holds; notes are the input's."""
        notes = ["a"]
        dicts = [
            {"name": "P", "tasks": [{"content": "t", "status": "pending", "notes": notes}]},
            {"name": "Q", "tasks": []},
        ]
        cols = C.columns(dicts, _PROTO)[0]
        assert [type(col) for col in cols] == [Column, Column]
        for col, (name, contents, statuses, cells) in zip(cols, native._rows(dicts), strict=True):
            made = Column(name, contents, statuses, cells)
            slots = Column.__slots__
            assert {f: getattr(col, f) for f in slots} == {f: getattr(made, f) for f in slots}
        assert cols[0].notes[0] is notes
        assert cols[0].touched is _UNTOUCHED

    def test_a_change_leaves_the_prototype_alone(self) -> None:
        """A changed task gets its column its own set of touched positions; the prototype stays empty."""
        tasks = [{"content": "t", "status": "pending"}, {"content": "u", "status": "pending"}]
        dicts = [{"name": "P", "tasks": tasks}]
        work = plain_work(dicts)
        assert work is not None
        work.apply((Note("u", "n"), Start("t")))
        assert set(work.cols[0].touched or ()) == {0, 1}
        assert _PROTO.touched is _UNTOUCHED
        assert not _UNTOUCHED
        assert (_PROTO.contents, _PROTO.statuses, _PROTO.notes) == ([], [], [])

    @pytest.mark.slow  # a thousand loads and collections: the full run's
    def test_the_collector_skips_them_and_nothing_leaks(self) -> None:
        """The C loader leaves its columns, their lists and the lookups out of the collector's work
        (nothing in them refers back, so they hold no cycle), and calls leave no memory behind."""
        tasks = [{"content": f"t{i}", "status": "pending", "notes": ["n"]} for i in range(5)]
        dicts = [{"name": "P", "tasks": tasks}, {"name": "Q", "tasks": []}]
        cols, by_name, by_content, _, _ = C.columns(dicts, _PROTO)
        held = [by_name, by_content, *cols, *(x for c in cols for x in (c.contents, c.statuses, c.notes))]
        assert not any(map(gc.is_tracked, held))
        params = {
            "ops": [
                {"op": "note", "task": "t1", "text": "more"},
                {"op": "start", "task": "t2"},
                {"op": "rm", "task": "t3"},
                {"op": "append", "phase": "Q", "items": ["u"]},
            ]
        }
        for _ in range(200):
            todo_write(params, dicts)
        gc.collect()
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            for _ in range(2000):
                todo_write(params, dicts)
            gc.collect()
            grown = tracemalloc.get_traced_memory()[0] - start
        finally:
            tracemalloc.stop()
        assert grown < 20_000

    def test_a_prototype_with_a_dict_is_refused_by_both(self) -> None:
        """Only a column class that keeps its fields in slots can be copied field by field."""

        class Open:
            def __init__(self, *fields: Any) -> None:
                self.fields = fields

        dicts = [{"name": "P", "tasks": []}]
        proto = Open("", [], [], [])
        refused = ("refused", None)
        assert _outcome(C.columns, dicts, proto) == _outcome(native._columns, dicts, proto) == refused


def _odd_value() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(), st.integers(), st.just(""), st.just([]), st.just(()), st.just(["a", 1]), st.just(("a",)),
        st.text(max_size=3), st.builds(_Sub, st.text(max_size=3)),
    )


class _Sub(str):
    """A ``str`` subclass (the fast path takes exact strings only)."""


@st.composite
def _odd_params(draw: st.DrawFn) -> Any:
    """Tool arguments near the plain shape: tuples for lists, odd values, keys of other types."""
    names = ["init", "start", "done", "drop", "rm", "append", "note", "view", "x"]
    entry: dict[Any, Any] = {"op": draw(st.sampled_from(names))}
    keys = ["task", "phase", "text", "items", "list", "other"]
    for key in draw(st.lists(st.sampled_from(keys), max_size=3)):
        if key == "list":
            entry[key] = draw(
                st.one_of(
                    st.lists(
                        st.fixed_dictionaries({"phase": _odd_value(), "items": _odd_value()}), max_size=2
                    ),
                    st.tuples(
                        st.fixed_dictionaries(
                            {"phase": st.text(max_size=2), "items": st.tuples(st.text(max_size=2))}
                        )
                    ),
                    _odd_value(),
                )
            )
        else:
            entry[key] = draw(_odd_value())
    if draw(st.integers(0, 9)) == 0:
        entry[draw(st.sampled_from([1, None, _Sub("task"), ("op",)]))] = "x"
    ops: Any = [entry] * draw(st.integers(0, 2))
    if draw(st.booleans()):
        ops = tuple(ops)
    made: Any = {"ops": ops}
    if draw(st.integers(0, 9)) == 0:
        made = {_Sub("ops"): ops}
    return made


class TestOps:
    @settings(max_examples=examples(400))
    @given(st.one_of(tool_params(valid=None, extras=True), _odd_params()))
    def test_c_and_python_agree(self, params: Any) -> None:
        """Both build equal op values of equal types, or both refuse the arguments."""
        c, python = _outcome(C.ops, params), _outcome(native._ops, params)
        assert c == python
        if c[0] == "ok":
            assert [type(op) for op in c[1]] == [type(op) for op in python[1]]

    @settings(max_examples=examples(400))
    @given(st.one_of(tool_params(valid=None, extras=True), _odd_params()))
    def test_what_is_taken_is_what_the_schema_path_builds(self, params: Any) -> None:
        """Arguments the fast path takes are valid, and it builds what the schema path builds."""
        kind, built = _outcome(native._ops, params)
        if kind == "ok":
            assert schema.is_valid(params)
            assert built == tuple(_structure_op(entry, Op) for entry in params["ops"])

    def test_init_entries_and_items(self) -> None:
        """init's list becomes PhaseItems with item tuples; append's items a tuple; absent fields None."""
        params = {
            "ops": [
                {
                    "op": "init",
                    "list": [{"phase": "P", "items": ["a", "b"]}, {"phase": "Q", "items": ("c",)}],
                },
                {"op": "init", "list": []},
                {"op": "init"},
                {"op": "append", "phase": "P", "items": ["d"], "text": "ignored"},
                {"op": "done"},
            ]
        }
        expected = (
            Init((PhaseItems("P", ("a", "b")), PhaseItems("Q", ("c",)))),
            Init(()),
            Init(None),
            Append("P", ("d",)),
            Done(None, None),
        )
        assert C.ops(params) == native._ops(params) == expected


class TestScan:
    @settings(max_examples=examples(300))
    @given(
        op_batches(min_size=1, max_size=5),
        st.lists(st.integers(1, 12), min_size=4, max_size=4),
    )
    def test_c_and_python_agree(self, ops: Any, limits: list[int]) -> None:
        """On the core's ops both give the same verdict: -1 past a limit, else whether the list can grow."""
        def texts(op: Any) -> int:
            raise AssertionError(op)

        assert C.scan(ops, *limits, texts) == native._scan(ops, *limits, texts)
        assert C.scan(list(ops), *limits, texts) == native._scan(ops, *limits, texts)

    def test_every_field_counts(self) -> None:
        """Each text is held to its own limit: tasks and items to max_content, phases to max_name, notes
        to max_note, all of them to max_payload."""
        ops = (
            Init((PhaseItems("PP", ("aaa",)),)),
            Append("QQ", ("bbbb",)),
            Done("c", "RR"),
            Note("d", "eeeee"),
            Start("f"),
        )
        tight = ([4, 2, 5, 21], [3, 2, 5, 21], [4, 1, 5, 21], [4, 2, 4, 21], [4, 2, 5, 20], [4, 2, 5, 19])
        for limits in tight:
            assert C.scan(ops, *limits, len) == native._scan(ops, *limits, len)
        assert C.scan(ops, 4, 2, 5, 21, len) == 1
        assert C.scan(ops[2:], 4, 2, 5, 21, len) == 0

    def test_a_profile_op_is_left_to_python(self) -> None:
        """C refuses ops it does not know (a profile's, or the strict view), and odd field values."""
        for ops in ((Block("t", "why"),), (View("t"),), (Done(task=5),), (Append("P", ("a", 5)),)):  # type: ignore[arg-type]
            with pytest.raises(TypeError):
                C.scan(ops, 9, 9, 9, 99, len)
        assert DEFAULT_LIMITS.check_ops((Block("t", "why"), Done("u"))) is False


_LINE = st.one_of(
    st.builds(lambda m, c: f"- [{m}] {c}", st.sampled_from(list(" xX/>~-?!")), st.text(max_size=5)),
    st.text(max_size=6),
    st.just("# H"),
)


class TestTaskRun:
    @settings(max_examples=examples(400))
    @given(st.lists(_LINE, max_size=6), st.booleans(), st.integers(0, 3))
    def test_agrees_with_the_pattern(self, lines: list[str], final_newline: bool, start: int) -> None:
        """Contents, statuses and end position equal the regular expression's, from any start."""
        text = "\n".join(lines) + ("\n" if final_newline else "")
        if "\r" in text or "\u2028" in text or "\u2029" in text:
            return
        pos = min(start, len(text))
        known = " xX/>~-"
        assert C.task_run(text, pos, STATUS_OF, known) == native._task_run(text, pos, STATUS_OF, known)


class TestMakeTasks:
    @given(
        st.lists(
            st.tuples(
                st.text(max_size=5),
                st.sampled_from(list(Status)[:4]),
                st.lists(st.text(max_size=3), max_size=2).map(tuple),
            ),
            max_size=8,
        )
    )
    def test_equal_to_constructed_tasks(self, rows: list[tuple[str, Status, tuple[str, ...]]]) -> None:
        """Each built task equals Task(content, status, notes) and has no team fields."""
        contents = [r[0] for r in rows]
        statuses = [r[1] for r in rows]
        notes = [r[2] for r in rows]
        built = C.make_tasks(contents, statuses, notes)
        assert built == [Task(c, s, n) for c, s, n in rows] == make_tasks(contents, statuses, notes)
        assert all(t.owner is None and t.reason is None and t.after == () for t in built)

    @pytest.mark.parametrize(
        "args",
        [
            (["a"], [Status.PENDING, Status.PENDING]),
            ([5], [Status.PENDING]),
            (["a"], ["pending"]),
            (["a"], [Status.BLOCKED]),
            (["a"], [Status.PENDING], [["n"]]),
            (["a"], [Status.PENDING], [(5,)]),
        ],
    )
    def test_bad_columns_refused(self, args: tuple[Any, ...]) -> None:
        """Columns of unequal length or wrong types raise instead of building a broken task."""
        with pytest.raises((TypeError, ValueError)):
            C.make_tasks(*args)


class TestNoLeaks:
    def test_repeated_calls_keep_reference_counts(self) -> None:
        """A thousand calls of each function leave the inputs' reference counts as they were."""
        content, name, note = "task " + "x" * 20, "phase " + "y" * 20, "note " + "z" * 20
        dicts = [{"name": name, "tasks": [{"content": content, "status": "in_progress", "notes": [note]}]}]
        values = load_phases(dicts)
        cols = _columns(values)
        text = phases_to_markdown(values)
        params = {
            "ops": [
                {"op": "init", "list": [{"phase": name, "items": [content]}]},
                {"op": "note", "task": content, "text": note},
            ]
        }
        built = C.ops(params)
        odd = {"name": name, "tasks": [{"content": content, "status": "x"}]}
        before = [sys.getrefcount(x) for x in (content, name, note, Status.IN_PROGRESS)]
        for _ in range(1000):
            C.rows(dicts)
            C.value_rows(values)
            C.parts(cols, _PREFIXES)
            C.index(cols)
            C.render(cols, ROW_MARKERS)
            C.task_run(text, len(name) + 3, STATUS_OF, " xX/>~-")
            C.make_tasks([content], [Status.IN_PROGRESS], [(note,)])
            _outcome(C.rows, [{"name": name, "tasks": [{"content": content, "status": "blocked"}]}])
            C.columns(dicts, _PROTO)
            _outcome(C.columns, [dicts[0], odd], _PROTO)
            C.ops(params)
            _outcome(C.ops, {"ops": [{"op": "note", "task": content, "text": 5}]})
            C.scan(built, 99, 99, 99, 999, len)
        assert [sys.getrefcount(x) for x in (content, name, note, Status.IN_PROGRESS)] == before


_HOSTILE_SCRIPT = """
from hypothesis import given, settings, strategies as st
from fuzz.hostile import REFUSED, Collider, Shifty, hostile_phases
from phasetodo._core import native
from phasetodo._core.columns import _PROTO

C = native.load_compiled()
assert C is not None


@st.composite
def hostile_params(draw):
    ops, made = [], []
    params = {}
    for _ in range(draw(st.integers(1, 3))):
        op = {}
        for key in ("op", "task", "items", "list"):
            if draw(st.booleans()):
                value = draw(st.sampled_from(["done", "note", "init", "append", "t"]))
                if draw(st.booleans()):
                    value = Shifty(value)
                    value.action = ops.clear
                if key == "items":
                    value = [value]
                elif key == "list":
                    value = [{"phase": "P", "items": [value]}]
                op[key] = value
        if draw(st.booleans()):
            target = draw(st.sampled_from([op, params]))
            collider = Collider(draw(st.sampled_from(["op", "task", "ops", "items"])), target.clear)
            rest = dict(op)
            op.clear()
            op[collider] = 0
            op.update(rest)
            made.append(collider)
        ops.append(op)
    params["ops"] = ops
    for collider in made:
        collider.armed = True
    return params


@settings(max_examples=300, database=None, deadline=None)
@given(hostile_phases(), hostile_params())
def run(phases, params):
    for call in (lambda: C.columns(phases, _PROTO), lambda: C.ops(params)):
        try:
            call()
        except REFUSED:
            pass


run()
print("clean")
"""


class TestHostileLoaders:
    @pytest.mark.slow  # thousands of hostile inputs: the full run's, and fuzz/sanitize's
    def test_columns_and_ops_survive_hostile_input(self) -> None:
        """``columns`` and ``ops`` on input whose own code changes it (in a child process: a crash fails
        the test, not the run): each returns or refuses."""
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        path = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), root]))
        done = subprocess.run(
            [sys.executable, "-c", _HOSTILE_SCRIPT],
            cwd=root,
            env={**os.environ, "PYTHONPATH": path},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == "clean"


class TestSwitch:
    @pytest.mark.parametrize(("pure", "expected"), [("1", "False"), ("", "True")])
    def test_phasetodo_pure_chooses_python(self, pure: str, expected: str) -> None:
        """PHASETODO_PURE=1 makes a fresh process run the Python loops; unset, the C ones."""
        env = {**os.environ, "PHASETODO_PURE": pure}
        out = subprocess.run(
            [sys.executable, "-c", "from phasetodo._core import native; print(native.COMPILED)"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()
        assert out == expected

    def test_a_stale_build_is_left_unused(self) -> None:
        """A compiled module of another interface version warns, and the Python loops run."""
        script = (
            "import sys, types; stale = types.ModuleType('phasetodo._core._speedups'); stale.API = 0;"
            "sys.modules['phasetodo._core._speedups'] = stale;"
            "from phasetodo._core import native; print(native.COMPILED, native.rows is native._rows)"
        )
        out = subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PHASETODO_PURE": ""},
            capture_output=True, text=True, check=True, timeout=60,
        )
        assert out.stdout.split() == ["False", "True"]
        assert "PhasetodoWarning" in out.stderr
        assert "another version of _speedups.c" in out.stderr

    def test_markdown_round_trip_same_under_both(self) -> None:
        """A list with notes renders and parses to the same result in a pure process."""
        values = load_phases(
            [
                {
                    "name": "P",
                    "tasks": [
                        {"content": "a", "status": "in_progress", "notes": ["x\ny"]},
                        {"content": "b", "status": "pending"},
                    ],
                }
            ]
        )
        here = markdown_to_phases(phases_to_markdown(values))
        script = (
            "import json, sys; from phasetodo import *;"
            "v = load_phases(json.loads(sys.argv[1]));"
            "p, e = markdown_to_phases(phases_to_markdown(v)); print(json.dumps([dump_phases(p), e]))"
        )
        import json

        from phasetodo import dump_phases

        arg = json.dumps(dump_phases(values))
        out = subprocess.run(
            [sys.executable, "-c", script, arg],
            env={**os.environ, "PHASETODO_PURE": "1"},
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        assert json.loads(out) == [dump_phases(here[0]), here[1]]
