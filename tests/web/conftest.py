"""The browser fixtures of the board's tests: one headless Chromium per module, a fresh page per test.

Outside CI the tests that use them skip, saying why, when Chromium or the ``playwright``
package is missing; in CI (``CI`` set) they fail instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from .chromium import ARGS, CHROMIUM, WAIT_MS, unavailable


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module; never downloaded, never skipped in CI."""
    why = unavailable()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run in CI: {why}")
        pytest.skip(f"browser tests skipped outside CI: {why}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        chromium = play.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (own storage) that records every dialog; a script error fails the test."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.dialogs = []
    page.errors = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    context.close()
    assert page.errors == [], "the page's script failed"
