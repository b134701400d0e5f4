"""The ``git`` verbs (``git init``, ``git merge-driver``) and ``--at REF``, the plan at a git ref."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Sequence
from typing import IO

from .._core.model import Phase
from .._planmerge import NotedConflict
from ..errors import GitPlanError
from ..gitplan import Conflict, init_repo, merge_files, store_at
from ._context import DEFAULT_SESSION, OK, USAGE, _Exit, json_text, raw, usage

__all__ = ["AT_VERBS", "at_ref", "run_git"]

#: The verbs that read a plan as of a ref (``--at``); every other verb refuses the option.
AT_VERBS = ("show", "export", "history")


def run_git(args: argparse.Namespace, out: IO[str]) -> int:
    """``git init`` and ``git merge-driver BASE OURS THEIRS [PATH]``."""
    if args.action == "init":
        try:
            report = init_repo(args.repo)
        except GitPlanError as error:
            usage(f"git init: {error}")
        if args.json:
            raw(out).write(
                json_text(
                    {
                        "store": str(report.store),
                        "made_store": report.made_store,
                        "added_attributes": report.added_attributes,
                        "set_driver": report.set_driver,
                        "ignored": report.ignored,
                    }
                )
            )
            return OK
        steps = [
            f"made {report.store}" if report.made_store else f"{report.store} was there",
            "added merge=phasetodo to .gitattributes" if report.added_attributes else ".gitattributes had it",
            "registered the merge driver" if report.set_driver else "the merge driver was registered",
        ]
        out.write("git init: " + "; ".join(steps) + "\n")
        if report.ignored:
            out.write(
                f"git init: warning: the repository's ignore rules leave {report.store.name}/ out, so the "
                f"plan would not be committed; add '!{report.store.name}/' to .gitignore\n"
            )
        return OK
    try:
        result = merge_files(args.base, args.ours, args.theirs)
    except GitPlanError as error:
        raise _Exit(USAGE, f"git merge-driver: {args.path or args.ours}: {error}") from error
    where = args.path or args.ours
    noted = [_noted(c, result.phases) for c in result.conflicts]
    if args.json:
        raw(out).write(
            json_text(
                {
                    "path": where,
                    "events": len(result.events),
                    "common": result.common,
                    "conflicts": [n.to_json() for n in noted],
                }
            )
        )
    elif noted:
        import sys

        head = f"phasetodo: {where}: merged; {len(noted)} conflict(s) recorded (see phasetodo history):\n"
        sys.stderr.write(head + "".join(f"  {n.line()}\n" for n in noted))
    return OK


def _noted(conflict: Conflict, phases: Sequence[Phase]) -> NotedConflict:
    """The conflict with the task and phase its note is on; a conflict noted on no task (a plan
    without tasks) names its phase, else the plan."""
    found = conflict.noted(phases)
    if found is not None:
        return found
    return NotedConflict(conflict.phase or "the plan", conflict.task or "", None, conflict.text())


@contextlib.contextmanager
def at_ref(args: argparse.Namespace) -> Iterator[None]:
    """With ``--at REF``: point ``args.store`` at a read-only copy of the log at that ref."""
    ref = getattr(args, "at", None)
    if ref is None:
        yield
        return
    if args.verb not in AT_VERBS:
        usage(f"--at: only {', '.join(AT_VERBS)} read a plan as of a ref; {args.verb} changes the plan now")
    if getattr(args, "store", None) is not None:
        usage("--at: reads the repository's .phasetodo/ at the ref; leave --store out")
    sid = getattr(args, "session", DEFAULT_SESSION)
    try:
        with store_at(ref, sid) as store:
            args.store = str(store.directory)
            yield
    except GitPlanError as error:
        raise _Exit(1, str(error)) from error
