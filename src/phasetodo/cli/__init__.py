"""The ``phasetodo`` command: look at and edit the list an agent keeps.

It works on one session of a session store: ``--store STORE`` (a store
string: a folder or ``jsonl:PATH`` for the JSONL store, ``sqlite:FILE`` or a
``*.db`` file for SQLite, ``postgresql://...`` for PostgreSQL, ``memory:``;
default ``$PHASETODO_HOME/sessions`` if set, else ``./.phasetodo``) and
``--session ID`` (default ``default``). ``apply`` is one ``todo_write`` call,
as an agent makes it; every other change (``edit``, ``import``, ``append``,
``start``, ``done``, ``drop``, ``rm``, ``undo``, and ``block`` and ``unblock`` on a
team plan) is recorded as a user edit. Targets are matched as the reference's
``/todo`` command matches them: tasks before phases, an open task before closed
ones, a unique phase prefix (see :mod:`phasetodo._core.fuzzy`).
``db init DSN`` creates the PostgreSQL tables ahead of the first write.

Exit status: 0 done; 1 op errors were reported (the rest still applied, as
in the tool), or the session or store to read does not exist; 2 bad usage or
invalid input (nothing changed). With ``--json`` every verb prints one JSON
document, and an error is the object ``{"error": {"status", "message", "problems"}}``.

Task text is shown with control characters, C1 and bidi controls escaped in
every line (``--json`` escapes them as ``\\uXXXX``), so a list cannot drive the
terminal it is printed on.
"""

from __future__ import annotations

from ._args import parser as _parser  # noqa: F401  (for the tests and the docs build, as before)
from ._context import CLOSED_PIPE, DEFAULT_SESSION, DEFAULT_STORE
from ._edit import MAX_INPUT_BYTES
from ._main import main
from ._setup import DEMO_CALLS, DEMO_SESSION

__all__ = [
    "CLOSED_PIPE",
    "DEFAULT_SESSION",
    "DEFAULT_STORE",
    "DEMO_CALLS",
    "DEMO_SESSION",
    "MAX_INPUT_BYTES",
    "main",
]
