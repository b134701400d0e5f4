"""Run the command: parse the words, call the verb, turn how it stopped into an exit status."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Callable, Sequence
from typing import IO, cast

from ..errors import InvalidParams, PhasetodoError
from ._args import parser
from ._context import CLOSED_PIPE, OK, OP_ERRORS, USAGE, SafeOut, _Exit, json_text, safe
from ._edit import run_append, run_apply, run_edit, run_import, run_undo
from ._git import at_ref, run_git
from ._read import run_export, run_history, run_show, run_verify, run_view
from ._serve import run_mcp, run_serve
from ._setup import run_db, run_demo
from ._targets import run_status
from ._team import run_block, run_ready, run_unblock

__all__ = ["main"]

#: Each verb's function: it gets the options and the output stream, and returns the exit status.
_VERBS: dict[str, Callable[[argparse.Namespace, IO[str]], int]] = {
    "show": run_show,
    "view": run_view,
    "apply": run_apply,
    "edit": run_edit,
    "export": run_export,
    "import": run_import,
    "append": run_append,
    "start": run_status,
    "done": run_status,
    "drop": run_status,
    "rm": run_status,
    "ready": run_ready,
    "block": run_block,
    "unblock": run_unblock,
    "undo": run_undo,
    "history": run_history,
    "verify": run_verify,
    "demo": run_demo,
    "mcp": run_mcp,
    "serve": run_serve,
    "db": run_db,
    "git": run_git,
}


def _fail(args: argparse.Namespace | None, status: int, message: str, problems: Sequence[str] = ()) -> int:
    """Report an error: a line on stderr, or with ``--json`` one JSON object on stdout."""
    if args is not None and getattr(args, "json", False):
        sys.stdout.write(
            json_text({"error": {"status": status, "message": message, "problems": list(problems)}})
        )
    else:
        sys.stderr.write(safe(f"phasetodo: {message}\n"))
    return status


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


def _parse(top: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | int:
    """The parsed options, or the exit status when argparse stopped (help, version, bad usage).

    With ``--json`` argparse's own errors (an unknown verb, a bad option) are a JSON object too.
    """
    if "--json" not in argv:
        try:
            return top.parse_args(argv)
        except SystemExit as stop:  # argparse: --help, --version (0) or bad usage (2)
            return stop.code if isinstance(stop.code, int) else USAGE
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            return top.parse_args(argv)
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else USAGE
        if status == OK:  # --help or --version
            return OK
        lines = captured.getvalue().strip().splitlines()
        return _fail(argparse.Namespace(json=True), status, lines[-1] if lines else "bad usage")


def _main(argv: Sequence[str] | None) -> int:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    words = list(sys.argv[1:] if argv is None else argv)
    top = parser()
    if not words:
        top.print_help(sys.stdout)
        return OK
    args = _parse(top, words)
    if isinstance(args, int):
        return args
    if args.verb is None:
        top.print_help(sys.stdout)
        return OK
    args.json = getattr(args, "json", False)
    out = cast(IO[str], SafeOut(sys.stdout))
    try:
        with at_ref(args):
            return _VERBS[args.verb](args, out)
    except _Exit as stop:
        return _fail(args, stop.status, stop.message, stop.problems)
    except InvalidParams as error:  # a value over a limit, say: invalid input, nothing changed
        return _fail(args, USAGE, f"{args.verb}: {error}", error.problems)
    except PhasetodoError as error:  # e.g. another writer got in first (VersionConflict)
        return _fail(args, OP_ERRORS, f"{args.verb}: {error}")
