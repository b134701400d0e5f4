"""What a newcomer tripped on in Python (issue 35, item 6): a lease on a plan that is not a team
plan, and a reopened session whose list the resume stripped."""

from __future__ import annotations

from pathlib import Path

import pytest

import phasetodo
from phasetodo.errors import InvalidOption

PLAN = {"ops": [{"op": "init", "list": [{"phase": "Build", "items": ["Parser", "Lexer", "Docs"]}]}]}


def _finished_two(path: Path) -> None:
    """A parity plan of three tasks in the SQLite file ``path``, two of them closed."""
    with phasetodo.Session.open("default", store=str(path)) as session:
        session.todo_write(PLAN)
        session.todo_write({"ops": [{"op": "done", "task": "Parser"}, {"op": "drop", "task": "Lexer"}]})


class TestLease:
    def test_refused_on_a_parity_plan(self, tmp_path: Path) -> None:
        """Session.open(lease=) on a parity plan raises InvalidOption naming the profile."""
        _finished_two(tmp_path / "todo.db")
        with pytest.raises(InvalidOption, match=r"lease: session 'default' is a parity plan.*'team'"):
            phasetodo.Session.open("default", store=str(tmp_path / "todo.db"), lease=60)

    def test_refused_on_a_new_plan_of_another_profile(self) -> None:
        """A new strict plan with a lease is refused too, naming strict."""
        with pytest.raises(InvalidOption, match="is a strict plan"):
            phasetodo.Session.open("s", store="memory:", profile="strict", lease=60)

    def test_taken_on_a_team_plan(self, tmp_path: Path) -> None:
        """A team plan takes the lease, whether named or recorded in its log."""
        store = str(tmp_path / "team.db")
        with phasetodo.Session.open("t", store=store, profile="team", agent="lead") as lead:
            lead.todo_write(PLAN)
        with phasetodo.Session.open("t", store=store, agent="alice", lease=60) as alice:
            assert alice.options.lease == 60.0


class TestStrippedResume:
    def test_says_what_it_left_out_and_how_to_keep_it(self, tmp_path: Path) -> None:
        """A reopened session shows, in its repr and notebook views, how many finished tasks
        the resume left out, where they are and how to keep them."""
        _finished_two(tmp_path / "todo.db")
        with phasetodo.Session.open("default", store=str(tmp_path / "todo.db")) as session:
            assert [t.content for p in session.phases for t in p.tasks] == ["Docs"]
            assert session.resume_stripped == 2
            for shown in (repr(session), session._repr_html_(), session._repr_mimebundle_()["text/plain"]):
                assert "left out 2 finished tasks" in shown
                assert "resume=" in shown
                assert "keep" in shown
                assert "logged_phases()" in shown

    def test_quiet_when_kept(self, tmp_path: Path) -> None:
        """resume='keep' leaves nothing out and says nothing."""
        _finished_two(tmp_path / "todo.db")
        with phasetodo.Session.open("default", store=str(tmp_path / "todo.db"), resume="keep") as session:
            assert session.resume_stripped == 0
            assert "left out" not in repr(session)

    def test_gone_once_the_list_moves_on(self, tmp_path: Path) -> None:
        """After the session's next write its list is its own: the note goes."""
        _finished_two(tmp_path / "todo.db")
        with phasetodo.Session.open("default", store=str(tmp_path / "todo.db")) as session:
            session.todo_write({"ops": [{"op": "note", "task": "Docs", "text": "API first"}]})
            assert session.resume_stripped == 0
            assert "left out" not in session._repr_html_()
