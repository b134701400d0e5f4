"""The board as a person sees it (issue 35, item 7), in a real Chromium driven by Playwright.

Row buttons that look as enabled as they are, a legend for the graph's marks, a "Saved as
version N" message that follows the version the page shows, and a Done on a task that still
waits for others that says so and on what. Each test also leaves a screenshot of what it
checked (in ``$PHASETODO_SCREENSHOTS`` when set, else the test's temporary folder).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

import phasetodo

from ..web_support import TOKEN, init, running_board
from .test_web_board_views import _team
from .test_web_browser import _shots, _task

#: What the legend lists, with the graph's node it stands for (content) and the CSS that shows it.
KEYS = {
    "in progress": ("Lexer", "stroke"),
    "blocked": ("Docs", "stroke-dasharray"),
    "on the critical path": ("Parser", "stroke-width"),
    "selected": ("Tests", "fill"),
}

#: Reads a PNG in a blank page of the same browser: the darkest pixel's brightness, 0 to 1.
_DARKEST = """async (png) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width;
  canvas.height = img.height;
  const g = canvas.getContext("2d");
  g.drawImage(img, 0, 0);
  const px = g.getImageData(0, 0, canvas.width, canvas.height).data;
  let least = 255;
  for (let i = 0; i < px.length; i += 4) least = Math.min(least, (px[i] + px[i + 1] + px[i + 2]) / 3);
  return least / 255;
}"""


#: The opacity an element is drawn with: its own times every ancestor's.
_OPACITY = """b => {
  let o = 1;
  for (let e = b; e; e = e.parentElement) o *= +getComputedStyle(e).opacity;
  return o;
}"""


def _darkest(page: Any, png: bytes) -> float:
    """The darkest pixel of a screenshot, as Chromium decodes it (0 black, 1 white)."""
    blank = page.context.new_page()
    try:
        return float(blank.evaluate(_DARKEST, base64.b64encode(png).decode()))
    finally:
        blank.close()


@pytest.fixture
def solo(tmp_path: Path) -> Any:
    """A JSONL store with the parity plan ``plan`` at version 1."""
    store = phasetodo.JsonlStore(tmp_path / "solo")
    with phasetodo.Session.open("plan", store) as session:
        session.todo_write(init({"Explore": ["Read the test", "Find the bug"], "Fix": ["Patch it"]}))
    yield store
    store.close()


@pytest.fixture
def team(tmp_path: Path) -> Any:
    """A JSONL store with the team plan ``team``: Tests waits for Parser and Lexer, both claimed."""
    store = phasetodo.JsonlStore(tmp_path / "team")
    _team(store)
    yield store
    store.close()


class TestRowButtons:
    def test_they_look_enabled_without_a_hover(
        self, page: Any, solo: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """Start, Done and Drop on a row the mouse is not on are drawn at full strength: no
        faded ancestor, and their text is as dark in a screenshot as the page's own text."""
        from playwright.sync_api import expect

        with running_board(solo) as (url, _):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            row = _task(page, "Patch it")
            expect(row.get_by_role("button", name="Done")).to_be_visible()
            page.mouse.move(0, 0)
            page.screenshot(path=str(_shots(tmp_path) / "row-buttons.png"))
            for name in ("Start", "Done", "Drop"):
                button = row.get_by_role("button", name=name)
                assert button.evaluate(_OPACITY) == 1, name
                assert _darkest(page, button.screenshot()) < 0.3, name
            heading = page.get_by_role("heading", name="Fix")
            assert _darkest(page, heading.screenshot()) < 0.3


    def test_pause_and_unblock_look_enabled_too(
        self, page: Any, team: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """On a team plan, Pause on a claimed task and Unblock in the list and the team view are
        drawn at full strength without a hover."""
        from playwright.sync_api import expect

        with running_board(team) as (url, _):
            page.goto(f"{url}/s/team?token={TOKEN}")
            pause = _task(page, "Parser").get_by_role("button", name="Pause")
            unblock = _task(page, "Docs").get_by_role("button", name="Unblock")
            expect(unblock).to_be_visible()
            page.mouse.move(0, 0)
            for button in (pause, unblock):
                assert _darkest(page, button.screenshot()) < 0.3
            page.goto(f"{url}/s/team/team?token={TOKEN}")
            lane = page.get_by_role("button", name="Unblock")
            expect(lane).to_be_visible()
            page.mouse.move(0, 0)
            page.screenshot(path=str(_shots(tmp_path) / "team-buttons.png"))
            assert _darkest(page, lane.screenshot()) < 0.3


class TestGraphLegend:
    def test_each_mark_is_named_and_drawn_as_the_graph_draws_it(
        self, page: Any, team: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """The graph has a legend naming in progress, blocked, the critical path and the selected
        task, each swatch styled as the graph's node of that kind."""
        from playwright.sync_api import expect

        with running_board(team) as (url, _):
            page.goto(f"{url}/s/team/graph?token={TOKEN}")
            page.locator("svg.graph g.node", has_text="t3 Tests").click()
            expect(page.locator("svg.graph g.node.chosen")).to_have_count(1)
            legend = page.get_by_role("list", name="Legend")
            expect(legend).to_be_visible()
            page.screenshot(path=str(_shots(tmp_path) / "graph-legend.png"))
            for label, (content, prop) in KEYS.items():
                item = legend.locator("li", has_text=label)
                expect(item).to_have_count(1)
                style = f"r => getComputedStyle(r).getPropertyValue('{prop}')"
                shown = item.locator("rect").evaluate(style)
                drawn = page.locator("svg.graph g.node", has_text=content).locator("rect").evaluate(style)
                plain = page.locator("svg.graph g.node", has_text="Changelog").locator("rect").evaluate(style)
                assert shown == drawn != plain, label


class TestSavedMessage:
    def test_it_follows_the_version_the_page_shows(
        self, page: Any, solo: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """After a Done saved as version 2, a write elsewhere moves the head to version 3 and the
        message says the plan is at version 3 now, not only that it was saved as 2."""
        from playwright.sync_api import expect

        with running_board(solo) as (url, _):
            page.goto(f"{url}/s/plan?token={TOKEN}")
            _task(page, "Patch it").get_by_role("button", name="Done").click()
            message = page.locator("#message")
            expect(message).to_contain_text("Saved as version 2.")
            other = phasetodo.JsonlStore(tmp_path / "solo")
            try:
                with phasetodo.Session.open("plan", other, resume="keep") as session:
                    session.todo_write({"ops": [{"op": "note", "task": "Find the bug", "text": "tabs"}]})
            finally:
                other.close()
            expect(page.locator(".meta .version")).to_have_text("version 3")
            expect(message).to_contain_text("Saved as version 2. The plan is now at version 3")
            page.screenshot(path=str(_shots(tmp_path) / "saved-follows.png"))


class TestDoneOnAWaitingTask:
    def test_it_says_it_waits_and_on_what(
        self, page: Any, team: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """Done on Tests, which comes after Parser and Lexer (both still open), is saved and the
        message, a warning that stays, names both."""
        from playwright.sync_api import expect

        with running_board(team) as (url, _):
            page.goto(f"{url}/s/team?token={TOKEN}")
            _task(page, "Tests").get_by_role("button", name="Done").click()
            message = page.locator("#message")
            expect(message).to_contain_text("Saved as version 4.")
            expect(message).to_contain_text("“Tests” was still waiting for “Parser”, “Lexer”, not done yet.")
            expect(message).to_have_class("message warn")
            expect(_task(page, "Tests")).to_have_attribute("data-status", "completed")
            page.screenshot(path=str(_shots(tmp_path) / "done-waiting.png"))

    def test_a_task_waiting_for_nothing_says_nothing_more(
        self, page: Any, team: phasetodo.JsonlStore
    ) -> None:
        """Done on Parser, which comes after nothing, is a plain saved message."""
        from playwright.sync_api import expect

        with running_board(team) as (url, _):
            page.goto(f"{url}/s/team?token={TOKEN}")
            _task(page, "Parser").get_by_role("button", name="Done").click()
            message = page.locator("#message")
            expect(message).to_contain_text("Saved as version 4.")
            expect(message).to_have_class("message ok")
            assert "waiting" not in message.inner_text()
