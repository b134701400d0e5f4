"""Claude Code's task tools on a real team session: the answers a model gets for input the team
rules refuse, and what TaskGet and TaskList show of notes, owners and blockers."""

from __future__ import annotations

import pytest

import phasetodo
from phasetodo.errors import InvalidParams
from phasetodo.integrations.claude_tasks import ClaudeCodeTasks, SessionWriter, TaskReply, claude_tasks


@pytest.fixture
def store() -> phasetodo.MemoryStore:
    return phasetodo.MemoryStore()


def _tools(store: phasetodo.MemoryStore, agent: str) -> ClaudeCodeTasks:
    return claude_tasks(phasetodo.Session.open("plan", store=store, profile="team", agent=agent))


def _ok(reply: TaskReply) -> str:
    assert not reply.is_error, reply.text
    return reply.text


def _refused(reply: TaskReply) -> str:
    assert reply.is_error, reply.text
    return reply.text


class TestWhoMayUseThem:
    def test_a_session_without_an_agent_is_refused(self, store: phasetodo.MemoryStore) -> None:
        """The tools act for an agent: a handle opened without one is refused, saying how to open it."""
        session = phasetodo.Session.open("plan", store=store, profile="team")
        with pytest.raises(InvalidParams, match=r"session: open it as an agent"):
            claude_tasks(session)

    def test_a_blank_agent_is_refused(self, store: phasetodo.MemoryStore) -> None:
        """An agent name of spaces is refused, naming ``agent``."""
        session = phasetodo.Session.open("plan", store=store, profile="team", agent="w1")
        with pytest.raises(InvalidParams, match="agent: must be a non-blank string"):
            ClaudeCodeTasks(SessionWriter(session), "  ")


class TestCreate:
    def test_a_blank_subject_is_refused(self, store: phasetodo.MemoryStore) -> None:
        """A subject of spaces is an error reply naming ``subject``; nothing is created."""
        tools = _tools(store, "w1")
        assert _refused(tools.execute("TaskCreate", {"subject": " ", "description": ""})) == (
            "subject: must not be blank"
        )
        assert _ok(tools.execute("TaskList", {})) == "No tasks found"

    def test_tasks_go_to_the_last_phase_of_a_lead_plan(self, store: phasetodo.MemoryStore) -> None:
        """On a plan the lead laid out, a created task joins its last phase."""
        lead = phasetodo.Session.open("plan", store=store, profile="team", agent="lead")
        lead.todo_write({"ops": [{"op": "init", "list": [{"phase": "Build", "items": ["A"]},
                                                         {"phase": "Ship", "items": ["B"]}]}]})
        _ok(_tools(store, "w1").execute("TaskCreate", {"subject": "C", "description": ""}))
        lead.refresh()
        assert [t.content for t in lead.phases[-1].tasks] == ["B", "C"]

    def test_the_reply_reads_as_a_tool_result(self, store: phasetodo.MemoryStore) -> None:
        """A reply serializes as an MCP / Anthropic tool result, with its error flag."""
        reply = _tools(store, "w1").execute("TaskGet", {"taskId": "9"})
        assert reply.to_json() == {"content": [{"type": "text", "text": "Task not found"}], "isError": True}


class TestGetAndList:
    def test_get_shows_every_note_the_owner_and_the_block(self, store: phasetodo.MemoryStore) -> None:
        """TaskGet shows the first note as the description, later ones as notes, the owner and why
        a task is blocked; TaskList shows the owner and the reason."""
        w1 = _tools(store, "w1")
        _ok(w1.execute("TaskCreate", {"subject": "A", "description": "the first"}))
        _ok(w1.execute("TaskUpdate", {"taskId": "1", "description": "and more"}))
        _ok(w1.execute("TaskUpdate", {"taskId": "1", "status": "in_progress"}))
        w1.writer.team_write({"ops": [{"op": "block", "task": "A", "reason": "waiting on CI"}]})
        assert _ok(w1.execute("TaskGet", {"taskId": "#1"})).splitlines() == [
            "Task #t1: A",
            "Status: blocked",
            "Description: the first",
            "Note: and more",
            "Owner: w1",
            "Blocked because: waiting on CI",
        ]
        assert _ok(w1.execute("TaskList", {})) == "#t1 [blocked] A (w1) — waiting on CI"


class TestUpdate:
    @pytest.fixture
    def w1(self, store: phasetodo.MemoryStore) -> ClaudeCodeTasks:
        tools = _tools(store, "w1")
        for subject in ("A", "B"):
            _ok(tools.execute("TaskCreate", {"subject": subject, "description": ""}))
        return tools

    def test_an_unknown_task_is_not_found(self, w1: ClaudeCodeTasks) -> None:
        """An id no task has is an error reply."""
        assert _refused(w1.execute("TaskUpdate", {"taskId": "t9", "status": "completed"})) == "Task not found"

    def test_the_subject_cannot_change(self, w1: ClaudeCodeTasks) -> None:
        """A task is named by its subject: a new subject is refused, naming ``subject``."""
        text = _refused(w1.execute("TaskUpdate", {"taskId": "1", "subject": "A2"}))
        assert text.startswith("subject: a task is named by its subject")

    @pytest.mark.parametrize("key", ["addBlockedBy", "addBlocks"])
    def test_a_dependency_on_an_unknown_task_is_named(self, w1: ClaudeCodeTasks, key: str) -> None:
        """A dependency naming no task is refused, naming the field and the id."""
        assert _refused(w1.execute("TaskUpdate", {"taskId": "1", key: ["7"]})) == f"{key}: task '7' not found"

    def test_a_started_task_does_not_go_back_to_pending(self, w1: ClaudeCodeTasks) -> None:
        """Setting a claimed task pending is refused, saying what to do instead."""
        _ok(w1.execute("TaskUpdate", {"taskId": "1", "status": "in_progress"}))
        assert _refused(w1.execute("TaskUpdate", {"taskId": "1", "status": "pending"})).startswith(
            "status: a task goes back to pending when its agent starts another"
        )

    def test_the_update_names_what_it_changed(self, w1: ClaudeCodeTasks) -> None:
        """Claiming by owner, an activeForm and a description are named in the reply; no change says so."""
        text = _ok(w1.execute("TaskUpdate", {"taskId": "1", "owner": "w1", "activeForm": "Doing A"}))
        assert text == "Updated task #t1 status, owner, activeForm"
        assert w1.active_forms == {"A": "Doing A"}
        assert _ok(w1.execute("TaskUpdate", {"taskId": "2", "description": "why"})) == (
            "Updated task #t2 description"
        )
        assert _ok(w1.execute("TaskUpdate", {"taskId": "2"})) == "Updated task #t2 nothing"

    def test_a_team_rule_refusal_comes_back_as_an_error(self, w1: ClaudeCodeTasks) -> None:
        """A dependency cycle the team rules refuse is an error reply, and nothing is written."""
        _ok(w1.execute("TaskUpdate", {"taskId": "1", "addBlockedBy": ["2"]}))
        assert "cycle" in _refused(w1.execute("TaskUpdate", {"taskId": "2", "addBlockedBy": ["1"]})).lower()
        listing = _ok(w1.execute("TaskList", {})).splitlines()
        assert listing == ["#t1 [pending] A [blocked by #t2]", "#t2 [pending] B"]

    def test_created_with_an_active_form(self, store: phasetodo.MemoryStore) -> None:
        """TaskCreate keeps the activeForm it is given for the subject."""
        tools = _tools(store, "w1")
        _ok(tools.execute("TaskCreate", {"subject": "A", "description": "", "activeForm": "Doing A"}))
        assert tools.active_forms == {"A": "Doing A"}
