"""The board's views for teams and big plans, in a real Chromium driven by Playwright.

The team view (a lane per agent, ready, blocked with Unblock, waiting), the dependency
graph (SVG, every ``after`` an edge, the critical path), the activity (per agent, with
diffs, filtered), the SVG icons, leases, and a long plan's virtualized list. Like
``test_web_browser.py`` (both use the fixtures of ``conftest.py``), nothing is downloaded and the
tests fail instead of skipping under CI. ``PHASETODO_SCREENSHOTS=docs`` refreshes
``docs/board-team.png`` and ``docs/board-graph.png``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

import phasetodo

from ..web_support import TOKEN, kinds, latest, running_board, write_from_another_process
from .chromium import XSS
from .test_web_browser import _shots, _task

#: The team plan of these tests: six tasks, five ``after`` links, two agents, one blocked task.
PLAN = [
    {
        "phase": "Build",
        "items": ["Parser", "Lexer", {"content": "Tests", "after": ["Parser", "Lexer"]}, "Docs"],
    },
    {
        "phase": "Ship",
        "items": [
            {"content": "Changelog", "after": ["Docs"]},
            {"content": "Release", "after": ["Tests", "Changelog"]},
        ],
    },
]
LINKS = 5


def _team(store: phasetodo.Store, session_id: str = "team", plan: list[dict[str, Any]] = PLAN) -> None:
    """Lead claims Parser, w2 claims Lexer, the lead blocks Docs with a reason."""
    with phasetodo.Session.open(session_id, store=store, profile="team", agent="lead") as lead:
        lead.todo_write({"ops": [{"op": "init", "list": plan}, {"op": "start", "task": plan[0]["items"][0]}]})
        with phasetodo.Session.open(session_id, store=store, profile="team", agent="w2") as w2:
            w2.todo_write({"ops": [{"op": "start", "task": plan[0]["items"][1]}]})
        lead.todo_write(
            {"ops": [{"op": "block", "task": plan[0]["items"][3], "reason": "waits for the API freeze"}]}
        )


@pytest.fixture
def store(tmp_path: Path) -> Any:
    """A JSONL store with the team plan ``team`` at version 3."""
    store = phasetodo.JsonlStore(tmp_path / "store")
    _team(store)
    yield store
    store.close()


def _part(page: Any, name: str) -> Any:
    return page.locator(f"section#team-{name}")


def _in(page: Any, scope: Any, content: str) -> Any:
    """The task row of ``content`` inside ``scope`` (a part of the page)."""
    return scope.locator("li.task", has=page.locator("span.content", has_text=content))


class TestTeamView:
    def test_lanes_ready_blocked_and_waiting(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """A lane per agent with its task, id and last change; blocked with reasons; waiting with what for."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team/team?token={TOKEN}")
            lanes = page.locator("li.lane")
            expect(lanes).to_have_count(2)
            w2 = page.locator("li.lane[data-agent='w2']")
            expect(w2.locator(".lane-task")).to_contain_text("Lexer")
            expect(w2.locator(".lane-task .task-id")).to_have_text("t2")
            expect(w2.locator(".lane-last")).to_contain_text("“Lexer”: pending → in progress")
            expect(page.locator("li.lane[data-agent='lead'] .lane-last")).to_contain_text("v3")
            expect(_part(page, "ready").locator("h2")).to_have_text("Ready (0)")
            blocked = _part(page, "blocked").locator("li.task")
            expect(blocked).to_have_count(1)
            expect(blocked.locator(".reason")).to_have_text("Blocked: waits for the API freeze")
            waiting = _part(page, "waiting")
            expect(waiting.locator("li.task")).to_have_count(3)
            expect(_in(page, waiting, "Tests").locator(".waits")).to_have_text(" waits for Parser, Lexer")
            expect(_in(page, waiting, "Release").locator(".waits")).to_have_text(
                " waits for Tests, Changelog"
            )

    def test_unblock_is_the_team_engines_unblock(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """Unblock makes the task pending, unowned and without reason: one user edit; it is ready then."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team/team?token={TOKEN}")
            _part(page, "blocked").get_by_role("button", name="Unblock: Docs").click()
            expect(page.locator("#message")).to_contain_text("Saved as version 4")
            expect(_in(page, _part(page, "ready"), "Docs")).to_be_visible()
            expect(_part(page, "blocked").locator("li.task")).to_have_count(0)
        assert kinds(store, "team")[-1] == ("user_edit", "board")
        docs = latest(store, "team")[0].tasks[3]
        assert (docs.content, docs.status, docs.owner, docs.reason) == (
            "Docs",
            phasetodo.Status.PENDING,
            None,
            None,
        )

    def test_keyboard_reaches_unblock_and_enter_presses_it(
        self, page: Any, store: phasetodo.JsonlStore
    ) -> None:
        """Tab moves to the Unblock control; Enter on it records the edit."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team/team?token={TOKEN}")
            expect(page.locator("li.lane")).to_have_count(2)
            for _ in range(40):  # bounded: a handful of links come first
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.getAttribute('aria-label')") == "Unblock: Docs":
                    break
            else:
                pytest.fail("Tab never reached the Unblock button of 'Docs'")
            page.keyboard.press("Enter")
            expect(_in(page, _part(page, "ready"), "Docs")).to_be_visible()
        assert kinds(store, "team")[-1] == ("user_edit", "board")

    def test_no_start_in_the_list_of_a_team_plan(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """A team plan's list offers no Start, even on a ready task (a claim needs an agent and the
        board is none, so the board would refuse it), as the team view offers none; Done stays."""
        from playwright.sync_api import expect

        work = {"op": "init", "list": [{"phase": "Work", "items": ["Ready", "Taken"]}]}
        with phasetodo.Session.open("crew", store=store, profile="team", agent="lead") as lead:
            lead.todo_write({"ops": [work, {"op": "start", "task": "Taken"}]})
        with phasetodo.Session.open("solo", store=store) as solo:
            solo.todo_write({"ops": [work]})
        with running_board(store) as (url, _):
            page.goto(f"{url}/s/crew?token={TOKEN}")
            ready = _task(page, "Ready")
            expect(ready.get_by_role("button", name="Done: Ready")).to_be_visible()
            assert ready.get_by_role("button", name="Start: Ready").count() == 0
            page.goto(f"{url}/s/solo")
            expect(_task(page, "Taken").get_by_role("button", name="Start: Taken")).to_be_visible()

    def test_no_start_on_a_blocked_or_waiting_task(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """The list offers Unblock, not Start, on a blocked task, and no Start on a task that waits."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team?token={TOKEN}")
            docs = _task(page, "Docs")
            expect(docs.get_by_role("button", name="Unblock: Docs")).to_be_visible()
            for name in ("Docs", "Tests", "Changelog", "Release"):
                assert _task(page, name).get_by_role("button", name=f"Start: {name}").count() == 0, name
            expect(_task(page, "Parser").locator(".task-id")).to_have_text("t1")

    def test_a_write_from_another_process_moves_a_lane(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """An agent finishing its task in another process shows in its lane and the ready list, live."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team/team")
            expect(page.locator("li.lane")).to_have_count(2)
            page.evaluate("window.stillTheSamePage = true")
            done = {"ops": [{"op": "done", "task": "Lexer"}]}
            write_from_another_process(tmp_path / "store", "team", done, agent="w2", profile="team")
            lane = page.locator("li.lane[data-agent='w2']")
            expect(lane.locator(".lane-last")).to_contain_text("“Lexer”: in progress → done")
            expect(lane.locator(".lane-task")).to_have_text("Not on a task")
            expect(page.locator(".meta .version")).to_have_text("version 4")
            assert page.evaluate("window.stillTheSamePage") is True


def _plan_with(page: Any, url: str, board: Any, change: Any) -> None:
    """Serve the session ``team``'s plan as ``change`` leaves it, to the page and its feed."""
    plan = board.plan("team")
    change(plan)
    body = json.dumps(plan)
    page.route(
        f"{url}/api/sessions/team", lambda route: route.fulfill(body=body, content_type="application/json")
    )
    page.route(
        f"{url}/api/sessions/team/stream",
        lambda route: route.fulfill(body=f"event: plan\ndata: {body}\n\n", content_type="text/event-stream"),
    )


class TestLeases:
    def test_held_about_to_lapse_and_lapsed_leases(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """Each lease state has its chip; a plan without leases shows none."""
        from playwright.sync_api import expect

        with running_board(store) as (url, board):
            page.goto(f"{url}/s/team")
            expect(_task(page, "Parser")).to_be_visible()
            assert page.locator(".lease").count() == 0
            now = time.time()

            def leases(plan: dict[str, Any]) -> None:
                build, ship = plan["phases"][0]["tasks"], plan["phases"][1]["tasks"]
                build[0]["lease"] = {"epoch": 1, "until": now + 3600}
                build[1]["lease"] = {"epoch": 2, "until": now + 20}
                ship[0].update(status="in_progress", owner="w3", lease={"epoch": 3, "until": now - 5})
                ship[1].update(
                    status="in_progress", owner="w4", lease={"epoch": 4, "until": now + 900, "lapsed": "w9"}
                )

            _plan_with(page, url, board, leases)
            page.goto(f"{url}/s/team")
            expect(_task(page, "Parser").locator(".lease")).to_have_attribute("data-lease", "held")
            expect(_task(page, "Lexer").locator(".lease")).to_have_text("lease about to lapse")
            expect(_task(page, "Changelog").locator(".lease")).to_contain_text(
                "lapsed: another agent may take it over"
            )
            expect(_task(page, "Release").locator(".lease")).to_have_text("taken over from w9")
            page.goto(f"{url}/s/team/team")
            expect(page.locator("li.lane[data-agent='w3'] .lease")).to_have_attribute("data-lease", "lapsed")


class TestGraph:
    def test_every_after_is_an_edge_and_the_critical_path_is_marked(
        self, page: Any, store: phasetodo.JsonlStore
    ) -> None:
        """One SVG edge per after link; the longest open chain is highlighted; a click shows the task."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team/graph?token={TOKEN}")
            expect(page.locator("svg.graph g.node")).to_have_count(6)
            expect(page.locator("svg.graph path.edge")).to_have_count(LINKS)
            expect(page.locator("svg.graph path.edge.critical")).to_have_count(2)
            expect(page.locator("svg.graph g.node.critical")).to_have_count(3)
            page.locator("svg.graph g.node", has_text="t5 Changelog").click()
            detail = page.locator("section.graph-task")
            expect(detail.locator("h2")).to_have_text("Task in Ship")
            expect(detail.locator("span.content")).to_have_text("Changelog")
            expect(detail).to_contain_text("Comes after: Docs · needed by: Release")

    def test_enter_on_a_focused_node_shows_it(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """Graph nodes are in the tab order and Enter chooses one."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team/graph")
            expect(page.locator("svg.graph g.node")).to_have_count(6)
            for _ in range(40):
                page.keyboard.press("Tab")
                if (page.evaluate("document.activeElement.getAttribute('aria-label')") or "").startswith(
                    "t6 Release"
                ):
                    break
            else:
                pytest.fail("Tab never reached the node of 'Release'")
            page.keyboard.press("Enter")
            expect(page.locator("section.graph-task span.content")).to_have_text("Release")


class TestActivity:
    def test_who_did_what_with_diffs_filtered_by_agent_and_status(
        self, page: Any, store: phasetodo.JsonlStore
    ) -> None:
        """Every change with its agent and diff, newest first; the agent and status filters narrow them."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team/activity")
            entries = page.locator("li.activity")
            expect(entries).to_have_count(3)
            expect(entries.first).to_have_attribute("data-version", "3")
            expect(entries.first.locator("ul.diff")).to_contain_text("“Docs”: pending → blocked")
            page.get_by_label("Agent").select_option("w2")
            expect(entries).to_have_count(1)
            expect(entries.first).to_have_attribute("data-agent", "w2")
            page.get_by_label("Agent").select_option("")
            page.get_by_label("Gave a task the status").select_option("blocked")
            expect(entries).to_have_count(1)
            expect(entries.first).to_have_attribute("data-version", "3")
            page.get_by_label("Gave a task the status").select_option("")
            page.get_by_role("button", name="lead: 2 changes").click()
            expect(entries).to_have_count(2)


class TestIcons:
    def test_every_status_icon_is_svg_and_no_glyph(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """Status icons are inline SVG (no font needed), one per task row, with no text of their own."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team")
            expect(page.locator("li.task")).to_have_count(6)
            expect(page.locator("li.task .st-icon svg.icon")).to_have_count(6)
            expect(_task(page, "Docs").locator(".st-icon svg")).to_have_class("icon icon-blocked")
            texts = page.locator("li.task .st-icon").all_text_contents()
            assert texts == [""] * 6


class TestHostileText:
    def test_markup_in_task_names_stays_text_in_every_view(self, page: Any, tmp_path: Path) -> None:
        """A task named like markup shows as its characters in the team, graph and activity views."""
        from playwright.sync_api import expect

        store = phasetodo.JsonlStore(tmp_path / "xss")
        plan = [
            {
                "phase": "<b>P</b>",
                "items": [XSS, "<i>b</i>", {"content": "after", "after": [XSS]}, "<u>d</u>"],
            },
        ]
        _team(store, "xss", plan)
        with running_board(store) as (url, _):
            for view in ("team", "graph", "activity"):
                page.goto(f"{url}/s/xss/{view}?token={TOKEN}")
                expect(page.locator("main")).to_contain_text(XSS)
                assert page.locator("main img, main script, main b, main i, main u").count() == 0, view
        assert page.dialogs == []
        store.close()


def _big(tmp_path: Path, tasks: int) -> phasetodo.JsonlStore:
    store = phasetodo.JsonlStore(tmp_path / "big", fsync=False)
    phases = [
        {"phase": f"Phase {p}", "items": [f"Task {p}.{t}" for t in range(tasks // 100)]} for p in range(100)
    ]
    with phasetodo.Session.open("big", store) as session:
        session.todo_write({"ops": [{"op": "init", "list": phases}]})
    return store


def _check_virtual(page: Any, url: str, tasks: int) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/s/big")
    expect(page.locator(".vlist")).to_have_attribute("data-rows", str(tasks + 100))
    first = page.locator("li.task").count()
    assert 0 < first <= 120  # what fits on screen and a few rows either side, not the plan
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    last = f"Task 99.{tasks // 100 - 1}"
    expect(_task(page, last)).to_be_visible()
    assert page.locator("li.task").count() <= 120
    page.get_by_placeholder("Filter tasks").fill("Task 42.7")
    found = sum("Task 42.7" in f"Task 42.{t}" for t in range(tasks // 100))
    expect(page.locator(".vlist")).to_have_attribute("data-rows", str(100 + found))  # the phase heads stay


class TestBigPlans:
    def test_a_long_plan_draws_only_the_rows_on_screen(self, page: Any, tmp_path: Path) -> None:
        """12,000 tasks: a bounded number of rows in the page, the last one reached by scrolling, a filter."""
        store = _big(tmp_path, 12_000)
        with running_board(store) as (url, _):
            _check_virtual(page, url, 12_000)
        store.close()

    @pytest.mark.slow
    def test_a_plan_of_100000_tasks(self, page: Any, tmp_path: Path) -> None:
        """100,000 tasks: the same bound on rows in the page."""
        store = _big(tmp_path, 100_000)
        with running_board(store) as (url, _):
            _check_virtual(page, url, 100_000)
        store.close()


class TestScreenshots:
    def test_screenshots_of_the_team_view_and_the_graph(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """docs/board-team.png and docs/board-graph.png (see the module docstring)."""
        from playwright.sync_api import expect

        folder = _shots(tmp_path)
        with running_board(store) as (url, _):
            page.goto(f"{url}/s/team/team?token={TOKEN}")
            expect(page.locator("li.lane")).to_have_count(2)
            expect(page.locator(".lane-last time").first).to_be_visible()
            page.screenshot(path=str(folder / "board-team.png"))
            page.goto(f"{url}/s/team/graph?token={TOKEN}")
            page.locator("svg.graph g.node", has_text="t3 Tests").click()
            expect(page.locator("section.graph-task span.content")).to_have_text("Tests")
            page.screenshot(path=str(folder / "board-graph.png"))
        for name in ("board-team.png", "board-graph.png"):
            assert (folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
