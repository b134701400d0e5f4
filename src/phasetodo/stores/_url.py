"""Store strings: the one grammar that names a store, and the one default store.

The library, the command, the MCP server and the board all read store strings here:

* ``memory:`` — a :class:`MemoryStore`;
* ``jsonl:PATH`` or a plain folder path — a :class:`JsonlStore`;
* ``sqlite:PATH`` or a path ending ``.db``, ``.sqlite`` or ``.sqlite3`` — a :class:`SqliteStore`;
* ``postgresql://...`` or ``postgres://...`` — a :class:`PostgresStore`.

Any other ``kind:`` prefix, ``sqlite://...``, ``jsonl:`` without a path or a
``key=value`` DSN is an :class:`~phasetodo.errors.InvalidStoreSpec`, never a
guessed path. A JSONL or SQLite store is made, with the folders it lacks, at
its first write; naming, opening or reading one creates nothing.

Without a store string the store is the JSONL folder ``$PHASETODO_HOME/sessions``
when ``PHASETODO_HOME`` is set, else ``./.phasetodo`` in the working directory.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Literal

import attrs

from ..errors import FormerDefaultStoreWarning, InvalidStoreSpec
from ._base import Store
from ._dsn import redact
from .jsonl import JsonlStore
from .memory import MemoryStore
from .postgres import PostgresStore
from .sqlite import SqliteStore

__all__ = [
    "ACCEPTED",
    "DEFAULT_FOLDER",
    "HOME_VARIABLE",
    "StoreKind",
    "StoreSpec",
    "default_directory",
    "default_spec",
    "parse_store",
    "shown",
    "store_from_url",
    "warn_if_at_former_default",
]

#: The kinds of store a store string names.
StoreKind = Literal["memory", "jsonl", "sqlite", "postgresql"]

#: The environment variable whose ``sessions`` folder is the default store when set.
HOME_VARIABLE = "PHASETODO_HOME"
#: The default store's folder in the working directory when ``PHASETODO_HOME`` is not set.
DEFAULT_FOLDER = ".phasetodo"
#: What a refused store string is told a store string may be.
ACCEPTED = (
    "a store is memory:, jsonl:PATH or a folder path (JSONL), sqlite:PATH or a path ending "
    ".db, .sqlite or .sqlite3 (SQLite), or postgresql://USER@HOST/DB (PostgreSQL)"
)

_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
#: ``kind:`` at the start (two letters or more, so ``C:`` stays a drive).
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+):")
#: A libpq ``key=value`` DSN: refused rather than taken for a folder named after it.
_KEYWORD_DSN = re.compile(r"\s*(host|hostaddr|port|dbname|user|password|service|sslmode)\s*=", re.I)
_PATH_KINDS: dict[str, StoreKind] = {"jsonl": "jsonl", "sqlite": "sqlite"}
_EXAMPLE = {"jsonl": "plans", "sqlite": "todo.db"}


def shown(text: str) -> str:
    """``text`` for messages: a DSN's password becomes ``***`` (:func:`~phasetodo.stores._dsn.redact`)."""
    scheme = _SCHEME.match(text)
    if scheme is None or scheme[1].lower() in _PATH_KINDS:
        return text  # a path, shown as given
    return redact(text)


def _refused(text: str, reason: str) -> InvalidStoreSpec:
    return InvalidStoreSpec(f"{shown(text)}: {reason}; {ACCEPTED}")


@attrs.frozen
class StoreSpec:
    """A store string read by the grammar: the ``kind`` of store and the path or DSN (``where``).

    ``text`` is the string as given, for messages (show it through :func:`shown`).
    """

    kind: StoreKind
    where: str
    text: str

    def exists(self) -> bool:
        """Whether something is there to read (a memory or server store always is)."""
        if self.kind in ("jsonl", "sqlite"):
            return os.path.lexists(self.where)
        return True

    def open(self) -> Store:
        """The store; a path of the other kind (a file for JSONL, a folder for SQLite) is refused."""
        if self.kind == "memory":
            return MemoryStore()
        if self.kind == "postgresql":
            return PostgresStore(self.where)
        path = Path(self.where)
        if self.kind == "sqlite":
            if path.is_dir():
                raise InvalidStoreSpec(
                    f"{shown(self.text)}: {self.where} is a directory, not a SQLite file "
                    f"(jsonl:{self.where} names a JSONL store there)"
                )
            return SqliteStore(path)
        if path.exists() and not path.is_dir():
            raise InvalidStoreSpec(
                f"{shown(self.text)}: not a directory (the JSONL store is a directory; "
                f"use sqlite:{self.where} for a SQLite file)"
            )
        return JsonlStore(path)


def parse_store(text: str) -> StoreSpec:
    """The store ``text`` names; raises :class:`~phasetodo.errors.InvalidStoreSpec` for any other string."""
    if not text.strip():
        raise _refused(text, "empty")
    if _KEYWORD_DSN.match(text):
        raise InvalidStoreSpec(f"a key=value DSN: write it as postgresql://USER@HOST/DB; {ACCEPTED}")
    scheme = _SCHEME.match(text)
    if scheme is None:
        kind: StoreKind = "sqlite" if text.lower().endswith(_SQLITE_SUFFIXES) else "jsonl"
        return StoreSpec(kind, text, text)
    name, rest = scheme[1].lower(), text[scheme.end() :]
    if name in ("postgresql", "postgres"):
        if rest.startswith("//"):
            return StoreSpec("postgresql", text, text)
        raise _refused(text, "a PostgreSQL store is a URL, postgresql://USER@HOST/DB")
    if name == "memory":
        if rest:
            raise _refused(text, "memory: takes nothing after the colon")
        return StoreSpec("memory", "", text)
    path_kind = _PATH_KINDS.get(name)
    if path_kind is not None:
        example = _EXAMPLE[path_kind]
        if not rest:
            raise _refused(text, f"give the path after the colon, as in {name}:{example}")
        if rest.startswith("//"):
            hint = f"write {name}:{example} or {name}:/abs/{example}"
            raise _refused(text, f"{name}: takes a path, not //: {hint}")
        return StoreSpec(path_kind, rest, text)
    raise _refused(text, f"unknown store kind {scheme[0]!r}")


def default_directory() -> Path:
    """The default store's folder: ``$PHASETODO_HOME/sessions`` if set, else ``./.phasetodo`` (absolute)."""
    home = os.environ.get(HOME_VARIABLE)
    return Path(home) / "sessions" if home else Path.cwd() / DEFAULT_FOLDER


def default_spec() -> StoreSpec:
    """The default store as a store string's value, relative to the working directory when it is."""
    home = os.environ.get(HOME_VARIABLE)
    where = str(Path(home) / "sessions") if home else f"./{DEFAULT_FOLDER}"
    return StoreSpec("jsonl", where, where)


def store_from_url(text: str | None = None) -> Store:
    """The store ``text`` names (see the module's grammar); ``None`` is the default store."""
    return (default_spec() if text is None else parse_store(text)).open()


def warn_if_at_former_default(session_id: str, directory: Path) -> None:
    """Warn when ``session_id`` is not in ``directory`` but is where the default store used to be."""
    if os.environ.get(HOME_VARIABLE):
        return  # $PHASETODO_HOME/sessions was the default before as well
    try:
        state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    except RuntimeError:  # no home directory to look in
        return
    former = Path(state) / "phasetodo" / "sessions"
    name = f"{session_id}.jsonl"
    if former.resolve() == directory.resolve() or (directory / name).exists():
        return
    if (former / name).is_file():
        warnings.warn(
            f"session {session_id!r} is at the former default location {former}, not in {directory}; "
            f"set {HOME_VARIABLE}={former.parent} to go on using it there",
            FormerDefaultStoreWarning,
            stacklevel=3,
        )
