"""The verbs for team plans: ``ready`` shows who is on what and what may start next."""

from __future__ import annotations

import argparse
from typing import IO

from .._profiles.team_engine import ready_tasks
from .._profiles.team_summary import format_team_head
from ._context import OK, json_text, open_session, raw

__all__ = ["run_ready"]


def run_ready(args: argparse.Namespace, out: IO[str]) -> int:
    """``ready [--agent NAME]``: the ready tasks, who is on what and what is blocked."""
    with open_session(args, must_exist=True) as session:
        phases = tuple(session.refresh())
    if args.json:
        ready = [{"phase": p, "task": t.content} for p, t in ready_tasks(phases)]
        raw(out).write(json_text(ready))
        return OK
    out.write(format_team_head(phases, getattr(args, "agent", None)) + "\n")
    return OK
