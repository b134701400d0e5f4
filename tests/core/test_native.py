"""The optional C module against its pure-Python twins: equal results, equal refusals, no leaks.

``phasetodo._core.native`` binds each loop to its C twin when ``_speedups`` is
built; these tests call both sides directly, so they run the same whether
``PHASETODO_PURE`` is set or not. In CI the module must be built.
"""

from __future__ import annotations

import os
import subprocess
import sys
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phasetodo import load_phases, markdown_to_phases, phases_to_markdown
from phasetodo._core import native
from phasetodo._core.columns import read_columns
from phasetodo._core.model import Phase, Status, Task, make_tasks
from phasetodo._views.summary import PREFIXES as _PREFIXES
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


class TestPartsAndRender:
    @settings(max_examples=examples(200))
    @given(phase_lists(max_size=4, max_tasks=6))
    def test_parts_agree(self, phases: tuple[Phase, ...]) -> None:
        """The summary lines, details.phases and current phase are equal from both."""
        cols = _columns(phases)
        assert C.parts(cols, _PREFIXES) == native._parts(cols, _PREFIXES)

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
        assert [sys.getrefcount(x) for x in (content, name, note, Status.IN_PROGRESS)] == before


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
