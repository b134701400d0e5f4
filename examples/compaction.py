"""Keep a todo plan across a context compaction, as the reference does.

A host that compacts the model's conversation (summarizes the old turns away) loses the
todo tool's last result with it. Two texts keep the plan: the ``## Incomplete Todos``
section, put into the compaction summary, and a hidden reminder added as the next turn's
first message, which marks the task that was in progress for the model to reconfirm.

Run it: ``python examples/compaction.py``.
"""

from __future__ import annotations

import phasetodo
from phasetodo import todo


def summarize(old_turns: list[str]) -> str:
    """Stands in for the host's own summarizer (an LLM call in a real host)."""
    return f"## Conversation so far\n{len(old_turns)} turns: the parser was written."


def main() -> None:
    with phasetodo.Session.open("compaction-demo", "memory:", profile="todo") as session:
        session.todo_write({"op": "init", "list": [
            {"phase": "Build", "items": ["Write the parser", "Write the lexer", "Run the tests"]},
            {"phase": "Ship", "items": ["Tag the release"]},
        ]})
        session.todo_write({"op": "done", "task": "Write the parser"})
        session.todo_write({"op": "block", "task": "Run the tests", "reason": "CI is down"})

        # The host compacts: the summary carries the plan's open work, in the reference's format.
        summary = summarize(["...", "...", "..."]) + "\n\n" + todo.compaction_section(session.phases)
        # ... and the first message of the next turn tells the model what to continue.
        reminder = todo.compaction_reminder(session.phases)

    print(summary)
    print()
    print(reminder)


if __name__ == "__main__":
    main()
