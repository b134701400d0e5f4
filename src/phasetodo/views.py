"""What a list looks like to people and to the model: the summary, Markdown (the reference's
checklist and the lossless form), diffs between two lists, the compaction anchor and the
terminal and notebook view (``TodoList``, loaded on first use: it brings its styles).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ._views.anchor import compaction_anchor
from ._views.diff import ListDiff, NoteChange, StatusChange, TaskRef, diff_phases, format_diff
from ._views.markdown import LOSSLESS_MARKER, markdown_to_phases, phases_to_markdown
from ._views.summary import format_summary

if TYPE_CHECKING:
    from ._views.render import TodoList

__all__ = [
    "LOSSLESS_MARKER",
    "ListDiff",
    "NoteChange",
    "StatusChange",
    "TaskRef",
    "TodoList",
    "compaction_anchor",
    "diff_phases",
    "format_diff",
    "format_summary",
    "markdown_to_phases",
    "phases_to_markdown",
]


def __getattr__(name: str) -> object:
    """``TodoList``, imported on first use."""
    if name == "TodoList":
        value: object = import_module("._views.render", __package__).TodoList
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
