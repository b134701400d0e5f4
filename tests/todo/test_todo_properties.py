"""Properties of ``phasetodo.todo`` over generated lists and calls."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from phasetodo import todo
from phasetodo._todo.state import normalize_in_progress
from phasetodo._todo.values import phases_from_json, phases_to_json

from ..budget import examples

STATUSES = ("pending", "in_progress", "completed", "abandoned", "blocked")
# Text the checklist keeps as it is: trimmed, one line, no backslash (the parser drops one before `]`).
TEXT = st.text(alphabet="ab Z9&<!->#[]x*+:", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def task_json(draw: st.DrawFn, content: str) -> dict[str, Any]:
    """A task with a status and, where the checklist keeps them, a blocker or a person's drop."""
    status = draw(st.sampled_from(STATUSES))
    task: dict[str, Any] = {"content": content, "status": status}
    if status == "blocked" and draw(st.booleans()):
        task["blocker"] = draw(TEXT)
    if status == "abandoned" and draw(st.booleans()):
        task["droppedBy"] = "user"
    return task


@st.composite
def phases_json(draw: st.DrawFn, min_phases: int = 0) -> list[dict[str, Any]]:
    """A list with unique phase names and task contents, its in-progress pointer settled."""
    names = draw(st.lists(TEXT, min_size=min_phases, max_size=3, unique=True))
    contents = draw(st.lists(TEXT, max_size=8, unique=True))
    phases: list[dict[str, Any]] = [{"name": name, "tasks": []} for name in names]
    for content in contents if phases else ():
        phase = draw(st.sampled_from(phases))
        phase["tasks"].append(draw(task_json(content)))
    return phases_to_json(normalize_in_progress(phases_from_json(phases)))


@st.composite
def calls(draw: st.DrawFn, phases: list[dict[str, Any]]) -> dict[str, Any]:
    """A single-op call naming tasks and phases of ``phases`` or others."""
    contents = [task["content"] for phase in phases for task in phase["tasks"]]
    names = [phase["name"] for phase in phases]
    call: dict[str, Any] = {"op": draw(st.sampled_from(todo.OPS))}
    if draw(st.booleans()):
        call["task"] = draw(st.sampled_from(contents) if contents and draw(st.booleans()) else TEXT)
    if draw(st.booleans()):
        call["phase"] = draw(st.sampled_from(names) if names and draw(st.booleans()) else TEXT)
    if draw(st.booleans()):
        call["items"] = draw(
            st.lists(st.sampled_from(contents) if contents else TEXT, max_size=3) | st.lists(TEXT, max_size=3)
        )
    if draw(st.booleans()):
        call["reason"] = draw(st.text(max_size=8))
    if call["op"] == "init" and draw(st.booleans()):
        call["list"] = [
            {"phase": n, "items": draw(st.lists(TEXT, min_size=1, max_size=3))}
            for n in draw(st.lists(TEXT, max_size=2))
        ]
    return call


@st.composite
def list_and_call(draw: st.DrawFn) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A list and a call on it."""
    phases = draw(phases_json())
    return phases, draw(calls(phases))


class TestMarkdown:
    @settings(max_examples=examples(300))
    @given(phases_json(min_phases=1))
    def test_render_then_parse_gives_the_list_back(self, phases: list[dict[str, Any]]) -> None:
        """A settled list of trimmed one-line texts survives to_markdown then from_markdown."""
        assert todo.from_markdown(todo.to_markdown(phases)) == (phases, [])


class TestApply:
    @settings(max_examples=examples(400))
    @given(list_and_call())
    def test_an_error_leaves_the_list_unchanged(
        self, case: tuple[list[dict[str, Any]], dict[str, Any]]
    ) -> None:
        """A failed call reports isError and gives back the list exactly as it was."""
        phases, call = case
        result = todo.apply(call, phases)
        if result.get("isError"):
            assert result["details"]["phases"] == phases
            assert "completedTasks" not in result["details"]

    @settings(max_examples=examples(300))
    @given(list_and_call())
    def test_view_never_changes_the_list(self, case: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
        """``view``, whatever else the call carries, gives back the list and completes nothing."""
        phases, call = case
        result = todo.apply({**call, "op": "view"}, phases)
        assert "isError" not in result
        assert result["details"]["phases"] == phases
        assert "completedTasks" not in result["details"]

    @settings(max_examples=examples(300))
    @given(list_and_call())
    def test_a_kept_list_has_one_active_task_at_most(
        self, case: tuple[list[dict[str, Any]], dict[str, Any]]
    ) -> None:
        """After any call at most one task is in progress, and none only when nothing is pending."""
        phases, call = case
        after = todo.apply(call, phases)["details"]["phases"]
        statuses = [task["status"] for phase in after for task in phase["tasks"]]
        assert statuses.count("in_progress") <= 1
        assert "in_progress" in statuses or "pending" not in statuses

    @settings(max_examples=examples(200))
    @given(list_and_call())
    def test_the_input_list_is_not_mutated(self, case: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
        """apply never changes the list it was given."""
        phases, call = case
        snapshot = repr(phases)
        todo.apply(call, phases)
        assert repr(phases) == snapshot
