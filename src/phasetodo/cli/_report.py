"""What the verbs print about a list: the tree, and what an edit changed.

The changing verbs all end the same way: the change lines and the tree, or with
``--json`` both as data. A person's ops go through :mod:`phasetodo.person`, so
the command and the board give an edit one meaning.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO, Any

from .. import person
from .._core.codec import dump_phases
from .._core.model import Phase
from .._views.diff import diff_phases, format_diff
from .._views.render import render_rich, render_text
from ..errors import InvalidParams
from ..session import Session
from ._context import OK, OP_ERRORS, USAGE, _Exit, json_text, raw, safe

__all__ = ["is_team", "person_clear", "person_edit", "report_edit", "show_tree", "user_edit"]


def show_tree(phases: Sequence[Phase], args: argparse.Namespace, out: IO[str]) -> None:
    """Print the tree: with rich on a terminal, as plain text otherwise.

    rich is used when it is installed, ``--plain`` is not given and the output
    is a terminal (or rich is told to treat it as one, as with ``FORCE_COLOR``);
    piped output is the plain tree, which has the same rows, never wrapped.
    Both escape the task text themselves.
    """
    collapsed = bool(getattr(args, "collapsed", False))
    if not getattr(args, "plain", False):
        try:
            from rich.console import Console
        except ImportError:
            pass
        else:
            console = Console(file=raw(out))
            if console.is_terminal:
                console.print(render_rich(phases, collapsed=collapsed))
                return
    out.write(render_text(phases, collapsed=collapsed))


def report_edit(
    session: Session,
    before: Sequence[Phase],
    args: argparse.Namespace,
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    """Print what an edit changed and the tree (or, with ``--json``, both as data)."""
    change = format_diff(diff_phases(before, session.phases))
    if args.json:
        raw(out).write(
            json_text(
                {
                    "version": session.version,
                    "changes": [] if change == "No changes." else change.split("\n"),
                    "errors": list(errors),
                    "phases": dump_phases(session.phases),
                }
            )
        )
        return
    out.write(change + "\n\n")
    show_tree(session.phases, args, out)


def user_edit(session: Session, phases: Sequence[Phase], source: str, expected: int) -> None:
    """Record ``phases`` as a user edit, unless they equal the list already stored."""
    if tuple(phases) == tuple(session.phases):
        return
    session.user_edit(phases, source=source, expected_version=expected)


def is_team(phases: Sequence[Phase]) -> bool:
    """Whether tasks carry owners, reasons or dependencies, which only lossless Markdown keeps."""
    return any(t.has_team_fields for p in phases for t in p.tasks)


def person_edit(
    session: Session,
    ops: list[dict[str, Any]],
    source: str,
    args: argparse.Namespace,
    out: IO[str],
) -> int:
    """Run ops as a person's edit (:mod:`phasetodo.person`); report changes and op errors."""
    before = tuple(session.phases)
    try:
        outcome = person.apply_edit(session, ops, source=source)
    except InvalidParams as error:
        raise _Exit(USAGE, f"{source}: {error}\nnothing changed", error.problems) from error
    if outcome.errors and person.all_or_nothing(session):  # team, strict and todo plans: change nothing
        message = _tagged(source, "; ".join(outcome.errors))
        raise _Exit(OP_ERRORS, f"{message}; nothing changed", outcome.errors)
    if not args.json:
        for problem in outcome.errors:
            sys.stderr.write(safe(f"phasetodo: {_tagged(source, problem)}\n"))
    report_edit(session, before, args, out, outcome.errors)
    return OP_ERRORS if outcome.errors else OK


def person_clear(session: Session, source: str, args: argparse.Namespace, out: IO[str]) -> int:
    """Remove every task and phase as a person's edit (``rm --all``) and report the change."""
    before = tuple(session.phases)
    person.remove_everything(session, source=source)
    report_edit(session, before, args, out, ())
    return OK


def _tagged(verb: str, problem: str) -> str:
    """``problem`` after ``verb: ``, unless the engine's text already begins so (``start: ...``)."""
    return problem if problem.startswith(f"{verb}: ") else f"{verb}: {problem}"
