"""Merges that keep the plan's guarantees: a tampered side is not merged, and team rules hold
through a merge."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasetodo.gitplan import CONFLICT_SOURCE, read_log

from .test_git_repos import commit, git, plan, start, verified, write
from .test_git_repos import repo as repo  # the fixture

pytestmark = pytest.mark.slow


def tamper(repo: Path, old: str, new: str) -> None:
    """Alter the newest record of the plan's log in place, leaving its hash as it was."""
    path = repo / ".phasetodo" / "default.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert old in lines[-1]
    lines[-1] = lines[-1].replace(old, new)
    path.write_text("".join(lines), encoding="utf-8")


class TestTamperedSide:
    def test_broken_chain_fails_the_merge(self, repo: Path) -> None:
        """A branch whose log has an altered record is not merged: the driver fails, git has a conflict."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "note", "task": "Parser", "text": "small"})
        tamper(repo, '"small"', '"large"')
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "note", "task": "Docs", "text": "API first"})
        commit(repo, "main")
        ours = (repo / ".phasetodo" / "default.jsonl").read_bytes()
        done = git(repo, "merge", "--no-edit", "feature", check=False)
        assert done.returncode != 0
        assert "hash chain is broken" in done.stdout + done.stderr
        assert "CONFLICT" in done.stdout
        git(repo, "merge", "--abort")
        assert (repo / ".phasetodo" / "default.jsonl").read_bytes() == ours


class TestTeamRules:
    def test_one_agent_two_claims(self, repo: Path) -> None:
        """The same agent claimed different tasks on two branches: one stays claimed, the other is
        released, a conflict is recorded, and either direction gives the same plan."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "start", "task": "Parser"})
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, "alice", {"op": "start", "task": "Lexer"})
        commit(repo, "main")
        git(repo, "branch", "-f", "main2")
        done = git(repo, "merge", "--no-edit", "feature")
        assert "conflict(s) recorded" in done.stderr
        tasks = plan(repo)
        active = [t.content for t in tasks.values() if t.status.value == "in_progress" and t.owner == "alice"]
        assert active == ["Lexer"]  # main's claim came later
        assert tasks["Parser"].status.value == "pending"
        assert tasks["Parser"].owner is None
        assert any("active task of alice" in n for n in tasks["Parser"].notes)
        events = read_log(repo / ".phasetodo" / "default.jsonl")
        assert CONFLICT_SOURCE in [e.source for e in events]
        assert verified(repo)
        one = (repo / ".phasetodo" / "default.jsonl").read_bytes()
        git(repo, "checkout", "-q", "feature")
        git(repo, "merge", "-q", "--no-edit", "main2")
        assert (repo / ".phasetodo" / "default.jsonl").read_bytes() == one

    def test_claims_of_different_agents_stay(self, repo: Path) -> None:
        """Two agents each claiming a task on their branch both keep their claims, with no conflict."""
        start(repo)
        git(repo, "checkout", "-qb", "feature")
        write(repo, "alice", {"op": "start", "task": "Parser"})
        commit(repo, "feature")
        git(repo, "checkout", "-q", "main")
        write(repo, "bob", {"op": "start", "task": "Lexer"})
        commit(repo, "main")
        done = git(repo, "merge", "--no-edit", "feature")
        assert "conflict" not in done.stderr
        tasks = plan(repo)
        assert (tasks["Parser"].owner, tasks["Lexer"].owner) == ("alice", "bob")
