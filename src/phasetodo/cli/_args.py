"""The command line: the global options and every verb's arguments (argparse).

The global options are accepted before or after the verb; ``SUPPRESS`` keeps a
verb's parser from resetting a value given before it.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from .._profiles.builtin import PROFILES
from .._version import __version__
from ._context import DEFAULT_SESSION, DEFAULT_STORE

__all__ = ["parser"]

#: Adds one verb's parser: ``verb(name, help, more)`` (``more`` extends the description).
_Verb = Callable[..., argparse.ArgumentParser]


#: How the target verbs find the TASK or PHASE a person names, for their help.
_MATCHING = (
    "tasks are tried before phases, ignoring case: a task by its text, else the one task "
    "holding the words, else the one unfinished task among those; a phase by its name, else "
    "the one phase starting with the words, else the one holding them"
)


def _version_number(text: str) -> int:
    """A VERSION argument: a whole number (argparse turns the ValueError into exit 2)."""
    return int(text)


def _common() -> argparse.ArgumentParser:
    """The options every verb takes: the store, the session and how to print."""
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
        "--at",
        metavar="REF",
        default=argparse.SUPPRESS,
        help="read the plan as committed at this git ref (.phasetodo/ID.jsonl there; show, export "
        "and history only, read-only)",
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
    return common


def _add_reading(verb: _Verb) -> None:
    verb(
        "view",
        "print the summary the agent's tool shows (on a todo plan, its view op's text; "
        "--json adds the list as the tool writes it)",
    )
    show = verb("show", "print the list as a tree")
    show.add_argument(
        "--collapsed",
        action="store_true",
        help="show at most 8 tasks per phase (always the active one), then +N more",
    )


def _add_apply(verb: _Verb) -> None:
    apply = verb("apply", "make one todo_write call, as an agent does")
    apply.add_argument(
        "params", metavar="JSON|-", help="the tool arguments, as in '{\"ops\": [...]}'; - reads stdin"
    )
    apply.add_argument(
        "--profile", choices=PROFILES, help="the call's profile (default: the plan's, else parity)"
    )
    apply.add_argument(
        "--agent", metavar="NAME", help="write as this agent (for a session that belongs to one)"
    )
    _add_lease(apply)
    apply.add_argument(
        "--request-id",
        metavar="ID",
        help="make the call exactly once: a retry with the same ID prints the first call's result "
        "and appends nothing (the same ID with other params is refused)",
    )
    _add_unknown_keys(apply)


def _add_unknown_keys(parser: argparse.ArgumentParser) -> None:
    """``--allow-unknown-keys``: turn off the guard that refuses an op given a key it does not take."""
    parser.add_argument(
        "--allow-unknown-keys",
        action="store_true",
        help="let an op carry a key it does not take, ignored as the reference does (by default the "
        "call is refused: a misspelled 'task' would leave done with no target, completing the whole list)",
    )


def _add_markdown(verb: _Verb, common: argparse.ArgumentParser) -> None:
    """``edit``, ``export`` and ``import``: the list as Markdown."""
    allow_empty = argparse.ArgumentParser(add_help=False)
    allow_empty.add_argument(
        "--allow-empty", action="store_true", help="accept a text with no task, emptying the list"
    )
    verb(
        "edit",
        "edit the list as Markdown in $EDITOR (recorded as a user edit)",
        "; an emptied file cancels the edit",
        parents=[common, allow_empty],
    )
    formats = argparse.ArgumentParser(add_help=False)
    formats.add_argument(
        "--format",
        choices=("markdown", "beads"),
        default="markdown",
        help="markdown (default) or beads: JSONL, one beads (bd) issue per line",
    )
    export = verb("export", "write the list as Markdown (or beads JSONL)", parents=[common, formats])
    export.add_argument("path", nargs="?", metavar="PATH", help="the file (default: stdout)")
    imp = verb(
        "import",
        "replace the list with a Markdown file (or a beads export; a user edit)",
        "; a text with no task is refused unless --allow-empty",
        parents=[common, allow_empty, formats],
    )
    imp.add_argument("path", metavar="PATH", help="the Markdown (or beads JSONL) file; - reads stdin")


def _add_targets(verb: _Verb) -> None:
    """``append`` and the verbs that name a TASK or PHASE."""
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
            f"; {_MATCHING}; with no target the verb needs --all (or a yes on a terminal)",
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
        _add_lease(status)


def _seconds(text: str) -> float:
    """A ``--lease`` value: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r}: must be a positive number of seconds")
    return value


def _add_lease(parser: argparse.ArgumentParser) -> None:
    """``--lease SECONDS``: the agent's claim on a team plan lapses that long after its last write."""
    parser.add_argument(
        "--lease",
        type=_seconds,
        metavar="SECONDS",
        help="on a team plan, let this agent's claim lapse SECONDS after its last write "
        "(another agent may then take the task over)",
    )


def _add_team(verb: _Verb) -> None:
    ready = verb("ready", "list the tasks ready to start, who is on what and what is blocked")
    ready.add_argument("--agent", metavar="NAME", help="say which task this agent is on")
    block = verb(
        "block",
        "mark a task of a team plan blocked, with a reason (a user edit)",
        "; the task is matched as for done (tasks only)",
    )
    block.add_argument("target", nargs="*", metavar="TASK")
    block.add_argument(
        "--reason", metavar="TEXT", help="why the task cannot go on (default: blocked by a person)"
    )
    unblock = verb(
        "unblock",
        "let a blocked task of a team plan go on again: pending, unowned (a user edit)",
        "; the task is matched as for done (tasks only)",
    )
    unblock.add_argument("target", nargs="*", metavar="TASK")


def _add_log(verb: _Verb) -> None:
    """``undo`` and ``history``: the session's log."""
    undo = verb(
        "undo",
        "restore the list of an earlier version (the previous one by default), as a new user edit",
    )
    undo.add_argument(
        "version", nargs="?", type=_version_number, metavar="VERSION", help="the version to restore"
    )
    verb("history", "list the session's events with their times")
    verify = verb(
        "verify",
        "check the session's history against its hash chain",
        "; exits 1 naming the first version whose record was altered, removed or reordered",
    )
    verify.add_argument(
        "--expect", metavar="HASH",
        help="the newest hash a sound log has (as verify printed it, kept elsewhere)",
    )


def _add_serving(verb: _Verb) -> None:
    """``demo``, ``mcp`` and ``serve``."""
    verb("demo", "play a short scripted agent session into the store (session 'demo')")
    mcp = verb("mcp", "serve this session over MCP on stdio (needs the 'mcp' extra)")
    mcp.add_argument(
        "--profile", choices=PROFILES, help="the tool's profile (default: the plan's, else parity)"
    )
    mcp.add_argument(
        "--tool",
        choices=("todo_write", "todo"),
        help="the tool to serve: todo_write (the default) or todo, the reference's current "
        "one-op tool (the todo profile)",
    )
    mcp.add_argument(
        "--agent", metavar="NAME", help="write as this agent (for a session that belongs to one)"
    )
    _add_lease(mcp)
    _add_unknown_keys(mcp)
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


def _add_db(verb: _Verb, common: argparse.ArgumentParser) -> None:
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


def _add_git(verb: _Verb, common: argparse.ArgumentParser) -> None:
    git = verb("git", "keep the plan in a git repository: git init, and the merge driver git runs")
    actions = git.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init",
        parents=[common],
        help="make .phasetodo/ in the repository and register the merge driver (safe to repeat)",
        description="make .phasetodo/ (a JSONL store to commit), give its logs merge=phasetodo in "
        ".gitattributes and register the merge driver in the repository's git config; safe to repeat",
    )
    init.add_argument("-C", dest="repo", metavar="PATH", default=".", help="the repository (default: here)")
    driver = actions.add_parser(
        "merge-driver",
        parents=[common],
        help="merge three versions of a session log (git runs it: %%O %%A %%B %%P)",
        description="merge the base, ours and theirs versions of one session log into OURS; "
        "conflicts are recorded in the log, not fatal",
    )
    driver.add_argument("base", metavar="BASE")
    driver.add_argument("ours", metavar="OURS")
    driver.add_argument("theirs", metavar="THEIRS")
    driver.add_argument("path", nargs="?", metavar="PATH", help="the file's path in the repository")


def parser() -> argparse.ArgumentParser:
    """The ``phasetodo`` parser: ``args.verb`` names the verb (``None`` when none was given)."""
    common = _common()
    top = argparse.ArgumentParser(
        prog="phasetodo",
        parents=[common],
        description="Look at and edit the phased todo list a coding agent keeps.",
        epilog=(
            "exit status: 0 done; 1 op errors reported, or the session to read does not exist; "
            "2 bad usage or invalid input, nothing changed"
        ),
    )
    top.add_argument("--version", action="version", version=f"phasetodo {__version__}")
    verbs = top.add_subparsers(dest="verb", metavar="VERB")

    def verb(
        name: str, help: str, more: str = "", parents: list[argparse.ArgumentParser] | None = None
    ) -> argparse.ArgumentParser:
        return verbs.add_parser(name, parents=parents or [common], help=help, description=help + more)

    _add_reading(verb)
    _add_apply(verb)
    _add_markdown(verb, common)
    _add_targets(verb)
    _add_team(verb)
    _add_log(verb)
    _add_serving(verb)
    _add_db(verb, common)
    _add_git(verb, common)
    return top
