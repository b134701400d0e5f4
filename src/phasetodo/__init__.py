"""phasetodo: the phased todo list a coding agent keeps for its model.

The model calls one tool, ``todo_write``, with ordered operations over phases
of tasks; :func:`todo_write` applies them and returns the tool result.
"""

from __future__ import annotations

from .codec import dump_phases, load_phases, parse_params
from .engine import Outcome, apply, normalize
from .errors import InvalidParams, InvalidPhases, PhasetodoError
from .markdown import markdown_to_phases, phases_to_markdown
from .model import Phase, Status, Task
from .ops import OPS, Append, Done, Drop, Init, Note, Op, PhaseItems, Rm, Start
from .schema import DETAILS_SCHEMA, PARAMS_SCHEMA
from .summary import format_summary
from .tool import result_of, todo_write

__all__ = [
    "DETAILS_SCHEMA",
    "OPS",
    "PARAMS_SCHEMA",
    "Append",
    "Done",
    "Drop",
    "Init",
    "InvalidParams",
    "InvalidPhases",
    "Note",
    "Op",
    "Outcome",
    "Phase",
    "PhaseItems",
    "PhasetodoError",
    "Rm",
    "Start",
    "Status",
    "Task",
    "apply",
    "dump_phases",
    "format_summary",
    "load_phases",
    "markdown_to_phases",
    "normalize",
    "parse_params",
    "phases_to_markdown",
    "result_of",
    "todo_write",
]
