"""What a verb runs with: exit statuses, the store and session it opens, the stream it prints on.

Every verb gets the parsed options and :class:`SafeOut`; it stops early by raising
:class:`_Exit`, which the dispatcher turns into a message (or a ``--json`` error).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from typing import IO, NoReturn

from .._core.model import Phase
from .._profiles.builtin import resolve as resolve_profile
from .._views.render import visible
from ..errors import InvalidSessionId, InvalidStoreSpec, PhasetodoError
from ..session import Session
from ..stores import Store, check_session_id
from ..stores._url import default_spec, parse_store, shown

__all__ = [
    "CLOSED_PIPE",
    "DEFAULT_SESSION",
    "DEFAULT_STORE",
    "OK",
    "OP_ERRORS",
    "USAGE",
    "SafeOut",
    "check_session",
    "json_text",
    "open_session",
    "open_store",
    "plural",
    "raw",
    "safe",
    "store_text",
    "task_count",
    "usage",
]

#: Where the list lives unless ``--store`` or ``$PHASETODO_HOME`` says otherwise: the JSONL store.
DEFAULT_STORE = "./.phasetodo"
#: The session the command works on unless ``--session`` says otherwise.
DEFAULT_SESSION = "default"

#: The exit statuses: done; op errors reported (or nothing to read); bad usage or invalid input.
OK, OP_ERRORS, USAGE = 0, 1, 2

#: The exit status when the reader of the output went away (a shell's 128 + SIGPIPE).
CLOSED_PIPE = 141


class _Exit(Exception):  # the command's own way out, not an error of the library
    """Stop the command with ``status`` after printing ``message`` to stderr.

    ``problems`` (one per line, each naming its place) go into ``--json`` errors.
    """

    def __init__(self, status: int, message: str, problems: Sequence[str] = ()) -> None:
        self.status = status
        self.message = message
        self.problems = tuple(problems)
        super().__init__(message)


def usage(message: str) -> NoReturn:
    """Stop with exit status 2 (bad usage or invalid input; nothing changed)."""
    raise _Exit(USAGE, message)


# --- the store and the session -----------------------------------------------------------------

#: What the reading verbs say is missing, by kind of store.
_MISSING = {"jsonl": "store directory", "sqlite": "SQLite file"}
#: How a person starts a plan, which the reading verbs add when there is none yet.
_START = (
    "start a plan with `phasetodo append PHASE TASK [TASK ...]` "
    "(or `phasetodo import FILE.md`; `phasetodo demo` plays an example into session 'demo')"
)


def store_text(args: argparse.Namespace) -> str:
    """The ``--store`` string, or the default store's, as messages show it (no password)."""
    text = getattr(args, "store", None)
    return shown(text) if text is not None else default_spec().text


def open_store(text: str | None, *, must_exist: bool = False) -> Store:
    """The store ``--store`` names (``None``: the default store); raises ``_Exit`` naming what is wrong.

    ``must_exist`` (the reading verbs): a store that is not there is an error
    (exit 1), and nothing is created.
    """
    try:
        spec = default_spec() if text is None else parse_store(text)
        if must_exist and not spec.exists():
            missing = f"there is no {_MISSING[spec.kind]} {spec.where}"
            raise _Exit(OP_ERRORS, f"--store {shown(spec.text)}: {missing}; nothing to read; {_START}")
        return spec.open()
    except InvalidStoreSpec as error:
        usage(f"--store {error}")


def _missing_session(sid: str, spec: str, sessions: Sequence[str]) -> NoReturn:
    """Exit 1: the session is not in the store; list the ones that are."""
    if sessions:
        names = ", ".join(repr(name) for name in sessions[:20])
        more = f" and {len(sessions) - 20} more" if len(sessions) > 20 else ""
        have = f"the store has {names}{more}"
    else:
        have = f"the store has no sessions yet; {_START}"
    raise _Exit(OP_ERRORS, f"--session: no session {sid!r} in {spec}; {have}")


@contextlib.contextmanager
def open_session(
    args: argparse.Namespace, session_id: str | None = None, *, must_exist: bool = False
) -> Iterator[Session]:
    """Open the session the options name, report open failures clearly, close it after.

    ``must_exist``: a session (or store) that is not there is an error and is not created.
    """
    spec = store_text(args)
    sid = session_id if session_id is not None else getattr(args, "session", DEFAULT_SESSION)
    try:
        check_session_id(sid)
    except InvalidSessionId as error:
        usage(f"--session {sid!r}: {error}")
    try:
        store = open_store(getattr(args, "store", None), must_exist=must_exist)
    except (PhasetodoError, OSError, sqlite3.Error) as error:
        usage(f"--store {spec}: cannot open the store: {error}")
    try:
        if must_exist:
            check_session(store, sid, spec)
        with _opened(store, sid, spec, args) as session:
            yield session
    finally:
        store.close()


def check_session(store: Store, sid: str, spec: str) -> None:
    """Exit unless the store lists session ``sid``."""
    try:
        sessions = store.sessions()
    except (PhasetodoError, OSError, sqlite3.Error) as error:
        usage(f"--store {spec}: cannot list the sessions: {error}")
    if sid not in sessions:
        _missing_session(sid, spec, sessions)


@contextlib.contextmanager
def _opened(store: Store, sid: str, spec: str, args: argparse.Namespace) -> Iterator[Session]:
    """Session ``sid`` of ``store`` with the options' profile (a team plan keeps its lead)."""
    profile = resolve_profile(getattr(args, "profile", None) or "parity")
    try:
        if profile.shared:  # a team plan: this handle is the agent (or a person), keep the lead
            session = Session.open(
                sid, store=store, resume="keep", profile=profile, agent=getattr(args, "agent", None),
                lease=getattr(args, "lease", None),
            )
        elif profile.own_json:  # a todo plan: its calls take the tool's own params, so it is made one
            session = Session.open(sid, store=store, resume="keep", profile=profile)
        else:
            # a team plan's verbs write with profile="team" per call: the lease goes with them
            session = Session.open(sid, store=store, resume="keep", lease=getattr(args, "lease", None))
    except (PhasetodoError, OSError, sqlite3.Error) as error:
        usage(f"--store {spec}: cannot open session {sid!r}: {error}")
    try:
        yield session
    finally:
        session.close()


# --- the output stream -------------------------------------------------------------------------

#: What ``--json`` escapes beyond JSON's own rules: C1 controls, DEL and the bidi and
#: line-separator characters, which JSON allows raw but a terminal acts on.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(data: object) -> str:
    """``data`` as indented JSON text, every terminal-acting character escaped as ``\\uXXXX``."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", text) + "\n"


def safe(text: str) -> str:
    """``text`` with every control character except the line breaks shown as an escape."""
    return "\n".join(visible(line) for line in text.split("\n"))


class SafeOut(io.TextIOBase):
    """A text stream that escapes control characters in everything written to it.

    Task text reaches many lines (summaries, change lines, errors, candidate
    lists); escaping at the stream covers every one of them. ``raw`` is the
    stream underneath, for output that is not text for a person (rich's own
    colours, Markdown and JSON data).
    """

    def __init__(self, raw: IO[str]) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(safe(text))
        return len(text)

    def flush(self) -> None:
        if not self.raw.closed:  # also called when this object goes away, maybe after its stream
            self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()


def raw(out: IO[str]) -> IO[str]:
    """The stream under ``out``, unescaped."""
    return out.raw if isinstance(out, SafeOut) else out


def task_count(phases: Sequence[Phase]) -> int:
    """How many tasks the phases hold."""
    return sum(len(p.tasks) for p in phases)


def plural(number: int, noun: str) -> str:
    """``1 task``, ``2 tasks``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
