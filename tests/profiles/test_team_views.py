"""Team plans as people and hosts see them: reminders, Markdown, tree and notebook views."""

from __future__ import annotations

import phasetodo
from phasetodo import Phase, Status, Task
from phasetodo._views.render import render_html, render_markdown, render_text
from phasetodo.reminders import StopGuard, stop_reminder

TEAM = (
    Phase(
        "Build",
        (
            Task("Parser", Status.COMPLETED, owner="w1"),
            Task("Lexer", Status.IN_PROGRESS, ("use re",), owner="w2"),
            Task("Deploy", Status.BLOCKED, owner="w1", reason="no credentials"),
            Task("Tests", after=("Lexer",)),
            Task("Docs"),
        ),
    ),
)


class TestStopReminders:
    def test_blocked_and_waiting_tasks_are_not_open_work(self) -> None:
        """Only the active task and ready tasks are listed; blocked and waiting ones are not."""
        text = stop_reminder(TEAM, 1)
        assert text is not None
        assert "Lexer [in_progress]" in text
        assert "Docs [pending]" in text
        assert "Deploy" not in text
        assert "Tests" not in text

    def test_agent_sees_its_own_work(self) -> None:
        """For an agent, another agent's active task is not its open work."""
        text = stop_reminder(TEAM, 1, agent="w1")
        assert text is not None
        assert "Lexer" not in text
        assert "Docs [pending]" in text

    def test_all_blocked_lets_the_agent_stop(self) -> None:
        """A plan whose open tasks are all blocked gives no reminder."""
        phases = (Phase("P", (Task("a", Status.BLOCKED, reason="r"), Task("b", Status.COMPLETED))),)
        assert StopGuard().before_stop(phases) is None
        assert StopGuard().before_stop(phases, agent="w1") is None


class TestMarkdown:
    def test_lossless_round_trip(self) -> None:
        """Owners, reasons, dependencies and blocked come back exactly."""
        text = phasetodo.phases_to_markdown(TEAM, lossless=True)
        assert "- [!] Deploy\n  @owner w1\n  @reason no credentials\n" in text
        assert "- [ ] Tests\n  @after Lexer\n" in text
        phases, errors = phasetodo.markdown_to_phases(text)
        assert (tuple(phases), errors) == (TEAM, [])

    def test_reference_format_marks_blocked(self) -> None:
        """The reference format writes a blocked task as [!] and its reader reports it unknown."""
        text = phasetodo.phases_to_markdown(TEAM)
        assert "- [!] Deploy" in text
        _, errors = phasetodo.markdown_to_phases(text)
        assert errors == ['Line 5: unknown status marker "[!]" (use [ ], [x], [/], [-])']


class TestTree:
    def test_terminal_tree_shows_owner_reason_after(self) -> None:
        """The plain tree marks blocked tasks and shows owners, reasons and dependencies."""
        text = render_text(TEAM)
        assert "├── ⊘ Deploy  @w1 · blocked: no credentials" in text
        assert "├── ☐ Tests  after: Lexer" in text
        assert "I. Build  1/5" in text

    def test_reference_lists_look_unchanged(self) -> None:
        """A list without team fields draws no team marks."""
        assert "@" not in render_text((Phase("P", (Task("a", Status.IN_PROGRESS),)),))

    def test_notebook_views_carry_team_fields(self) -> None:
        """HTML and Markdown show the owner, the reason (escaped) and the dependencies."""
        phases = (Phase("P", (Task("x", Status.BLOCKED, owner="<w>", reason="a & b"),)),)
        html = render_html(phases)
        assert '"opacity:.7">@&lt;w&gt; · blocked: a &amp; b</span>' in html
        markdown = render_markdown(TEAM)
        assert "- ⊘ Deploy · *\\@w1* · *blocked\\: no credentials*" in markdown


class TestWholeList:
    def test_blocked_reads_as_pending(self) -> None:
        """A whole-list format has no blocked status: a blocked task reads as pending."""
        from phasetodo.integrations.wholelist import ClaudeCodeTodoWrite
        from phasetodo.tool import MemoryState, TodoWriteTool

        fmt = ClaudeCodeTodoWrite()
        fmt.tool = TodoWriteTool(MemoryState(TEAM))
        statuses = [item["status"] for item in fmt.read()["todos"]]
        assert statuses == ["completed", "in_progress", "pending", "pending", "pending"]
