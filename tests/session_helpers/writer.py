"""A child process that writes todo_write calls to one session and acknowledges each.

Usage: ``python writer.py KIND WHERE SESSION TAG COUNT [GO_FILE]``. KIND is
``jsonl`` (WHERE a directory), ``sqlite`` (WHERE a database file) or
``postgres`` (WHERE a ``postgresql://`` DSN). Call k
appends the task ``TAG-k`` to the phase ``TAG``; once ``todo_write`` returns
(the event is durable) the script prints ``TAG-k VERSION`` and flushes. COUNT
``-1`` writes until killed. With GO_FILE it waits for that file to exist
first, so several writers start together.
"""

from __future__ import annotations

import os
import sys
import time

import phasetodo


def main(argv: list[str]) -> None:
    """Parse the arguments and write."""
    kind, where, session_id, tag, count = argv[:5]
    go = argv[5] if len(argv) > 5 else None
    prefix = {"jsonl": "jsonl:", "sqlite": "sqlite:", "postgres": ""}[kind]
    store = phasetodo.stores.store_from_url(prefix + where)
    session = phasetodo.Session.open(session_id, store, resume="keep", clear_delay=-1)
    while go is not None and not os.path.exists(go):
        time.sleep(0.005)
    k = 0
    while int(count) < 0 or k < int(count):
        item = f"{tag}-{k}"
        session.todo_write({"ops": [{"op": "append", "phase": tag, "items": [item]}]})
        sys.stdout.write(f"{item} {session.written}\n")
        sys.stdout.flush()
        k += 1
    session.close()
    store.close()


if __name__ == "__main__":
    main(sys.argv[1:])
