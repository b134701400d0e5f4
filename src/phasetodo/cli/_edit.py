"""The editing verbs: ``apply`` (an agent's call), ``edit``, ``import``, ``append`` and ``undo``.

``apply`` is one ``todo_write`` call as an agent makes it; the others are a
person's changes, each recorded as one ``user_edit``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from typing import IO, Any

from .._core.fuzzy import AmbiguousTarget, TargetNotFound, resolve
from .._core.model import Phase
from .._core.ops import OP_NAMES
from .._profiles.builtin import resolve as resolve_profile
from .._profiles.keys import unknown_key_problems
from .._profiles.team.ops import TEAM_OP_NAMES
from .._views.markdown import markdown_to_phases, phases_to_markdown
from ..errors import (
    InvalidBeads,
    InvalidParams,
    NoAgentSession,
    NotSessionOwner,
    PhasetodoError,
    RequestIdReused,
)
from ..integrations.beads import beads_to_phases
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
    task_count,
    usage,
)
from ._report import is_team, person_edit, report_edit, user_edit

__all__ = ["MAX_INPUT_BYTES", "run_append", "run_apply", "run_edit", "run_import", "run_undo"]

#: The most bytes ``import`` and ``apply -`` read: past it the input is refused, not read on.
MAX_INPUT_BYTES = 64 * 1024 * 1024


# --- reading input -----------------------------------------------------------------------------


def _read_input(source: str, what: str) -> str:
    """The text of a file (``-``: stdin), at most :data:`MAX_INPUT_BYTES`, as UTF-8."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with open(source, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as error:
        usage(f"{what}: cannot read {source}: {error.strerror or error}")
    if len(data) > MAX_INPUT_BYTES:
        usage(f"{what}: {source} is over {MAX_INPUT_BYTES:,} bytes; nothing was read into the list")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        usage(f"{what}: {source} is not UTF-8 text: {error}")


def _parse_markdown(text: str, where: str) -> tuple[Phase, ...]:
    """The phases of a Markdown text; exit 2 listing its errors when it has any."""
    phases, errors = markdown_to_phases(text)
    if errors:
        lines = "\n".join(f"  {e}" for e in errors)
        raise _Exit(USAGE, f"{where}: the Markdown has errors, nothing changed:\n{lines}", errors)
    return phases


def _parse_beads(text: str, where: str) -> tuple[Phase, ...]:
    """The plan of a beads export; exit 2 naming its bad lines; what is not kept goes to stderr."""
    try:
        read = beads_to_phases(text)
    except InvalidBeads as error:
        lines = "\n".join(f"  {p}" for p in error.problems)
        raise _Exit(USAGE, f"{where}: {error.args[0].splitlines()[0]}\n{lines}", error.problems) from error
    for problem in read.errors:
        print(f"phasetodo: {where}: {problem}", file=sys.stderr)
    return read.phases


def _check_not_emptied(
    before: Sequence[Phase], phases: Sequence[Phase], args: argparse.Namespace, what: str
) -> None:
    """An edit or import that would leave no task at all is taken as a mistake, unless --allow-empty."""
    if task_count(phases) == 0 and task_count(before) > 0 and not args.allow_empty:
        usage(
            f"{what}: the text holds no task, so it would empty the list of "
            f"{plural(task_count(before), 'task')}; cancelled, nothing changed "
            "(pass --allow-empty to empty the list)"
        )


# --- apply -------------------------------------------------------------------------------------


def _params(args: argparse.Namespace) -> Any:
    """The tool arguments ``apply`` was given (``-``: read from stdin), parsed from JSON."""
    text = _read_input("-", "apply") if args.params == "-" else args.params
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        usage(f"apply: the parameters are not valid JSON: {error}")
    except RecursionError:
        usage("apply: the parameters nest too deeply to read; nothing was applied")


def run_apply(args: argparse.Namespace, out: IO[str]) -> int:
    """``apply JSON|-``: one ``todo_write`` call, as an agent makes it."""
    params = _params(args)
    if not args.allow_unknown_keys and (problems := unknown_key_problems(params)):
        raise _Exit(
            USAGE,
            "apply: " + "; ".join(problems)
            + "\nnothing was applied (--allow-unknown-keys ignores such keys)",
            problems,
        )
    with open_session(args) as session:
        try:
            result = session.write(
                params, agent=args.agent, profile=args.profile, request_id=args.request_id
            )
        except InvalidParams as error:
            hint = _team_ops_hint(params, session, args.profile)
            raise _Exit(USAGE, f"apply: {error}\nnothing was applied{hint}", error.problems) from error
        except RecursionError:
            usage("apply: the parameters nest too deeply to check; nothing was applied")
        except NoAgentSession as error:
            owner = session.owner or "NAME"
            raise _Exit(
                USAGE,
                f"apply: session {session.session_id!r} belongs to agent {owner!r}; "
                f"write as that agent with --agent {shlex.quote(owner)} (nothing was applied)",
            ) from error
        except NotSessionOwner as error:
            raise _Exit(USAGE, f"apply: {error} (nothing was applied)") from error
        except RequestIdReused as error:
            raise _Exit(USAGE, f"apply: {error}") from error
        except PhasetodoError as error:
            raise _Exit(OP_ERRORS, f"apply: {error}; nothing was applied") from error
    if args.json:
        raw(out).write(json_text(result.to_json()))
    else:
        out.write(result.text + "\n")
    return OP_ERRORS if result.errors or result.is_error else OK


def _team_ops_hint(params: Any, session: Session, profile: str | None) -> str:
    """For team ops (``block``, ``after``...) given to a plan that is not a team plan: a line
    saying so and how to start a team plan (empty otherwise)."""
    chosen = resolve_profile(profile) if profile is not None else session.profile
    ops = params.get("ops") if isinstance(params, dict) else None
    if chosen.shared or not isinstance(ops, list):
        return ""
    given = {op.get("op") for op in ops if isinstance(op, dict)}
    team_only = [name for name in TEAM_OP_NAMES if name in given and name not in OP_NAMES]
    if not team_only:
        return ""
    return (
        f"\n{', '.join(team_only)}: an op of team plans, and session {session.session_id!r} is a "
        f"{chosen.name} plan (a plan keeps the profile it was made with); start a team plan in a "
        "new session with `phasetodo --session NAME apply --profile team JSON` (docs/teams.md)"
    )


# --- edit and import ---------------------------------------------------------------------------


def _run_editor(editor: str, name: str) -> None:
    """Let the person edit file ``name`` in ``editor``; exit 2 (and remove it) when that fails."""
    try:
        status = subprocess.call([*shlex.split(editor), name])
    except OSError as error:
        os.unlink(name)
        usage(f"edit: cannot run $EDITOR ({editor}): {error.strerror or error}")
    if status != 0:
        os.unlink(name)
        usage(f"edit: $EDITOR ({editor}) exited with status {status}; nothing changed")


def run_edit(args: argparse.Namespace, out: IO[str]) -> int:
    """``edit``: the list as Markdown in ``$EDITOR``, read back as one user edit."""
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL")
    if not editor:
        usage("edit: $EDITOR is not set; set it to your editor, as in EDITOR=nano")
    with open_session(args) as session:
        before, version = tuple(session.refresh()), session.version
        fd, name = tempfile.mkstemp(prefix="phasetodo-", suffix=".md")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(phases_to_markdown(before, lossless=is_team(before)))
        _run_editor(editor, name)
        text = _read_input(name, "edit")
        phases = _parse_markdown(text, f"edit (your text is kept in {name})")
        try:
            _check_not_emptied(before, phases, args, "edit")
        except _Exit:
            os.unlink(name)
            raise
        try:
            user_edit(session, phases, "edit", version)
        except PhasetodoError as error:
            raise _Exit(OP_ERRORS, f"edit: {error}; nothing changed, your text is kept in {name}") from error
        os.unlink(name)
        report_edit(session, before, args, out)
    return OK


def run_import(args: argparse.Namespace, out: IO[str]) -> int:
    """``import PATH|-``: replace the list with a Markdown file, as one user edit."""
    text = _read_input(args.path, "import")
    if args.format == "beads":
        phases = _parse_beads(text, f"import {args.path}")
    else:
        phases = _parse_markdown(text, f"import {args.path}")
    with open_session(args) as session:
        before = tuple(session.refresh())
        _check_not_emptied(before, phases, args, f"import {args.path}")
        user_edit(session, phases, "import", session.version)
        report_edit(session, before, args, out)
    return OK


# --- append ------------------------------------------------------------------------------------


def _current_phase(phases: Sequence[Phase]) -> str:
    """Where ``append TASK`` goes: the phase of the first open task, else the last phase."""
    for phase in phases:
        if any(t.status.is_open for t in phase.tasks):
            return phase.name
    return phases[-1].name if phases else "Todos"


def _existing_phase(name: str, phases: Sequence[Phase]) -> str:
    """The phase ``name`` means: an existing one by exact or case-insensitive name, else ``name``."""
    with contextlib.suppress(TargetNotFound, AmbiguousTarget):
        found = resolve(name, phases, kinds=("phase",))
        if found.name.casefold() == name.casefold():
            return found.name
    return name


def run_append(args: argparse.Namespace, out: IO[str]) -> int:
    """``append [PHASE] TASK…``: add tasks to the current phase, or to a phase (made if new)."""
    words: list[str] = args.words
    with open_session(args) as session:
        phases = tuple(session.refresh())
        if len(words) == 1:
            phase, items = _current_phase(phases), words
        else:
            phase, items = _existing_phase(words[0], phases), words[1:]
        if not phase.strip():
            usage("append: the PHASE name is blank")
        for number, item in enumerate(items, start=1):
            if not item.strip():
                usage(f"append: TASK {number} is blank")
        return person_edit(session, [{"op": "append", "phase": phase, "items": items}], "append", args, out)


# --- undo --------------------------------------------------------------------------------------


def _phases_at(session: Session, version: int) -> tuple[Phase, ...]:
    """The list as it was at ``version`` (empty before the first event)."""
    for event in session.events():
        if event.version == version:
            return tuple(event.phases)
    return ()


def run_undo(args: argparse.Namespace, out: IO[str]) -> int:
    """``undo [VERSION]``: restore an earlier version's list as a new user edit."""
    with open_session(args, must_exist=True) as session:
        before = tuple(session.refresh())
        current = session.version
        wanted = current - 1 if args.version is None else args.version
        if current == 0:
            usage("undo: the session has no events yet; nothing to undo")
        if not 0 <= wanted < current:
            usage(
                f"undo: VERSION must be one of the earlier versions, 0 to {current - 1} "
                f"(the session is at version {current}); nothing changed"
            )
        session.user_edit(_phases_at(session, wanted), source="undo", expected_version=current)
        report_edit(session, before, args, out)
    return OK
