"""Rules of the engine, the summary and the Markdown reader that the vectors leave implicit.

The conformance vectors compare values; these tests pin what they cannot see
(which values are shared with the input, the exact line an error names) and
were added where the mutation check showed a change that no test noticed.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import Phase, Status, Task, testing
from phasetodo.ops import Done, Note, Rm, Start

if "MUTANT_UNDER_TEST" in os.environ:  # pragma: no cover - set only by mutmut
    # mutmut runs each test more than once in one process (then forks per mutant), so a
    # @given method meets a second instance of its class: Hypothesis's differing_executors
    # check would fail every such test, under every mutant. Listed first in
    # [tool.mutmut]'s selection, this module loads the profile before the others import.
    settings.register_profile(
        "mutmut", suppress_health_check=[HealthCheck.differing_executors], database=None
    )
    settings.load_profile("mutmut")

ACTIVE, PENDING, DONE = Status.IN_PROGRESS, Status.PENDING, Status.COMPLETED

BUILD = Phase("Build", (Task("a", ACTIVE), Task("b"), Task("c", DONE, ("kept",))))
SHIP = Phase("Ship", (Task("d"), Task("e", DONE)))
LIST = (BUILD, SHIP)


class TestSharing:
    def test_untouched_phase_is_shared(self) -> None:
        """A phase no op touches is the input's own Phase object."""
        out = phasetodo.apply(LIST, [Done(task="d")]).phases
        assert out[0] is BUILD
        assert out[1] is not SHIP

    def test_untouched_tasks_are_shared(self) -> None:
        """In a touched phase, the tasks no op touches are the input's own Task objects."""
        out = phasetodo.apply(LIST, [Done(task="b")]).phases
        assert out[0].tasks[0] is BUILD.tasks[0]
        assert out[0].tasks[2] is BUILD.tasks[2]
        assert out[0].tasks[1] == Task("b", DONE)

    def test_no_change_shares_everything(self) -> None:
        """Marking a task with the status it has changes nothing and copies nothing."""
        out = phasetodo.apply(LIST, [Done(task="c"), Start(task="a")]).phases
        assert all(new is old for new, old in zip(out, LIST, strict=True))

    def test_note_copies_only_its_task(self) -> None:
        """A note makes a new task for its target and leaves the rest shared."""
        out = phasetodo.apply(LIST, [Note(task="c", text="more  ")]).phases
        assert out[0].tasks[2] == Task("c", DONE, ("kept", "more"))
        assert out[0].tasks[0] is BUILD.tasks[0]
        assert out[1] is SHIP

    def test_normalize_shares_unchanged_phases(self) -> None:
        """normalize() rebuilds only the phases whose statuses it changes."""
        two = (Phase("P", (Task("x", ACTIVE),)), Phase("Q", (Task("y", ACTIVE),)))
        out = phasetodo.profiles.normalize(two)
        assert out[0] is two[0]
        assert out[1] == Phase("Q", (Task("y", PENDING),))

    def test_normalize_of_a_normal_list_is_the_list(self) -> None:
        """A list already normal comes back as the very same phases."""
        out = phasetodo.profiles.normalize(LIST)
        assert all(new is old for new, old in zip(out, LIST, strict=True))

    @settings(max_examples=50, deadline=None)
    @given(testing.phases(duplicates=True), st.data())
    def test_input_never_changes(self, phases: tuple[Phase, ...], data: st.DataObject) -> None:
        """apply() leaves its input list equal to what it was."""
        copy = phasetodo.load_phases(phasetodo.dump_phases(phases))
        phasetodo.apply(phases, data.draw(testing.op_batches(phases)))
        assert phases == copy


class TestRemoval:
    def test_rm_all_keeps_empty_phases(self) -> None:
        """rm with no target empties every phase and keeps the phases."""
        out = phasetodo.apply(LIST, [Rm()])
        assert out.phases == (Phase("Build"), Phase("Ship"))

    def test_rm_then_append_reuses_the_name(self) -> None:
        """A removed task's content may be appended again in the same batch."""
        out = phasetodo.apply(LIST, [Rm(task="b"), phasetodo.ops.Append("Ship", ("b",))])
        assert out.errors == ()
        assert [t.content for t in out.phases[1].tasks] == ["d", "e", "b"]


TWICE = (
    Phase("One", (Task("x", DONE), Task("y", ACTIVE))),
    Phase("Two", (Task("x"), Task("z"))),
)


def notes_of(phases: tuple[Phase, ...]) -> list[list[tuple[str, ...]]]:
    return [[t.notes for t in p.tasks] for p in phases]


class TestLookups:
    @pytest.mark.parametrize("lookups", [1, 8, 9, 30])
    def test_a_content_held_twice_is_found_first_in_list_order(self, lookups: int) -> None:
        """However many tasks a batch names, a content two tasks hold names the first live one."""
        out = phasetodo.apply(TWICE, [Note("x", "n")] * lookups)
        assert notes_of(out.phases) == [[("n",) * lookups, ()], [(), ()]]

    @pytest.mark.parametrize("lookups", [1, 8, 9, 30])
    def test_after_rm_the_next_live_task_is_found(self, lookups: int) -> None:
        """Once the first of two tasks of a content is removed, the second is the one named."""
        ops = [Note("z", "n")] * lookups + [Rm(task="x"), Note("x", "m"), Done(task="x")]
        out = phasetodo.apply(TWICE, ops)
        assert out.errors == ()
        assert [[t.content for t in p.tasks] for p in out.phases] == [["y"], ["x", "z"]]
        assert out.phases[1].tasks[0] == Task("x", DONE, ("m",))

    @pytest.mark.parametrize("lookups", [1, 8, 9, 30])
    def test_append_refuses_a_live_content_and_takes_a_removed_one(self, lookups: int) -> None:
        """append finds what is live the same way after a few lookups as after many."""
        ops = [Note("z", "n")] * lookups + [Rm(task="y"), phasetodo.ops.Append("Two", ("x", "y"))]
        out = phasetodo.apply(TWICE, ops)
        assert out.errors == ('Task "x" already exists',)
        assert [t.content for t in out.phases[1].tasks] == ["x", "z", "y"]


class TestMarkdownLines:
    def test_carriage_return_before_first_line_feed(self) -> None:
        """An empty first line does not borrow a \\r from the end of the text."""
        _, errors = phasetodo.markdown_to_phases("\nx\r")
        assert errors == ['Line 2: unrecognized syntax "x"']


#: Two tasks in progress and a padded name: the default form would normalize and trim them.
AS_STORED = (Phase("P", (Task("a", ACTIVE), Task(" b ", ACTIVE, ("n",)))),)


class TestLosslessSwitch:
    def test_lossless_export_reads_back_exactly(self) -> None:
        """phases_to_markdown(lossless=True) reads back as the very list it wrote."""
        text = phasetodo.phases_to_markdown(AS_STORED, lossless=True)
        assert text.startswith(phasetodo.views.LOSSLESS_MARKER)
        assert phasetodo.markdown_to_phases(text) == (AS_STORED, [])

    def test_default_export_normalizes(self) -> None:
        """Without the marker the same list comes back normalized and trimmed."""
        parsed, _ = phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(AS_STORED))
        assert parsed == (Phase("P", (Task("a", ACTIVE), Task("b", PENDING, ("n",)))),)

    def test_marker_after_leading_whitespace(self) -> None:
        """Leading whitespace (JavaScript's set, U+FEFF included) before the marker is allowed."""
        text = phasetodo.phases_to_markdown(AS_STORED, lossless=True)
        for lead in (" \n", "\ufeff", "\u3000\t"):
            assert phasetodo.markdown_to_phases(lead + text) == (AS_STORED, [])


class TestLoading:
    """What ``apply`` takes: any iterable of values or dicts, plain JSON or not."""

    PLAN = (Phase("P", (Task("a", Status.IN_PROGRESS), Task("b"))),)

    def test_any_iterable_of_values(self) -> None:
        """A generator or a list of ``Phase`` values gives what the tuple gives."""
        expected = phasetodo.apply(self.PLAN, [Done(task="a")])
        assert phasetodo.apply((p for p in self.PLAN), [Done(task="a")]) == expected
        assert phasetodo.apply(list(self.PLAN), [Done(task="a")]) == expected
        assert expected.phases[0].tasks[1].status is Status.IN_PROGRESS

    def test_json_that_is_not_plain_goes_the_careful_way(self) -> None:
        """Dicts the one-pass loader does not take (a key it does not know) load through the
        converter and give the same outcome as the plain form."""
        plain = [{"name": "P", "tasks": [{"content": "a", "status": "in_progress", "notes": ["n"]}]}]
        odd = [{"name": "P", "tasks": [{"content": "a", "status": "in_progress", "notes": ["n"], "x": 1}]}]
        ops = [Note(task="a", text="m")]
        assert phasetodo.apply(odd, ops) == phasetodo.apply(plain, ops)

    def test_malformed_json_names_the_place(self) -> None:
        """A task without a content is refused, naming it."""
        with pytest.raises(phasetodo.InvalidPhases) as caught:
            phasetodo.apply([{"name": "P", "tasks": [{"status": "pending"}]}], [])
        assert caught.value.problems == ("[0].tasks[0].content: is required",)

    def test_the_outcome_keeps_its_working_copy(self) -> None:
        """``Outcome.columns`` is the working copy the phases were frozen from."""
        outcome = phasetodo.apply(self.PLAN, [Done(task="a")])
        assert outcome.columns is not None
        assert outcome.columns.phases() == outcome.phases
