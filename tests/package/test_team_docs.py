"""docs/teams.md: its Python examples run as written, in order, in a scratch directory."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).parents[2] / "docs" / "teams.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


@pytest.fixture
def guide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The namespace the guide's Python blocks leave, run in order in a scratch directory."""
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    for block in BLOCKS:
        exec(compile(block, str(DOC), "exec"), namespace)
    yield namespace
    for name in ("me", "lead", "worker"):
        handle = namespace.get(name)
        if handle is not None:
            handle.close()
    namespace["store"].close()


class TestGuide:
    def test_examples_run(self, guide: dict[str, Any]) -> None:
        """Every Python block of the guide runs, each in the namespace the ones before it left."""
        assert guide["store"] is not None

    def test_there_are_examples(self) -> None:
        """The guide shows one agent and a lead with subagents in Python."""
        assert len(BLOCKS) >= 3

    def test_the_lead_is_the_plans_lead(self, guide: dict[str, Any]) -> None:
        """The handle named lead writes as the agent that leads the plan (the one that made it)."""
        lead = guide["lead"]
        assert lead.agent == lead.owner == "main"

    def test_what_the_comments_say(self, guide: dict[str, Any]) -> None:
        """The claims in the comments hold: who got which task, and the scoped handles' results."""
        plan = {t.content: t.owner for p in guide["lead"].refresh() for t in p.tasks}
        assert plan["Guide"] == "sub-1"
        assert plan["Changelog"] == "sub-2"
        assert [p.name for p in guide["docs"].phases] == ["Docs"]
        result = guide["result"]
        assert result["isError"] is True
        assert result["details"]["errors"][0].startswith(
            'Phase "Auth", the one you work on, is not in the plan (its phases: "Build", "Ship", "Docs"); '
            "the plan's lead adds it (init or append)"
        )
        assert guide["auth"].phases == ()

    def test_scopes_name_phases_of_the_plan(self, guide: dict[str, Any]) -> None:
        """Each scoped(phase=...) of the guide names a phase of its plan, but the one shown failing."""
        names = {p.name for p in guide["lead"].refresh()}
        scoped = re.findall(r'scoped\(agent="[^"]+", phase="([^"]+)"\)', DOC.read_text(encoding="utf-8"))
        assert scoped == ["Docs", "Auth"]
        assert "Docs" in names
        assert "Auth" not in names


class TestWhatAnAgentReads:
    def test_the_example_summary_is_real(self) -> None:
        """The guide's first text block is what w1 reads after w2 claimed Lexer and the lead
        blocked Release, made here by those calls."""
        import phasetodo

        (shown, *_) = re.findall(r"```text\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
        store = phasetodo.MemoryStore()
        agents = ("lead", "w1", "w2")
        handles = [phasetodo.Session.open("plan", store=store, profile="team", agent=a) for a in agents]
        lead, w1, w2 = handles
        build = ["Parser", "Lexer", {"content": "Tests", "after": ["Parser", "Lexer"]}, "Docs"]
        plan = [{"phase": "Build", "items": build}, {"phase": "Ship", "items": ["Release"]}]
        lead.todo_write({"ops": [{"op": "init", "list": plan}]})
        w1.todo_write({"ops": [{"op": "start", "task": "Parser"}]})
        w2.todo_write({"ops": [{"op": "start", "task": "Lexer"}]})
        lead.todo_write({"ops": [{"op": "block", "task": "Release", "reason": "code freeze"}]})
        result = w1.todo_write({"ops": [{"op": "note", "task": "Parser", "text": "tokens done"}]})
        assert result["content"][0]["text"] + "\n" == shown
        for handle in handles:
            handle.close()


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
