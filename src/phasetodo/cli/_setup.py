"""The verbs that set a store up: ``demo`` plays a scripted session into it, ``db init`` makes
PostgreSQL's tables ahead of the first write."""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import shlex
from typing import IO, Any

from .._core.codec import dump_phases
from .._views.markdown import phases_to_markdown
from ..errors import InvalidParams, InvalidStoreSpec, install_hint
from ..stores import PostgresStore
from ..stores._url import parse_store, shown
from ._context import OK, json_text, open_session, raw, store_text, usage

__all__ = ["DEMO_CALLS", "DEMO_SESSION", "run_db", "run_demo"]

#: The session ``phasetodo demo`` plays into unless ``--session`` names one.
DEMO_SESSION = "demo"

#: The scripted agent session ``phasetodo demo`` plays.
DEMO_CALLS: tuple[dict[str, Any], ...] = (
    {
        "ops": [
            {
                "op": "init",
                "list": [
                    {"phase": "Explore", "items": ["Read the failing test", "Find the parser bug"]},
                    {"phase": "Fix", "items": ["Patch the tokenizer", "Run the test suite"]},
                ],
            }
        ]
    },
    {"ops": [{"op": "start", "task": "Read the failing test"}]},
    {"ops": [{"op": "note", "task": "Read the failing test", "text": "Fails on tabs only."}]},
    {"ops": [{"op": "done", "task": "Read the failing test"}]},
    {"ops": [{"op": "append", "phase": "Fix", "items": ["Add a regression test", "Rewrite the lexer"]}]},
    {"ops": [{"op": "done", "task": "Find the parser bug"}, {"op": "drop", "task": "Rewrite the lexer"}]},
    {"ops": [{"op": "done", "task": "Patch the lexer"}]},
    {"ops": [{"op": "pending"}]},
)


def run_demo(args: argparse.Namespace, out: IO[str]) -> int:
    """``demo``: play :data:`DEMO_CALLS`, printing each call and what the model reads back."""
    explicit = getattr(args, "session", None)
    sid = explicit if explicit is not None else DEMO_SESSION
    text = out if not args.json else io.StringIO()
    with open_session(args, sid) as session:
        for number, params in enumerate(DEMO_CALLS, start=1):
            text.write(f"── call {number}: todo_write {json.dumps(params)}\n")
            try:
                result = session.todo_write(params)
            except InvalidParams as error:
                text.write(f"rejected, nothing applied:\n{error}\n\n")
                continue
            text.write(result["content"][0]["text"] + "\n\n")
        phases = tuple(session.phases)
        version = session.version
    store = store_text(args)  # never with a password: see it again with PGPASSWORD or a passfile
    if args.json:
        raw(out).write(
            json_text({"store": store, "session": sid, "version": version, "phases": dump_phases(phases)})
        )
        return OK
    out.write("── Markdown export\n" + phases_to_markdown(phases))
    out.write("── details.phases\n" + json.dumps(dump_phases(phases), indent=2) + "\n")
    out.write(
        f"── stored as session {sid!r} in {store} (version {version});"
        f" see it with: phasetodo --store {shlex.quote(store)} --session {shlex.quote(sid)} show\n"
    )
    return OK


def run_db(args: argparse.Namespace, out: IO[str]) -> int:
    """``db init DSN``: create PostgreSQL's tables and index ahead of the first write."""
    dsn = args.dsn
    try:
        kind = parse_store(dsn).kind
    except InvalidStoreSpec:
        kind = None
    if kind != "postgresql":
        usage(f"db init: {shown(dsn)!r} is not a PostgreSQL DSN (give postgresql://user@host/db)")
    if importlib.util.find_spec("psycopg") is None:
        usage(f"db init: PostgreSQL needs the 'postgres' extra: {install_hint('postgres')}")
    store = PostgresStore(dsn)
    try:
        store.init_schema()
    finally:
        store.close()
    if args.json:
        out.write(json_text({"schema": "ready", "database": store.where}))
    else:
        out.write(f"phasetodo's tables are ready in {store.where}\n")
    return OK
