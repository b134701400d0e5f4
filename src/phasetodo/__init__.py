"""phasetodo: the phased todo list a coding agent keeps for its model.

The model calls one tool, ``todo_write``, with ordered operations over phases
of tasks; :func:`todo_write` applies them and returns the tool result.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ._core.codec import dump_phases, load_phases, parse_params
from ._core.engine import Outcome, apply, normalize
from ._core.limits import DEFAULT_LIMITS, Limits
from ._core.model import REFERENCE_STATUSES, Phase, Status, Task
from ._core.ops import OPS, Append, Done, Drop, Init, Note, Op, PhaseItems, Rm, Start, View
from ._core.schema import DETAILS_SCHEMA, PARAMS_SCHEMA, STRICT_PARAMS_SCHEMA
from ._profiles.builtin import PROFILES, ProfileLike
from ._profiles.builtin import resolve as resolve_profile
from ._profiles.parity import PARITY
from ._profiles.registry import CallContext, Profile
from ._profiles.result import DetailsJSON, PhaseJSON, ResultJSON, Storage, TaskJSON
from ._profiles.strict import STRICT, StrictOutcome, apply_strict
from ._profiles.team import TEAM
from ._profiles.team_schema import TEAM_PARAMS_SCHEMA
from ._views.anchor import compaction_anchor
from ._views.diff import ListDiff, NoteChange, StatusChange, TaskRef, diff_phases, format_diff
from ._views.markdown import LOSSLESS_MARKER, markdown_to_phases, phases_to_markdown
from ._views.summary import format_summary
from .errors import (
    AmbiguousTarget,
    CorruptLog,
    CorruptLogWarning,
    InvalidEvent,
    InvalidOption,
    InvalidOptionType,
    InvalidParams,
    InvalidPhases,
    InvalidSessionId,
    NoAgentSession,
    NotSessionOwner,
    PhasetodoError,
    PhasetodoWarning,
    SessionClosed,
    SessionError,
    StoreError,
    TargetNotFound,
    TornTailWarning,
    UnknownProfile,
    VersionConflict,
)
from .tool import MemoryState, TodoState, TodoWriteTool, ToolResult, call, todo_write

__all__ = [
    "DEFAULT_LIMITS",
    "DETAILS_SCHEMA",
    "LOSSLESS_MARKER",
    "OPS",
    "PARAMS_SCHEMA",
    "PARITY",
    "PROFILES",
    "REFERENCE_STATUSES",
    "STRICT",
    "STRICT_PARAMS_SCHEMA",
    "TEAM",
    "TEAM_PARAMS_SCHEMA",
    "AmbiguousTarget",
    "Append",
    "CallContext",
    "Change",
    "CorruptLog",
    "CorruptLogWarning",
    "DetailsJSON",
    "Done",
    "Drop",
    "Event",
    "Init",
    "InvalidEvent",
    "InvalidOption",
    "InvalidOptionType",
    "InvalidParams",
    "InvalidPhases",
    "InvalidSessionId",
    "JsonlStore",
    "Limits",
    "ListDiff",
    "MemoryState",
    "MemoryStore",
    "NoAgentSession",
    "NotSessionOwner",
    "Note",
    "NoteChange",
    "Op",
    "Outcome",
    "Phase",
    "PhaseItems",
    "PhaseJSON",
    "PhasetodoError",
    "PhasetodoWarning",
    "PostgresStore",
    "Profile",
    "ProfileLike",
    "ResultJSON",
    "Rm",
    "ScopedSession",
    "Session",
    "SessionClosed",
    "SessionError",
    "SqliteStore",
    "Start",
    "Status",
    "StatusChange",
    "Storage",
    "Store",
    "StoreError",
    "StrictOutcome",
    "TargetNotFound",
    "Task",
    "TaskJSON",
    "TaskRef",
    "TodoList",
    "TodoState",
    "TodoWriteTool",
    "ToolResult",
    "TornTailWarning",
    "UnknownProfile",
    "VersionConflict",
    "View",
    "__version__",
    "apply",
    "apply_strict",
    "call",
    "compaction_anchor",
    "diff_phases",
    "dump_phases",
    "format_diff",
    "format_summary",
    "load_phases",
    "markdown_to_phases",
    "normalize",
    "parse_params",
    "phases_to_markdown",
    "resolve_profile",
    "run_auto_clear",
    "todo_write",
]


if TYPE_CHECKING:
    from . import session as session
    from . import session_changes as session_changes
    from . import stores as stores
    from ._version import __version__
    from ._views.render import TodoList
    from .session import ScopedSession, Session, run_auto_clear
    from .session_changes import Change
    from .stores import Event, JsonlStore, MemoryStore, PostgresStore, SqliteStore, Store

#: Public names whose modules load on first use, by module: sessions and stores bring
#: sqlite3, file locking and the event log, the terminal view its styles, ``__version__``
#: the package metadata; a host that only calls ``todo_write`` needs none of them.
_ON_FIRST_USE = {
    "._version": ("__version__",),
    "._views.render": ("TodoList",),
    ".session": ("ScopedSession", "Session", "run_auto_clear"),
    ".session_changes": ("Change",),
    ".stores": ("Event", "JsonlStore", "MemoryStore", "PostgresStore", "SqliteStore", "Store"),
}
_LAZY = {name: module for module, names in _ON_FIRST_USE.items() for name in names}
#: Submodules that ``phasetodo.<name>`` still reaches without importing them first.
_SUBMODULES = frozenset(("session", "session_changes", "stores"))


def __getattr__(name: str) -> object:
    """A public name of :data:`_ON_FIRST_USE` or a submodule, imported on first use and kept."""
    if name in _SUBMODULES:
        return import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBMODULES})
