"""The parity profile (the default): the reference tool to the character.

Op errors are listed at the top of the text, the rest of the batch still
applies, and the result is never an error. The conformance vectors define it.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._core import schema
from .._core.codec import parse_params
from .._core.columns import Columns
from .._core.engine import Outcome, apply
from .._core.model import Phase
from .._core.ops import Op
from .._views.summary import summary_parts
from .registry import CallContext, Profile
from .result import Storage, ToolResult

__all__ = ["DESCRIPTION", "PARITY", "parity_report"]


#: What the model reads about the tool: the ops, the naming rules and examples.
DESCRIPTION = """\
Keep a phased todo list for the work in this session. Each call applies an \
ordered list of operations ("ops") to the list and answers with a summary of \
what remains.

When to use it: plan any task with three or more real steps, work the user \
hands you as a list, or anything you expect to revise as you learn more. Skip \
it for a single quick step or a purely conversational reply.

How the list is built: phases hold tasks, in order. A task's content is its \
name and a phase's name is its handle: every later op finds a task by its \
exact content and a phase by its exact name. So keep contents unique and \
phase names short ("Explore", "Fix", "Verify"), with no numbering, and never \
reword them once written.

Operations, applied in the order given:
- init {list: [{phase, items}]}: replace the whole list; every task starts pending.
- start {task}: make that task the one in progress; any other active task goes back to pending.
- done {task} | {phase} | {}: complete one task, every task of a phase, or everything.
- drop {task} | {phase} | {}: abandon instead of completing (no longer needed).
- rm {task} | {phase} | {}: remove a task, empty a phase, or empty every phase.
- append {phase, items}: add pending tasks to a phase, creating the phase if needed.
- note {task, text}: attach a short note (a finding, a decision) to a task.

Habits that keep the list honest: mark a task done the moment it is finished, \
not in a batch at the end; start the next task in the same call; drop what \
turns out to be unnecessary rather than leaving it pending; append work you \
discover. Exactly one task is in progress while work remains: when none is, \
the first pending task is started for you.

Examples:
{"ops": [{"op": "init", "list": [{"phase": "Explore", "items": ["Read the failing test", "Find the cause"]}, {"phase": "Fix", "items": ["Patch the parser", "Run the tests"]}]}]}
{"ops": [{"op": "done", "task": "Read the failing test"}, {"op": "start", "task": "Find the cause"}]}
{"ops": [{"op": "note", "task": "Find the cause", "text": "Tabs are not treated as whitespace."}, {"op": "append", "phase": "Fix", "items": ["Add a regression test"]}]}
{"ops": [{"op": "drop", "phase": "Explore"}]}
"""  # noqa: E501 - one JSON example per line


def parity_report(outcome: Outcome, storage: Storage) -> ToolResult:
    """The reference's result: the summary (errors first) and ``{"phases", "storage"}``,
    written from the outcome's working copy in one pass."""
    work = outcome.columns
    if work is None:  # an outcome made by hand
        work = Columns(outcome.phases)
        work.errors = list(outcome.errors)
    text, details = summary_parts(work, storage)
    return ToolResult(text, details, errors=outcome.errors, outcome=outcome)


def _apply(phases: tuple[Phase, ...], ops: Sequence[Op], call: CallContext) -> Outcome:
    return apply(phases, ops)


#: The default profile: exactly the reference.
PARITY = Profile(
    "parity",
    schema=schema.PARAMS_SCHEMA,
    description=DESCRIPTION,
    parse=parse_params,
    apply=_apply,
    report=parity_report,
    takes_json=True,
)
