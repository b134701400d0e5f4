"""Which modules are public: one list that the package face, the API pages and the docs all read.

A module not named here is implementation, whatever its name. The order decides which
API page describes a name that several modules export (the first one).
"""

from __future__ import annotations

__all__ = ["APPS", "MODULES", "NEEDS_EXTRA", "SUBMODULES"]

#: The public modules, documented one API page each, in this order.
MODULES: tuple[str, ...] = (
    "phasetodo",
    "phasetodo.errors",
    "phasetodo.ops",
    "phasetodo.profiles",
    "phasetodo.views",
    "phasetodo.tool",
    "phasetodo.todo",
    "phasetodo.session",
    "phasetodo.session_changes",
    "phasetodo.stores",
    "phasetodo.stores.jsonl",
    "phasetodo.stores.sqlite",
    "phasetodo.stores.postgres",
    "phasetodo.stores.memory",
    "phasetodo.person",
    "phasetodo.gitplan",
    "phasetodo.transcript",
    "phasetodo.reminders",
    "phasetodo.testing",
    "phasetodo.integrations",
    "phasetodo.integrations.openai",
    "phasetodo.integrations.anthropic",
    "phasetodo.integrations.mcp",
    "phasetodo.integrations.openai_agents",
    "phasetodo.integrations.langchain",
    "phasetodo.integrations.pydantic_ai",
    "phasetodo.integrations.wholelist",
    "phasetodo.integrations.claude_tasks",
    "phasetodo.integrations.acp",
    "phasetodo.integrations.beads",
    "phasetodo.web",
)

#: Public modules documented as guides, not API pages: the ``phasetodo`` command.
APPS: tuple[str, ...] = ("phasetodo.cli",)

#: Public modules that import an optional extra, so ``phasetodo.<name>`` does not reach them
#: before they are imported by name.
NEEDS_EXTRA: tuple[str, ...] = ("phasetodo.testing", "phasetodo.web", "phasetodo.integrations")

#: The submodules that ``phasetodo.<name>`` reaches without importing them first.
SUBMODULES: frozenset[str] = frozenset(
    name.removeprefix("phasetodo.")
    for name in MODULES
    if name.count(".") == 1 and name not in NEEDS_EXTRA
)
