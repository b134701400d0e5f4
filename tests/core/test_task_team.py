"""A task's team fields, held as one value: the face of ``Task`` stays that of eight fields."""

from __future__ import annotations

import inspect
import pickle

import attrs

from phasetodo import Lease, Status, Task


def _team_task() -> Task:
    return Task("b", Status.COMPLETED, ["n"], "w1", None, ["a"], "t1", Lease(2))


class TestTeamFields:
    def test_plain_task_holds_no_team_value(self) -> None:
        """A task without team fields holds None and reads each field's default."""
        task = Task("a")
        assert task.team is None
        assert (task.owner, task.reason, task.after, task.id, task.lease) == (None, None, (), None, None)
        assert not task.has_team_fields

    def test_keywords_and_positions_set_the_fields(self) -> None:
        """Team fields given by position or keyword read back, lists as tuples."""
        task = _team_task()
        fields = (task.owner, task.reason, task.after, task.id, task.lease)
        assert fields == ("w1", None, ("a",), "t1", Lease(2))
        assert task == Task("b", "completed", ("n",), owner="w1", after=("a",), id="t1", lease=Lease(2))
        assert task.has_team_fields

    def test_defaults_given_explicitly_equal_a_plain_task(self) -> None:
        """Team keywords given at their defaults make a task equal to, and hashed as, a plain one."""
        given = Task("a", owner=None, reason=None, after=[], id=None, lease=None)
        assert given == Task("a")
        assert hash(given) == hash(Task("a"))
        assert given.team is None

    def test_evolve_keeps_and_clears(self) -> None:
        """attrs.evolve keeps the team fields it is not given and clears those given as None."""
        task = _team_task()
        assert attrs.evolve(task, status=Status.PENDING).after == ("a",)
        cleared = attrs.evolve(task, owner=None)
        assert (cleared.owner, cleared.id, cleared.after) == (None, "t1", ("a",))
        plain = attrs.evolve(task, after=(), id=None, lease=None, owner=None)
        assert plain == Task("b", Status.COMPLETED, ("n",))
        assert plain.team is None

    def test_repr_spells_out_eight_fields(self) -> None:
        """The repr names the eight fields, team fields included."""
        assert repr(Task("a")) == (
            "Task(content='a', status=<Status.PENDING: 'pending'>, notes=(), owner=None, "
            "reason=None, after=(), id=None, lease=None)"
        )

    def test_pickle_round_trip(self) -> None:
        """A team task and a plain task come back equal from pickle."""
        for task in (_team_task(), Task("a")):
            assert pickle.loads(pickle.dumps(task)) == task

    def test_signature_shows_the_defaults(self) -> None:
        """The signature users read gives each team keyword its default, not the sentinel."""
        params = inspect.signature(Task).parameters
        assert [params[name].default for name in ("owner", "reason", "after", "id", "lease")] == [
            None, None, (), None, None,
        ]
