"""docs/teams.md: its Python examples run as written, in order, in a scratch directory."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).parents[2] / "docs" / "teams.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


class TestGuide:
    def test_examples_run(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Every Python block of the guide runs, each in the namespace the ones before it left."""
        monkeypatch.chdir(tmp_path)
        namespace: dict[str, object] = {}
        for block in BLOCKS:
            exec(compile(block, str(DOC), "exec"), namespace)
        store = namespace["store"]
        for name in ("me", "lead", "worker"):
            handle = namespace.get(name)
            if handle is not None:
                handle.close()  # type: ignore[attr-defined]
        store.close()  # type: ignore[attr-defined]

    def test_there_are_examples(self) -> None:
        """The guide shows one agent and a lead with subagents in Python."""
        assert len(BLOCKS) >= 3


class TestReadme:
    def test_team_section_runs(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """The README's team example runs and the worker claims the first ready task."""
        monkeypatch.chdir(tmp_path)
        readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
        section = re.search(r"<!-- section:team -->\n(.*?)<!-- /section:team -->", readme, re.S)
        assert section is not None
        (code,) = re.findall(r"```python\n(.*?)```", section[1], re.S)
        scope: dict[str, object] = {}
        exec(compile(code, "README.md", "exec"), scope)
        worker, lead, store = scope["worker"], scope["lead"], scope["store"]
        assert worker.todo_write({"ops": [{"op": "start"}]})["details"]["task"] == "Parser"  # type: ignore[attr-defined]
        worker.close()  # type: ignore[attr-defined]
        lead.close()  # type: ignore[attr-defined]
        store.close()  # type: ignore[attr-defined]
