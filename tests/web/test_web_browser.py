"""The board end to end in a real browser: Playwright driving Debian's Chromium.

Nothing is downloaded: the browser is ``/usr/bin/chromium`` (``apt-get install -y
chromium``). Outside CI the tests skip, saying why, when it or the ``playwright``
package is missing; in CI (``CI`` set) they fail instead. Screenshots go to
``$PHASETODO_SCREENSHOTS`` when set (``PHASETODO_SCREENSHOTS=docs`` refreshes
the README's), else to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

import phasetodo
import phasetodo.web

from ..web_support import TOKEN, init, kinds, latest, running_board, write_from_another_process
from .chromium import DONE_READ, STATIC, XSS


@pytest.fixture
def store(tmp_path: Path) -> Iterator[phasetodo.JsonlStore]:
    """A JSONL store with session ``plan`` at version 1."""
    store = phasetodo.JsonlStore(tmp_path / "store")
    with phasetodo.Session.open("plan", store, resume="keep") as session:
        session.todo_write(init({"Explore": ["Read the test", "Find the bug"], "Fix": ["Patch it"]}))
    yield store
    store.close()


def _shots(tmp_path: Path) -> Path:
    where = os.environ.get("PHASETODO_SCREENSHOTS")
    folder = Path(where) if where else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _task(page: Any, content: str) -> Any:
    return page.locator("li.task", has=page.locator("span.content", has_text=content))


class TestPlanPage:
    def test_open_the_board_and_see_the_plan(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """The sessions page links to the plan, which shows every phase and task."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/?token={TOKEN}")
            row = page.locator("tr.session-row", has_text="plan")
            expect(row.locator(".open-count")).to_have_text("3")
            assert "token" not in page.url  # taken out of the address bar
            row.get_by_role("link", name="plan").click()
            expect(page.get_by_role("heading", name="Explore")).to_be_visible()
            expect(page.get_by_role("heading", name="Fix")).to_be_visible()
            assert page.locator("li.task span.content").all_text_contents() == [
                "Read the test",
                "Find the bug",
                "Patch it",
            ]
            expect(_task(page, "Read the test")).to_have_attribute("data-status", "in_progress")
            fix = page.get_by_role("progressbar", name="Progress of Fix")
            expect(fix).to_have_attribute("aria-valuemax", "1")
        assert page.errors == []

    def test_a_write_from_another_process_appears_without_reload(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """An agent's write in another process shows up live; the page is never reloaded."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan")
            expect(_task(page, "Patch it")).to_be_visible()
            page.evaluate("window.stillTheSamePage = true")
            params = {"ops": [{"op": "append", "phase": "Fix", "items": ["Added elsewhere"]}]}
            write_from_another_process(tmp_path / "store", "plan", params)
            expect(_task(page, "Added elsewhere")).to_be_visible()
            expect(page.locator(".meta .version")).to_have_text("version 2")
            assert page.evaluate("window.stillTheSamePage") is True

    def test_the_sessions_page_counts_open_tasks_live(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """Another process finishing a task lowers the open count on the sessions page."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(url)
            count = page.locator("tr.session-row", has_text="plan").locator(".open-count")
            expect(count).to_have_text("3")
            write_from_another_process(tmp_path / "store", "plan", DONE_READ)
            expect(count).to_have_text("2")

    def test_clicking_done_records_a_user_edit(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """The Done button appends a user_edit event from the board."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            _task(page, "Patch it").get_by_role("button", name="Done").click()
            expect(page.locator("#message")).to_contain_text("Saved as version 2")
            expect(_task(page, "Patch it")).to_have_attribute("data-status", "completed")
        assert kinds(store, "plan")[-1] == ("user_edit", "board")
        assert latest(store, "plan")[1].tasks[0].status is phasetodo.Status.COMPLETED

    def test_a_stale_page_gets_the_conflict_message(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """With live updates paused, an edit after another write is refused and explained."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            expect(_task(page, "Patch it")).to_be_visible()
            page.get_by_label("Live updates").uncheck()
            expect(page.locator("#live")).to_have_text("paused")
            write_from_another_process(tmp_path / "store", "plan", DONE_READ)
            _task(page, "Patch it").get_by_role("button", name="Done").click()
            message = page.locator("#message")
            expect(message).to_contain_text("Nothing changed: the plan moved on since this page showed it")
            expect(message).to_contain_text("version 1, the plan is now at version 2")
            expect(page.locator(".meta .version")).to_have_text("version 2")
        assert [kind for kind, _ in kinds(store, "plan")] == ["write", "write"]

    def test_without_the_token_the_page_is_view_only(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """A page opened without the printed address offers no edits and says why."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan")
            expect(page.locator(".notice")).to_contain_text("View only")
            assert page.get_by_role("button", name="Done").count() == 0


class TestLiveDeltas:
    """The plan's feed sends what changed (a delta) and the page applies it to the plan shown."""

    @staticmethod
    def _plan_reads(page: Any) -> list[str]:
        """Every read of the whole plan the page makes from now on (not its feed)."""
        reads: list[str] = []
        whole = "/api/sessions/plan"
        page.on("request", lambda r: reads.append(r.url) if urlsplit(r.url).path == whole else None)
        return reads

    def test_a_write_from_another_process_arrives_as_a_delta(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """Another process's write shows up through a delta: no reload, no new read of the whole plan,
        and its hostile text stays text."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan")
            expect(page.locator("#live")).to_have_text("● live")
            reads = self._plan_reads(page)
            page.evaluate("window.stillTheSamePage = true")
            ops = [{"op": "append", "phase": "Fix", "items": [XSS]}, {"op": "done", "task": "Read the test"}]
            params = {"ops": ops}
            write_from_another_process(tmp_path / "store", "plan", params)
            expect(page.locator(".meta .version")).to_have_text("version 2")
            expect(_task(page, XSS).locator("span.content")).to_have_text(XSS)
            expect(_task(page, "Read the test")).to_have_attribute("data-status", "completed")
            expect(page.locator(".overall .count")).to_contain_text("1 of 4 done")
            assert page.locator("img").count() == 0
            assert page.evaluate("window.stillTheSamePage") is True
            assert reads == []

    def test_a_checkout_under_the_board_shows_the_branch_plan(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """A log swapped for a sibling with as many events (a checkout): the page shows the
        sibling's plan, never the old list with the new branch's change applied to it."""
        from playwright.sync_api import expect

        path = store.path_for("plan")
        sibling = tmp_path / "sibling"
        sibling.mkdir()
        (sibling / path.name).write_bytes(path.read_bytes())
        branch = {"ops": [{"op": "append", "phase": "Fix", "items": ["Only on the branch"]}]}
        with phasetodo.Session.open("plan", phasetodo.JsonlStore(sibling), resume="keep") as other:
            other.todo_write(branch)
        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan")
            expect(page.locator("#live")).to_have_text("● live")
            write_from_another_process(tmp_path / "store", "plan", DONE_READ)
            expect(_task(page, "Read the test")).to_have_attribute("data-status", "completed")
            os.replace(sibling / path.name, path)
            expect(_task(page, "Only on the branch")).to_be_visible()
            expect(_task(page, "Read the test")).not_to_have_attribute("data-status", "completed")
            expect(page.locator(".meta .version")).to_have_text("version 2")

    def test_a_paused_page_catches_up_from_the_version_it_shows(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """Writes made while live updates were paused all show once they resume, as one delta."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            expect(page.locator("#live")).to_have_text("● live")
            page.get_by_label("Live updates").uncheck()
            expect(page.locator("#live")).to_have_text("paused")
            write_from_another_process(tmp_path / "store", "plan", DONE_READ)
            append = {"ops": [{"op": "append", "phase": "Explore", "items": ["Seen after the pause"]}]}
            write_from_another_process(tmp_path / "store", "plan", append)
            reads = self._plan_reads(page)
            page.get_by_label("Live updates").check()
            expect(page.locator(".meta .version")).to_have_text("version 3")
            expect(_task(page, "Seen after the pause")).to_be_visible()
            expect(_task(page, "Read the test")).to_have_attribute("data-status", "completed")
            assert reads == []

    def test_a_page_the_board_cannot_give_a_delta_gets_the_whole_plan(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """When the board no longer holds the list a page shows, the feed sends the whole plan."""
        from playwright.sync_api import expect

        monkeypatch.setattr(phasetodo.web.board, "RECENT_LISTS", 1)
        with running_board(store) as (url, board):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            expect(page.locator("#live")).to_have_text("● live")
            page.get_by_label("Live updates").uncheck()
            expect(page.locator("#live")).to_have_text("paused")
            write_from_another_process(tmp_path / "store", "plan", DONE_READ)
            assert board.plan("plan")["version"] == 2  # the board now holds version 2's list only
            append = {"ops": [{"op": "append", "phase": "Fix", "items": ["After the gap"]}]}
            write_from_another_process(tmp_path / "store", "plan", append)
            page.get_by_label("Live updates").check()
            expect(page.locator(".meta .version")).to_have_text("version 3")
            expect(_task(page, "After the gap")).to_be_visible()
            expect(_task(page, "Read the test")).to_have_attribute("data-status", "completed")

    def test_a_delta_that_does_not_fit_the_plan_shown_is_refused(
        self, page: Any, store: phasetodo.JsonlStore
    ) -> None:
        """applyDelta applies a delta only to the head it starts from (not another version, nor
        the same version of another history), by phase and by task."""
        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan")
            page.locator("li.task").first.wait_for()
            got = page.evaluate(
                """async () => {
                  const { applyDelta } = await import("/static/plan-live.js");
                  const task = (content, status = "pending") => ({ content, status });
                  const plan = { version: 4, head: "4-aaaaaaaaaaaaaaaa", counts: {}, phases: [
                    { name: "A", tasks: [task("a1"), task("a2")] },
                    { name: "B", tasks: [task("b1")] },
                  ] };
                  const head = { version: 5, head: "5-bbbbbbbbbbbbbbbb", counts: { tasks: 2 } };
                  const delta = (since, length, changes) => ({ ...head, since, length, changes });
                  const from = "4-aaaaaaaaaaaaaaaa";
                  const tasks = delta(from, 2, [{ at: 0, tasks: [[1, task("a2", "completed")]] }]);
                  const cut = delta(from, 1, []);
                  const phase = delta(from, 3, [{ at: 2, phase: { name: "C", tasks: [] } }]);
                  const hole = delta(from, 4, [{ at: 3, phase: { name: "D", tasks: [] } }]);
                  const behind = delta("3-aaaaaaaaaaaaaaaa", 2, []);
                  const branch = delta("4-cccccccccccccccc", 2, []);
                  return {
                    tasks: applyDelta(plan, tasks),
                    cut: applyDelta(plan, cut).phases.map((p) => p.name),
                    phase: applyDelta(plan, phase).phases.map((p) => p.name),
                    hole: applyDelta(plan, hole),
                    behind: applyDelta(plan, behind),
                    branch: applyDelta(plan, branch),
                    untouched: plan.phases[0].tasks[1].status,
                  };
                }"""
            )
        assert got["tasks"]["version"] == 5
        assert "since" not in got["tasks"]
        assert "changes" not in got["tasks"]
        assert [t["status"] for t in got["tasks"]["phases"][0]["tasks"]] == ["pending", "completed"]
        assert got["tasks"]["phases"][1]["name"] == "B"
        assert got["cut"] == ["A"]
        assert got["phase"] == ["A", "B", "C"]
        assert got["hole"] is None
        assert got["behind"] is None
        assert got["branch"] is None
        assert got["untouched"] == "pending"


class TestTeamFields:
    def test_owner_reason_and_after_are_shown_when_a_plan_has_them(
        self, page: Any, store: phasetodo.JsonlStore
    ) -> None:
        """Team plans' task fields (owner, blocked reason, after) appear beside the task."""
        from playwright.sync_api import expect

        with running_board(store) as (url, board):
            plan = board.plan("plan")
            tasks = plan["phases"][0]["tasks"]
            tasks[0].update(owner="ann")
            tasks[1].update(status="blocked", owner="bob", reason="waits for CI", after=["Read the test"])
            body = json.dumps(plan)
            page.route(
                f"{url}/api/sessions/plan",
                lambda route: route.fulfill(body=body, content_type="application/json"),
            )
            page.route(
                f"{url}/api/sessions/plan/stream",
                lambda route: route.fulfill(
                    body=f"event: plan\ndata: {body}\n\n", content_type="text/event-stream"
                ),
            )
            page.goto(f"{url}/s/plan")
            expect(_task(page, "Read the test").locator(".owner")).to_have_text("@ann")
            blocked = _task(page, "Find the bug")
            expect(blocked).to_have_attribute("data-status", "blocked")
            expect(blocked.locator(".owner")).to_have_text("@bob")
            expect(blocked.locator(".reason")).to_have_text("Blocked: waits for CI")
            expect(blocked.locator(".after")).to_have_text("After: Read the test")


class TestTodoPlans:
    def test_a_blocked_task_shows_its_blocker_and_unblocks(
        self, page: Any, store: phasetodo.JsonlStore
    ) -> None:
        """On a todo plan a blocked task shows its blocker; Unblock makes it pending, as a person's edit."""
        from playwright.sync_api import expect

        with phasetodo.Session.open("ship", store, profile="todo") as session:
            session.todo_write({"op": "init", "items": ["Build the wheel", "Upload it"]})
            session.todo_write({"op": "block", "task": "Upload it", "reason": "waiting for the token"})
        with running_board(store) as (url, _):
            page.goto(f"{url}/s/ship?token={TOKEN}")
            blocked = _task(page, "Upload it")
            expect(blocked).to_have_attribute("data-status", "blocked")
            expect(blocked.locator(".reason")).to_have_text("Blocked: waiting for the token")
            blocked.get_by_role("button", name="Unblock").click()
            expect(_task(page, "Upload it")).to_have_attribute("data-status", "pending")
        task = latest(store, "ship")[0].tasks[1]
        assert (task.status, task.reason) == (phasetodo.Status.PENDING, None)
        assert kinds(store, "ship")[-1] == ("user_edit", "board")


class TestScript:
    def test_every_page_loads_the_modules_without_a_console_error(
        self, page: Any, store: phasetodo.JsonlStore
    ) -> None:
        """Each page loads main.js and every module it imports as JavaScript, logs no error and renders."""
        from playwright.sync_api import expect

        console: list[str] = []
        scripts: dict[str, tuple[int, str]] = {}
        page.on("console", lambda message: message.type == "error" and console.append(message.text))
        page.on("response", lambda response: _note_script(scripts, response))
        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            expect(_task(page, "Patch it").get_by_role("button", name="Done")).to_be_visible()
            expect(page.locator("#live")).to_have_text("● live")
            pages = (("/", "tr.session-row"), ("/s/plan/history", "li.event"), ("/s/plan/v/1", "li.task"))
            for path, ready in pages:
                page.goto(f"{url}{path}")
                page.locator(ready).first.wait_for()
        assert set(scripts) == {path.name for path in STATIC.glob("*.js")}
        assert {name: status for name, (status, _) in scripts.items() if status != 200} == {}
        assert {kind for _, kind in scripts.values()} == {"text/javascript; charset=utf-8"}
        assert console == []

    def test_the_sessions_page_is_its_parts_and_no_stray_text(
        self, page: Any, store: phasetodo.JsonlStore
    ) -> None:
        """Heading, summary and table, and nothing beside them (an unpaged list once added "null")."""
        with running_board(store) as (url, _):
            page.goto(url)
            page.locator("tr.session-row").wait_for()
            kids = page.evaluate("[...document.querySelector('#main').childNodes].map((n) => n.nodeName)")
        assert kids == ["H1", "P", "TABLE"]


def _note_script(scripts: dict[str, tuple[int, str]], response: Any) -> None:
    """Note a script the page fetched from the board: its status and type, by file name."""
    path = urlsplit(response.url).path
    if path.startswith("/static/") and path.endswith(".js"):
        scripts[path.rpartition("/")[2]] = (response.status, response.headers.get("content-type", ""))


class TestEditing:
    def test_keyboard_alone_reaches_and_presses_done(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """Tab moves through the controls; Enter on Done records the edit."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            expect(_task(page, "Find the bug")).to_be_visible()
            for _ in range(60):  # bounded: the button is a few dozen stops away
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.getAttribute('aria-label')") == "Done: Find the bug":
                    break
            else:
                pytest.fail("Tab never reached the Done button of 'Find the bug'")
            page.keyboard.press("Enter")
            expect(_task(page, "Find the bug")).to_have_attribute("data-status", "completed")
        assert kinds(store, "plan")[-1] == ("user_edit", "board")

    def test_add_rename_and_edit_as_markdown(self, page: Any, store: phasetodo.JsonlStore) -> None:
        """Adding, renaming and a whole-list Markdown edit each land as a user edit."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            page.get_by_label("New task in Fix").fill("Add a regression test")
            page.get_by_label("New task in Fix").press("Enter")
            expect(_task(page, "Add a regression test")).to_be_visible()
            _task(page, "Patch it").get_by_role("button", name="Rename").click()
            page.get_by_label("New name for Patch it").fill("Patch the lexer")
            page.get_by_label("New name for Patch it").press("Enter")
            expect(_task(page, "Patch the lexer")).to_be_visible()
            page.get_by_role("button", name="Edit as Markdown").click()
            page.get_by_label("The list as Markdown").fill("# Only\n- [x] one\n- [ ] two\n")
            page.get_by_role("button", name="Save list").click()
            expect(page.get_by_role("heading", name="Only")).to_be_visible()
        assert [kind for kind, _ in kinds(store, "plan")] == ["write"] + ["user_edit"] * 3
        assert [t.content for t in latest(store, "plan")[0].tasks] == ["one", "two"]

    def test_a_stale_markdown_edit_keeps_the_text_and_changes_nothing(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """Saving Markdown written over an older version is refused; the text is kept to retry."""
        from playwright.sync_api import expect

        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            page.get_by_label("Live updates").uncheck()
            page.get_by_role("button", name="Edit as Markdown").click()
            page.get_by_label("The list as Markdown").fill("# Mine\n- [ ] my task\n")
            write_from_another_process(tmp_path / "store", "plan", DONE_READ)
            page.get_by_role("button", name="Save list").click()
            expect(page.locator("#message")).to_contain_text("Nothing changed")
            expect(page.locator(".md-editor .warn")).to_contain_text("it is now at 2")
            expect(page.get_by_label("The list as Markdown")).to_have_value("# Mine\n- [ ] my task\n")
        assert [kind for kind, _ in kinds(store, "plan")] == ["write", "write"]

    def test_history_shows_every_event_and_undo_restores_a_version(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """History lists each event with its diff; restoring version 1 is one more user edit."""
        from playwright.sync_api import expect

        write_from_another_process(
            tmp_path / "store", "plan", {"ops": [{"op": "rm", "task": "Find the bug"}]}, agent=None
        )
        with running_board(store) as (url, _):
            page.goto(f"{url}/s/plan/history?token={TOKEN}")
            events = page.locator("li.event")
            expect(events).to_have_count(2)
            expect(events.first).to_contain_text("v2")
            expect(events.first.locator("ul.diff")).to_contain_text("“Find the bug”")
            events.last.get_by_role("link", name="Plan at v1").click()
            expect(page.locator("li.task span.content")).to_have_count(3)
            page.get_by_role("button", name="Restore this version").click()
            page.wait_for_url(f"{url}/s/plan")
            expect(_task(page, "Find the bug")).to_be_visible()
        assert [kind for kind, _ in kinds(store, "plan")] == ["write", "write", "user_edit"]


class TestHistory:
    def test_a_long_history_shows_the_newest_first_and_follows_live(self, page: Any, tmp_path: Path) -> None:
        """200 newest events at first, the older ones on request; a new write joins at the top."""
        from playwright.sync_api import expect

        store = phasetodo.JsonlStore(tmp_path / "long", fsync=False)
        with phasetodo.Session.open("long", store) as session:
            session.todo_write(init({"A": ["start"]}))
            for number in range(204):
                session.todo_write({"ops": [{"op": "append", "phase": "A", "items": [f"step {number}"]}]})
        with running_board(store) as (url, _):
            page.goto(f"{url}/s/long/history")
            events = page.locator("li.event")
            expect(events).to_have_count(200)
            expect(events.first).to_have_attribute("data-version", "205")
            page.get_by_role("button", name="Show the 5 older events").click()
            expect(events).to_have_count(205)
            expect(events.last).to_have_attribute("data-version", "1")
            write_from_another_process(
                tmp_path / "long", "long", {"ops": [{"op": "done", "task": "start"}]}, agent="helper"
            )
            expect(events).to_have_count(206)
            expect(events.first).to_contain_text("by helper")
            expect(events.first.locator("ul.diff")).to_contain_text("“start”: in progress → done")
        store.close()


class TestSafety:
    def test_task_text_is_shown_as_text_and_never_runs(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """A task named like markup shows as those characters; no element or dialog comes of it."""
        from playwright.sync_api import expect

        params = {
            "ops": [
                {"op": "init", "list": [{"phase": "<script>alert(2)</script>", "items": [XSS, "<b>x</b>"]}]},
                {"op": "note", "task": XSS, "text": "<img src=y onerror=alert(3)>"},
            ]
        }
        write_from_another_process(tmp_path / "store", "xss", params, agent=None)
        with running_board(store) as (url, _):
            for path in ("/", "/s/xss", "/s/xss/history", "/s/xss/v/1"):
                page.goto(f"{url}{path}?token={TOKEN}")
                expect(page.locator("main")).to_contain_text(XSS)
                assert page.locator("main img, main script, main b").count() == 0, path
            page.goto(f"{url}/s/xss")
            expect(_task(page, XSS).locator("span.content")).to_have_text(XSS)
            expect(page.get_by_role("heading", name="<script>alert(2)</script>")).to_be_visible()
        assert page.dialogs == []
        assert page.errors == []


class TestForPeople:
    def test_a_plan_of_2000_tasks_is_shown_whole(self, page: Any, tmp_path: Path) -> None:
        """Every task of a long plan is on the page, with a bar per phase and a phase index."""
        from playwright.sync_api import expect

        store = phasetodo.JsonlStore(tmp_path / "big")
        phases = {f"Phase {p}": [f"Task {p}.{t}" for t in range(50)] for p in range(40)}
        with phasetodo.Session.open("big", store) as session:
            session.todo_write(init(phases))
        with running_board(store) as (url, _):
            page.goto(f"{url}/s/big")
            expect(page.locator("li.task")).to_have_count(2000)
            expect(page.locator("section.phase .bar")).to_have_count(40)
            expect(page.locator("nav.phase-index a")).to_have_count(40)
            page.get_by_placeholder("Filter tasks").fill("Task 39.4")
            expect(page.locator("li.task")).to_have_count(11)  # 39.4 and 39.40-39.49
        store.close()

    def test_light_and_dark_follow_the_system(self, browser: Any, store: phasetodo.JsonlStore) -> None:
        """The page is light on a light system and dark on a dark one."""
        with running_board(store) as (url, _):
            shades = {}
            for scheme in ("light", "dark"):
                context = browser.new_context(color_scheme=scheme)
                page = context.new_page()
                page.goto(f"{url}/s/plan")
                page.locator("li.task").first.wait_for()
                rgb = page.evaluate("getComputedStyle(document.body).backgroundColor")
                shades[scheme] = sum(int(c) for c in rgb[rgb.index("(") + 1 : -1].split(",")[:3])
                context.close()
        assert shades["light"] > 600 > 150 > shades["dark"]

    def test_screenshots_of_the_sessions_and_plan_pages(self, page: Any, tmp_path: Path) -> None:
        """Screenshots of a realistic store for the README (see the module docstring)."""
        from playwright.sync_api import expect

        store = phasetodo.JsonlStore(tmp_path / "shots")
        _realistic(store)
        folder = _shots(tmp_path)
        with running_board(store) as (url, _):
            page.goto(url)
            expect(page.locator("tr.session-row")).to_have_count(3)
            page.screenshot(path=str(folder / "board-sessions.png"))
            page.goto(f"{url}/s/parser-fix?token={TOKEN}")
            expect(_task(page, "Patch the tokenizer")).to_be_visible()
            page.screenshot(path=str(folder / "board-plan.png"))
        store.close()
        for name in ("board-sessions.png", "board-plan.png"):
            assert (folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _realistic(store: phasetodo.JsonlStore) -> None:
    """Three sessions as agents leave them: one under way, one just started, one finished."""
    with phasetodo.Session.open("parser-fix", store, agent="coder") as session:
        session.todo_write(
            init(
                {
                    "Explore": ["Read the failing test", "Find the parser bug"],
                    "Fix": ["Patch the tokenizer", "Add a regression test", "Rewrite the lexer"],
                    "Ship": ["Run the test suite", "Update the changelog"],
                }
            )
        )
        for ops in (
            [{"op": "note", "task": "Read the failing test", "text": "Fails on tabs only."}],
            [{"op": "done", "task": "Read the failing test"}, {"op": "done", "task": "Find the parser bug"}],
            [{"op": "note", "task": "Patch the tokenizer", "text": "Expand tabs before lexing."}],
            [{"op": "drop", "task": "Rewrite the lexer"}],
        ):
            session.todo_write({"ops": ops})
    with phasetodo.Session.open("docs-site", store, agent="writer") as session:
        outline = {
            "Outline": ["List the pages", "Pick a theme"],
            "Write": ["Quick start", "API reference", "FAQ"],
        }
        session.todo_write(init(outline))
        session.todo_write({"ops": [{"op": "done", "task": "List the pages"}]})
    with phasetodo.Session.open("release-1.2", store) as session:
        session.todo_write(init({"Release": ["Bump the version", "Tag", "Publish"]}))
        session.todo_write({"ops": [{"op": "done", "phase": "Release"}]})
