"""A long-lived session after ``git checkout`` replaced its plan's log: it adopts the other
branch's log whole (as many events, or fewer), builds no write on the list it no longer holds,
raises no VersionConflict without an expected version, and its watch yields the new list."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasetodo import JsonlStore, Session
from tests.git.test_git_repos import append, commit, git, plan, repo, start, write

pytestmark = pytest.mark.slow

__all__ = ["repo"]  # the fixture, used by name


def two_branches(repo: Path, *, main_writes: int) -> None:
    """``feature`` appends "Feature" (2 events); ``main`` appends ``main_writes`` tasks "Main N"."""
    start(repo)
    git(repo, "checkout", "-qb", "feature")
    write(repo, "lead", append("Feature"))
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    for n in range(main_writes):
        write(repo, "lead", append(f"Main {n}"))
    commit(repo, "main")


def contents(session: Session) -> set[str]:
    return {t.content for p in session.phases for t in p.tasks}


class TestCheckout:
    def test_same_length_log_is_adopted(self, repo: Path) -> None:
        """After checking out a branch whose log is as long, reads show that branch's plan."""
        two_branches(repo, main_writes=1)
        with Session.open("default", store=JsonlStore(repo / ".phasetodo"), profile="team") as session:
            assert "Main 0" in contents(session)
            git(repo, "checkout", "-q", "feature")
            assert contents(session) == {"Parser", "Lexer", "Docs", "Feature"}

    def test_write_after_same_length_checkout_keeps_the_branch(self, repo: Path) -> None:
        """A write after the checkout is built on the checked-out branch's list, not the old one."""
        two_branches(repo, main_writes=1)
        store = JsonlStore(repo / ".phasetodo")
        with Session.open("default", store=store, profile="team", agent="lead") as session:
            assert session.version == 2
            git(repo, "checkout", "-q", "feature")
            session.todo_write({"ops": [append("After")]})
        assert set(plan(repo)) == {"Parser", "Lexer", "Docs", "Feature", "After"}

    def test_write_after_shorter_checkout_is_applied(self, repo: Path) -> None:
        """After checking out a branch with fewer events, a write without expected_version applies."""
        two_branches(repo, main_writes=3)
        store = JsonlStore(repo / ".phasetodo")
        with Session.open("default", store=store, profile="team", agent="lead") as session:
            assert session.version == 4
            git(repo, "checkout", "-q", "feature")
            session.todo_write({"ops": [append("After")]})
            assert session.version == 3
        assert set(plan(repo)) == {"Parser", "Lexer", "Docs", "Feature", "After"}

    def test_watch_yields_the_checked_out_list(self, repo: Path) -> None:
        """A watch that read the old branch yields the checked-out branch's newest event, whole."""
        two_branches(repo, main_writes=3)
        with Session.open("default", store=JsonlStore(repo / ".phasetodo"), profile="team") as session:
            watch = session.watch(timeout=2.0, after=4)
            write(repo, "lead", append("Main extra"))
            assert next(watch).version == 5  # the watch has read the old branch to its end
            commit(repo, "extra")
            git(repo, "checkout", "-q", "feature")
            event = next(watch)
            assert {t.content for p in event.phases for t in p.tasks} == {
                "Parser", "Lexer", "Docs", "Feature"
            }
            assert event.version == 2
            assert contents(session) == {"Parser", "Lexer", "Docs", "Feature"}


class TestSqliteRestore:
    def test_restored_database_of_the_same_length_is_adopted(self, tmp_path: Path) -> None:
        """A SQLite database restored (backup API) to another history as long is read whole."""
        import sqlite3

        from phasetodo import SqliteStore

        live, other = tmp_path / "live.db", tmp_path / "other.db"
        for path, item in ((live, "Live"), (other, "Other")):
            with Session.open("q", store=SqliteStore(path)) as writer:
                writer.todo_write({"ops": [append("Base")]})
                writer.todo_write({"ops": [append(item)]})
        with Session.open("q", store=SqliteStore(live)) as session:
            assert "Live" in contents(session)
            source, target = sqlite3.connect(other), sqlite3.connect(live)
            source.backup(target)
            source.close()
            target.close()
            assert contents(session) == {"Base", "Other"}
