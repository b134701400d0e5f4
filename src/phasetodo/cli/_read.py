"""The reading verbs: ``show``, ``view``, ``export``, ``history`` and ``verify``.

They never create anything: a store or session that is not there is an error (exit 1).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from .._core.codec import dump_phases
from .._core.model import Phase
from .._planmerge import NotedConflict, noted_conflicts
from .._profiles.registry import CallContext
from .._views.diff import diff_phases
from .._views.markdown import phases_to_markdown
from .._views.summary import format_summary
from ..errors import InvalidSessionId, PhasetodoError
from ..gitplan import CONFLICT_SOURCE
from ..integrations._options import make_tool
from ..integrations.beads import phases_to_beads
from ..stores import Verification, check_session_id
from ._context import (
    DEFAULT_SESSION,
    OK,
    OP_ERRORS,
    check_session,
    json_text,
    open_session,
    open_store,
    plural,
    raw,
    store_text,
    task_count,
    usage,
)
from ._report import is_team, show_tree

__all__ = ["run_export", "run_history", "run_show", "run_verify", "run_view"]


def run_show(args: argparse.Namespace, out: IO[str]) -> int:
    """``show``: the tree, or with ``--json`` the phases."""
    with open_session(args, must_exist=True) as session:
        session.refresh()
        if args.json:
            raw(out).write(json_text(dump_phases(session.phases)))
        else:
            show_tree(session.phases, args, out)
    return OK


def run_view(args: argparse.Namespace, out: IO[str]) -> int:
    """``view``: what the plan's tool shows of it, read only (the todo tool's ``view`` on a todo plan)."""
    with open_session(args, must_exist=True) as session:
        phases = tuple(session.refresh())
        read = session.profile.read
        now = float(session.clock())
        shared = session.profile.shared
        context = CallContext(
            session.agent, session.owner if shared else None, None, now,
            renewals=session.renewals if shared else {},
        )
        text = read(phases, context) if read is not None else format_summary(phases)
        details = make_tool(session, None).details()
    if args.json:
        raw(out).write(json_text({"text": text, **details}))
    else:
        out.write(text + "\n")
    return OK


def run_export(args: argparse.Namespace, out: IO[str]) -> int:
    """``export [PATH]``: the list as Markdown (lossless on a team plan) or beads JSONL, to stdout or PATH."""
    with open_session(args, must_exist=True) as session:
        phases = session.refresh()
        if args.format == "beads":
            text = phases_to_beads(phases)
        else:
            text = phases_to_markdown(phases, lossless=is_team(phases))
    if args.path is None or args.path == "-":
        if args.json:
            raw(out).write(json_text({"markdown": text}))
        elif out.isatty():
            out.write(text)  # escaped: task text must not act on the terminal
        else:
            raw(out).write(text)  # the Markdown itself, byte for byte
        return OK
    try:
        Path(args.path).write_text(text, encoding="utf-8")
    except OSError as error:
        usage(f"export: cannot write {args.path}: {error.strerror or error}")
    if args.json:
        raw(out).write(json_text({"path": args.path, "bytes": len(text.encode("utf-8"))}))
    return OK


def _change_summary(before: Sequence[Phase], after: Sequence[Phase]) -> str:
    """A few words on what one event did, such as ``+2 tasks, 1 status``."""
    change = diff_phases(before, after)
    counts = (
        (len(change.phases_added), "+", "phase"),
        (len(change.phases_removed), "-", "phase"),
        (len(change.added), "+", "task"),
        (len(change.removed), "-", "task"),
        (len(change.status_changed), "", "status change"),
        (len(change.notes_added), "+", "note"),
        (len(change.notes_removed), "-", "note"),
    )
    words = [f"{sign}{plural(n, noun)}" for n, sign, noun in counts if n]
    return ", ".join(words) if words else "no change"


def _history_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """One row per event of the session: when, what kind, and what it changed."""
    rows: list[dict[str, Any]] = []
    with open_session(args, must_exist=True) as session:
        previous: tuple[Phase, ...] = ()
        for event in session.events():
            phases = tuple(event.phases)
            rows.append(
                {
                    "version": event.version,
                    "time": datetime.fromtimestamp(event.time, UTC).isoformat(timespec="seconds"),
                    "kind": event.kind,
                    "source": event.source,
                    "agent": event.agent,
                    "tasks": task_count(phases),
                    "open": sum(1 for p in phases for t in p.tasks if t.status.is_open),
                    "summary": _change_summary(previous, phases),
                }
            )
            if event.source == CONFLICT_SOURCE:  # what a git merge of the plan could not reconcile
                rows[-1]["conflicts"] = [c.to_json() for c in noted_conflicts(previous, phases)]
            previous = phases
    return rows


def run_history(args: argparse.Namespace, out: IO[str]) -> int:
    """``history``: the session's events with their times."""
    rows = _history_rows(args)
    if args.json:
        raw(out).write(json_text(rows))
        return OK
    for row in rows:
        kind = row["kind"] if row["source"] is None else f"{row['kind']} ({row['source']})"
        out.write(
            f"{row['version']:>4}  {row['time']}  {kind:<18}  {plural(row['tasks'], 'task')}, "
            f"{row['open']} open  [{row['summary']}]\n"
        )
        for conflict in row.get("conflicts", ()):
            out.write(f"        {NotedConflict(**conflict).line()}\n")
    if not rows:
        out.write("No events yet.\n")
    return OK


def run_verify(args: argparse.Namespace, out: IO[str]) -> int:
    """``verify``: check every record of the session against its hash chain and version order.

    Exits 0 when the chain holds over every record, 1 naming the first version whose
    record was altered, removed, reordered or carries no hash (or, with ``--expect``,
    when the newest hash is not the one kept elsewhere). The log is read as stored, not opened as a
    session, so a log too damaged to open is checked too.
    """
    spec = store_text(args)
    sid = getattr(args, "session", DEFAULT_SESSION)
    try:
        check_session_id(sid)
    except InvalidSessionId as error:
        usage(f"--session {sid!r}: {error}")
    try:
        store = open_store(getattr(args, "store", None), must_exist=True)
    except (PhasetodoError, OSError) as error:
        usage(f"--store {spec}: cannot open the store: {error}")
    try:
        check_session(store, sid, spec)
        check = getattr(store, "verify", None)
        if not callable(check):
            usage(f"verify: the store {spec} cannot verify its logs")
        found: Verification = check(sid)
    finally:
        store.close()
    expected = getattr(args, "expect", None)
    if expected is not None:
        found = found.expecting(expected)
    if args.json:
        raw(out).write(json_text({"session": sid, **found.to_json()}))
    elif found.ok:
        head = f"; newest hash {found.head}" if found.head else ""
        out.write(f"session {sid}: {found}{head}\n")
    else:
        out.write(f"session {sid}: NOT VERIFIED: {found}\n")
    return OK if found.ok else OP_ERRORS
