"""A child process that watches one session and prints each event's version as it lands.

Usage: ``python watcher.py STORE SESSION COUNT``: STORE as ``--store`` takes it.
Prints ``ready`` once watching, then ``VERSION`` per event, and exits after
version COUNT (or after 60 quiet seconds).
"""

from __future__ import annotations

import sys

import phasetodo


def main(argv: list[str]) -> None:
    """Watch and print."""
    where, session_id, count = argv[0], argv[1], int(argv[2])
    store = phasetodo.stores.store_from_url(where)
    session = phasetodo.Session.open(session_id, store, resume="keep")
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    for event in session.watch(timeout=60, after=0):
        sys.stdout.write(f"{event.version}\n")
        sys.stdout.flush()
        if event.version >= count:
            break
    session.close()
    store.close()


if __name__ == "__main__":
    main(sys.argv[1:])
