"""The ``phasetodo`` command: look at and edit the list an agent keeps.

It works on one session of a session store: ``--store STORE`` (a store
string: a folder or ``jsonl:PATH`` for the JSONL store, ``sqlite:FILE`` or a
``*.db`` file for SQLite, ``postgresql://...`` for PostgreSQL, ``memory:``;
default ``$PHASETODO_HOME/sessions`` if set, else ``./.phasetodo``) and
``--session ID`` (default ``default``). ``apply`` is one ``todo_write`` call,
as an agent makes it; every other change (``edit``, ``import``, ``append``,
``start``, ``done``, ``drop``, ``rm``) is recorded as a user edit.
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

import argparse
import contextlib
import importlib.util
import io
import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, NoReturn, cast

from . import person
from ._core.codec import dump_phases
from ._core.fuzzy import AmbiguousTarget, Kind, Target, TargetNotFound, resolve
from ._core.model import Phase, Status
from ._profiles.builtin import PROFILES
from ._profiles.builtin import resolve as resolve_profile
from ._profiles.team_engine import ready_tasks
from ._profiles.team_summary import format_team_head
from ._version import __version__
from ._views.diff import diff_phases, format_diff
from ._views.markdown import markdown_to_phases, phases_to_markdown
from ._views.render import render_rich, render_text, visible
from .errors import (
    InvalidParams,
    InvalidSessionId,
    InvalidStoreSpec,
    NoAgentSession,
    NotSessionOwner,
    PhasetodoError,
)
from .session import Session
from .stores import PostgresStore, Store, check_session_id
from .stores._url import default_spec, parse_store, shown

__all__ = ["DEFAULT_SESSION", "DEFAULT_STORE", "DEMO_CALLS", "DEMO_SESSION", "MAX_INPUT_BYTES", "main"]

#: Where the list lives unless ``--store`` or ``$PHASETODO_HOME`` says otherwise: the JSONL store.
DEFAULT_STORE = "./.phasetodo"
#: The session the command works on unless ``--session`` says otherwise.
DEFAULT_SESSION = "default"
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

#: The exit statuses: done; op errors reported (or nothing to read); bad usage or invalid input.
OK, OP_ERRORS, USAGE = 0, 1, 2

#: The most bytes ``import`` and ``apply -`` read: past it the input is refused, not read on.
MAX_INPUT_BYTES = 64 * 1024 * 1024


class _Exit(Exception):
    """Stop the command with ``status`` after printing ``message`` to stderr.

    ``problems`` (one per line, each naming its place) go into ``--json`` errors.
    """

    def __init__(self, status: int, message: str, problems: Sequence[str] = ()) -> None:
        self.status = status
        self.message = message
        self.problems = tuple(problems)
        super().__init__(message)


def _usage(message: str) -> NoReturn:
    raise _Exit(USAGE, message)


# --- the store and the session -----------------------------------------------------------------


#: What the reading verbs say is missing, by kind of store.
_MISSING = {"jsonl": "store directory", "sqlite": "SQLite file"}


def _store_text(args: argparse.Namespace) -> str:
    """The ``--store`` string, or the default store's, as messages show it (no password)."""
    text = getattr(args, "store", None)
    return shown(text) if text is not None else default_spec().text


def _store(text: str | None, *, must_exist: bool = False) -> Store:
    """The store ``--store`` names (``None``: the default store); raises ``_Exit`` naming what is wrong.

    ``must_exist`` (the reading verbs): a store that is not there is an error
    (exit 1), and nothing is created.
    """
    try:
        spec = default_spec() if text is None else parse_store(text)
        if must_exist and not spec.exists():
            missing = f"there is no {_MISSING[spec.kind]} {spec.where}"
            raise _Exit(OP_ERRORS, f"--store {shown(spec.text)}: {missing}; nothing to read")
        return spec.open()
    except InvalidStoreSpec as error:
        _usage(f"--store {error}")


def _missing_session(sid: str, spec: str, sessions: Sequence[str]) -> NoReturn:
    """Exit 1: the session is not in the store; list the ones that are."""
    if sessions:
        shown = ", ".join(repr(name) for name in sessions[:20])
        more = f" and {len(sessions) - 20} more" if len(sessions) > 20 else ""
        have = f"the store has {shown}{more}"
    else:
        have = "the store has no sessions yet"
    raise _Exit(OP_ERRORS, f"--session: no session {sid!r} in {spec}; {have}")


@contextlib.contextmanager
def _session(
    args: argparse.Namespace, session_id: str | None = None, *, must_exist: bool = False
) -> Iterator[Session]:
    """Open the session the options name, report open failures clearly, close it after.

    ``must_exist``: a session (or store) that is not there is an error and is not created.
    """
    spec = _store_text(args)
    sid = session_id if session_id is not None else getattr(args, "session", DEFAULT_SESSION)
    try:
        check_session_id(sid)
    except InvalidSessionId as error:
        _usage(f"--session {sid!r}: {error}")
    try:
        store = _store(getattr(args, "store", None), must_exist=must_exist)
    except (PhasetodoError, OSError, sqlite3.Error) as error:
        _usage(f"--store {spec}: cannot open the store: {error}")
    try:
        if must_exist:
            try:
                sessions = store.sessions()
            except (PhasetodoError, OSError, sqlite3.Error) as error:
                _usage(f"--store {spec}: cannot list the sessions: {error}")
            if sid not in sessions:
                _missing_session(sid, spec, sessions)
        profile = resolve_profile(getattr(args, "profile", None) or "parity")
        try:
            if profile.shared:  # a team plan: this handle is the agent (or a person), keep the lead
                session = Session.open(
                    sid, store=store, resume="keep", profile=profile, agent=getattr(args, "agent", None)
                )
            else:
                session = Session.open(sid, store=store, resume="keep")
        except (PhasetodoError, OSError, sqlite3.Error) as error:
            _usage(f"--store {spec}: cannot open session {sid!r}: {error}")
        try:
            yield session
        finally:
            session.close()
    finally:
        store.close()


# --- output ------------------------------------------------------------------------------------

#: What ``--json`` escapes beyond JSON's own rules: C1 controls, DEL and the bidi and
#: line-separator characters, which JSON allows raw but a terminal acts on.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _json(data: object) -> str:
    """``data`` as indented JSON text, every terminal-acting character escaped as ``\\uXXXX``."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", text) + "\n"


def _safe(text: str) -> str:
    """``text`` with every control character except the line breaks shown as an escape."""
    return "\n".join(visible(line) for line in text.split("\n"))


class _SafeOut(io.TextIOBase):
    """A text stream that escapes control characters in everything written to it.

    Task text reaches many lines (summaries, change lines, errors, candidate
    lists); escaping at the stream covers every one of them. ``raw`` is the
    stream underneath, for output that is not text for a person (rich's own
    colours, Markdown and JSON data).
    """

    def __init__(self, raw: IO[str]) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(_safe(text))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()


def _raw(out: IO[str]) -> IO[str]:
    """The stream under ``out``, unescaped."""
    return out.raw if isinstance(out, _SafeOut) else out


def _show(phases: Sequence[Phase], args: argparse.Namespace, out: IO[str]) -> None:
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
            console = Console(file=_raw(out))
            if console.is_terminal:
                console.print(render_rich(phases, collapsed=collapsed))
                return
    out.write(render_text(phases, collapsed=collapsed))


def _report_edit(
    session: Session,
    before: Sequence[Phase],
    args: argparse.Namespace,
    out: IO[str],
    errors: Sequence[str] = (),
) -> None:
    """Print what an edit changed and the tree (or, with ``--json``, both as data)."""
    change = format_diff(diff_phases(before, session.phases))
    if args.json:
        _raw(out).write(
            _json(
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
    _show(session.phases, args, out)


def _user_edit(session: Session, phases: Sequence[Phase], source: str, expected: int) -> None:
    """Record ``phases`` as a user edit, unless they equal the list already stored."""
    if tuple(phases) == tuple(session.phases):
        return
    session.user_edit(phases, source=source, expected_version=expected)


def _tasks(phases: Sequence[Phase]) -> int:
    return sum(len(p.tasks) for p in phases)


def _plural(number: int, noun: str) -> str:
    """``1 task``, ``2 tasks``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


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
        _usage(f"{what}: cannot read {source}: {error.strerror or error}")
    if len(data) > MAX_INPUT_BYTES:
        _usage(f"{what}: {source} is over {MAX_INPUT_BYTES:,} bytes; nothing was read into the list")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        _usage(f"{what}: {source} is not UTF-8 text: {error}")


def _parse_markdown(text: str, where: str) -> tuple[Phase, ...]:
    phases, errors = markdown_to_phases(text)
    if errors:
        lines = "\n".join(f"  {e}" for e in errors)
        raise _Exit(USAGE, f"{where}: the Markdown has errors, nothing changed:\n{lines}", errors)
    return phases


def _check_not_emptied(
    before: Sequence[Phase], phases: Sequence[Phase], args: argparse.Namespace, what: str
) -> None:
    """An edit or import that would leave no task at all is taken as a mistake, unless --allow-empty."""
    if _tasks(phases) == 0 and _tasks(before) > 0 and not args.allow_empty:
        _usage(
            f"{what}: the text holds no task, so it would empty the list of "
            f"{_plural(_tasks(before), 'task')}; cancelled, nothing changed "
            "(pass --allow-empty to empty the list)"
        )


# --- verbs -------------------------------------------------------------------------------------


def _cmd_show(args: argparse.Namespace, out: IO[str]) -> int:
    with _session(args, must_exist=True) as session:
        session.refresh()
        if args.json:
            _raw(out).write(_json(dump_phases(session.phases)))
        else:
            _show(session.phases, args, out)
    return OK


def _cmd_apply(args: argparse.Namespace, out: IO[str]) -> int:
    text = _read_input("-", "apply") if args.params == "-" else args.params
    try:
        params = json.loads(text)
    except json.JSONDecodeError as error:
        _usage(f"apply: the parameters are not valid JSON: {error}")
    except RecursionError:
        _usage("apply: the parameters nest too deeply to read; nothing was applied")
    with _session(args) as session:
        try:
            result = session.write(params, agent=args.agent, profile=args.profile)
        except InvalidParams as error:
            raise _Exit(USAGE, f"apply: {error}\nnothing was applied", error.problems) from error
        except RecursionError:
            _usage("apply: the parameters nest too deeply to check; nothing was applied")
        except NoAgentSession as error:
            owner = session.owner or "NAME"
            raise _Exit(
                USAGE,
                f"apply: session {session.session_id!r} belongs to agent {owner!r}; "
                f"write as that agent with --agent {shlex.quote(owner)} (nothing was applied)",
            ) from error
        except NotSessionOwner as error:
            raise _Exit(USAGE, f"apply: {error} (nothing was applied)") from error
        except PhasetodoError as error:
            raise _Exit(OP_ERRORS, f"apply: {error}; nothing was applied") from error
    if args.json:
        _raw(out).write(_json(result.to_json()))
    else:
        out.write(result.text + "\n")
    return OP_ERRORS if result.errors or result.is_error else OK


def _cmd_edit(args: argparse.Namespace, out: IO[str]) -> int:
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL")
    if not editor:
        _usage("edit: $EDITOR is not set; set it to your editor, as in EDITOR=nano")
    with _session(args) as session:
        before, version = tuple(session.refresh()), session.version
        fd, name = tempfile.mkstemp(prefix="phasetodo-", suffix=".md")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(phases_to_markdown(before, lossless=_is_team(before)))
        try:
            status = subprocess.call([*shlex.split(editor), name])
        except OSError as error:
            os.unlink(name)
            _usage(f"edit: cannot run $EDITOR ({editor}): {error.strerror or error}")
        if status != 0:
            os.unlink(name)
            _usage(f"edit: $EDITOR ({editor}) exited with status {status}; nothing changed")
        text = _read_input(name, "edit")
        phases = _parse_markdown(text, f"edit (your text is kept in {name})")
        try:
            _check_not_emptied(before, phases, args, "edit")
        except _Exit:
            os.unlink(name)
            raise
        try:
            _user_edit(session, phases, "edit", version)
        except PhasetodoError as error:
            raise _Exit(OP_ERRORS, f"edit: {error}; nothing changed, your text is kept in {name}") from error
        os.unlink(name)
        _report_edit(session, before, args, out)
    return OK


def _is_team(phases: Sequence[Phase]) -> bool:
    """Whether tasks carry owners, reasons or dependencies, which only lossless Markdown keeps."""
    return any(t.has_team_fields for p in phases for t in p.tasks)


def _cmd_export(args: argparse.Namespace, out: IO[str]) -> int:
    with _session(args, must_exist=True) as session:
        phases = session.refresh()
        text = phases_to_markdown(phases, lossless=_is_team(phases))
    if args.path is None or args.path == "-":
        if args.json:
            _raw(out).write(_json({"markdown": text}))
        elif out.isatty():
            out.write(text)  # escaped: task text must not act on the terminal
        else:
            _raw(out).write(text)  # the Markdown itself, byte for byte
        return OK
    try:
        Path(args.path).write_text(text, encoding="utf-8")
    except OSError as error:
        _usage(f"export: cannot write {args.path}: {error.strerror or error}")
    if args.json:
        _raw(out).write(_json({"path": args.path, "bytes": len(text.encode("utf-8"))}))
    return OK


def _cmd_import(args: argparse.Namespace, out: IO[str]) -> int:
    text = _read_input(args.path, "import")
    phases = _parse_markdown(text, f"import {args.path}")
    with _session(args) as session:
        before = tuple(session.refresh())
        _check_not_emptied(before, phases, args, f"import {args.path}")
        _user_edit(session, phases, "import", session.version)
        _report_edit(session, before, args, out)
    return OK


def _apply_ops(
    session: Session,
    ops: list[dict[str, Any]],
    source: str,
    args: argparse.Namespace,
    out: IO[str],
) -> int:
    """Run ops as a person's edit (:mod:`phasetodo.person`); report changes and op errors."""
    before = tuple(session.phases)
    team = person.session_is_team(session)
    try:
        outcome = person.apply_edit(session, ops, source=source, team=team)
    except InvalidParams as error:
        raise _Exit(USAGE, f"{source}: {error}\nnothing changed", error.problems) from error
    if team and outcome.errors:  # all or nothing by the team rules: report, change nothing
        raise _Exit(OP_ERRORS, f"{source}: {'; '.join(outcome.errors)}; nothing changed", outcome.errors)
    if not args.json:
        for problem in outcome.errors:
            sys.stderr.write(_safe(f"phasetodo: {source}: {problem}\n"))
    _report_edit(session, before, args, out, outcome.errors)
    return OP_ERRORS if outcome.errors else OK


def _current_phase(phases: Sequence[Phase]) -> str:
    """Where ``append TASK`` goes: the phase of the first open task, else the last phase."""
    for phase in phases:
        if any(t.status.is_open for t in phase.tasks):
            return phase.name
    return phases[-1].name if phases else "Todos"


def _cmd_append(args: argparse.Namespace, out: IO[str]) -> int:
    words: list[str] = args.words
    with _session(args) as session:
        phases = tuple(session.refresh())
        if len(words) == 1:
            phase, items = _current_phase(phases), words
        else:
            phase, items = words[0], words[1:]
            with contextlib.suppress(TargetNotFound, AmbiguousTarget):
                # An existing phase by exact or case-insensitive name; else a new one.
                found = resolve(phase, phases, kinds=("phase",))
                if found.name.casefold() == phase.casefold():
                    phase = found.name
        if not phase.strip():
            _usage("append: the PHASE name is blank")
        for number, item in enumerate(items, start=1):
            if not item.strip():
                _usage(f"append: TASK {number} is blank")
        return _apply_ops(session, [{"op": "append", "phase": phase, "items": items}], "append", args, out)


def _target(args: argparse.Namespace, phases: Sequence[Phase]) -> Target | None:
    query = " ".join(args.target)
    if not query.strip():
        return None
    kinds: tuple[Kind, ...] = ("task", "phase")
    if args.task:
        kinds = ("task",)
    elif args.phase:
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
    count = _plural(_tasks(phases), "task")
    what = f"{args.verb}: with no target this would {_EVERYTHING[args.verb]} ({count})"
    if sys.stdin.isatty() and sys.stderr.isatty() and not args.json:
        sys.stderr.write(_safe(f"phasetodo: {what}. Go ahead? [y/N] "))
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().casefold()
        if answer in ("y", "yes"):
            return
        _usage(f"{args.verb}: not confirmed; nothing changed")
    _usage(f"{what}; pass --all to do that, or name a TASK or PHASE. Nothing changed")


def _as_agent(session: Session, ops: list[dict[str, Any]], args: argparse.Namespace, out: IO[str]) -> int:
    """Make ``ops`` one team call as ``--agent``: claims and permissions are the agent's."""
    try:
        result = session.write({"ops": ops}, agent=args.agent, profile="team")
    except InvalidParams as error:
        raise _Exit(USAGE, f"{args.verb}: {error}\nnothing was applied", error.problems) from error
    if args.json:
        _raw(out).write(_json(result.to_json()))
    else:
        out.write(result.text + "\n")
    return OP_ERRORS if result.is_error else OK


def _cmd_status(args: argparse.Namespace, out: IO[str]) -> int:
    verb: str = args.verb
    with _session(args, must_exist=True) as session:
        phases = tuple(session.refresh())
        if args.all and (" ".join(args.target).strip() or verb == "start"):
            _usage(f"{verb}: --all means every task; give it without a TASK or PHASE")
        if getattr(args, "agent", None) is not None:
            if verb == "start" and not " ".join(args.target).strip():
                return _as_agent(session, [{"op": "start"}], args, out)  # the next ready task
            found = _target(args, phases)
            if found is None and not args.all:
                _confirm_everything(args, phases)
            mine = {"op": verb} if found is None else {"op": verb, found.kind: found.name}
            return _as_agent(session, [mine], args, out)
        target = _target(args, phases)
        if verb == "start":
            if target is None:
                _usage("start: name the TASK to start (or a PHASE to start its first open task)")
            if target.kind == "phase":
                phase = next(p for p in phases if p.name == target.name)
                first = next((t for t in phase.tasks if t.status is Status.PENDING), None)
                if first is None:
                    raise _Exit(OP_ERRORS, f'start: phase "{phase.name}" has no pending task')
                target = Target("task", first.content, phase.name)
            op: dict[str, Any] = {"op": "start", "task": target.name}
        elif target is None:
            if not args.all:
                _confirm_everything(args, phases)
            op = {"op": verb}
        else:
            op = {"op": verb, target.kind: target.name}
        return _apply_ops(session, [op], verb, args, out)


def _cmd_ready(args: argparse.Namespace, out: IO[str]) -> int:
    with _session(args, must_exist=True) as session:
        phases = tuple(session.refresh())
    if args.json:
        ready = [{"phase": p, "task": t.content} for p, t in ready_tasks(phases)]
        _raw(out).write(_json(ready))
        return OK
    out.write(format_team_head(phases, getattr(args, "agent", None)) + "\n")
    return OK


def _cmd_undo(args: argparse.Namespace, out: IO[str]) -> int:
    with _session(args, must_exist=True) as session:
        before = tuple(session.refresh())
        current = session.version
        wanted = current - 1 if args.version is None else args.version
        if current == 0:
            _usage("undo: the session has no events yet; nothing to undo")
        if not 0 <= wanted < current:
            _usage(
                f"undo: VERSION must be one of the earlier versions, 0 to {current - 1} "
                f"(the session is at version {current}); nothing changed"
            )
        phases: tuple[Phase, ...] = ()
        for event in session.events():
            if event.version == wanted:
                phases = tuple(event.phases)
                break
        session.user_edit(phases, source="undo", expected_version=current)
        _report_edit(session, before, args, out)
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
    words = [f"{sign}{_plural(n, noun)}" for n, sign, noun in counts if n]
    return ", ".join(words) if words else "no change"


def _cmd_history(args: argparse.Namespace, out: IO[str]) -> int:
    rows: list[dict[str, Any]] = []
    with _session(args, must_exist=True) as session:
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
                    "tasks": _tasks(phases),
                    "open": sum(1 for p in phases for t in p.tasks if t.status.is_open),
                    "summary": _change_summary(previous, phases),
                }
            )
            previous = phases
    if args.json:
        _raw(out).write(_json(rows))
        return OK
    for row in rows:
        kind = row["kind"] if row["source"] is None else f"{row['kind']} ({row['source']})"
        out.write(
            f"{row['version']:>4}  {row['time']}  {kind:<18}  {_plural(row['tasks'], 'task')}, "
            f"{row['open']} open  [{row['summary']}]\n"
        )
    if not rows:
        out.write("No events yet.\n")
    return OK


def _cmd_demo(args: argparse.Namespace, out: IO[str]) -> int:
    explicit = getattr(args, "session", None)
    sid = explicit if explicit is not None else DEMO_SESSION
    text = out if not args.json else io.StringIO()
    with _session(args, sid) as session:
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
    store = _store_text(args)  # never with a password: see it again with PGPASSWORD or a passfile
    if args.json:
        _raw(out).write(
            _json({"store": store, "session": sid, "version": version, "phases": dump_phases(phases)})
        )
        return OK
    out.write("── Markdown export\n" + phases_to_markdown(phases))
    out.write("── details.phases\n" + json.dumps(dump_phases(phases), indent=2) + "\n")
    out.write(
        f"── stored as session {sid!r} in {store} (version {version});"
        f" see it with: phasetodo --store {shlex.quote(store)} --session {shlex.quote(sid)} show\n"
    )
    return OK


_MCP_MODULES = frozenset({"mcp", "mcp_types", "anyio"})


def _cmd_mcp(args: argparse.Namespace, out: IO[str]) -> int:
    if importlib.util.find_spec("mcp") is None:
        _mcp_missing()
    from .integrations.mcp import serve

    with _session(args) as session:
        try:
            serve(session, profile=args.profile, agent=args.agent)
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] in _MCP_MODULES:
                _mcp_missing()
            raise
    return OK


def _mcp_missing() -> NoReturn:
    _usage("mcp: the MCP server needs the 'mcp' extra: pip install 'phasetodo[mcp]'")


def _cmd_serve(args: argparse.Namespace, out: IO[str]) -> int:
    if any(importlib.util.find_spec(name) is None for name in ("starlette", "uvicorn")):
        _usage("serve: the board needs the 'web' extra: pip install 'phasetodo[web]'")
    from .web import serve

    spec = _store_text(args)
    try:
        store = _store(getattr(args, "store", None))
    except (PhasetodoError, OSError, sqlite3.Error) as error:
        _usage(f"--store {spec}: cannot open the store: {error}")
    try:
        serve(
            store,
            host=args.host,
            port=args.port,
            read_only=args.read_only,
            out=out,
            allow_hosts=args.allow_host,
        )
    except OSError as error:
        _usage(f"serve: cannot listen on {args.host} port {args.port}: {error.strerror or error}")
    finally:
        store.close()
    return OK


def _cmd_db(args: argparse.Namespace, out: IO[str]) -> int:
    """``db init DSN``: create PostgreSQL's tables and index ahead of the first write."""
    dsn = args.dsn
    try:
        kind = parse_store(dsn).kind
    except InvalidStoreSpec:
        kind = None
    if kind != "postgresql":
        _usage(f"db init: {shown(dsn)!r} is not a PostgreSQL DSN (give postgresql://user@host/db)")
    if importlib.util.find_spec("psycopg") is None:
        _usage("db init: PostgreSQL needs the 'postgres' extra: pip install 'phasetodo[postgres]'")
    store = PostgresStore(dsn)
    try:
        store.init_schema()
    finally:
        store.close()
    if args.json:
        out.write(_json({"schema": "ready", "database": store.where}))
    else:
        out.write(f"phasetodo's tables are ready in {store.where}\n")
    return OK


# --- argument parsing --------------------------------------------------------------------------


def _version_number(text: str) -> int:
    """A VERSION argument: a whole number (argparse turns the ValueError into exit 2)."""
    return int(text)


def _parser() -> argparse.ArgumentParser:
    # The global options are accepted before or after the verb; SUPPRESS keeps a
    # verb's parser from resetting a value given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        metavar="STORE",
        default=argparse.SUPPRESS,
        help=(
            "a folder or jsonl:PATH (JSONL store), sqlite:FILE or FILE.db (SQLite), postgresql://DSN "
            f"or memory: (default $PHASETODO_HOME/sessions if set, else {DEFAULT_STORE})"
        ),
    )
    common.add_argument(
        "--session",
        metavar="ID",
        default=argparse.SUPPRESS,
        help=f"the session to work on (default {DEFAULT_SESSION})",
    )
    common.add_argument(
        "--plain",
        action="store_true",
        default=argparse.SUPPRESS,
        help="draw the tree as plain text even when rich is installed",
    )
    common.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print the result (or the error) as one JSON document",
    )
    parser = argparse.ArgumentParser(
        prog="phasetodo",
        parents=[common],
        description="Look at and edit the phased todo list a coding agent keeps.",
        epilog=(
            "exit status: 0 done; 1 op errors reported, or the session to read does not exist; "
            "2 bad usage or invalid input, nothing changed"
        ),
    )
    parser.add_argument("--version", action="version", version=f"phasetodo {__version__}")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")

    def verb(name: str, help: str, more: str = "") -> argparse.ArgumentParser:
        return verbs.add_parser(name, parents=[common], help=help, description=help + more)

    show = verb("show", "print the list as a tree")
    show.add_argument(
        "--collapsed",
        action="store_true",
        help="show at most 8 tasks per phase (always the active one), then +N more",
    )

    apply = verb("apply", "make one todo_write call, as an agent does")
    apply.add_argument(
        "params", metavar="JSON|-", help="the tool arguments, as in '{\"ops\": [...]}'; - reads stdin"
    )
    apply.add_argument(
        "--profile", choices=PROFILES, default="parity", help="the call's profile (default parity)"
    )
    apply.add_argument(
        "--agent", metavar="NAME", help="write as this agent (for a session that belongs to one)"
    )

    allow_empty = argparse.ArgumentParser(add_help=False)
    allow_empty.add_argument(
        "--allow-empty", action="store_true", help="accept a text with no task, emptying the list"
    )
    verbs.add_parser(
        "edit",
        parents=[common, allow_empty],
        help="edit the list as Markdown in $EDITOR (recorded as a user edit)",
        description="edit the list as Markdown in $EDITOR (recorded as a user edit); "
        "an emptied file cancels the edit",
    )

    export = verb("export", "write the list as Markdown")
    export.add_argument("path", nargs="?", metavar="PATH", help="the file (default: stdout)")

    imp = verbs.add_parser(
        "import",
        parents=[common, allow_empty],
        help="replace the list with a Markdown file (a user edit)",
        description="replace the list with a Markdown file (a user edit); a text with no task "
        "is refused unless --allow-empty",
    )
    imp.add_argument("path", metavar="PATH", help="the Markdown file; - reads stdin")

    append = verb("append", "add tasks: append TASK (to the current phase) or append PHASE TASK…")
    append.add_argument("words", nargs="+", metavar="[PHASE] TASK")

    for name, what in (
        ("start", "start a task (or a phase's first pending task)"),
        ("done", "mark a task, a phase or (with --all) every task completed"),
        ("drop", "mark a task, a phase or (with --all) every task abandoned"),
        ("rm", "remove a task, a phase's tasks or (with --all) every task"),
    ):
        status = verb(
            name,
            what,
            "; the target is matched exactly, then ignoring case, then as a unique substring; "
            "with no target the verb needs --all (or a yes on a terminal)",
        )
        status.add_argument("target", nargs="*", metavar="TASK|PHASE")
        kind = status.add_mutually_exclusive_group()
        kind.add_argument("--task", action="store_true", help="match tasks only")
        kind.add_argument("--phase", action="store_true", help="match phases only")
        status.add_argument("--all", action="store_true", help="act on every task")
        status.add_argument(
            "--agent",
            metavar="NAME",
            help="act as this agent of a team plan (start with no target claims the next ready task)",
        )

    ready = verb("ready", "list the tasks ready to start, who is on what and what is blocked")
    ready.add_argument("--agent", metavar="NAME", help="say which task this agent is on")

    undo = verb(
        "undo",
        "restore the list of an earlier version (the previous one by default), as a new user edit",
    )
    undo.add_argument(
        "version", nargs="?", type=_version_number, metavar="VERSION", help="the version to restore"
    )
    verb("history", "list the session's events with their times")
    verb("demo", "play a short scripted agent session into the store (session 'demo')")
    mcp = verb("mcp", "serve this session over MCP on stdio (needs the 'mcp' extra)")
    mcp.add_argument(
        "--profile", choices=PROFILES, default="parity", help="the tool's profile (default parity)"
    )
    mcp.add_argument(
        "--agent", metavar="NAME", help="write as this agent (for a session that belongs to one)"
    )
    serve = verb("serve", "show every session of the store live in a browser (needs the 'web' extra)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=8765, help="the port to listen on (default 8765; 0 picks a free one)"
    )
    serve.add_argument("--read-only", action="store_true", help="refuse every edit")
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer to this Host name (repeatable; the bound address and loopback always)",
    )
    db = verb("db", "set up a database store: db init DSN creates PostgreSQL's tables")
    actions = db.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init",
        parents=[common],
        help="create phasetodo's tables and index in a PostgreSQL database (safe to repeat)",
        description="create phasetodo's tables and index in a PostgreSQL database, if missing "
        "(they are also made at the first write); safe to repeat",
    )
    init.add_argument("dsn", metavar="DSN", help="the database, as postgresql://user@host/db")
    return parser


_VERBS = {
    "show": _cmd_show,
    "apply": _cmd_apply,
    "edit": _cmd_edit,
    "export": _cmd_export,
    "import": _cmd_import,
    "append": _cmd_append,
    "start": _cmd_status,
    "done": _cmd_status,
    "drop": _cmd_status,
    "rm": _cmd_status,
    "ready": _cmd_ready,
    "undo": _cmd_undo,
    "history": _cmd_history,
    "demo": _cmd_demo,
    "mcp": _cmd_mcp,
    "serve": _cmd_serve,
    "db": _cmd_db,
}


def _fail(args: argparse.Namespace | None, status: int, message: str, problems: Sequence[str] = ()) -> int:
    """Report an error: a line on stderr, or with ``--json`` one JSON object on stdout."""
    if args is not None and getattr(args, "json", False):
        sys.stdout.write(_json({"error": {"status": status, "message": message, "problems": list(problems)}}))
    else:
        sys.stderr.write(_safe(f"phasetodo: {message}\n"))
    return status


def _wants_json(argv: Sequence[str]) -> bool:
    return "--json" in argv


#: The exit status when the reader of the output went away (a shell's 128 + SIGPIPE).
CLOSED_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    A reader that goes away (``phasetodo show | head -1``) ends the command quietly with
    :data:`CLOSED_PIPE`: what a verb changed stays changed, and no traceback is printed.
    """
    try:
        status = _main(argv)
        sys.stdout.flush()  # inside the try: buffered output meets a closed pipe here
    except BrokenPipeError:
        # Nothing more can reach the reader; point stdout at /dev/null so that the
        # interpreter's own flush at exit does not report the closed pipe either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return CLOSED_PIPE
    return status


def _main(argv: Sequence[str] | None) -> int:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    if not argv:
        parser.print_help(sys.stdout)
        return OK
    if _wants_json(argv):
        # argparse's own errors (an unknown verb, a bad option) as a JSON object too.
        captured = io.StringIO()
        try:
            with contextlib.redirect_stderr(captured):
                args = parser.parse_args(argv)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else USAGE
            if status == OK:  # --help or --version
                return OK
            lines = captured.getvalue().strip().splitlines()
            return _fail(argparse.Namespace(json=True), status, lines[-1] if lines else "bad usage")
    else:
        try:
            args = parser.parse_args(argv)
        except SystemExit as stop:  # argparse: --help, --version (0) or bad usage (2)
            return stop.code if isinstance(stop.code, int) else USAGE
    if args.verb is None:
        parser.print_help(sys.stdout)
        return OK
    args.json = getattr(args, "json", False)
    out = cast(IO[str], _SafeOut(sys.stdout))
    try:
        return _VERBS[args.verb](args, out)
    except _Exit as stop:
        return _fail(args, stop.status, stop.message, stop.problems)
    except InvalidParams as error:  # a value over a limit, say: invalid input, nothing changed
        return _fail(args, USAGE, f"{args.verb}: {error}", error.problems)
    except PhasetodoError as error:  # e.g. another writer got in first (VersionConflict)
        return _fail(args, OP_ERRORS, f"{args.verb}: {error}")


if __name__ == "__main__":
    sys.exit(main())
