"""Claude Code's task tools (TaskCreate, TaskUpdate, TaskGet, TaskList) on a team plan.

An agent trained on those four tools works a shared phasetodo plan through
them: each call becomes one all-or-nothing team ``todo_write`` call made as
that agent, so claims, dependencies and permissions are the team engine's.

Mapping:

* ``taskId`` is the team task's id (``t1``, ``t2``, ...: unique in the plan, never
  reused, kept across renames and moves), shown as ``#t3``; ``#3`` and ``3`` mean
  ``t3``. New tasks go to the end of the last phase, and a deleted task is dropped
  (abandoned), not removed.
* ``subject`` is the task's content; ``description`` its first note (later
  descriptions add notes); ``activeForm`` is kept by this object only.
* ``status``: ``in_progress`` starts (claims) the task for the caller,
  ``completed`` is ``done``, ``deleted`` is ``drop``; a blocked task is listed
  as ``blocked`` with its reason.
* ``blockedBy`` is the task's ``after``; ``blocks`` the tasks whose ``after``
  names it. ``addBlockedBy`` / ``addBlocks`` add such dependencies.
* ``owner`` is the agent on the task or that closed it; setting it to the
  caller claims the task. Tasks are never assigned to someone else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs

from .._core.jsstring import is_blank
from .._core.model import Phase, Status, Task
from .._core.schema import problems
from ..errors import InvalidParams

__all__ = ["CLAUDE_TASK_TOOLS", "ClaudeCodeTasks", "SessionWriter", "TaskReply", "TeamWriter", "claude_tasks"]


class TeamWriter(Protocol):
    """What the task tools need: a team call as the agent, and the newest plan."""

    def team_write(self, params: Mapping[str, Any]) -> tuple[bool, str, tuple[Phase, ...]]:
        """Apply a team call; returns (is_error, text, phases after)."""
        ...

    def team_phases(self) -> tuple[Phase, ...]:
        """The plan as it is now in the store."""
        ...


@attrs.frozen
class TaskReply:
    """One task tool's answer: the text the model reads and whether it is an error."""

    text: str
    is_error: bool = False

    def to_json(self) -> dict[str, Any]:
        """As an MCP / Anthropic tool result."""
        return {"content": [{"type": "text", "text": self.text}], "isError": self.is_error}


_ID = {"type": "string", "description": "The task's id, as TaskCreate or TaskList gave it."}
_IDS = {"type": "array", "items": {"type": "string"}}

#: The four tools' names, prompts and input schemas.
CLAUDE_TASK_TOOLS: dict[str, dict[str, Any]] = {
    "TaskCreate": {
        "description": (
            "Create a task in the team's shared task list. It starts pending and unowned; "
            "use TaskUpdate to claim it (status in_progress) and to add dependencies."
        ),
        "input_schema": {
            "type": "object",
            "required": ["subject", "description"],
            "properties": {
                "subject": {"type": "string", "description": "A short imperative title, unique in the list."},
                "description": {"type": "string", "description": "What needs to be done."},
                "activeForm": {
                    "type": "string",
                    "description": "Present continuous form shown while in progress.",
                },
                "metadata": {"type": "object", "description": "Ignored; accepted for compatibility."},
            },
        },
    },
    "TaskGet": {
        "description": "Get one task with its description, owner and dependencies.",
        "input_schema": {"type": "object", "required": ["taskId"], "properties": {"taskId": _ID}},
    },
    "TaskList": {
        "description": (
            "List the team's tasks: id, status, subject, owner and what blocks each. "
            "Claim a pending, unowned, unblocked task with TaskUpdate."
        ),
        "input_schema": {"type": "object", "properties": {}},
    },
    "TaskUpdate": {
        "description": (
            "Update a task: status in_progress claims it for you (one task at a time), completed "
            "finishes it, deleted drops it; addBlockedBy/addBlocks add dependencies; description "
            "adds a note. Another agent's task cannot be taken."
        ),
        "input_schema": {
            "type": "object",
            "required": ["taskId"],
            "properties": {
                "taskId": _ID,
                "status": {"type": "string", "enum": ["pending", "in_progress", "completed", "deleted"]},
                "subject": {"type": "string"},
                "description": {"type": "string"},
                "activeForm": {"type": "string"},
                "owner": {"type": "string"},
                "addBlocks": {
                    **_IDS,
                    "description": "Ids of tasks that cannot start until this one is done.",
                },
                "addBlockedBy": {**_IDS, "description": "Ids of tasks that must be done before this one."},
                "metadata": {"type": "object"},
            },
        },
    },
}


def _numbered(phases: Sequence[Phase]) -> list[Task]:
    return [task for phase in phases for task in phase.tasks]


def _ids(tasks: Sequence[Task]) -> dict[str, str]:
    """Content -> ``#id`` of the tasks that have an id (every task of a team plan)."""
    return {t.content: f"#{t.id}" for t in tasks if t.id is not None}


class ClaudeCodeTasks:
    """The four task tools for one agent, on a team plan reached through ``writer``."""

    def __init__(self, writer: TeamWriter, agent: str) -> None:
        if not isinstance(agent, str) or is_blank(agent):
            raise InvalidParams(["agent: must be a non-blank string"])
        self.writer = writer
        self.agent = agent
        self.active_forms: dict[str, str] = {}

    # -- entry point -----------------------------------------------------------------

    def execute(self, name: str, params: object) -> TaskReply:
        """Run tool ``name`` with ``params``; bad input gives an error reply."""
        spec = CLAUDE_TASK_TOOLS.get(name)
        if spec is None:
            return TaskReply(f"Unknown tool {name!r}: one of {', '.join(CLAUDE_TASK_TOOLS)}", True)
        found = problems(params, spec["input_schema"])
        if found:
            return TaskReply("Invalid input:\n" + "\n".join(f"- {p}" for p in found), True)
        assert isinstance(params, Mapping)
        method = getattr(self, f"_{name[4:].lower()}")
        reply: TaskReply = method(params)
        return reply

    # -- the tools ---------------------------------------------------------------------

    def _create(self, params: Mapping[str, Any]) -> TaskReply:
        subject, description = params["subject"], params["description"]
        if is_blank(subject):
            return TaskReply("subject: must not be blank", True)
        phases = self.writer.team_phases()
        phase = phases[-1].name if phases else "Tasks"
        ops: list[dict[str, Any]] = [{"op": "append", "phase": phase, "items": [subject]}]
        if not is_blank(description):
            ops.append({"op": "note", "task": subject, "text": description})
        error, text, after = self.writer.team_write({"ops": ops})
        if error:
            return TaskReply(text, True)
        if params.get("activeForm"):
            self.active_forms[subject] = params["activeForm"]
        ident = _ids(_numbered(after))[subject]
        return TaskReply(f"Task {ident} created successfully: {subject}")

    def _get(self, params: Mapping[str, Any]) -> TaskReply:
        tasks = _numbered(self.writer.team_phases())
        task = self._lookup(tasks, params["taskId"])
        if task is None:
            return TaskReply("Task not found", True)
        ids = _ids(tasks)
        lines = [f"Task {ids[task.content]}: {task.content}", f"Status: {_status(task)}"]
        if task.notes:
            lines.append(f"Description: {task.notes[0]}")
            lines += [f"Note: {n}" for n in task.notes[1:]]
        if task.owner:
            lines.append(f"Owner: {task.owner}")
        if task.reason:
            lines.append(f"Blocked because: {task.reason}")
        blocked_by = [ids[c] for c in task.after if c in ids]
        blocks = [ids[t.content] for t in tasks if task.content in t.after and t.content in ids]
        if blocked_by:
            lines.append(f"Blocked by: {', '.join(blocked_by)}")
        if blocks:
            lines.append(f"Blocks: {', '.join(blocks)}")
        return TaskReply("\n".join(lines))

    def _list(self, params: Mapping[str, Any]) -> TaskReply:
        tasks = _numbered(self.writer.team_phases())
        ids = _ids(tasks)
        closed = {t.content for t in tasks if t.status.is_closed}
        lines = []
        for task in tasks:
            if task.status is Status.ABANDONED or task.content not in ids:
                continue
            line = f"{ids[task.content]} [{_status(task)}] {task.content}"
            if task.owner:
                line += f" ({task.owner})"
            waiting = [ids[c] for c in task.after if c in ids and c not in closed]
            if waiting:
                line += f" [blocked by {', '.join(waiting)}]"
            if task.reason:
                line += f" — {task.reason}"
            lines.append(line)
        return TaskReply("\n".join(lines) if lines else "No tasks found")

    def _update(self, params: Mapping[str, Any]) -> TaskReply:
        tasks = _numbered(self.writer.team_phases())
        task = self._lookup(tasks, params["taskId"])
        if task is None:
            return TaskReply("Task not found", True)
        content = task.content
        ops: list[dict[str, Any]] = []
        changed: list[str] = []
        if "subject" in params and params["subject"] != content:
            return TaskReply("subject: a task is named by its subject, which cannot change", True)
        if params.get("description") and not is_blank(params["description"]):
            ops.append({"op": "note", "task": content, "text": params["description"]})
            changed.append("description")
        for key, found in (("addBlockedBy", "addBlockedBy"), ("addBlocks", "addBlocks")):
            for ref in params.get(key, ()):
                other = self._lookup(tasks, ref)
                if other is None:
                    return TaskReply(f"{found}: task {ref!r} not found", True)
                if key == "addBlockedBy":
                    ops.append({"op": "after", "task": content, "after": [other.content]})
                else:
                    ops.append({"op": "after", "task": other.content, "after": [content]})
            if params.get(key):
                changed.append("blockedBy" if key == "addBlockedBy" else "blocks")
        owner = params.get("owner")
        if owner is not None and owner != self.agent and owner != task.owner:
            return TaskReply(
                f"owner: a task is claimed by the agent that starts it; you are {self.agent!r}", True
            )
        status = params.get("status")
        if status is None and owner == self.agent and task.owner != self.agent:
            status = "in_progress"
        if status == "in_progress" and not (task.status is Status.IN_PROGRESS and task.owner == self.agent):
            ops.append({"op": "start", "task": content})
        elif status == "completed":
            ops.append({"op": "done", "task": content})
        elif status == "deleted":
            ops.append({"op": "drop", "task": content})
        elif status == "pending" and task.status is not Status.PENDING:
            return TaskReply(
                "status: a task goes back to pending when its agent starts another; "
                "block it (or delete it) instead",
                True,
            )
        if status is not None:
            changed.append("status")
        if owner is not None:
            changed.append("owner")
        if params.get("activeForm"):
            self.active_forms[content] = params["activeForm"]
            changed.append("activeForm")
        if ops:
            error, text, _ = self.writer.team_write({"ops": ops})
            if error:
                return TaskReply(text, True)
        return TaskReply(f"Updated task #{task.id} {', '.join(changed) or 'nothing'}")

    # -- helpers -----------------------------------------------------------------------

    @staticmethod
    def _lookup(tasks: Sequence[Task], ref: str) -> Task | None:
        """The live task whose id ``ref`` names (``#t3``, ``t3``, ``#3`` and ``3`` alike)."""
        text = ref.strip().lstrip("#")
        if text.isdigit() and text.isascii():
            text = f"t{int(text)}"
        for task in tasks:
            if task.id == text:
                return None if task.status is Status.ABANDONED else task
        return None


def _status(task: Task) -> str:
    return "deleted" if task.status is Status.ABANDONED else task.status.value


class SessionWriter:
    """A :class:`TeamWriter` on a team ``Session`` (or ``ScopedSession``) handle.

    Every write is one team call as the handle's agent, applied to the newest
    version of the plan under the store's writer lock; reads catch up first.
    """

    def __init__(self, session: Any) -> None:
        self.session = session

    def team_write(self, params: Mapping[str, Any]) -> tuple[bool, str, tuple[Phase, ...]]:
        """One team call; returns (is_error, text, plan after)."""
        result = self.session.write(params, profile="team")
        return bool(result.is_error), str(result.text), tuple(result.phases)

    def team_phases(self) -> tuple[Phase, ...]:
        """The plan as it is in the store now."""
        self.session.refresh()
        return tuple(getattr(self.session, "plan", self.session.phases))


def claude_tasks(session: Any) -> ClaudeCodeTasks:
    """Claude Code's four task tools for the agent of a team ``session`` handle."""
    agent = getattr(session, "agent", None)
    if not isinstance(agent, str):
        raise InvalidParams(["session: open it as an agent (Session.open(..., agent=...))"])
    return ClaudeCodeTasks(SessionWriter(session), agent)
