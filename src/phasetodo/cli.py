"""The ``phasetodo`` command: look at and edit the list an agent keeps.

It works on one session of a session store: ``--store PATH`` (a directory for
the JSONL store, ``sqlite:FILE`` for SQLite; default ``./.phasetodo``) and
``--session ID`` (default ``default``). ``apply`` is one ``todo_write`` call,
as an agent makes it; every other change (``edit``, ``import``, ``append``,
``start``, ``done``, ``drop``, ``rm``) is recorded as a user edit.

Exit status: 0 done, 1 op errors were reported (the rest still applied, as
in the tool), 2 bad usage or invalid input (nothing changed).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, NoReturn

from ._core.codec import dump_phases
from ._core.fuzzy import AmbiguousTarget, Kind, Target, TargetNotFound, resolve
from ._core.model import Phase, Status
from ._profiles.builtin import PROFILES
from ._profiles.builtin import resolve as resolve_profile
from ._profiles.team_engine import ready_tasks
from ._profiles.team_summary import format_team_head
from ._views.diff import diff_phases, format_diff
from ._views.markdown import markdown_to_phases, phases_to_markdown
from ._views.render import render_rich, render_text
from .errors import InvalidParams, InvalidSessionId, PhasetodoError
from .session import Session
from .stores import JsonlStore, SqliteStore, check_session_id
from .tool import call

__all__ = ["DEFAULT_SESSION", "DEFAULT_STORE", "DEMO_CALLS", "DEMO_SESSION", "main"]

#: Where the list lives unless ``--store`` says otherwise: the embedded JSONL store.
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

#: The exit statuses: done; op errors reported; bad usage or invalid input.
OK, OP_ERRORS, USAGE = 0, 1, 2


class _Exit(Exception):
    """Stop the command with ``status`` after printing ``message`` to stderr."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(message)


def _usage(message: str) -> NoReturn:
    raise _Exit(USAGE, message)


# --- the store and the session -----------------------------------------------------------------


#: ``kind:`` at the start of ``--store`` (two letters or more, so ``C:`` stays a drive).
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")


def _store(spec: str) -> JsonlStore | SqliteStore:
    """The store ``--store`` names; raises ``_Exit`` naming what is wrong with it."""
    if spec.startswith("sqlite:"):
        file = spec.removeprefix("sqlite:")
        if not file:
            _usage("--store sqlite:: give the SQLite file after the colon, as in sqlite:todo.db")
        path = Path(file)
        if path.is_dir():
            _usage(f"--store {spec}: {file} is a directory, not a SQLite file")
        if not path.parent.is_dir():
            _usage(f"--store {spec}: the directory {path.parent} does not exist")
        return SqliteStore(path)
    if not spec:
        _usage("--store: give a directory, or sqlite:FILE for a SQLite file")
    path = Path(spec)
    scheme = _SCHEME.match(spec)
    if scheme is not None and not path.is_dir():
        _usage(
            f"--store {spec}: unknown store kind {scheme[0]!r} "
            "(give a directory for the JSONL store, or sqlite:FILE)"
        )
    if path.exists() and not path.is_dir():
        _usage(
            f"--store {spec}: not a directory (the JSONL store is a directory; "
            f"use sqlite:{spec} for a SQLite file)"
        )
    return JsonlStore(path)


@contextlib.contextmanager
def _session(args: argparse.Namespace, session_id: str | None = None) -> Iterator[Session]:
    """Open the session the options name, report open failures clearly, close it after."""
    spec = getattr(args, "store", DEFAULT_STORE)
    sid = session_id if session_id is not None else getattr(args, "session", DEFAULT_SESSION)
    try:
        check_session_id(sid)
    except InvalidSessionId as error:
        _usage(f"--session {sid!r}: {error}")
    try:
        store = _store(spec)
    except (PhasetodoError, OSError, sqlite3.Error) as error:
        _usage(f"--store {spec}: cannot open the store: {error}")
    profile = resolve_profile(getattr(args, "profile", None) or "parity")
    try:
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


def _show(phases: Sequence[Phase], args: argparse.Namespace, out: IO[str]) -> None:
    """Print the tree: with rich on a terminal, as plain text otherwise.

    rich is used when it is installed, ``--plain`` is not given and the output
    is a terminal (or rich is told to treat it as one, as with ``FORCE_COLOR``);
    piped output is the plain tree, which has the same rows, never wrapped.
    """
    collapsed = bool(getattr(args, "collapsed", False))
    if not getattr(args, "plain", False):
        try:
            from rich.console import Console
        except ImportError:
            pass
        else:
            console = Console(file=out)
            if console.is_terminal:
                console.print(render_rich(phases, collapsed=collapsed))
                return
    out.write(render_text(phases, collapsed=collapsed))


def _report_edit(
    before: Sequence[Phase], after: Sequence[Phase], args: argparse.Namespace, out: IO[str]
) -> None:
    out.write(format_diff(diff_phases(before, after)) + "\n\n")
    _show(after, args, out)


def _user_edit(session: Session, phases: Sequence[Phase], source: str, expected: int) -> None:
    """Record ``phases`` as a user edit, unless they equal the list already stored."""
    if tuple(phases) == tuple(session.phases):
        return
    session.user_edit(phases, source=source, expected_version=expected)


# --- verbs -------------------------------------------------------------------------------------


def _cmd_show(args: argparse.Namespace, out: IO[str]) -> int:
    with _session(args) as session:
        if args.json:
            out.write(json.dumps(dump_phases(session.phases), indent=2, ensure_ascii=False) + "\n")
        else:
            _show(session.phases, args, out)
    return OK


def _read_input(source: str, what: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        _usage(f"{what}: cannot read {source}: {getattr(error, 'strerror', None) or error}")


def _cmd_apply(args: argparse.Namespace, out: IO[str]) -> int:
    text = sys.stdin.read() if args.params == "-" else args.params
    try:
        params = json.loads(text)
    except json.JSONDecodeError as error:
        _usage(f"apply: the parameters are not valid JSON: {error}")
    with _session(args) as session:
        try:
            result = session.write(params, agent=args.agent, profile=args.profile)
        except InvalidParams as error:
            _usage(f"apply: {error}\nnothing was applied")
        except PhasetodoError as error:
            raise _Exit(OP_ERRORS, f"apply: {error}; nothing was applied") from error
    if args.json:
        out.write(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        out.write(result.text + "\n")
    return OP_ERRORS if result.errors or result.is_error else OK


def _parse_markdown(text: str, where: str) -> tuple[Phase, ...]:
    phases, errors = markdown_to_phases(text)
    if errors:
        lines = "\n".join(f"  {e}" for e in errors)
        _usage(f"{where}: the Markdown has errors, nothing changed:\n{lines}")
    return phases


def _cmd_edit(args: argparse.Namespace, out: IO[str]) -> int:
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL")
    if not editor:
        _usage("edit: $EDITOR is not set; set it to your editor, as in EDITOR=nano")
    with _session(args) as session:
        before, version = tuple(session.phases), session.version
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
            _user_edit(session, phases, "edit", version)
        except PhasetodoError as error:
            raise _Exit(OP_ERRORS, f"edit: {error}; nothing changed, your text is kept in {name}") from error
        os.unlink(name)
        _report_edit(before, session.phases, args, out)
    return OK


def _is_team(phases: Sequence[Phase]) -> bool:
    """Whether tasks carry owners, reasons or dependencies, which only lossless Markdown keeps."""
    return any(t.has_team_fields for p in phases for t in p.tasks)


def _cmd_export(args: argparse.Namespace, out: IO[str]) -> int:
    with _session(args) as session:
        phases = session.phases
        text = phases_to_markdown(phases, lossless=_is_team(phases))
    if args.path is None or args.path == "-":
        out.write(text)
        return OK
    try:
        Path(args.path).write_text(text, encoding="utf-8")
    except OSError as error:
        _usage(f"export: cannot write {args.path}: {error.strerror or error}")
    return OK


def _cmd_import(args: argparse.Namespace, out: IO[str]) -> int:
    text = _read_input(args.path, "import")
    phases = _parse_markdown(text, f"import {args.path}")
    with _session(args) as session:
        before = tuple(session.phases)
        _user_edit(session, phases, "import", session.version)
        _report_edit(before, session.phases, args, out)
    return OK


def _apply_ops(
    session: Session,
    ops: list[dict[str, Any]],
    source: str,
    args: argparse.Namespace,
    out: IO[str],
) -> int:
    """Run ops through the engine as a user edit; report changes and op errors.

    On a team plan (one whose tasks carry owners, reasons or dependencies) the
    ops run by the team rules as a person's: nothing is claimed or promoted.
    """
    before, version = tuple(session.phases), session.version
    team = _is_team(before)
    outcome = call({"ops": ops}, before, profile="team" if team else "parity")
    if team and outcome.errors:  # all or nothing: report, change nothing
        for error in outcome.errors:
            sys.stderr.write(f"phasetodo: {source}: {error}\n")
        return OP_ERRORS
    _user_edit(session, outcome.phases, source, version)
    for error in outcome.errors:
        sys.stderr.write(f"phasetodo: {source}: {error}\n")
    _report_edit(before, session.phases, args, out)
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
        phases = tuple(session.phases)
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
    if not query:
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


def _as_agent(session: Session, ops: list[dict[str, Any]], args: argparse.Namespace, out: IO[str]) -> int:
    """Make ``ops`` one team call as ``--agent``: claims and permissions are the agent's."""
    try:
        result = session.write({"ops": ops}, agent=args.agent, profile="team")
    except InvalidParams as error:
        _usage(f"{args.verb}: {error}\nnothing was applied")
    out.write(result.text + "\n")
    return OP_ERRORS if result.is_error else OK


def _cmd_status(args: argparse.Namespace, out: IO[str]) -> int:
    verb: str = args.verb
    with _session(args) as session:
        if getattr(args, "agent", None) is not None:
            query = " ".join(args.target)
            if verb == "start" and not query:
                return _as_agent(session, [{"op": "start"}], args, out)  # the next ready task
            found = _target(args, tuple(session.phases))
            mine = {"op": verb} if found is None else {"op": verb, found.kind: found.name}
            return _as_agent(session, [mine], args, out)
        phases = tuple(session.phases)
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
            op = {"op": verb}
        else:
            op = {"op": verb, target.kind: target.name}
        return _apply_ops(session, [op], verb, args, out)


def _cmd_ready(args: argparse.Namespace, out: IO[str]) -> int:
    with _session(args) as session:
        phases = tuple(session.phases)
    ready = ready_tasks(phases)
    if args.json:
        out.write(json.dumps([{"phase": p, "task": t.content} for p, t in ready], ensure_ascii=False) + "\n")
        return OK
    out.write(format_team_head(phases, getattr(args, "agent", None)) + "\n")
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
    words = [f"{sign}{n} {noun}{'' if n == 1 else 's'}" for n, sign, noun in counts if n]
    return ", ".join(words) if words else "no change"


def _cmd_history(args: argparse.Namespace, out: IO[str]) -> int:
    with _session(args) as session:
        previous: tuple[Phase, ...] = ()
        count = 0
        for event in session.events():
            count += 1
            phases = tuple(event.phases)
            tasks = sum(len(p.tasks) for p in phases)
            open_ = sum(1 for p in phases for t in p.tasks if t.status.is_open)
            when = datetime.fromtimestamp(event.time, timezone.utc).isoformat(timespec="seconds")
            kind = event.kind if event.source is None else f"{event.kind} ({event.source})"
            out.write(
                f"{event.version:>4}  {when}  {kind:<18}  {tasks} tasks, {open_} open"
                f"  [{_change_summary(previous, phases)}]\n"
            )
            previous = phases
    if not count:
        out.write("No events yet.\n")
    return OK


def _cmd_demo(args: argparse.Namespace, out: IO[str]) -> int:
    explicit = getattr(args, "session", None)
    sid = explicit if explicit is not None else DEMO_SESSION
    with _session(args, sid) as session:
        for number, params in enumerate(DEMO_CALLS, start=1):
            out.write(f"── call {number}: todo_write {json.dumps(params)}\n")
            try:
                result = session.todo_write(params)
            except InvalidParams as error:
                out.write(f"rejected, nothing applied:\n{error}\n\n")
                continue
            out.write(result["content"][0]["text"] + "\n\n")
        phases = tuple(session.phases)
        version = session.version
    out.write("── Markdown export\n" + phases_to_markdown(phases))
    out.write("── details.phases\n" + json.dumps(dump_phases(phases), indent=2) + "\n")
    store = getattr(args, "store", DEFAULT_STORE)
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

    spec = getattr(args, "store", DEFAULT_STORE)
    try:
        store = _store(spec)
    except (PhasetodoError, OSError, sqlite3.Error) as error:
        _usage(f"--store {spec}: cannot open the store: {error}")
    try:
        serve(store, host=args.host, port=args.port, read_only=args.read_only, out=out)
    except OSError as error:
        _usage(f"serve: cannot listen on {args.host} port {args.port}: {error.strerror or error}")
    finally:
        store.close()
    return OK


# --- argument parsing --------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    # The global options are accepted before or after the verb; SUPPRESS keeps a
    # verb's parser from resetting a value given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help=f"a directory (JSONL store) or sqlite:FILE (default {DEFAULT_STORE})",
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
    parser = argparse.ArgumentParser(
        prog="phasetodo",
        parents=[common],
        description="Look at and edit the phased todo list a coding agent keeps.",
        epilog="exit status: 0 done, 1 op errors reported, 2 bad usage or invalid input",
    )
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    def verb(name: str, help: str, more: str = "") -> argparse.ArgumentParser:
        return verbs.add_parser(name, parents=[common], help=help, description=help + more)

    show = verb("show", "print the list as a tree")
    show.add_argument("--collapsed", action="store_true", help="show at most 8 tasks per phase, then +N more")
    show.add_argument("--json", action="store_true", help="print the phases as JSON instead")

    apply = verb("apply", "make one todo_write call, as an agent does")
    apply.add_argument(
        "params", metavar="JSON|-", help="the tool arguments, as in '{\"ops\": [...]}'; - reads stdin"
    )
    apply.add_argument("--json", action="store_true", help="print the whole tool result as JSON")
    apply.add_argument(
        "--profile", choices=PROFILES, default="parity", help="the call's profile (default parity)"
    )
    apply.add_argument(
        "--agent", metavar="NAME", help="write as this agent (for a session that belongs to one)"
    )

    verb("edit", "edit the list as Markdown in $EDITOR (recorded as a user edit)")

    export = verb("export", "write the list as Markdown")
    export.add_argument("path", nargs="?", metavar="PATH", help="the file (default: stdout)")

    imp = verb("import", "replace the list with a Markdown file (a user edit)")
    imp.add_argument("path", metavar="PATH", help="the Markdown file; - reads stdin")

    append = verb("append", "add tasks: append TASK (to the current phase) or append PHASE TASK…")
    append.add_argument("words", nargs="+", metavar="[PHASE] TASK")

    for name, what in (
        ("start", "start a task (or a phase's first pending task)"),
        ("done", "mark a task, a phase or (with no target) everything completed"),
        ("drop", "mark a task, a phase or (with no target) everything abandoned"),
        ("rm", "remove a task, a phase's tasks or (with no target) every task"),
    ):
        status = verb(
            name, what, "; the target is matched exactly, then ignoring case, then as a unique substring"
        )
        status.add_argument("target", nargs="*", metavar="TASK|PHASE")
        kind = status.add_mutually_exclusive_group()
        kind.add_argument("--task", action="store_true", help="match tasks only")
        kind.add_argument("--phase", action="store_true", help="match phases only")
        status.add_argument(
            "--agent",
            metavar="NAME",
            help="act as this agent of a team plan (start with no target claims the next ready task)",
        )

    ready = verb("ready", "list the tasks ready to start, who is on what and what is blocked")
    ready.add_argument("--agent", metavar="NAME", help="say which task this agent is on")
    ready.add_argument("--json", action="store_true", help="print the ready tasks as JSON instead")

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
    "history": _cmd_history,
    "demo": _cmd_demo,
    "mcp": _cmd_mcp,
    "serve": _cmd_serve,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:  # argparse: --help (0) or bad usage (2)
        return stop.code if isinstance(stop.code, int) else USAGE
    try:
        return _VERBS[args.verb](args, sys.stdout)
    except _Exit as stop:
        sys.stderr.write(f"phasetodo: {stop.message}\n")
        return stop.status
    except PhasetodoError as error:  # e.g. another writer got in first (VersionConflict)
        sys.stderr.write(f"phasetodo: {args.verb}: {error}\n")
        return OP_ERRORS


if __name__ == "__main__":
    sys.exit(main())
