"""beads JSONL in and out: the mapping, both round trips, what is not kept, and bad files."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import Phase, Status, Task
from phasetodo.errors import InvalidBeads
from phasetodo.integrations.beads import (
    KEPT_PREFIX,
    MARK_FIELD,
    beads_to_phases,
    issues_from_phases,
    phases_from_issues,
    phases_to_beads,
)

from ..budget import examples

WORDS = st.text("abcdefgh ", min_size=1, max_size=8).map(str.strip).filter(bool)


@st.composite
def team_plans(draw: st.DrawFn) -> tuple[Phase, ...]:
    """Team plans: unique phase names and contents, ids, owners, reasons, afters, notes."""
    names = draw(st.lists(WORDS, min_size=1, max_size=4, unique=True))
    contents = draw(st.lists(WORDS, min_size=len(names), max_size=12, unique=True))
    cuts = sorted(
        draw(st.lists(st.integers(0, len(contents)), min_size=len(names) - 1, max_size=len(names) - 1))
    )
    bounds = [0, *cuts, len(contents)]
    phases, number = [], 0
    for name, start, end in zip(names, bounds, bounds[1:], strict=False):
        tasks = []
        for content in contents[start:end]:
            number += 1
            status = draw(st.sampled_from(list(Status)))
            notes = tuple(draw(st.lists(WORDS, max_size=3)))
            owner = draw(st.none() | st.sampled_from(["w1", "w2"]))
            reason = draw(st.none() | WORDS) if status is Status.BLOCKED else None
            earlier = contents[: number - 1]  # waits only on tasks before it: no cycle
            after = (
                tuple(draw(st.lists(st.sampled_from(earlier), max_size=2, unique=True))) if earlier else ()
            )
            tasks.append(Task(content, status, notes, owner, reason, after, f"t{number}"))
        phases.append(Phase(name, tuple(tasks)))
    mark = number + draw(st.integers(0, 3))
    if mark:
        phases[0] = Phase(phases[0].name, phases[0].tasks, mark)
    return tuple(phases)


BEADS_STATUSES = ["open", "in_progress", "blocked", "deferred", "closed", "pinned"]


@st.composite
def beads_exports(draw: st.DrawFn) -> list[dict[str, Any]]:
    """beads issues: epics, tasks in them or in none, blocks/related links, fields a plan lacks."""
    titles = draw(st.lists(WORDS, min_size=1, max_size=10, unique=True))
    epics = draw(st.integers(0, min(3, len(titles) - 1)))
    ids = [f"bd-{n}" for n in range(len(titles))]
    issues: list[dict[str, Any]] = [
        {"id": ids[n], "title": titles[n], "status": "open", "issue_type": "epic"} for n in range(epics)
    ]
    tasks = ids[epics:]
    for n in range(epics, len(titles)):
        ident = ids[n]
        issue: dict[str, Any] = {
            "id": ident,
            "title": titles[n],
            "status": draw(st.sampled_from(BEADS_STATUSES)),
        }
        if draw(st.booleans()):
            issue["priority"] = draw(st.integers(0, 4))
        if draw(st.booleans()):
            issue["labels"] = draw(st.lists(WORDS, max_size=2))
        if issue["status"] == "closed" and draw(st.booleans()):
            issue["close_reason"] = draw(st.sampled_from(["done", "wontfix", "dropped", "fixed"]))
        if draw(st.booleans()):
            issue["description"] = draw(WORDS)
        if draw(st.booleans()):
            issue["comments"] = [{"issue_id": ident, "text": t} for t in draw(st.lists(WORDS, max_size=2))]
        if draw(st.booleans()):
            issue["assignee"] = draw(st.sampled_from(["alice", "w1"]))
        if issue["status"] == "blocked" and draw(st.booleans()):
            issue["notes"] = draw(WORDS)
        deps = []
        if epics and draw(st.booleans()):
            deps.append(
                {
                    "issue_id": ident,
                    "depends_on_id": ids[draw(st.integers(0, epics - 1))],
                    "type": "parent-child",
                }
            )
        for target in draw(st.lists(st.sampled_from(tasks), max_size=2, unique=True)):
            if target != ident:
                deps.append(
                    {
                        "issue_id": ident,
                        "depends_on_id": target,
                        "type": draw(st.sampled_from(["blocks", "related"])),
                    }
                )
        if deps:
            issue["dependencies"] = deps
        issues.append(issue)
    return issues


def _tasks_only(issues: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in issues if i.get("issue_type") != "epic"}


class TestRoundTrips:
    @settings(max_examples=examples(200))
    @given(team_plans())
    def test_a_plan_exported_and_imported_is_the_same_plan(self, plan: tuple[Phase, ...]) -> None:
        """Phases, ids, statuses, notes, owners, reasons, after and the id mark all come back."""
        back = beads_to_phases(phases_to_beads(plan))
        assert back.phases == plan
        assert back.errors == ()

    @settings(max_examples=examples(200))
    @given(beads_exports())
    def test_an_export_imported_and_exported_is_the_same_issues(self, issues: list[dict[str, Any]]) -> None:
        """Every task issue comes back field for field; epics keep their ids and titles."""
        text = "".join(json.dumps(i) + "\n" for i in issues)
        plan = beads_to_phases(text)
        again = issues_from_phases(plan.phases, prefix="bd")
        # a phase has no id: its epic is found again by its title (unique here)
        renamed = {e["id"]: e["title"] for e in again if e.get("issue_type") == "epic"}
        titles = {e["title"]: e["id"] for e in issues if e.get("issue_type") == "epic"}
        for issue in again:
            for dep in issue.get("dependencies", []):
                if dep["type"] == "parent-child" and dep["depends_on_id"] in renamed:
                    dep["depends_on_id"] = titles[renamed[dep["depends_on_id"]]]
        assert _tasks_only(again) == _tasks_only(issues)
        held = [e["title"] for e in again if e.get("issue_type") == "epic"]
        assert set(held) <= set(titles) | {"Issues"}

    @settings(max_examples=examples(100))
    @given(beads_exports())
    def test_an_import_is_a_plan_a_team_session_takes(self, issues: list[dict[str, Any]]) -> None:
        """What an import gives is a valid team plan: a session stores it as a person's edit."""
        plan = phases_from_issues(issues)
        with phasetodo.Session.open("b", phasetodo.MemoryStore(), profile="team") as session:
            session.user_edit(plan.phases)
            ids = [t.id for p in session.phases for t in p.tasks]
            assert len(ids) == len(set(ids))


class TestMapping:
    PLAN = (
        Phase(
            "Auth",
            (
                Task("Login form", Status.COMPLETED, ("use the widget", "and test it"), "w1", id="t1"),
                Task("Cookie", Status.BLOCKED, (), None, "waiting on legal", ("Login form",), "t2"),
                Task("Drop old auth", Status.ABANDONED, id="t3"),
            ),
            3,
        ),
        Phase("Docs", (Task("Guide", Status.IN_PROGRESS, (), "w2", id="t4"),)),
    )

    def test_each_field_has_its_beads_place(self) -> None:
        """Phases are epics, notes are description and comments, after is a blocks link."""
        issues = issues_from_phases(self.PLAN)
        assert issues == [
            {"id": "pt-e1", "title": "Auth", "status": "open", "issue_type": "epic", MARK_FIELD: 3},
            {
                "id": "t1",
                "title": "Login form",
                "status": "closed",
                "description": "use the widget",
                "comments": [{"issue_id": "t1", "text": "and test it"}],
                "assignee": "w1",
                "dependencies": [{"issue_id": "t1", "depends_on_id": "pt-e1", "type": "parent-child"}],
            },
            {
                "id": "t2",
                "title": "Cookie",
                "status": "blocked",
                "notes": "waiting on legal",
                "dependencies": [
                    {"issue_id": "t2", "depends_on_id": "pt-e1", "type": "parent-child"},
                    {"issue_id": "t2", "depends_on_id": "t1", "type": "blocks"},
                ],
            },
            {
                "id": "t3",
                "title": "Drop old auth",
                "status": "closed",
                "close_reason": "dropped",
                "dependencies": [{"issue_id": "t3", "depends_on_id": "pt-e1", "type": "parent-child"}],
            },
            {"id": "pt-e2", "title": "Docs", "status": "open", "issue_type": "epic"},
            {
                "id": "t4",
                "title": "Guide",
                "status": "in_progress",
                "assignee": "w2",
                "dependencies": [{"issue_id": "t4", "depends_on_id": "pt-e2", "type": "parent-child"}],
            },
        ]

    @pytest.mark.parametrize(
        ("reason", "status"),
        [
            ("wontfix", Status.ABANDONED),
            ("Won't Fix", Status.ABANDONED),
            ("done", Status.COMPLETED),
            (None, Status.COMPLETED),
        ],
    )
    def test_a_close_reason_of_dropping_means_abandoned(self, reason: str | None, status: Status) -> None:
        """closed is completed, unless the close reason says the work was dropped."""
        issue: dict[str, Any] = {"id": "a", "title": "A", "status": "closed"}
        if reason is not None:
            issue["close_reason"] = reason
        (task,) = phases_from_issues([issue]).phases[0].tasks
        assert task.status is status

    def test_issues_without_an_epic_go_to_one_phase(self) -> None:
        """Loose issues share the import's phase, which the export writes back without an epic."""
        issues = [{"id": "a", "title": "A", "status": "open"}, {"id": "b", "title": "B", "status": "open"}]
        plan = phases_from_issues(issues, phase="Backlog")
        assert [(p.name, [t.content for t in p.tasks]) for p in plan.phases] == [("Backlog", ["A", "B"])]
        assert issues_from_phases(plan.phases) == issues

    def test_what_a_plan_cannot_hold_is_kept_in_the_last_note(self) -> None:
        """Labels, priority and an unheld link ride along as the ``beads:`` note, and go back."""
        issue = {
            "id": "a",
            "title": "A",
            "status": "deferred",
            "priority": 0,
            "labels": ["x"],
            "dependencies": [{"issue_id": "a", "depends_on_id": "zz", "type": "discovered-from"}],
        }
        (task,) = phases_from_issues([issue]).phases[0].tasks
        assert task.status is Status.PENDING
        assert task.notes[-1].startswith(KEPT_PREFIX)
        assert json.loads(task.notes[-1][len(KEPT_PREFIX) :])["labels"] == ["x"]
        assert issues_from_phases(phases_from_issues([issue]).phases) == [issue]

    def test_what_cannot_be_kept_is_listed(self) -> None:
        """A deleted issue, a nested epic and an epic's own fields are named in the errors."""
        issues = [
            {"id": "e1", "title": "Top", "status": "open", "issue_type": "epic", "priority": 1},
            {
                "id": "e2",
                "title": "Inner",
                "status": "open",
                "issue_type": "epic",
                "dependencies": [{"issue_id": "e2", "depends_on_id": "e1", "type": "parent-child"}],
            },
            {"id": "gone", "title": "Gone", "status": "tombstone"},
        ]
        errors = phases_from_issues(issues).errors
        assert errors == (
            "epic 'e1': priority not kept (a phase has only a name)",
            "epic 'e2' is inside epic 'e1': phases are not nested",
            "issue 'gone' is deleted (tombstone): not imported",
        )

    def test_repeated_titles_become_unique_contents(self) -> None:
        """A plan's contents are unique: a repeated title gets its id, and the errors say so."""
        issues = [
            {"id": "a", "title": "Same", "status": "open"},
            {"id": "b", "title": "Same", "status": "open"},
        ]
        plan = phases_from_issues(issues)
        assert [t.content for t in plan.phases[0].tasks] == ["Same", "Same [b]"]
        assert plan.errors == ("issue 'b': its title repeats another's, so its task is 'Same [b]'",)


class TestBadFiles:
    @pytest.mark.parametrize(
        ("text", "problem"),
        [
            ('{"id": "a", "title": "A"}\nnot json\n', "line 2: not JSON"),
            ("[1, 2]\n", "line 1: not a beads issue (a JSON list, not an object)"),
            ('{"id": "a"}\n', "line 1: not a beads issue: 'title' must be a non-empty string"),
            ('{"id": "a", "title": "A", "labels": "x"}\n', "line 1: issue 'a': 'labels' must be a list"),
            ('{"id": "a", "title": "A"}\n{"id": "a", "title": "B"}\n', "issue 'a': the id is given twice"),
        ],
    )
    def test_a_file_that_is_not_beads_names_the_line(self, text: str, problem: str) -> None:
        """InvalidBeads lists every bad line; nothing is imported."""
        with pytest.raises(InvalidBeads) as caught:
            beads_to_phases(text)
        assert caught.value.problems[0].startswith(problem)

    def test_line_separators_inside_strings_stay_in_their_line(self) -> None:
        """Only newlines end a line: a title holding U+2028 (valid raw in JSON) is read whole."""
        plan = (Phase("P", (Task("a\u2028b", id="t1"),), 1),)
        text = phases_to_beads(plan)
        assert "\u2028" in text
        assert beads_to_phases(text.replace("\n", "\r\n")).phases == plan

    def test_deep_nesting_is_a_problem_not_a_crash(self) -> None:
        """A line of JSON nested past the interpreter's limit is named like any bad line."""
        with pytest.raises(InvalidBeads) as caught:
            beads_to_phases("[" * 100_000 + "]" * 100_000 + "\n")
        assert caught.value.problems == ("line 1: JSON nested too deeply",)

    def test_every_bad_line_is_named(self) -> None:
        """Two bad lines, two problems."""
        with pytest.raises(InvalidBeads) as caught:
            beads_to_phases("x\n\n{}\n")
        assert [p.split(":")[0] for p in caught.value.problems] == ["line 1", "line 3"]
