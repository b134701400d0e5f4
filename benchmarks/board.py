"""The board on a big plan, in Chromium: first render, live-write latency, scrolling.

Usage: ``python -m benchmarks.board [--tasks 100000] [--phases 100] [--writes 5]``.

Builds one plan of ``--tasks`` tasks in a JSONL store, serves the board on
127.0.0.1 and opens it in Debian's Chromium (``/usr/bin/chromium``, the browser
tests' flags; nothing is downloaded). Prints:

- **first render**: from ``goto`` until the first task row is in the page, and the
  page's own ``performance.now()`` at that moment;
- **live write**: for each of ``--writes`` writes from another process, from the
  moment the write was recorded (the writer's clock) until the page shows its version;
- **scroll**: frame times while the page scrolls by a screen each frame, and the most
  task rows the page held at once (the list is virtualized).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from tests.web.chromium import ARGS, CHROMIUM

import phasetodo
from phasetodo.web import Board, create_app

TOKEN = "bench-token-0123456789"

#: One write from another process; it prints the wall time once the write is recorded.
_WRITER = """
import json, sys, time
import phasetodo
store = phasetodo.JsonlStore(sys.argv[1], fsync=False)
session = phasetodo.Session.open(sys.argv[2], store, resume="keep", clear_delay=-1)
session.todo_write(json.loads(sys.argv[3]))
print(json.dumps({"version": session.version, "at": time.time()}))
session.close()
store.close()
"""

#: Scroll a screen per frame for `frames` frames; the frame times and the most rows seen.
_SCROLL = """
async (frames) => {
  const times = [];
  let rows = 0;
  let last = performance.now();
  for (let i = 0; i < frames; i += 1) {
    window.scrollBy(0, window.innerHeight);
    await new Promise((done) => requestAnimationFrame(() => done()));
    const now = performance.now();
    times.push(now - last);
    last = now;
    rows = Math.max(rows, document.querySelectorAll("li.task").length);
  }
  return { times, rows };
}
"""


def build(where: Path, tasks: int, phases: int) -> phasetodo.JsonlStore:
    """A store holding session ``big``: ``tasks`` tasks in ``phases`` phases."""
    store = phasetodo.JsonlStore(where, fsync=False)
    per = tasks // phases
    plan = [{"phase": f"Phase {p}", "items": [f"Task {p}.{t}" for t in range(per)]} for p in range(phases)]
    with phasetodo.Session.open("big", store) as session:
        session.todo_write({"ops": [{"op": "init", "list": plan}]})
    return store


@contextmanager
def serve(store: phasetodo.Store) -> Iterator[str]:
    """The board on a free port of 127.0.0.1, stopped on exit."""
    board = Board(store)
    app = create_app(board, token=TOKEN)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        board.close()
        server.should_exit = True
        thread.join(30)
        sock.close()


def write(where: Path, number: int) -> dict[str, Any]:
    """One write from another process (a task done: the plan is at the task limit, so no
    append): the version it made and when it was recorded."""
    params = {"ops": [{"op": "done", "task": f"Task 0.{number}"}]}
    done = subprocess.run(
        [sys.executable, "-c", _WRITER, str(where), "big", json.dumps(params)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit("the writer failed:\n" + done.stderr)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _shown_at(page: Any, version: int) -> float:
    """The wall time (the page's clock) at which the page first showed ``version``."""
    page.wait_for_function(
        "(v) => { const n = document.querySelector('.meta .version');"
        " if (n && n.textContent === 'version ' + v) {"
        " window.shownAt = window.shownAt || Date.now(); return true; }"
        " return false; }",
        arg=version,
        polling="raf",
        timeout=60_000,
    )
    at: float = page.evaluate("window.shownAt") / 1000
    page.evaluate("window.shownAt = 0")
    return at


def main() -> None:
    """Run the measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--phases", type=int, default=100)
    parser.add_argument("--writes", type=int, default=5)
    parser.add_argument("--frames", type=int, default=120)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp) / "store"
        started = time.perf_counter()
        store = build(where, args.tasks, args.phases)
        print(
            f"plan: {args.tasks} tasks in {args.phases} phases, "
            f"built in {time.perf_counter() - started:.1f} s"
        )
        with serve(store) as url, sync_playwright() as play:
            browser = play.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            started = time.perf_counter()
            page.goto(f"{url}/s/big?token={TOKEN}")
            page.locator("li.task").first.wait_for(timeout=60_000)
            wall = time.perf_counter() - started
            inside = page.evaluate("performance.now()") / 1000
            rows = page.locator("li.task").count()
            print(
                f"first render: {wall:.2f} s from goto (page clock {inside:.2f} s); "
                f"{rows} task rows in the page"
            )
            delays = []
            for number in range(args.writes):
                made = write(where, number)
                delays.append(_shown_at(page, made["version"]) - made["at"])
            shown = ", ".join(f"{d:.2f}" for d in delays)
            print(f"live write: median {statistics.median(delays):.2f} s, max {max(delays):.2f} s ({shown})")
            scrolled = page.evaluate(_SCROLL, args.frames)
            times = sorted(scrolled["times"])
            p95 = times[int(len(times) * 0.95) - 1]
            print(
                f"scroll: {args.frames} frames of a screen each, "
                f"frame median {statistics.median(times):.1f} ms, "
                f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms; at most {scrolled['rows']} task rows in the page"
            )
            browser.close()
        store.close()


if __name__ == "__main__":
    main()
