"""phasetodo: the phased todo list a coding agent keeps for its model.

The model calls one tool, ``todo_write``, with ordered operations over phases
of tasks; :func:`todo_write` applies them and returns the tool result. The
names here are the everyday ones; the rest live in public submodules:
:mod:`phasetodo.ops` (op values), :mod:`phasetodo.profiles` (profiles, the typed
engine entries, schemas), :mod:`phasetodo.views` (summary, Markdown, diffs),
:mod:`phasetodo.errors`, :mod:`phasetodo.stores`, :mod:`phasetodo.session`,
:mod:`phasetodo.tool` and :mod:`phasetodo.person`; :mod:`phasetodo.todo` is the
reference's current one-op ``todo`` tool.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ._core.codec import dump_phases, load_phases
from ._core.engine import apply
from ._core.limits import DEFAULT_LIMITS, Limits
from ._core.model import REFERENCE_STATUSES, Lease, Phase, Status, Task
from ._core.schema import DETAILS_SCHEMA
from ._profiles.parity import PARITY
from ._profiles.registry import Profile
from ._public import SUBMODULES
from ._views.anchor import compaction_anchor
from ._views.summary import format_summary
from .errors import (
    InvalidParams,
    InvalidPhases,
    PhasetodoError,
    PhasetodoWarning,
    SessionError,
    StoreError,
    VersionConflict,
)
from .tool import TodoWriteTool, ToolResult, todo_write

__all__ = [
    "DEFAULT_LIMITS",
    "DETAILS_SCHEMA",
    "PARITY",
    "REFERENCE_STATUSES",
    "STRICT",
    "TEAM",
    "Event",
    "InvalidParams",
    "InvalidPhases",
    "JsonlStore",
    "Lease",
    "Limits",
    "ListDiff",
    "MemoryStore",
    "Phase",
    "PhasetodoError",
    "PhasetodoWarning",
    "PostgresStore",
    "Profile",
    "Session",
    "SessionError",
    "SqliteStore",
    "Status",
    "Store",
    "StoreError",
    "Task",
    "TodoList",
    "TodoWriteTool",
    "ToolResult",
    "VersionConflict",
    "__version__",
    "apply",
    "compaction_anchor",
    "diff_phases",
    "dump_phases",
    "format_summary",
    "load_phases",
    "markdown_to_phases",
    "phases_to_markdown",
    "todo_write",
]


if TYPE_CHECKING:
    from . import errors as errors
    from . import gitplan as gitplan
    from . import ops as ops
    from . import person as person
    from . import profiles as profiles
    from . import reminders as reminders
    from . import session as session
    from . import session_changes as session_changes
    from . import stores as stores
    from . import todo as todo
    from . import tool as tool
    from . import transcript as transcript
    from . import views as views
    from ._profiles.strict import STRICT
    from ._profiles.team import TEAM
    from ._version import __version__
    from ._views.diff import ListDiff, diff_phases
    from ._views.markdown import markdown_to_phases, phases_to_markdown
    from ._views.render import TodoList
    from .session import Session
    from .stores import Event, JsonlStore, MemoryStore, PostgresStore, SqliteStore, Store

#: Public names whose modules load on first use, by module: sessions and stores bring
#: sqlite3, file locking and the event log, the terminal view its styles, ``__version__``
#: the package metadata, the strict and team profiles their engines, Markdown its parser,
#: the list diff its values;
#: a host that only calls ``todo_write`` needs none of them.
_ON_FIRST_USE = {
    "._profiles.strict": ("STRICT",),
    "._profiles.team": ("TEAM",),
    "._version": ("__version__",),
    "._views.diff": ("ListDiff", "diff_phases"),
    "._views.markdown": ("markdown_to_phases", "phases_to_markdown"),
    "._views.render": ("TodoList",),
    ".session": ("Session",),
    ".stores": ("Event", "JsonlStore", "MemoryStore", "PostgresStore", "SqliteStore", "Store"),
}
_LAZY = {name: module for module, names in _ON_FIRST_USE.items() for name in names}
_SUBMODULES = SUBMODULES


def __getattr__(name: str) -> object:
    """A name of :data:`_ON_FIRST_USE` or a public submodule, imported on first use and kept."""
    if name in _SUBMODULES:
        return import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(import_module(module, __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public face only: ``__all__`` and the public submodules."""
    return sorted({*__all__, *_SUBMODULES})
