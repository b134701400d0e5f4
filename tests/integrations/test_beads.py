"""beads JSONL in and out: the mapping, both round trips, what is not kept, and bad files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import phasetodo
from phasetodo import Limits, Phase, Status, Task
from phasetodo.errors import InvalidBeads
from phasetodo.integrations.beads import (
    DEFAULT_PRIORITY,
    EPIC_FIELD,
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


# beads' statuses (internal/types/types.go); tombstone only in exports before v0.50
BEADS_STATUSES = ["open", "in_progress", "blocked", "deferred", "closed", "pinned", "hooked"]
ISSUE_TYPES = ["task", "bug", "feature", "chore", "spike", "decision"]
TIMES = st.sampled_from(["2026-05-01T09:00:00Z", "2026-05-02T10:30:00.123456789+02:00"])


def bd_fields(draw: st.DrawFn) -> dict[str, Any]:
    """What ``bd export`` writes on every issue besides the plan's own fields: _type, priority,
    issue_type, owner (an email), timestamps; each left out now and then (older exports)."""
    fields: dict[str, Any] = {}
    if draw(st.booleans()):
        fields["_type"] = "issue"
    if draw(st.integers(0, 3)):
        fields["priority"] = draw(st.integers(0, 4))
    if draw(st.booleans()):
        fields["owner"] = draw(st.sampled_from(["alice@example.com", "bob@example.com"]))
    if draw(st.booleans()):
        fields.update(created_at=draw(TIMES), created_by="alice", updated_at=draw(TIMES))
    return fields


@st.composite
def beads_exports(draw: st.DrawFn) -> list[dict[str, Any]]:
    """beads issues: epics, tasks in them or in none, blocks/related links, fields a plan lacks."""
    titles = draw(st.lists(WORDS, min_size=1, max_size=10, unique=True))
    epics = draw(st.integers(0, min(3, len(titles) - 1)))
    ids = [f"bd-{n}" for n in range(len(titles))]
    issues: list[dict[str, Any]] = []
    for n in range(epics):
        epic = {"id": ids[n], "title": titles[n], "status": draw(st.sampled_from(["open", "in_progress"]))}
        epic.update(issue_type="epic", **bd_fields(draw))
        if draw(st.booleans()):
            epic["description"] = draw(WORDS)
        issues.append(epic)
    tasks = ids[epics:]
    for n in range(epics, len(titles)):
        ident = ids[n]
        issue: dict[str, Any] = {
            "id": ident,
            "title": titles[n],
            "status": draw(st.sampled_from(BEADS_STATUSES)),
            **bd_fields(draw),
        }
        if draw(st.booleans()):
            issue["issue_type"] = draw(st.sampled_from(ISSUE_TYPES))
        if draw(st.booleans()):
            issue["labels"] = draw(st.lists(WORDS, max_size=2))
        if issue["status"] == "closed" and draw(st.booleans()):
            issue["close_reason"] = draw(st.sampled_from(["done", "wontfix", "dropped", "fixed"]))
        if draw(st.booleans()):
            issue["description"] = draw(WORDS)
        if draw(st.booleans()):
            texts = draw(st.lists(WORDS, max_size=2))
            if draw(st.booleans()):  # as bd export writes them: id, author, time
                issue["comments"] = [
                    {"id": f"c{k}", "issue_id": ident, "author": "w1", "text": t, "created_at": draw(TIMES)}
                    for k, t in enumerate(texts)
                ]
            else:
                issue["comments"] = [{"issue_id": ident, "text": t} for t in texts]
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
        if deps and draw(st.booleans()):  # as bd export writes them: with their time and author
            deps = [{**d, "created_at": draw(TIMES), "created_by": "alice"} for d in deps]
        if deps:
            issue["dependencies"] = deps
        if draw(st.booleans()):
            issue.update(
                dependency_count=len(deps), dependent_count=0, comment_count=len(issue.get("comments", []))
            )
        issues.append(issue)
    return issues


def child_of(epic: str, status: str) -> dict[str, Any]:
    """Issue ``a`` ("A", beads' default priority) inside epic ``epic``, as bd exports it."""
    return {
        "id": "a",
        "title": "A",
        "status": status,
        "priority": 2,
        "dependencies": [{"issue_id": "a", "depends_on_id": epic, "type": "parent-child"}],
    }


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
        """Every task issue comes back field for field, and so does every epic that holds one;
        an epic that holds none comes back with its title (its other fields are listed)."""
        text = "".join(json.dumps(i) + "\n" for i in issues)
        plan = beads_to_phases(text)
        again = issues_from_phases(plan.phases, prefix="bd")
        # a phase has no id: an epic with nothing of its own to keep is found again by its title
        renamed = {e["id"]: e["title"] for e in again if e.get("issue_type") == "epic"}
        titles = {e["title"]: e["id"] for e in issues if e.get("issue_type") == "epic"}
        for issue in again:
            if issue["id"] in renamed:
                issue["id"] = titles.get(issue["title"], issue["id"])
            for dep in issue.get("dependencies", []):
                if dep["type"] == "parent-child" and dep["depends_on_id"] in renamed:
                    dep["depends_on_id"] = titles[renamed[dep["depends_on_id"]]]
        assert _tasks_only(again) == _tasks_only(issues)
        parents = {
            d["depends_on_id"]
            for i in issues
            for d in i.get("dependencies", [])
            if d["type"] == "parent-child"
        }
        epics_back = {e["id"]: e for e in again if e.get("issue_type") == "epic"}
        for epic in (i for i in issues if i.get("issue_type") == "epic"):
            if epic["id"] in parents:
                assert epics_back[epic["id"]] == epic
            else:
                assert epics_back[epic["id"]]["title"] == epic["title"]
        assert set(epics_back) == set(titles.values())  # the loose issues' phase writes no epic

    @settings(max_examples=examples(100))
    @given(beads_exports(), st.booleans())
    def test_a_bd_exports_other_records_are_named_not_fatal(
        self, issues: list[dict[str, Any]], header: bool
    ) -> None:
        """The header of a canonical export and memory records are skipped and named by line."""
        lines = [json.dumps(i) for i in issues] + [json.dumps({"_type": "memory", "key": "k", "value": "v"})]
        if header:
            lines.insert(0, json.dumps({"_schema": "beads-jsonl/1", "_dolt_branch": "main"}))
        read = beads_to_phases("\n".join(lines) + "\n")
        named = [e for e in read.errors if e.startswith("line ")]
        assert named[-1] == f"line {len(lines)}: a beads 'memory' record, not an issue: not imported"
        assert len(named) == 1 + header
        assert read.phases == phases_from_issues(issues).phases

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
            {
                "id": "pt-e1",
                "title": "Auth",
                "status": "open",
                "priority": 2,
                "issue_type": "epic",
                MARK_FIELD: 3,
            },
            {
                "id": "t1",
                "title": "Login form",
                "status": "closed",
                "priority": 2,
                "description": "use the widget",
                "comments": [{"issue_id": "t1", "text": "and test it"}],
                "assignee": "w1",
                "dependencies": [{"issue_id": "t1", "depends_on_id": "pt-e1", "type": "parent-child"}],
            },
            {
                "id": "t2",
                "title": "Cookie",
                "status": "blocked",
                "priority": 2,
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
                "priority": 2,
                "close_reason": "dropped",
                "dependencies": [{"issue_id": "t3", "depends_on_id": "pt-e1", "type": "parent-child"}],
            },
            {"id": "pt-e2", "title": "Docs", "status": "open", "priority": 2, "issue_type": "epic"},
            {
                "id": "t4",
                "title": "Guide",
                "status": "in_progress",
                "priority": 2,
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
            "epic 'e2' is inside epic 'e1': phases are not nested",
            "issue 'gone' is deleted (tombstone): not imported",
            "epic 'e1' holds no issue: priority not kept (a phase has only a name)",
            "epic 'e2' holds no issue: dependencies, priority not kept (a phase has only a name)",
        )

    def test_a_real_bd_export(self) -> None:
        """tests/integrations/bd_export.jsonl, written from beads' Go types (internal/types/types.go,
        cmd/bd/export.go): every json tag in struct order, ``_type``, the counts, a canonical
        header and a memory record. Epics are phases, assignee (not beads' owner) is the owner,
        wontfix is abandoned, notes are the blocked reason, a deferred issue is pending."""
        read = beads_to_phases((Path(__file__).parent / "bd_export.jsonl").read_text(encoding="utf-8"))
        assert read.errors == (
            "line 1: the export's header ('beads-jsonl/1'): not imported",
            "line 9: a beads 'memory' record, not an issue: not imported",
        )
        shown = [
            (p.name, [(t.id, t.content, t.status.value, t.owner, t.reason, t.after) for t in p.tasks])
            for p in read.phases
        ]
        assert shown == [
            (
                "Auth",
                [
                    ("bd-a1.1", "Login form", "completed", "w1", None, ()),
                    (
                        "bd-a1.2",
                        "Session cookie",
                        "blocked",
                        "w2",
                        "waiting on legal review",
                        ("Login form",),
                    ),
                    ("bd-a1.3", "Old auth", "abandoned", None, None, ()),
                ],
            ),
            ("Docs", [("bd-d7.1", "User guide", "pending", None, None, ())]),
            ("Issues", [("bd-k3", "Flaky login test", "in_progress", "w1", None, ())]),
        ]
        cookie = read.phases[0].tasks[1]
        assert cookie.notes[0] == "asked legal on Monday"  # the comment; no description
        kept = json.loads(read.phases[1].tasks[0].notes[-1][len(KEPT_PREFIX) :])
        assert (kept["status"], kept["labels"], kept["owner"]) == (
            "deferred",
            ["docs", "later"],
            "alice@example.com",
        )
        assert kept["dependencies"][1]["type"] == "discovered-from"
        epic = json.loads(read.phases[0].tasks[0].notes[-1][len(KEPT_PREFIX) :])[EPIC_FIELD]
        assert (epic["id"], epic["description"], epic["priority"]) == ("bd-a1", "Login and sessions", 1)

    def test_priority_two_goes_without_saying(self) -> None:
        """An export writes beads' default priority 2 where none was kept (bd reads none as 0,
        the most urgent); an imported 2 is not kept, a missing one is kept missing."""
        (issue,) = issues_from_phases((Phase("P", (Task("a", id="t1"),)),))[1:]
        assert issue["priority"] == DEFAULT_PRIORITY == 2
        for extra in ({"priority": 2}, {}):
            plain = {"id": "a", "title": "A", "status": "open", **extra}
            plan = phases_from_issues([plain])
            assert issues_from_phases(plan.phases) == [plain]
        assert phases_from_issues([{"id": "a", "title": "A", "priority": 2}]).phases[0].tasks[0].notes == (
            KEPT_PREFIX + '{"phasetodo_loose": true}',
        )

    def test_an_epics_own_fields_are_kept_with_its_first_task(self) -> None:
        """An epic's description, priority, timestamps and links come back on the epic, not on a task."""
        epic = {
            "id": "e",
            "title": "E",
            "status": "in_progress",
            "priority": 0,
            "issue_type": "epic",
            "description": "why",
            "created_at": "2026-05-01T09:00:00Z",
        }
        child = child_of("e", "closed")
        plan = phases_from_issues([epic, child])
        assert plan.errors == ()
        assert issues_from_phases(plan.phases) == [epic, child]

    def test_a_closed_epic_with_open_issues_is_named(self) -> None:
        """A phase with open work is written as an open epic; the import says so."""
        epic = {"id": "e", "title": "E", "status": "closed", "priority": 2, "issue_type": "epic"}
        plan = phases_from_issues([epic, child_of("e", "open")])
        assert plan.errors == ("epic 'e' is closed but holds open issues: exported again as open",)
        assert issues_from_phases(plan.phases)[0]["status"] == "open"

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
            (
                '{"id": "a", "title": "A"}\n{"id": "a", "title": "B"}\n',
                "line 2: issue 'a': the id is given twice (first on line 1)",
            ),
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


def chain_text(issues: int, *, closed: bool) -> str:
    """``issues`` issues, each waiting on the one before it; ``closed``: the first on the last."""
    lines = []
    for n in range(issues):
        deps = []
        if n or closed:
            target = f"b{n - 1 if n else issues - 1}"
            deps.append({"issue_id": f"b{n}", "depends_on_id": target, "type": "blocks"})
        issue = {"id": f"b{n}", "title": f"T{n}", "status": "open", "dependencies": deps}
        lines.append(json.dumps(issue))
    return "\n".join(lines) + "\n"


def waits_of(phases: tuple[Phase, ...]) -> dict[str, set[str]]:
    """Task id -> the ids of the tasks it waits for."""
    ids = {t.content: t.id for p in phases for t in p.tasks}
    return {str(t.id): {str(ids[a]) for a in t.after} for p in phases for t in p.tasks}


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    """Whether ``goal`` can be reached from ``start`` along ``graph``'s links."""
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


class TestLongChains:
    @pytest.mark.slow
    def test_a_long_chain_keeps_every_link(self) -> None:
        """16,000 issues each waiting on the one before: every wait is enforced, nothing listed."""
        read = beads_to_phases(chain_text(16_000, closed=False))
        waits = waits_of(read.phases)
        assert read.errors == ()
        assert waits["b0"] == set()
        assert all(waits[f"b{n}"] == {f"b{n - 1}"} for n in range(1, 16_000))

    @pytest.mark.slow
    def test_a_cycle_closing_a_long_chain_leaves_out_one_link(self) -> None:
        """The chain closed into a cycle: one link (where the walk comes back) is not enforced,
        named, kept with its issue and written back on export; every other wait holds."""
        text = chain_text(16_000, closed=True)
        read = beads_to_phases(text)
        assert read.errors == ("issue 'b1': waiting on 'b0' would close a cycle; kept, not enforced",)
        waits = waits_of(read.phases)
        assert waits["b1"] == set()
        assert waits["b0"] == {"b15999"}
        assert all(waits[f"b{n}"] == {f"b{n - 1}"} for n in range(2, 16_000))
        written = [json.loads(line) for line in phases_to_beads(read.phases).splitlines()]
        assert written == [json.loads(line) for line in text.splitlines()]

    @given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=30))
    @settings(max_examples=examples(200), deadline=None)
    def test_the_waits_kept_have_no_cycle_and_each_left_out_closes_one(
        self, links: list[tuple[int, int]]
    ) -> None:
        """Any links: what is enforced has no cycle, and every link left out would close one."""
        deps: dict[int, list[int]] = {n: [] for n in range(8)}
        for source, target in links:
            deps[source].append(target)
        issues = [
            {
                "id": f"b{n}",
                "title": f"T{n}",
                "dependencies": [
                    {"issue_id": f"b{n}", "depends_on_id": f"b{t}", "type": "blocks"} for t in ts
                ],
            }
            for n, ts in deps.items()
        ]
        waits = waits_of(phases_from_issues(issues).phases)
        assert not any(reaches(waits, target, source) for source in waits for target in waits[source])
        for source, target in links:
            if f"b{target}" not in waits[f"b{source}"]:
                assert reaches(waits, f"b{target}", f"b{source}")


class TestSizeLimits:
    @pytest.mark.slow
    def test_more_issues_than_a_plan_may_hold_are_refused(self) -> None:
        """Over the default max_tasks (100,000), as a Markdown import: InvalidParams naming it."""
        text = "".join(f'{{"id":"b{n}","title":"T{n}"}}\n' for n in range(100_001))
        with pytest.raises(phasetodo.InvalidParams) as caught:
            beads_to_phases(text)
        assert caught.value.problems == ("text: more than 100,000 tasks, over the limit max_tasks=100,000",)

    def test_reading_stops_at_the_limit(self) -> None:
        """The issue past the limit ends the read: a bad line after it is not reached."""
        text = '{"id":"a","title":"A"}\n{"id":"b","title":"B"}\nnot json\n'
        with pytest.raises(phasetodo.InvalidParams, match="max_tasks=1"):
            beads_to_phases(text, limits=Limits(max_tasks=1))

    @pytest.mark.parametrize(
        ("limits", "problem"),
        [
            (Limits(max_payload=10), "text: 69 characters, over the limit max_payload=10"),
            (Limits(max_phases=1), "text: more than 1 phases, over the limit max_phases=1"),
            (
                Limits(max_content=3),
                "phases[1].tasks[0].content: 4 characters, over the limit max_content=3",
            ),
        ],
    )
    def test_each_limit_is_named(self, limits: Limits, problem: str) -> None:
        """The text's length, the phases (an epic and the loose issues) and a title's length."""
        text = '{"id":"e","title":"E","issue_type":"epic"}\n{"id":"a","title":"Long"}\n'
        with pytest.raises(phasetodo.InvalidParams) as caught:
            beads_to_phases(text, limits=limits)
        assert caught.value.problems == (problem,)

    def test_epics_count_as_phases(self) -> None:
        """More epics than max_phases are refused while reading."""
        text = "".join(f'{{"id":"e{n}","title":"E{n}","issue_type":"epic"}}\n' for n in range(3))
        with pytest.raises(phasetodo.InvalidParams, match="max_phases=2"):
            beads_to_phases(text, limits=Limits(max_phases=2))

    def test_issues_given_as_dicts_are_held_to_the_limits_too(self) -> None:
        """phases_from_issues takes the same limits."""
        issues = [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}]
        with pytest.raises(phasetodo.InvalidParams, match="max_tasks=1"):
            phases_from_issues(issues, limits=Limits(max_tasks=1))

    def test_no_limits(self) -> None:
        """``limits=None`` reads a text of any size."""
        read = beads_to_phases('{"id":"a","title":"Long"}\n', limits=None)
        assert [t.content for t in read.phases[0].tasks] == ["Long"]


class TestWrongShapes:
    @pytest.mark.parametrize(
        ("fields", "problem"),
        [
            ({"status": {"name": "open"}}, "'status' must be a string, not a JSON object"),
            ({"status": None}, "'status' must be a string, not null"),
            ({"assignee": ["w1"]}, "'assignee' must be a string, not a JSON list"),
            ({"description": 5}, "'description' must be a string, not a number"),
            ({"notes": True}, "'notes' must be a string, not true"),
            ({"close_reason": {}}, "'close_reason' must be a string, not a JSON object"),
            ({"comments": {}}, "'comments' must be a list, not a JSON object"),
            (
                {"dependencies": [{"depends_on_id": {"id": "b"}, "type": "blocks"}]},
                "dependencies[0].depends_on_id must be a non-empty string, not a JSON object",
            ),
            (
                {"dependencies": [{"type": "blocks"}]},
                "dependencies[0].depends_on_id must be a non-empty string, not missing",
            ),
            (
                {"dependencies": [{"depends_on_id": "b", "type": ["blocks"]}]},
                "dependencies[0].type must be a string, not a JSON list",
            ),
            ({"dependencies": ["b"]}, "dependencies[0] must be an object, not a string"),
            ({"dependencies": [None]}, "dependencies[0] must be an object, not null"),
            ({"comments": ["hi"]}, "comments[0] must be an object, not a string"),
            ({"comments": [{"author": "w1"}]}, "comments[0].text must be a string, not missing"),
        ],
    )
    def test_a_field_of_the_wrong_shape_names_its_line_and_field(
        self, fields: dict[str, Any], problem: str
    ) -> None:
        """InvalidBeads, never a raw TypeError nor an entry dropped in silence."""
        text = '{"id":"b","title":"B"}\n' + json.dumps({"id": "a", "title": "A", **fields}) + "\n"
        with pytest.raises(InvalidBeads) as caught:
            beads_to_phases(text)
        assert caught.value.problems == (f"line 2: issue 'a': {problem}",)

    def test_every_wrong_field_of_a_line_is_named(self) -> None:
        """Two wrong fields on one line, two problems."""
        issue = {"id": "a", "title": "A", "status": 1, "dependencies": [1, {"depends_on_id": "b"}, 2]}
        with pytest.raises(InvalidBeads) as caught:
            beads_to_phases(json.dumps(issue))
        assert caught.value.problems == (
            "line 1: issue 'a': 'status' must be a string, not a number",
            "line 1: issue 'a': dependencies[0] must be an object, not a number",
            "line 1: issue 'a': dependencies[2] must be an object, not a number",
        )

    def test_issues_given_as_dicts_name_their_place(self) -> None:
        """phases_from_issues checks the same shapes, naming ``issues[N]``."""
        issues = [{"id": "a", "title": "A"}, {"id": "b", "title": "B", "status": {"x": 1}}]
        with pytest.raises(InvalidBeads) as caught:
            phases_from_issues(issues)
        assert caught.value.problems == (
            "issues[1]: issue 'b': 'status' must be a string, not a JSON object",
        )

    def test_a_comment_with_an_empty_text_is_read(self) -> None:
        """An empty comment is still a comment: kept, not refused."""
        issue = {"id": "a", "title": "A", "status": "open", "description": "d"}
        issue["comments"] = [{"issue_id": "a", "text": ""}]
        assert issues_from_phases(phases_from_issues([issue]).phases) == [issue]

    def test_a_link_given_twice_is_written_back_twice(self) -> None:
        """A repeated link is waited on once and kept as given: an export writes both again."""
        link = {"issue_id": "a", "depends_on_id": "b", "type": "blocks"}
        issues = [
            {"id": "a", "title": "A", "status": "open", "dependencies": [link, link]},
            {"id": "b", "title": "B", "status": "open"},
        ]
        plan = phases_from_issues(issues)
        assert plan.phases[0].tasks[0].after == ("B",)
        assert issues_from_phases(plan.phases)[0]["dependencies"] == [link, link]
