"""Debian's Chromium for the board's browser tests: where it is, its flags, and whether it can run.

Nothing is downloaded: the browser is ``/usr/bin/chromium`` (``apt-get install -y chromium``).
"""

from __future__ import annotations

from pathlib import Path

import phasetodo.web

CHROMIUM = Path("/usr/bin/chromium")
#: The board's static files as the package ships them.
STATIC = Path(phasetodo.web.__file__).parent / "static"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
XSS = "<img src=x onerror=alert(1)>"
DONE_READ = {"ops": [{"op": "done", "task": "Read the test"}]}
#: How long a browser-side wait may take before the test fails (a bound, not a measurement).
WAIT_MS = 15_000


def unavailable() -> str | None:
    """Why the browser tests cannot run here, or None when Chromium and Playwright are in place."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install -e '.[test]')"
    return None
