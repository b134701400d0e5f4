"""The verbs that name a target: ``start``, ``done``, ``drop`` and ``rm``.

The target is a task or a phase, matched as the reference's ``/todo`` command
matches it (:func:`phasetodo._core.fuzzy.resolve`). With no target ``done``,
``drop`` and ``rm`` touch every task, so they need ``--all``. With ``--agent``
the change is that agent's own team call; otherwise it is a person's edit.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO, Any

from .. import person
from .._core.fuzzy import AmbiguousTarget, Kind, Target, TargetNotFound, resolve
from .._core.model import Phase, Status
from ..errors import InvalidParams
from ..session import Session
from ._context import (
    OK,
    OP_ERRORS,
    USAGE,
    _Exit,
    json_text,
    open_session,
    plural,
    raw,
    safe,
    task_count,
    usage,
)
from ._report import person_clear, person_edit

__all__ = ["find_target", "run_status"]


def find_target(
    args: argparse.Namespace, phases: Sequence[Phase], kinds: tuple[Kind, ...] = ("task", "phase")
) -> Target | None:
    """What the verb's TASK|PHASE words name (``None`` when they are blank); exit 1 on a miss.

    ``--task`` or ``--phase`` narrows ``kinds`` to one.
    """
    query = " ".join(args.target)
    if not query.strip():
        return None
    if getattr(args, "task", False):
        kinds = ("task",)
    elif getattr(args, "phase", False):
        kinds = ("phase",)
    try:
        return resolve(query, phases, kinds)
    except (TargetNotFound, AmbiguousTarget) as error:
        raise _Exit(OP_ERRORS, f"{args.verb}: {error}") from error


_EVERYTHING = {
    "done": "mark every task completed",
    "drop": "mark every task abandoned",
    "rm": "remove every task",
}


def _confirm_everything(args: argparse.Namespace, phases: Sequence[Phase]) -> None:
    """A verb with no target touches every task: it needs --all, or a yes on a terminal."""
    count = plural(task_count(phases), "task")
    what = f"{args.verb}: with no target this would {_EVERYTHING[args.verb]} ({count})"
    if sys.stdin.isatty() and sys.stderr.isatty() and not args.json:
        sys.stderr.write(safe(f"phasetodo: {what}. Go ahead? [y/N] "))
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().casefold()
        if answer in ("y", "yes"):
            return
        usage(f"{args.verb}: not confirmed; nothing changed")
    usage(f"{what}; pass --all to do that, or name a TASK or PHASE. Nothing changed")


def _as_agent(session: Session, ops: list[dict[str, Any]], args: argparse.Namespace, out: IO[str]) -> int:
    """Make ``ops`` one team call as ``--agent``: claims and permissions are the agent's."""
    try:
        result = session.write({"ops": ops}, agent=args.agent, profile="team")
    except InvalidParams as error:
        raise _Exit(USAGE, f"{args.verb}: {error}\nnothing was applied", error.problems) from error
    if args.json:
        raw(out).write(json_text(result.to_json()))
    else:
        out.write(result.text + "\n")
    return OP_ERRORS if result.is_error else OK


def _agent_status(session: Session, phases: Sequence[Phase], args: argparse.Namespace, out: IO[str]) -> int:
    """The verb as ``--agent``'s team call; ``start`` with no target claims the next ready task."""
    if args.verb == "start" and not " ".join(args.target).strip():
        return _as_agent(session, [{"op": "start"}], args, out)
    found = find_target(args, phases)
    if found is None and not args.all:
        _confirm_everything(args, phases)
    mine = {"op": args.verb} if found is None else {"op": args.verb, found.kind: found.name}
    return _as_agent(session, [mine], args, out)


def _start_op(target: Target | None, phases: Sequence[Phase]) -> dict[str, Any]:
    """The op ``start`` makes: the task named, or the first pending task of the phase named."""
    if target is None:
        usage("start: name the TASK to start (or a PHASE to start its first open task)")
    if target.kind == "phase":
        phase = next(p for p in phases if p.name == target.name)
        first = next((t for t in phase.tasks if t.status is Status.PENDING), None)
        if first is None:
            raise _Exit(OP_ERRORS, f'start: phase "{phase.name}" has no pending task')
        target = Target("task", first.content, phase.name)
    return {"op": "start", "task": target.name}


def run_status(args: argparse.Namespace, out: IO[str]) -> int:
    """``start``, ``done``, ``drop``, ``rm`` on a task, a phase or (with ``--all``) every task."""
    verb: str = args.verb
    with open_session(args, must_exist=True) as session:
        phases = tuple(session.refresh())
        if args.all and verb == "start":
            usage("start: starts one task, so --all does not apply; name the TASK (or a PHASE)")
        if args.all and " ".join(args.target).strip():
            usage(f"{verb}: --all means every task; give it without a TASK or PHASE")
        if getattr(args, "agent", None) is not None:
            return _agent_status(session, phases, args, out)
        target = find_target(args, phases)
        if verb == "start":
            op = _start_op(target, phases)
        elif target is None:
            if not args.all:
                _confirm_everything(args, phases)
            if verb == "rm" and not person.session_is_team(session):
                return person_clear(session, verb, args, out)  # the reference keeps no phases
            op = {"op": verb}
        else:
            op = {"op": verb, target.kind: target.name}
        return person_edit(session, [op], verb, args, out)
