"""The package's public face: the names at the top, the submodules, and the names that moved."""

from __future__ import annotations

import importlib
import warnings

import pytest

import phasetodo

#: Every name ``phasetodo`` exports. Adding one is a decision: this list says so in review.
EXPORTED = {
    "DEFAULT_LIMITS", "DETAILS_SCHEMA", "PARITY", "REFERENCE_STATUSES", "STRICT", "TEAM", "Event",
    "InvalidParams", "InvalidPhases", "JsonlStore", "Lease", "Limits", "ListDiff", "MemoryStore", "Phase",
    "PhasetodoError", "PhasetodoWarning", "PostgresStore", "Profile", "Session", "SessionError",
    "SqliteStore", "Status", "Store", "StoreError", "Task", "TodoList", "TodoWriteTool", "ToolResult",
    "VersionConflict", "__version__", "apply", "compaction_anchor", "diff_phases", "dump_phases",
    "format_summary", "load_phases", "markdown_to_phases", "phases_to_markdown", "todo_write",
}
SUBMODULES = ("errors", "ops", "person", "profiles", "session", "stores", "todo", "tool", "views", "testing")


class TestTopLevel:
    def test_the_exported_names_are_pinned(self) -> None:
        """``__all__`` is exactly the pinned set, and at most 40 names."""
        assert set(phasetodo.__all__) == EXPORTED
        assert len(phasetodo.__all__) <= 40

    def test_every_exported_name_resolves(self) -> None:
        """Each name of ``__all__`` is reachable (the lazy ones on first use) without a warning."""
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for name in phasetodo.__all__:
                assert getattr(phasetodo, name) is not None

    def test_the_names_design_pins_stay(self) -> None:
        """The contract names of DESIGN.md are all at the top."""
        for name in ("todo_write", "phases_to_markdown", "markdown_to_phases", "dump_phases", "load_phases",
                     "Session", "PostgresStore", "InvalidParams"):
            assert name in phasetodo.__all__


class TestSubmodules:
    @pytest.mark.parametrize("name", SUBMODULES)
    def test_each_submodule_exports_what_it_lists(self, name: str) -> None:
        """``phasetodo.<module>.__all__`` names resolve, and the module is reachable as an attribute."""
        module = importlib.import_module(f"phasetodo.{name}")
        for exported in module.__all__:
            assert getattr(module, exported) is not None
        if name != "testing":
            assert getattr(phasetodo, name) is module


class TestMoved:
    @pytest.mark.parametrize("name", sorted({*phasetodo._MOVED, *phasetodo._RENAMED}))
    def test_a_moved_name_still_works_and_says_where_it_went(self, name: str) -> None:
        """The old top-level name gives the same object, with a DeprecationWarning naming its module."""
        where, new = phasetodo._RENAMED.get(name) or (phasetodo._MOVED[name], name)
        with pytest.warns(DeprecationWarning, match=rf"phasetodo\.{where}\.{new}"):
            value = getattr(phasetodo, name)
        assert value is getattr(importlib.import_module(f"phasetodo.{where}"), new)

    def test_an_unknown_name_is_an_attribute_error(self) -> None:
        """A name that never existed raises AttributeError, with no warning."""
        with pytest.raises(AttributeError, match="no_such_name"):
            phasetodo.no_such_name  # type: ignore[attr-defined]  # noqa: B018
