"""The package's public face: the names at the top, the submodules, and the one list of public modules."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest

import phasetodo
from phasetodo import _public

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


class TestFace:
    def test_dir_is_the_public_face(self) -> None:
        """dir(phasetodo) less its public submodules is exactly __all__: nothing else leaks."""
        names = set(dir(phasetodo)) - set(_public.SUBMODULES)
        assert names == set(phasetodo.__all__)

    def test_the_submodules_come_from_the_one_list(self) -> None:
        """Every top-level public module of phasetodo._public.MODULES is reachable as an attribute."""
        for name in _public.SUBMODULES:
            assert getattr(phasetodo, name) is importlib.import_module(f"phasetodo.{name}")

    def test_the_architecture_page_names_every_public_module(self) -> None:
        """docs/architecture.md lists the public modules of the one list, and no other."""
        page = (Path(__file__).parents[2] / "docs" / "architecture.md").read_text(encoding="utf-8")
        listed = set(re.findall(r"`(phasetodo(?:\.[a-z_]+)*)`", page.split("## Public modules", 1)[1]))
        assert listed == {*_public.MODULES, *_public.APPS}

    def test_a_moved_name_is_not_kept(self) -> None:
        """Names that lived at the top before 0.1 (nothing was released) are plain AttributeErrors."""
        with pytest.raises(AttributeError, match="CorruptLog"):
            phasetodo.CorruptLog  # type: ignore[attr-defined]  # noqa: B018

    def test_an_unknown_name_is_an_attribute_error(self) -> None:
        """A name that never existed raises AttributeError, with no warning."""
        with pytest.raises(AttributeError, match="no_such_name"):
            phasetodo.no_such_name  # type: ignore[attr-defined]  # noqa: B018
