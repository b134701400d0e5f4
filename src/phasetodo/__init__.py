"""phasetodo: the phased todo list a coding agent keeps for its model.

The model calls one tool, ``todo_write``, with ordered operations over phases
of tasks; :func:`todo_write` applies them and returns the tool result.
"""

from __future__ import annotations

from ._version import __version__
from .anchor import compaction_anchor
from .codec import dump_phases, load_phases, parse_params
from .diff import ListDiff, NoteChange, StatusChange, TaskRef, diff_phases, format_diff
from .engine import Outcome, apply, normalize
from .errors import (
    CorruptLog,
    CorruptLogWarning,
    InvalidParams,
    InvalidPhases,
    InvalidSessionId,
    NoAgentSession,
    NotSessionOwner,
    PhasetodoError,
    SessionClosed,
    SessionError,
    StoreError,
    TornTailWarning,
    VersionConflict,
)
from .limits import DEFAULT_LIMITS, Limits
from .markdown import LOSSLESS_MARKER, markdown_to_phases, phases_to_markdown
from .model import Phase, Status, Task
from .ops import OPS, Append, Done, Drop, Init, Note, Op, PhaseItems, Rm, Start
from .profiles import PROFILES, Profile, UnknownProfile
from .render import TodoList
from .schema import DETAILS_SCHEMA, PARAMS_SCHEMA, STRICT_PARAMS_SCHEMA
from .session import Session
from .session_changes import Change
from .stores import Event, JsonlStore, MemoryStore, SqliteStore, Store
from .strict import StrictOutcome, View, apply_strict
from .summary import format_summary
from .tool import TodoWriteTool, ToolResult, result_of, todo_write

__all__ = [
    "DEFAULT_LIMITS",
    "DETAILS_SCHEMA",
    "LOSSLESS_MARKER",
    "OPS",
    "PARAMS_SCHEMA",
    "PROFILES",
    "STRICT_PARAMS_SCHEMA",
    "Append",
    "Change",
    "CorruptLog",
    "CorruptLogWarning",
    "Done",
    "Drop",
    "Event",
    "Init",
    "InvalidParams",
    "InvalidPhases",
    "InvalidSessionId",
    "JsonlStore",
    "Limits",
    "ListDiff",
    "MemoryStore",
    "NoAgentSession",
    "NotSessionOwner",
    "Note",
    "NoteChange",
    "Op",
    "Outcome",
    "Phase",
    "PhaseItems",
    "PhasetodoError",
    "Profile",
    "Rm",
    "Session",
    "SessionClosed",
    "SessionError",
    "SqliteStore",
    "Start",
    "Status",
    "StatusChange",
    "Store",
    "StoreError",
    "StrictOutcome",
    "Task",
    "TaskRef",
    "TodoList",
    "TodoWriteTool",
    "ToolResult",
    "TornTailWarning",
    "UnknownProfile",
    "VersionConflict",
    "View",
    "__version__",
    "apply",
    "apply_strict",
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
    "result_of",
    "todo_write",
]
