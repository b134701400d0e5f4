"""One agent claiming one named task at the same moment as others.

Usage: team_claim.py KIND WHERE PLAN AGENT TASK GO_FILE

Opens the plan, waits until GO_FILE exists, makes one ``start {task}`` call and
prints ``won`` or ``lost <error>``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import phasetodo


def main() -> None:
    kind, where, plan, agent, task, go = sys.argv[1:7]
    store: phasetodo.Store
    if kind == "postgres":
        store = phasetodo.PostgresStore(where)
    else:
        store = phasetodo.JsonlStore(where) if kind == "jsonl" else phasetodo.SqliteStore(where)
    with phasetodo.Session.open(plan, store=store, profile="team", agent=agent) as session:
        session.refresh()
        while not Path(go).exists():
            time.sleep(0.001)
        result = session.todo_write({"ops": [{"op": "start", "task": task}]})
    store.close()
    if result.get("isError"):
        print("lost", result["details"]["errors"][0], flush=True)
    else:
        print("won", flush=True)


if __name__ == "__main__":
    main()
