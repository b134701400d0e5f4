"""One agent of a team race, run as its own process.

Usage: team_worker.py KIND WHERE PLAN AGENT GO_FILE

Waits until GO_FILE exists (so every worker starts together), then loops:
claim the next ready task (``start {}``), complete it (``done``, which
also picks up the next ready one), until no task is open. Prints one line
per completed task, ``done <task>``, and ``calls <n>`` at the end.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import phasetodo


def main() -> None:
    kind, where, plan, agent, go = sys.argv[1:6]
    store = phasetodo.JsonlStore(where) if kind == "jsonl" else phasetodo.SqliteStore(where)
    while not Path(go).exists():
        time.sleep(0.005)
    calls = 0
    with phasetodo.Session.open(plan, store=store, profile="team", agent=agent, resume="keep") as session:
        task = None
        while True:
            if task is None:
                result = session.todo_write({"ops": [{"op": "start"}]})
                calls += 1
                assert not result.get("isError"), result["content"][0]["text"]
                task = result["details"]["task"]
            if task is None:
                phases = result["details"]["phases"]
                if not any(t["status"] in ("pending", "in_progress") for p in phases for t in p["tasks"]):
                    break
                time.sleep(0.002)  # every ready task is taken; others are still working
                continue
            result = session.todo_write({"ops": [{"op": "done", "task": task}]})
            calls += 1
            assert not result.get("isError"), result["content"][0]["text"]
            print("done", task, flush=True)
            task = result["details"]["task"]  # completing picks up the next ready task
    store.close()
    print("calls", calls, flush=True)


if __name__ == "__main__":
    main()
