"""The strict profile: all-or-nothing batches, guard rails and helpful errors."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo._core.schema import PARAMS_SCHEMA, STRICT_PARAMS_SCHEMA

from ..budget import examples
from ..conftest import read_vectors

BUILD = [
    {
        "name": "Build",
        "tasks": [
            {"content": "Write tests", "status": "in_progress"},
            {"content": "Fix parser", "status": "pending", "notes": ["tabs break it"]},
            {"content": "Ship it", "status": "pending"},
        ],
    },
    {"name": "Docs", "tasks": [{"content": "Update README", "status": "pending"}]},
]


def strict(ops: list[dict[str, Any]], phases: Any = None) -> dict[str, Any]:
    """One strict call on a deep copy of ``phases`` (BUILD by default)."""
    before = copy.deepcopy(BUILD if phases is None else phases)
    return phasetodo.todo_write({"ops": ops}, before, profile="strict")


def text(result: dict[str, Any]) -> str:
    """The text part of a tool result."""
    return str(result["content"][0]["text"])


class TestAtomicity:
    def test_error_leaves_list_unchanged(self) -> None:
        """One failing op means none of the batch is applied."""
        result = strict([{"op": "done", "task": "Write tests"}, {"op": "done", "task": "Nope"}])
        assert result["isError"] is True
        assert result["details"]["phases"] == BUILD
        assert result["details"]["errors"] == ['ops[1] done: Task "Nope" not found']

    def test_error_text_says_nothing_applied(self) -> None:
        """The error text lists the errors and then the unchanged list."""
        out = text(strict([{"op": "start", "task": "Nope"}]))
        assert out.startswith("Errors — nothing was applied, the list is unchanged:\n- ops[0] start:")
        assert "→ Write tests" in out

    def test_unchanged_list_is_returned_as_given(self) -> None:
        """A failed call returns the stored list without normalizing it."""
        raw = [{"name": "P", "tasks": [{"content": "A", "status": "pending"}]}]
        result = strict([{"op": "done", "task": "B"}], raw)
        assert result["details"]["phases"] == raw

    def test_success_is_not_an_error(self) -> None:
        """A clean batch applies and carries isError false."""
        result = strict([{"op": "done", "task": "Write tests"}])
        assert result["isError"] is False
        assert result["details"]["phases"][0]["tasks"][0]["status"] == "completed"
        assert "errors" not in result["details"]

    def test_every_error_is_reported(self) -> None:
        """All ops run, so one call reports every problem, each with its op."""
        result = strict([{"op": "done", "task": "X"}, {"op": "rm", "phase": "Y"}])
        assert [e.split(":")[0] for e in result["details"]["errors"]] == ["ops[0] done", "ops[1] rm"]

    def test_errors_of_an_empty_list_keep_the_reference_hint(self) -> None:
        """A miss on an empty list says the list is empty."""
        result = strict([{"op": "start", "task": "A"}], [])
        assert "todo list is empty" in result["details"]["errors"][0]
        assert text(result).endswith("The todo list is empty.")


class TestInit:
    def test_duplicate_phase_rejected(self) -> None:
        """init refuses two phases of one name."""
        result = strict(
            [{"op": "init", "list": [{"phase": "A", "items": ["x"]}, {"phase": "A", "items": ["y"]}]}]
        )
        assert result["details"]["errors"] == ['ops[0] init: list[1].phase: duplicate phase "A"']

    def test_duplicate_task_rejected_across_phases(self) -> None:
        """init refuses one task content twice, even in different phases."""
        result = strict(
            [{"op": "init", "list": [{"phase": "A", "items": ["x"]}, {"phase": "B", "items": ["x"]}]}]
        )
        assert result["details"]["errors"] == [
            'ops[0] init: list[1].items[0]: duplicate task "x" (already in phase "A")'
        ]

    def test_blank_names_rejected(self) -> None:
        """init refuses blank phase names and blank tasks."""
        result = strict([{"op": "init", "list": [{"phase": " ", "items": ["\u3000"]}]}])
        assert result["details"]["errors"] == [
            "ops[0] init: list[0].phase: a phase name must not be blank",
            "ops[0] init: list[0].items[0]: a task must not be blank",
        ]

    def test_parity_accepts_the_same_duplicates(self) -> None:
        """The default profile keeps the reference's silence about duplicates."""
        params = {"ops": [{"op": "init", "list": [{"phase": "A", "items": ["x", "x"]}]}]}
        result = phasetodo.todo_write(params)
        assert "isError" not in result
        assert [t["content"] for t in result["details"]["phases"][0]["tasks"]] == ["x", "x"]


class TestAppend:
    def test_whole_batch_checked_first(self) -> None:
        """append adds nothing when any item clashes, and names every clash."""
        result = strict([{"op": "append", "phase": "Docs", "items": ["New", "Ship it", "New"]}])
        assert result["details"]["errors"] == [
            'ops[0] append: items[1]: Task "Ship it" already exists (in phase "Build")',
            'ops[0] append: items[2]: duplicate task "New" in this append',
        ]
        assert result["details"]["phases"] == BUILD

    def test_clean_append_applies(self) -> None:
        """append without clashes adds every item, creating the phase."""
        result = strict([{"op": "append", "phase": "Release", "items": ["Tag", "Publish"]}])
        assert result["details"]["phases"][-1] == {
            "name": "Release",
            "tasks": [
                {"content": "Tag", "status": "pending"},
                {"content": "Publish", "status": "pending"},
            ],
        }


class TestSuggestions:
    def test_did_you_mean_task(self) -> None:
        """A near miss on a task suggests the closest content."""
        errors = strict([{"op": "done", "task": "Write test"}])["details"]["errors"]
        assert errors == ['ops[0] done: Task "Write test" not found — did you mean "Write tests"?']

    def test_did_you_mean_ignores_case_and_spacing(self) -> None:
        """A task named with other case or spacing is suggested first."""
        errors = strict([{"op": "done", "task": "fix  PARSER"}])["details"]["errors"]
        assert errors[0].endswith('did you mean "Fix parser"?')

    def test_did_you_mean_phase(self) -> None:
        """A near miss on a phase suggests the closest name."""
        errors = strict([{"op": "drop", "phase": "Doc"}])["details"]["errors"]
        assert errors == ['ops[0] drop: Phase "Doc" not found — did you mean "Docs"?']

    def test_no_suggestion_for_unrelated_text(self) -> None:
        """Nothing is suggested when nothing is close."""
        errors = strict([{"op": "done", "task": "qqqqqqqqqqqq"}])["details"]["errors"]
        assert errors == ['ops[0] done: Task "qqqqqqqqqqqq" not found']

    @pytest.mark.parametrize("ref", ["task-3", "Task 3", "#3", "3", "t3", "item_3"])
    def test_id_hint(self, ref: str) -> None:
        """An id or number gets a hint that tasks are named by content."""
        errors = strict([{"op": "start", "task": ref}])["details"]["errors"]
        assert errors == [
            f'ops[0] start: Task "{ref}" not found — tasks have no ids or numbers: name a task '
            'by its exact content; the 3rd task in the list is "Ship it"'
        ]

    def test_id_hint_past_the_end(self) -> None:
        """A number past the list still gets the naming hint, without a guess."""
        errors = strict([{"op": "start", "task": "task-99"}])["details"]["errors"]
        assert errors[0].endswith("name a task by its exact content")

    def test_phase_id_hint(self) -> None:
        """A phase number gets a hint that phases are named."""
        errors = strict([{"op": "done", "phase": "phase-2"}])["details"]["errors"]
        assert errors[0].endswith('the 2nd phase in the list is "Docs"')

    def test_task_named_like_an_id_is_found(self) -> None:
        """A task whose content really is "task-3" is found, not hinted."""
        phases = [{"name": "P", "tasks": [{"content": "task-3", "status": "pending"}]}]
        assert strict([{"op": "done", "task": "task-3"}], phases)["isError"] is False


class TestEmptyTargets:
    @pytest.mark.parametrize("op", ["done", "drop", "rm"])
    @pytest.mark.parametrize("field", ["task", "phase"])
    def test_empty_target_rejected(self, op: str, field: str) -> None:
        """An empty task or phase is an error, not "every task"."""
        result = strict([{"op": op, field: ""}])
        assert result["isError"] is True
        assert f'"{field}" is empty' in result["details"]["errors"][0]

    def test_no_target_needs_an_explicit_one(self) -> None:
        """Leaving the target out is refused too: strict never acts on every task in one op."""
        result = strict([{"op": "done"}])
        assert result["isError"] is True
        assert "needs an explicit target" in result["details"]["errors"][0]


class TestView:
    def test_view_task_shows_notes(self) -> None:
        """view of a task shows its status and every note."""
        out = text(strict([{"op": "view", "task": "Fix parser"}]))
        assert out.endswith('View of task "Fix parser" (phase "Build"): pending, 1 note\n  1. tabs break it')

    def test_view_phase(self) -> None:
        """view of a phase lists its tasks with their notes."""
        out = text(strict([{"op": "view", "phase": "Docs"}]))
        assert out.endswith('View of phase "Docs" (0/1 tasks closed):\n  ○ Update README')

    def test_view_everything(self) -> None:
        """view without a target shows every phase and note."""
        out = text(strict([{"op": "view"}]))
        assert "View of the whole list (2 phases, 0/4 tasks closed):" in out
        assert "        1. tabs break it" in out

    def test_view_changes_nothing(self) -> None:
        """A view-only call returns the list as it was and no transitions."""
        result = strict([{"op": "view"}])
        assert result["details"]["phases"] == BUILD
        assert result["details"]["transitions"] == []

    def test_view_shows_the_call_result(self) -> None:
        """A view is rendered as the call leaves its target."""
        out = text(strict([{"op": "view", "task": "Fix parser"}, {"op": "done", "task": "Write tests"}]))
        assert 'View of task "Fix parser" (phase "Build"): in_progress' in out

    def test_view_of_removed_task(self) -> None:
        """A view of a task the call removes says so."""
        out = text(strict([{"op": "view", "task": "Ship it"}, {"op": "rm", "task": "Ship it"}]))
        assert '(phase "Build", removed by this call)' in out

    def test_view_miss_is_an_error(self) -> None:
        """A view of an unknown task fails like any op."""
        assert strict([{"op": "view", "task": "Nope"}])["isError"] is True

    def test_parity_schema_rejects_view(self) -> None:
        """view exists only in the strict profile; the parity schema is the reference's."""
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.todo_write({"ops": [{"op": "view"}]}, BUILD)
        assert caught.value.problems == (
            "ops[0].op: must be one of init, start, done, drop, rm, append, note",
        )
        assert "view" not in PARAMS_SCHEMA["properties"]["ops"]["items"]["properties"]["op"]["enum"]
        assert "view" in STRICT_PARAMS_SCHEMA["properties"]["ops"]["items"]["properties"]["op"]["enum"]


class TestTransitions:
    def test_transitions_listed(self) -> None:
        """details.transitions names each status change, normalization included."""
        result = strict([{"op": "done", "task": "Write tests"}])
        assert result["details"]["transitions"] == [
            {"phase": "Build", "content": "Write tests", "from": "in_progress", "to": "completed"},
            {"phase": "Build", "content": "Fix parser", "from": "pending", "to": "in_progress"},
        ]

    def test_new_tasks_count_from_pending(self) -> None:
        """A task added and completed in one call shows pending → completed."""
        result = strict([{"op": "append", "phase": "Docs", "items": ["Z"]}, {"op": "done", "task": "Z"}])
        assert {"phase": "Docs", "content": "Z", "from": "pending", "to": "completed"} in result["details"][
            "transitions"
        ]

    def test_result_carries_transitions(self) -> None:
        """phasetodo.tool.call(profile="strict") returns a typed result with its transitions."""
        result = phasetodo.tool.call(
            {"ops": [{"op": "drop", "task": "Ship it"}]}, phasetodo.load_phases(BUILD), profile="strict"
        )
        assert isinstance(result, phasetodo.ToolResult)
        assert not result.is_error
        assert [(t.content, t.after) for t in result.transitions] == [
            ("Ship it", phasetodo.Status.ABANDONED)
        ]


class TestProfiles:
    def test_unknown_profile(self) -> None:
        """A bad profile name raises UnknownProfile naming the choices."""
        with pytest.raises(phasetodo.errors.UnknownProfile, match="parity, strict"):
            phasetodo.todo_write({"ops": [{"op": "done"}]}, BUILD, profile="lenient")  # type: ignore[arg-type]

    def test_strict_schema_errors_raise(self) -> None:
        """Malformed arguments raise InvalidParams in strict too."""
        with pytest.raises(phasetodo.InvalidParams):
            phasetodo.todo_write({"ops": []}, BUILD, profile="strict")

    @pytest.mark.parametrize("vector", read_vectors("apply.jsonl.gz")[::50], ids=lambda v: str(v["id"]))
    def test_explicit_parity_is_the_default(self, vector: dict[str, Any]) -> None:
        """profile="parity" gives exactly the reference result."""
        result = phasetodo.todo_write(vector["params"], copy.deepcopy(vector["before"]), profile="parity")
        assert result == {
            "content": [{"type": "text", "text": vector["expect"]["text"]}],
            "details": {"phases": vector["expect"]["phases"], "storage": "memory"},
        }


# -- properties ---------------------------------------------------------------------------

_WORDS = st.sampled_from(["a", "b", "c", "A", "a ", "", "task-1"])
_STATUS = st.sampled_from(["pending", "in_progress", "completed", "abandoned"])


@st.composite
def _lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    phases = []
    for name in draw(st.lists(st.sampled_from(["P", "Q", "R"]), max_size=3)):
        tasks = [{"content": c, "status": draw(_STATUS)} for c in draw(st.lists(_WORDS, max_size=4))]
        phases.append({"name": name, "tasks": tasks})
    return phases


_TARGET = st.one_of(st.none(), _WORDS)
_OPS = st.one_of(
    st.builds(
        lambda entries: {"op": "init", "list": entries},
        st.lists(
            st.fixed_dictionaries(
                {"phase": st.sampled_from(["P", "Q", " "]), "items": st.lists(_WORDS, min_size=1, max_size=3)}
            ),
            max_size=3,
        ),
    ),
    st.builds(lambda t: {"op": "start", "task": t}, _WORDS),
    *(
        st.builds(
            lambda t, p, o=op: {k: v for k, v in {"op": o, "task": t, "phase": p}.items() if v is not None},
            _TARGET,
            st.one_of(st.none(), st.sampled_from(["P", "Q", "Z", ""])),
        )
        for op in ("done", "drop", "rm", "view")
    ),
    st.builds(
        lambda p, i: {"op": "append", "phase": p, "items": i},
        st.sampled_from(["P", "Q", "Z"]),
        st.lists(_WORDS, min_size=1, max_size=3),
    ),
    st.builds(lambda t, x: {"op": "note", "task": t, "text": x}, _WORDS, st.sampled_from(["n", " ", ""])),
)


class TestProperties:
    @settings(max_examples=examples(300), deadline=None)
    @given(before=_lists(), ops=st.lists(_OPS, min_size=1, max_size=5))
    def test_strict_batches_are_atomic(self, before: list[dict[str, Any]], ops: list[dict[str, Any]]) -> None:
        """Any error leaves the list exactly as given and flags the result as an error."""
        frozen = copy.deepcopy(before)
        result = phasetodo.todo_write({"ops": ops}, before, profile="strict")
        assert before == frozen
        if result["details"].get("errors"):
            assert result["isError"] is True
            assert result["details"]["phases"] == frozen
            assert result["details"]["transitions"] == []
        else:
            assert result["isError"] is False

    @settings(max_examples=examples(300), deadline=None)
    @given(before=_lists(), ops=st.lists(_OPS.filter(lambda o: o["op"] != "view"), min_size=1, max_size=5))
    def test_strict_success_matches_parity(
        self, before: list[dict[str, Any]], ops: list[dict[str, Any]]
    ) -> None:
        """A batch strict accepts gives parity's list; a batch parity faults, strict refuses."""
        parity = phasetodo.apply(phasetodo.load_phases(before), phasetodo.profiles.parse_params({"ops": ops}))
        result = phasetodo.todo_write({"ops": ops}, before, profile="strict")
        if not result["isError"]:
            assert not parity.errors
            assert result["details"]["phases"] == phasetodo.dump_phases(parity.phases)
        if parity.errors:
            assert result["isError"]


class TestReadme:
    def test_profiles_snippet_runs(self) -> None:
        """The profiles guide's example (docs/profiles.md, once the README's) runs and gives its error."""
        readme = (Path(__file__).parents[2] / "docs" / "profiles.md").read_text(encoding="utf-8")
        section = re.search(r"<!-- section:profiles -->\n(.*?)<!-- /section:profiles -->", readme, re.S)
        assert section is not None
        (code,) = re.findall(r"```python\n(.*?)```", section[1], re.S)
        scope: dict[str, Any] = {}
        exec(compile(code, "docs/profiles.md", "exec"), scope)
        assert scope["strict"]["isError"] is True
        assert scope["strict"]["details"]["errors"] == [
            'ops[1] done: Task "task-2" not found — tasks have no ids or numbers: name a task '
            'by its exact content; the 2nd task in the list is "Patch it"'
        ]
        assert scope["parity"]["details"]["phases"][0]["tasks"][0]["status"] == "completed"


class TestSession:
    def test_profile_passes_through(self, tmp_path: Path) -> None:
        """Session.todo_write(profile="strict") refuses a bad batch and appends nothing."""
        with phasetodo.Session.open("strict", phasetodo.JsonlStore(tmp_path)) as session:
            session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
            version = session.version
            result = session.todo_write(
                {"ops": [{"op": "done", "task": "a"}, {"op": "done", "task": "B"}]}, profile="strict"
            )
            assert result["isError"] is True
            assert result["details"]["errors"] == ['ops[1] done: Task "B" not found — did you mean "b"?']
            assert session.version == version
            assert [t.status for t in session.phases[0].tasks] == [
                phasetodo.Status.IN_PROGRESS,
                phasetodo.Status.PENDING,
            ]

    def test_strict_success_is_durable(self, tmp_path: Path) -> None:
        """A clean strict call is appended and survives reopening the session."""
        store = phasetodo.JsonlStore(tmp_path)
        with phasetodo.Session.open("strict", store, resume="keep") as session:
            session.todo_write({"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]})
            result = session.todo_write({"ops": [{"op": "done", "task": "a"}]}, profile="strict")
            assert result["isError"] is False
            assert result["details"]["transitions"][0]["to"] == "completed"
        with phasetodo.Session.open("strict", store, resume="keep") as reopened:
            assert reopened.phases[0].tasks[0].status is phasetodo.Status.COMPLETED
