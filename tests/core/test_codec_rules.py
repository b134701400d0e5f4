"""The codec's converter and team fields: what the mutation check found no test for.

The converter is built on first use (importing cattrs is most of the import
time), so these tests start from a module that has not built it yet.
"""

from __future__ import annotations

from typing import Any

import pytest

import phasetodo
from phasetodo import Phase, Status, Task
from phasetodo._core import codec
from phasetodo._core.ops import Append, Done, Drop, Init, Note, Op, PhaseItems, Rm, Start


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The codec module as it is before anything asked for ``codec.converter``."""
    monkeypatch.setattr(codec, "_converter", [])
    return codec


class TestConverter:
    def test_built_once_on_first_use(self, fresh: Any) -> None:
        """The first ``codec.converter`` builds it; later ones get the same converter."""
        first = fresh.converter
        assert first is not None
        assert fresh.converter is first

    def test_structures_every_op(self, fresh: Any) -> None:
        """Op data becomes the op value the tool arguments describe."""
        convert = fresh.converter
        assert convert.structure({"op": "rm", "task": "A"}, Op) == Rm("A")
        assert convert.structure({"op": "done", "phase": "P"}, Op) == Done(phase="P")
        assert convert.structure({"op": "start", "task": "A"}, Op) == Start("A")
        assert convert.structure({"op": "note", "task": "A", "text": "t"}, Op) == Note("A", "t")
        assert convert.structure({"op": "append", "phase": "P", "items": ["a"]}, Op) == Append("P", ("a",))
        assert convert.structure({"op": "init", "list": [{"phase": "P", "items": ["a"]}]}, Op) == Init(
            (PhaseItems("P", ("a",)),)
        )

    def test_unstructures_every_op(self, fresh: Any) -> None:
        """Each op value goes back to its tool arguments, unused fields left out."""
        convert = fresh.converter
        assert convert.unstructure(Rm("A")) == {"op": "rm", "task": "A"}
        assert convert.unstructure(Done(phase="P")) == {"op": "done", "phase": "P"}
        assert convert.unstructure(Append("P", ("a", "b"))) == {
            "op": "append",
            "phase": "P",
            "items": ["a", "b"],
        }
        assert convert.unstructure(Init()) == {"op": "init"}

    def test_phases_both_ways(self, fresh: Any) -> None:
        """A phase and a task go to the JSON of ``details.phases`` and a phase comes back."""
        convert = fresh.converter
        phase = Phase("P", (Task("a", Status.IN_PROGRESS, ("n",)), Task("b", owner="w1")))
        data = {
            "name": "P",
            "tasks": [
                {"content": "a", "status": "in_progress", "notes": ["n"]},
                {"content": "b", "status": "pending", "owner": "w1"},
            ],
        }
        assert convert.unstructure(phase) == data
        assert convert.unstructure(phase.tasks[1]) == data["tasks"][1]
        assert convert.structure(data, Phase) == phase

    def test_structuring_a_bad_phase_names_it(self, fresh: Any) -> None:
        """A malformed phase given to the converter is an InvalidPhases error."""
        with pytest.raises(phasetodo.InvalidPhases):
            fresh.converter.structure({"name": 1, "tasks": []}, Phase)

    def test_other_names_are_missing(self, fresh: Any) -> None:
        """Any other attribute of the module is an AttributeError naming it."""
        with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
            fresh.nothing_here  # noqa: B018 - the lookup is the test
        assert fresh._converter == []


class _Data(dict):  # type: ignore[type-arg]
    """A dict subclass, as some JSON libraries and hosts hand over."""


class TestParams:
    OPS: tuple[dict[str, Any], ...] = (
        {"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]},
        {"op": "init"},
        {"op": "append", "phase": "P", "items": ["c"]},
        {"op": "append", "phase": "Q"},
        {"op": "note", "task": "a", "text": "t"},
        {"op": "start", "task": "b"},
        {"op": "done", "task": "a", "phase": "P"},
        {"op": "drop", "phase": "P"},
        {"op": "rm"},
    )

    def test_dict_subclasses_read_like_dicts(self) -> None:
        """Ops given as dict subclasses become the same op values as plain dicts."""
        plain = phasetodo.profiles.parse_params({"ops": [dict(op) for op in self.OPS]})
        assert phasetodo.profiles.parse_params(_Data(ops=[_Data(op) for op in self.OPS])) == plain
        assert plain == (
            Init((PhaseItems("P", ("a", "b")),)),
            Init(),
            Append("P", ("c",)),
            Append("Q"),
            Note("a", "t"),
            Start("b"),
            Done("a", "P"),
            Drop(phase="P"),
            Rm(),
        )

    def test_bad_params_list_every_problem(self) -> None:
        """Params that break the schema name each problem, whatever their mapping type."""
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.profiles.parse_params(_Data(ops=[_Data(op="note", task=3), "x"]))
        assert caught.value.problems == (
            "ops[0].task: must be a string, not a number",
            "ops[1]: must be an object, not a string",
        )


class TestLoad:
    def test_empty_notes_are_no_notes(self) -> None:
        """A stored task with ``"notes": []`` or ``null`` loads as a task without notes."""
        for notes in ([], None):
            data = [{"name": "P", "tasks": [{"content": "a", "status": "pending", "notes": notes}]}]
            assert phasetodo.load_phases(data) == (Phase("P", (Task("a"),)),)

    def test_phases_come_back_as_a_tuple(self) -> None:
        """Phases given as a list, a generator or dicts come back as a tuple of values."""
        phase = Phase("P", (Task("a"),))
        assert codec.as_phases([phase]) == (phase,)
        assert isinstance(codec.as_phases([phase]), tuple)
        assert codec.as_phases(p for p in [phase]) == (phase,)
        assert codec.as_phases([{"name": "P", "tasks": [{"content": "a", "status": "pending"}]}]) == (phase,)


def _leased(lease: dict[str, Any]) -> dict[str, Any]:
    """A stored task in progress for ``w`` with the lease ``lease``."""
    return {"content": "T", "status": "in_progress", "owner": "w", "lease": lease}


class TestTeamFields:
    @pytest.mark.parametrize(
        ("field", "value", "problem"),
        [
            ("after", "Lexer", "[0].tasks[0].after: must be an array, not a string"),
            ("after", ["Lexer", 3], "[0].tasks[0].after[1]: must be a string, not a number"),
            ("owner", 7, "[0].tasks[0].owner: must be a string, not a number"),
            ("reason", ["x"], "[0].tasks[0].reason: must be a string, not an array"),
        ],
    )
    def test_malformed_team_fields_are_named(self, field: str, value: object, problem: str) -> None:
        """A stored task's owner, reason or after of the wrong type is an InvalidPhases naming it."""
        data = [{"name": "P", "tasks": [{"content": "T", "status": "pending", field: value}]}]
        with pytest.raises(phasetodo.InvalidPhases) as caught:
            phasetodo.load_phases(data)
        assert list(caught.value.problems) == [problem]

    @pytest.mark.parametrize(
        ("phase", "problem"),
        [
            ({"last_id": -1}, "[0].last_id: must be at least 0, not -1"),
            ({"last_id": 1.5}, "[0].last_id: must be an integer, not a number"),
            ({"last_id": True}, "[0].last_id: must be an integer, not a boolean"),
            ({"tasks": [_leased({"epoch": -1})]}, "[0].tasks[0].lease.epoch: must be at least 0, not -1"),
            (
                {"tasks": [_leased({"epoch": 1, "until": "soon"})]},
                "[0].tasks[0].lease.until: must be a number, not a string",
            ),
        ],
    )
    def test_malformed_numbers_are_named(self, phase: dict[str, Any], problem: str) -> None:
        """A stored id mark or lease number out of range or of the wrong type is an InvalidPhases
        naming it (the schema's integer and number types and its minimum; a raw KeyError before)."""
        with pytest.raises(phasetodo.InvalidPhases) as caught:
            phasetodo.load_phases([{"name": "P", "tasks": [], **phase}])
        assert list(caught.value.problems) == [problem]

    def test_team_fields_load(self) -> None:
        """Owner, reason and after are read into the task; after may be null (none)."""
        data = [
            {
                "name": "P",
                "tasks": [
                    {"content": "T", "status": "blocked", "owner": "w1", "reason": "r", "after": ["S"]},
                    {"content": "S", "status": "pending", "owner": "w2", "after": None},
                ],
            }
        ]
        assert phasetodo.load_phases(data) == (
            Phase(
                "P", (Task("T", Status.BLOCKED, owner="w1", reason="r", after=("S",)), Task("S", owner="w2"))
            ),
        )
