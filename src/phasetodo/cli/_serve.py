"""The serving verbs: ``mcp`` (this session over MCP on stdio) and ``serve`` (the web board).

Each needs an extra; without it the verb says which one to install (exit 2).
"""

from __future__ import annotations

import argparse
import importlib.util
import sqlite3
from typing import IO, NoReturn

from .._profiles.builtin import resolve
from .._profiles.options import Options
from ..errors import PhasetodoError, install_hint
from ._context import OK, open_session, open_store, store_text, usage

__all__ = ["run_mcp", "run_serve"]

#: The modules of the ``mcp`` extra: one of them missing means the extra is not installed.
_MCP_MODULES = frozenset({"mcp", "mcp_types", "anyio"})


def _mcp_missing() -> NoReturn:
    usage(f"mcp: the MCP server needs the 'mcp' extra: {install_hint('mcp')}")


def run_mcp(args: argparse.Namespace, out: IO[str]) -> int:
    """``mcp``: serve the session's ``todo_write`` tool over MCP on stdio."""
    if importlib.util.find_spec("mcp") is None:
        _mcp_missing()
    from ..integrations.mcp import serve

    _tool_profile(args)
    with open_session(args) as session:
        try:
            own = session.profile
            if args.tool not in (None, own.tool):
                usage(
                    f"mcp: --tool {args.tool}: this plan is in the {own.name} profile; "
                    f"serve it with --tool {own.tool}"
                )
            chosen = Options(
                args.profile or session.profile,
                session.limits,
                agent=args.agent or session.agent,
                lease=session.options.lease,
            )
            serve(session, options=chosen, allow_unknown_keys=args.allow_unknown_keys)
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] in _MCP_MODULES:
                _mcp_missing()
            raise
    return OK


#: The profile a tool runs when ``--profile`` names none (None: the plan's own, or parity).
_TOOL_DEFAULTS: dict[str | None, str | None] = {None: None, "todo_write": None, "todo": "todo"}


def _tool_profile(args: argparse.Namespace) -> None:
    """``--tool`` picks the profile when ``--profile`` names none; a named one must serve that
    tool (no ``--tool``: the named profile's own)."""
    if args.profile is None or args.tool is None:
        args.profile = args.profile or _TOOL_DEFAULTS[args.tool]
        return
    tool = resolve(args.profile).tool
    if tool == args.tool:
        return
    if args.tool == "todo":
        usage(f"mcp: --tool todo runs the todo profile, not --profile {args.profile}")
    usage(f"mcp: --profile {args.profile} serves the {tool} tool: give --tool {tool}")


def run_serve(args: argparse.Namespace, out: IO[str]) -> int:
    """``serve``: every session of the store live in a browser."""
    if any(importlib.util.find_spec(name) is None for name in ("starlette", "uvicorn")):
        usage(f"serve: the board needs the 'web' extra: {install_hint('web')}")
    from ..web import serve

    spec = store_text(args)
    try:
        store = open_store(getattr(args, "store", None))
    except (PhasetodoError, OSError, sqlite3.Error) as error:
        usage(f"--store {spec}: cannot open the store: {error}")
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
        usage(f"serve: cannot listen on {args.host} port {args.port}: {error.strerror or error}")
    finally:
        store.close()
    return OK
