"""phasetodo: the phased todo list a coding agent keeps for its model.

The model calls one tool, ``todo_write``, with ordered operations over phases
of tasks; :func:`todo_write` applies them and returns the tool result.
"""

from __future__ import annotations

from ._core.codec import dump_phases, load_phases, parse_params
from ._core.engine import Outcome, apply, normalize
from ._core.limits import DEFAULT_LIMITS, Limits
from ._core.model import REFERENCE_STATUSES, Phase, Status, Task
from ._core.ops import OPS, Append, Done, Drop, Init, Note, Op, PhaseItems, Rm, Start
from ._core.schema import DETAILS_SCHEMA, PARAMS_SCHEMA, STRICT_PARAMS_SCHEMA
from ._profiles.registry import PROFILES, Profile, UnknownProfile
from ._profiles.strict import StrictOutcome, View, apply_strict
from ._views.anchor import compaction_anchor
from ._views.diff import ListDiff, NoteChange, StatusChange, TaskRef, diff_phases, format_diff
from ._views.markdown import LOSSLESS_MARKER, markdown_to_phases, phases_to_markdown
from ._views.render import TodoList
from ._views.summary import format_summary
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
from .session import Session
from .session_changes import Change
from .stores import Event, JsonlStore, MemoryStore, SqliteStore, Store
from .tool import TodoWriteTool, ToolResult, result_of, todo_write

__all__ = [
    "DEFAULT_LIMITS",
    "DETAILS_SCHEMA",
    "LOSSLESS_MARKER",
    "OPS",
    "PARAMS_SCHEMA",
    "PROFILES",
    "REFERENCE_STATUSES",
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
