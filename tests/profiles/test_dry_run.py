"""Dry runs: the would-be result and a diff, with the stored list untouched."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import REFERENCE_STATUSES, Phase, Status, Task, diff_phases
from phasetodo._views.diff import NoteChange, StatusChange, TaskRef
from phasetodo.views import format_diff

from ..budget import examples

BEFORE = [
    {
        "name": "Build",
        "tasks": [
            {"content": "Write tests", "status": "in_progress", "notes": ["flaky on CI"]},
            {"content": "Fix parser", "status": "pending"},
        ],
    }
]


def dry(ops: list[dict[str, Any]], profile: str = "parity") -> dict[str, Any]:
    """One dry-run call on a copy of BEFORE."""
    return phasetodo.todo_write(
        {"ops": ops},
        copy.deepcopy(BEFORE),
        profile=profile,
        dry_run=True,  # type: ignore[arg-type]
    )


class TestDryRunResult:
    def test_phases_are_the_would_be_list(self) -> None:
        """details.phases is what the call would store."""
        ops = [{"op": "done", "task": "Write tests"}]
        assert (
            dry(ops)["details"]["phases"] == phasetodo.todo_write({"ops": ops}, BEFORE)["details"]["phases"]
        )

    def test_marked_and_diffed(self) -> None:
        """details says dry_run and carries the diff as JSON."""
        details = dry(
            [{"op": "done", "task": "Write tests"}, {"op": "note", "task": "Fix parser", "text": "x"}]
        )["details"]
        assert details["dry_run"] is True
        assert details["diff"] == {
            "phases_added": [],
            "phases_removed": [],
            "added": [],
            "removed": [],
            "status_changed": [
                {"phase": "Build", "content": "Write tests", "from": "in_progress", "to": "completed"},
                {"phase": "Build", "content": "Fix parser", "from": "pending", "to": "in_progress"},
            ],
            "notes_added": [{"phase": "Build", "content": "Fix parser", "text": "x"}],
            "notes_removed": [],
        }

    def test_text_leads_with_the_changes(self) -> None:
        """The text says nothing was saved, then the changes, then the usual summary."""
        out = dry([{"op": "append", "phase": "Ship", "items": ["Tag"]}])["content"][0]["text"]
        assert out.startswith(
            "Dry run — nothing was saved. The call would make these changes:\n"
            '+ phase "Ship"\n+ "Tag" [pending] (Ship)\n\nRemaining items (3):'
        )

    def test_no_change(self) -> None:
        """A call that changes nothing says so."""
        out = dry([{"op": "start", "task": "Write tests"}])["content"][0]["text"]
        assert out.startswith("Dry run — nothing was saved. The call would change nothing.\n\n")

    def test_strict_error_dry_run(self) -> None:
        """A strict dry run that fails is an error result with an empty diff."""
        result = dry([{"op": "done", "task": "Nope"}], profile="strict")
        assert result["isError"] is True
        assert result["details"]["dry_run"] is True
        assert result["details"]["phases"] == BEFORE

    def test_parity_result_without_dry_run_is_unchanged(self) -> None:
        """Without dry_run the result has exactly the reference's keys."""
        result = phasetodo.todo_write({"ops": [{"op": "done"}]}, BEFORE)
        assert set(result) == {"content", "details"}
        assert set(result["details"]) == {"phases", "storage"}


class TestDiff:
    def test_added_and_removed(self) -> None:
        """Tasks are matched by phase and content; a move is a removal plus an addition."""
        before = [Phase("A", (Task("x"), Task("y"))), Phase("B")]
        after = [Phase("A", (Task("y"),)), Phase("B", (Task("x"),))]
        diff = diff_phases(before, after)
        assert diff.added == (TaskRef("B", "x", Status.PENDING),)
        assert diff.removed == (TaskRef("A", "x", Status.PENDING),)
        assert not diff.status_changed

    def test_phases_added_and_removed(self) -> None:
        """Phases are counted by name, duplicates paired in order."""
        diff = diff_phases([Phase("A"), Phase("A")], [Phase("A"), Phase("C")])
        assert (diff.phases_added, diff.phases_removed) == (("C",), ("A",))

    def test_notes_replaced(self) -> None:
        """Notes past the common prefix show as removed and added."""
        before = [Phase("A", (Task("x", notes=("1", "2")),))]
        after = [Phase("A", (Task("x", notes=("1", "3")),))]
        diff = diff_phases(before, after)
        assert diff.notes_removed == (NoteChange("A", "x", "2"),)
        assert diff.notes_added == (NoteChange("A", "x", "3"),)

    def test_duplicates_paired_in_order(self) -> None:
        """Two tasks of one content in a phase pair with their counterparts in order."""
        before = [Phase("A", (Task("x", Status.COMPLETED), Task("x")))]
        after = [Phase("A", (Task("x", Status.COMPLETED),))]
        diff = diff_phases(before, after)
        assert diff.removed == (TaskRef("A", "x", Status.PENDING),)
        assert not diff.status_changed

    def test_same_list_is_empty(self) -> None:
        """A list compared with itself has no changes."""
        phases = phasetodo.load_phases(BEFORE)
        assert diff_phases(phases, phases).is_empty
        assert format_diff(diff_phases(phases, phases)) == "No changes."

    def test_format(self) -> None:
        """format_diff writes one line per change with its sign."""
        diff = diff_phases(
            [Phase("A", (Task("x"), Task("gone")))],
            [Phase("A", (Task("x", Status.COMPLETED, ("n",)),)), Phase("B", (Task("new"),))],
        )
        assert format_diff(diff) == "\n".join(
            [
                '+ phase "B"',
                '+ "new" [pending] (B)',
                '- "gone" [pending] (A)',
                '~ "x" pending → completed (A)',
                '+ note on "x": n',
            ]
        )
        assert diff.status_changed == (StatusChange("A", "x", Status.PENDING, Status.COMPLETED),)


_WORD = st.sampled_from(["a", "b", "c", "d"])


@st.composite
def _phases(draw: st.DrawFn) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "tasks": [
                {"content": c, "status": draw(st.sampled_from([s.value for s in REFERENCE_STATUSES]))}
                for c in draw(st.lists(_WORD, max_size=3))
            ],
        }
        for name in draw(st.lists(st.sampled_from(["P", "Q"]), max_size=2))
    ]


_OP = st.one_of(
    st.builds(lambda t: {"op": "done", "task": t}, _WORD),
    st.builds(lambda t: {"op": "start", "task": t}, _WORD),
    st.builds(lambda t: {"op": "rm", "task": t}, _WORD),
    st.builds(lambda t: {"op": "note", "task": t, "text": "n"}, _WORD),
    st.builds(
        lambda p, i: {"op": "append", "phase": p, "items": i},
        st.sampled_from(["P", "R"]),
        st.lists(_WORD, min_size=1, max_size=2),
    ),
    st.builds(
        lambda i: {"op": "init", "list": [{"phase": "P", "items": i}]},
        st.lists(_WORD, min_size=1, max_size=2),
    ),
)


class TestProperties:
    @settings(max_examples=examples(200), deadline=None)
    @given(
        before=_phases(),
        ops=st.lists(_OP, min_size=1, max_size=4),
        profile=st.sampled_from(["parity", "strict"]),
    )
    def test_dry_run_never_changes_the_stored_list(
        self, before: list[dict[str, Any]], ops: list[dict[str, Any]], profile: str
    ) -> None:
        """A dry run leaves the stored list alone and reports the real call's phases."""
        kept = copy.deepcopy(before)
        result = phasetodo.todo_write({"ops": ops}, before, profile=profile, dry_run=True)  # type: ignore[arg-type]
        assert before == kept
        real = phasetodo.todo_write({"ops": ops}, kept, profile=profile)  # type: ignore[arg-type]
        assert result["details"]["phases"] == real["details"]["phases"]

    @settings(max_examples=examples(200), deadline=None)
    @given(before=_phases(), after=_phases())
    def test_diff_accounts_for_every_task(
        self, before: list[dict[str, Any]], after: list[dict[str, Any]]
    ) -> None:
        """Tasks before, minus removed, plus added, is the number of tasks after."""
        diff = diff_phases(before, after)
        count = lambda ps: sum(len(p["tasks"]) for p in ps)  # noqa: E731
        assert count(before) - len(diff.removed) + len(diff.added) == count(after)
        if before == after:
            assert diff.is_empty
        if diff.is_empty:
            assert _contents(before) == _contents(after)

    def test_diff_ignores_order_only(self) -> None:
        """Moving tasks within same-named phases is not a change the diff reports."""
        before = [Phase("P"), Phase("P", (Task("a"),))]
        after = [Phase("P", (Task("a"),)), Phase("P")]
        assert diff_phases(before, after).is_empty


def _contents(phases: list[dict[str, Any]]) -> list[Any]:
    """A list's phases and tasks as a sorted multiset, order forgotten."""
    names = sorted(p["name"] for p in phases)
    tasks = sorted(
        (p["name"], t["content"], t["status"], tuple(t.get("notes", ()))) for p in phases for t in p["tasks"]
    )
    return [names, tasks]


class TestSession:
    def test_session_dry_run_appends_nothing(self, tmp_path: Path) -> None:
        """Session.todo_write(dry_run=True) shows the diff and leaves the log alone."""
        with phasetodo.Session.open("dry", phasetodo.JsonlStore(tmp_path)) as session:
            session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
            version, phases = session.version, session.phases
            result = session.todo_write({"ops": [{"op": "rm", "task": "b"}]}, dry_run=True)
            assert result["details"]["dry_run"] is True
            assert result["details"]["diff"]["removed"] == [
                {"phase": "P", "content": "b", "status": "pending"}
            ]
            assert (session.version, session.phases) == (version, phases)
            assert [e.version for e in session.events()] == [version]
