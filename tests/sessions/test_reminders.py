"""The reminder texts a host injects."""

from __future__ import annotations

import phasetodo
from phasetodo.reminders import (
    ERROR_REMINDER_TYPE,
    StopGuard,
    failed_call_reminder,
    stop_reminder,
    user_edit_reminder,
)

LIST = phasetodo.load_phases(
    [
        {"name": "Explore", "tasks": [{"content": "Read", "status": "completed"}]},
        {"name": "Fix", "tasks": [{"content": "Patch", "status": "in_progress"},
                                  {"content": "Test", "status": "pending"},
                                  {"content": "Old", "status": "abandoned"}]},
    ]
)
DONE = phasetodo.load_phases(
    [{"name": "Fix", "tasks": [{"content": "Patch", "status": "completed"}]}]
)


class TestFailedCall:
    def test_the_reminder_says_progress_is_not_visible_until_a_retry(self) -> None:
        """The hidden reminder names the failure and asks for a retry."""
        text = failed_call_reminder("ops[0].op: must be one of init, ...")
        assert text.startswith("<system-reminder>")
        assert "ops[0].op" in text
        assert "call it again" in text
        assert ERROR_REMINDER_TYPE == "todo-write-error-reminder"

    def test_the_error_is_optional(self) -> None:
        """Without an error the reminder still stands on its own."""
        assert "The error was" not in failed_call_reminder()


class TestStop:
    def test_the_reminder_lists_incomplete_tasks_per_phase(self) -> None:
        """Open tasks are listed under their phase, with the attempt count."""
        text = stop_reminder(LIST, 1)
        assert text is not None
        assert "(reminder 1/3)" in text
        assert "Fix:\n  - Patch [in_progress]\n  - Test [pending]" in text
        assert "Explore" not in text
        assert "Old" not in text

    def test_a_complete_list_needs_no_reminder(self) -> None:
        """Nothing open, nothing to say."""
        assert stop_reminder(DONE, 1) is None

    def test_the_guard_gives_up_after_max_attempts(self) -> None:
        """Three reminders by default, then the agent may stop."""
        guard = StopGuard()
        texts = [guard.before_stop(LIST) for _ in range(4)]
        assert [t is not None for t in texts] == [True, True, True, False]
        assert texts[2] is not None
        assert "(reminder 3/3)" in texts[2]

    def test_a_new_user_prompt_resets_the_count(self) -> None:
        """After user_prompt() the reminders start again from 1."""
        guard = StopGuard(max_attempts=1)
        guard.before_stop(LIST)
        assert guard.before_stop(LIST) is None
        guard.user_prompt()
        text = guard.before_stop(LIST)
        assert text is not None
        assert "(reminder 1/1)" in text

    def test_a_complete_list_resets_the_count(self) -> None:
        """Finishing the list starts the count again."""
        guard = StopGuard(max_attempts=2)
        guard.before_stop(LIST)
        guard.before_stop(LIST)
        assert guard.before_stop(DONE) is None
        assert guard.attempts == 0
        assert guard.before_stop(LIST) is not None


class TestUserEdit:
    def test_the_reminder_says_what_the_edit_changed(self) -> None:
        """Added, removed and status-changed tasks are named, then the new list."""
        session = phasetodo.Session.open("s", phasetodo.MemoryStore())
        session.user_edit(LIST)
        change = session.user_edit(
            [{"name": "Fix", "tasks": [{"content": "Patch", "status": "completed"},
                                       {"content": "Ship", "status": "pending"}]}],
            source="markdown",
        )
        text = user_edit_reminder(change)
        assert text is not None
        assert '- phase "Explore"' in text
        assert '+ "Ship" [pending] (Fix)' in text
        assert '"Patch" in_progress → completed (Fix)' in text
        assert "The list is now:\n  Fix:\n    - Patch [completed]\n    - Ship [pending]" in text

    def test_an_edit_that_changes_nothing_needs_no_reminder(self) -> None:
        """Saving the same list again gives None."""
        session = phasetodo.Session.open("s", phasetodo.MemoryStore())
        session.user_edit(LIST)
        assert user_edit_reminder(session.user_edit(LIST)) is None

    def test_a_pure_reordering_is_reported(self) -> None:
        """Moving phases around is a change the model hears about."""
        session = phasetodo.Session.open("s", phasetodo.MemoryStore())
        session.user_edit(LIST)
        text = user_edit_reminder(session.user_edit(LIST[::-1]))
        assert text is not None
        assert "reordered" in text
