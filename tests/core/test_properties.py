"""Invariants of the engine, the codec and Markdown, over generated lists and batches."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import phasetodo
from phasetodo import REFERENCE_STATUSES, Phase, Status, Task, testing
from phasetodo._core.jsstring import WHITESPACE

NAMES = st.sampled_from(["Build", "Test", "Ship", "", " pad ", "a\nb", "Todos", "x"])
CONTENTS = st.one_of(
    st.sampled_from(["A", "B", "C", "D", "", "  A", "a\r\nb", "- [x] fake", "# head"]),
    st.text(max_size=6),
)
NOTES = st.lists(st.text(max_size=8), max_size=3).map(tuple)

tasks = st.builds(Task, CONTENTS, st.sampled_from(REFERENCE_STATUSES), NOTES)
#: Lists from the public kit, plus ones built from awkward strings (blank, padded, CRLF).
phase_lists = st.one_of(
    testing.phases(duplicates=True),
    st.lists(st.builds(Phase, NAMES, st.lists(tasks, max_size=5).map(tuple)), max_size=4).map(tuple),
)


@st.composite
def op_dicts(draw: st.DrawFn) -> dict[str, Any]:
    """One op as tool arguments, often naming tasks and phases that exist."""
    kind = draw(st.sampled_from(list(phasetodo.ops.OPS)))
    op: dict[str, Any] = {"op": kind}
    if kind == "init":
        if draw(st.booleans()):
            op["list"] = draw(
                st.lists(
                    st.fixed_dictionaries(
                        {"phase": NAMES, "items": st.lists(CONTENTS, min_size=1, max_size=4)}
                    ),
                    max_size=3,
                )
            )
        return op
    for key, values in (("task", CONTENTS), ("phase", NAMES), ("text", st.text(max_size=6))):
        if draw(st.booleans()):
            op[key] = draw(values)
    if kind == "append" and draw(st.booleans()):
        op["items"] = draw(st.lists(CONTENTS, min_size=1, max_size=4))
    return op


batches = st.lists(op_dicts(), min_size=1, max_size=8).map(lambda ops: {"ops": ops})


def _statuses(phases: tuple[Phase, ...] | list[Phase]) -> list[Status]:
    return [t.status for p in phases for t in p.tasks]


def _carried_text(text: str) -> bool:
    return bool(text) and text == text.strip(WHITESPACE) and not any(
        c in text for c in "\n\r\u2028\u2029"
    )


def _carried_note(note: str) -> bool:
    return bool(note) and "\n\n" not in note and note.strip("\n") == note and not any(
        c in note for c in "\r\u2028\u2029"
    )


def carried(phases: tuple[Phase, ...]) -> bool:
    """Whether the Markdown format can carry this list (see the README)."""
    return (
        bool(phases)
        and phasetodo.profiles.normalize(phases) == phases
        and all(_carried_text(p.name) for p in phases)
        and all(
            _carried_text(t.content) and all(_carried_note(n) for n in t.notes)
            for p in phases
            for t in p.tasks
        )
    )


CARRIED_TEXT = st.text(min_size=1, max_size=8).filter(_carried_text)
CARRIED_NOTES = st.lists(st.text(min_size=1, max_size=10).filter(_carried_note), max_size=3)
carried_lists = st.lists(
    st.builds(
        Phase,
        CARRIED_TEXT,
        st.lists(
            st.builds(Task, CARRIED_TEXT, st.sampled_from(REFERENCE_STATUSES), CARRIED_NOTES), max_size=5
        ),
    ),
    min_size=1,
    max_size=4,
).map(phasetodo.profiles.normalize)


class TestEngine:
    @given(phase_lists, batches)
    def test_input_is_never_mutated(self, phases: tuple[Phase, ...], params: dict[str, Any]) -> None:
        """todo_write leaves the caller's JSON list and arguments exactly as they were."""
        before = phasetodo.dump_phases(phases)
        snapshot, args = copy.deepcopy(before), copy.deepcopy(params)
        phasetodo.todo_write(params, before)
        assert (before, params) == (snapshot, args)

    @given(phase_lists, batches)
    def test_one_task_active(self, phases: tuple[Phase, ...], params: dict[str, Any]) -> None:
        """After any batch, exactly one task is active when work remains, else none."""
        outcome = phasetodo.apply(phases, phasetodo.profiles.parse_params(params))
        statuses = _statuses(outcome.phases)
        work_remains = any(s in (Status.PENDING, Status.IN_PROGRESS) for s in statuses)
        assert statuses.count(Status.IN_PROGRESS) == (1 if work_remains else 0)

    @given(phase_lists)
    def test_normalize_is_idempotent(self, phases: tuple[Phase, ...]) -> None:
        """Normalizing twice changes nothing more than normalizing once."""
        once = phasetodo.profiles.normalize(phases)
        assert phasetodo.profiles.normalize(once) == once

    @given(phase_lists)
    def test_normalize_matches_an_empty_batch(self, phases: tuple[Phase, ...]) -> None:
        """normalize() is what the engine does after a batch that changed nothing."""
        outcome = phasetodo.apply(phases, [phasetodo.ops.Note(task=None)])
        assert phasetodo.profiles.normalize(phases) == outcome.phases

    @given(phase_lists, batches)
    def test_values_and_dicts_agree(self, phases: tuple[Phase, ...], params: dict[str, Any]) -> None:
        """The same call gives the same result on Phase values and on their JSON form."""
        assert phasetodo.todo_write(params, phases) == phasetodo.todo_write(
            params, phasetodo.dump_phases(phases)
        )


class TestAimedCalls:
    @given(testing.calls(duplicates=True))
    def test_one_task_active_after_aimed_calls(self, call: tuple[tuple[Phase, ...], Any]) -> None:
        """Calls that mostly name existing tasks still leave exactly one active task when work remains."""
        phases, params = call
        outcome = phasetodo.apply(phases, phasetodo.profiles.parse_params(params))
        statuses = _statuses(outcome.phases)
        work_remains = any(s in (Status.PENDING, Status.IN_PROGRESS) for s in statuses)
        assert statuses.count(Status.IN_PROGRESS) == (1 if work_remains else 0)


class TestCodec:
    @given(phase_lists)
    def test_dump_load_round_trip(self, phases: tuple[Phase, ...]) -> None:
        """load_phases(dump_phases(x)) == x for every list."""
        assert phasetodo.load_phases(phasetodo.dump_phases(phases)) == phases


class TestMarkdown:
    @given(phase_lists)
    def test_round_trip_of_what_the_format_carries(self, phases: tuple[Phase, ...]) -> None:
        """A list the format can carry comes back from Markdown unchanged, with no errors."""
        phases = phasetodo.profiles.normalize(phases)
        parsed, errors = phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(phases))
        if carried(phases):
            assert (tuple(parsed), errors) == (phases, [])

    @given(carried_lists)
    def test_carried_lists_round_trip(self, phases: tuple[Phase, ...]) -> None:
        """Every list in the documented carried set survives export and import exactly."""
        assert carried(phases)
        parsed, errors = phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(phases))
        assert (tuple(parsed), errors) == (phases, [])

    @given(phase_lists)
    def test_parse_is_a_fixed_point(self, phases: tuple[Phase, ...]) -> None:
        """Whatever Markdown gives back (unless empty) is carried exactly from then on."""
        parsed, _ = phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(phases))
        again, errors = phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(parsed))
        assert (again, errors) == ((parsed, []) if parsed else ((Phase("Todos"),), []))
