"""docs/teams.md: its Python examples run as written, in order, in a scratch directory."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).parent.parent / "docs" / "teams.md"
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
