"""One agent of a team race, run as its own process.

Usage: team_worker.py KIND WHERE PLAN AGENT GO_FILE

Opens the plan, waits until GO_FILE exists (so every worker starts together), then loops:
claim the next ready task (``start {}``), complete it (``done``, which
also picks up the next ready one), until no task is open. It reads the plan
(no write) while nothing is ready. Prints one line
per completed task, ``done <task>``, and ``calls <n>`` at the end.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import phasetodo


def _any_ready(phases: tuple[phasetodo.Phase, ...]) -> bool:
    closed = {t.content for p in phases for t in p.tasks if t.status.is_closed}
    return any(
        t.status is phasetodo.Status.PENDING and t.owner is None and set(t.after) <= closed
        for p in phases
        for t in p.tasks
    )


def _any_open(phases: tuple[phasetodo.Phase, ...]) -> bool:
    return any(not t.status.is_closed for p in phases for t in p.tasks)


def main() -> None:
    kind, where, plan, agent, go = sys.argv[1:6]
    store: phasetodo.Store
    if kind == "postgres":
        store = phasetodo.PostgresStore(where)
    else:
        store = phasetodo.JsonlStore(where) if kind == "jsonl" else phasetodo.SqliteStore(where)
    calls = 0
    with phasetodo.Session.open(plan, store=store, profile="team", agent=agent, resume="keep") as session:
        session.refresh()  # everything imported and opened before the start
        while not Path(go).exists():
            time.sleep(0.001)
        task = None
        while True:
            if task is None and not _any_ready(session.refresh()):
                if not _any_open(session.phases):
                    break
                time.sleep(0.002)  # nothing ready yet: others are still on what it waits for
                continue
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
            time.sleep(random.uniform(0, 0.004))  # the work itself, so claims interleave
            result = session.todo_write({"ops": [{"op": "done", "task": task}]})
            calls += 1
            assert not result.get("isError"), result["content"][0]["text"]
            print("done", task, flush=True)
            task = result["details"]["task"]  # completing picks up the next ready task
    store.close()
    print("calls", calls, flush=True)


if __name__ == "__main__":
    main()
