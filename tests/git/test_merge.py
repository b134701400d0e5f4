"""The merge of two branches' session logs, in process: changes re-applied, conflicts recorded,
the same in either direction (phasetodo.gitplan.merge_events and merge_files)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phasetodo import JsonlStore, Phase, Session
from phasetodo._profiles.builtin import BUILTIN
from phasetodo._profiles.registry import CallContext
from phasetodo.errors import GitPlanError
from phasetodo.gitplan import CONFLICT_SOURCE, _same_event, merge_events, merge_files, read_log
from phasetodo.stores import Event

from ..budget import examples

INIT = {"op": "init", "list": [{"phase": "Build", "items": ["Parser", "Lexer", "Docs"]}]}


def write(events: list[Event], ops: list[dict[str, Any]], time: float, agent: str | None = "lead") -> None:
    """Append a team write of ``ops`` at ``time`` to ``events`` (as the engine applies it)."""
    team = BUILTIN["team"]
    before = events[-1].phases if events else ()
    after = team.apply(before, team.parse({"ops": ops}), CallContext(agent)).phases
    events.append(Event(len(events) + 1, "write", time, after, agent=agent, ops=tuple(ops), profile="team"))


def save(folder: Path, events: Sequence[Event]) -> Path:
    """Write ``events`` as session ``plan`` of a JSONL store in ``folder``; the file's path."""
    store = JsonlStore(folder, fsync=False)
    log = store.open("plan")
    with log.lock():
        for event in events:
            log.append(event)
    log.close()
    return store.path_for("plan")


def tasks(phases: Sequence[Phase]) -> dict[str, Any]:
    """Each task by its id (or content)."""
    return {t.id or t.content: t for p in phases for t in p.tasks}


def forked(*ops_a: tuple[float, list[dict[str, Any]], str], base: list[Event] | None = None) -> list[Event]:
    common = list(base) if base is not None else []
    if base is None:
        write(common, [INIT], 1.0)
    out = list(common)
    for time, ops, agent in ops_a:
        write(out, ops, time, agent)
    return out


class TestMergeEvents:
    def test_both_sides_kept(self) -> None:
        """A task added on one side and a note added on the other both survive, ids stay unique."""
        base = forked()
        ours = forked((10, [{"op": "append", "phase": "Build", "items": ["Tests"]}], "alice"), base=base)
        theirs = forked((11, [{"op": "note", "task": "Parser", "text": "use PEG"}], "bob"), base=base)
        result = merge_events(base, ours, theirs)
        found = tasks(result.phases)
        assert found["t4"].content == "Tests"
        assert found["t1"].notes == ("use PEG",)
        assert result.conflicts == ()
        assert [e.version for e in result.events] == [1, 2, 3]

    def test_same_ids_issued_on_both_sides_are_renumbered(self) -> None:
        """Two sides that each issued t4 keep both tasks: the later one gets a fresh id above both marks."""
        base = forked()
        ours = forked((10, [{"op": "append", "phase": "Build", "items": ["Tests"]}], "alice"), base=base)
        theirs = forked((11, [{"op": "append", "phase": "Build", "items": ["Bench"]}], "bob"), base=base)
        result = merge_events(base, ours, theirs)
        found = tasks(result.phases)
        assert (found["t4"].content, found["t5"].content) == ("Tests", "Bench")
        assert result.phases[0].last_id == 5
        ids = [t.id for p in result.phases for t in p.tasks]
        assert len(ids) == len(set(ids))

    def test_conflict_recorded(self) -> None:
        """Both sides closed t2 differently: the later change is kept, a merge-conflict event notes both."""
        base = forked()
        ours = forked((10, [{"op": "done", "task": "Lexer"}], "alice"), base=base)
        theirs = forked((12, [{"op": "drop", "task": "Lexer"}], "bob"), base=base)
        result = merge_events(base, ours, theirs)
        lexer = tasks(result.phases)["t2"]
        assert lexer.status.value == "abandoned"
        assert [c.field for c in result.conflicts] == ["status", "owner"]
        assert result.events[-1].source == CONFLICT_SOURCE
        assert any("completed on one branch, abandoned on the other" in n for n in lexer.notes)

    def test_either_direction(self) -> None:
        """Swapping ours and theirs gives the same events, ties in time included."""
        base = forked()
        ours = forked((10, [{"op": "done", "task": "Lexer"}], "alice"), base=base)
        theirs = forked((10, [{"op": "drop", "task": "Lexer"}], "bob"), base=base)
        assert merge_events(base, ours, theirs) == merge_events(base, theirs, ours)

    def test_removed_on_one_side_changed_on_the_other(self) -> None:
        """A task one side removed and the other changed stays, with the conflict noted."""
        base = forked()
        ours = forked((10, [{"op": "rm", "task": "Docs"}], "alice"), base=base)
        theirs = forked((11, [{"op": "note", "task": "Docs", "text": "API first"}], "bob"), base=base)
        for a, b in ((ours, theirs), (theirs, ours)):
            docs = tasks(merge_events(base, a, b).phases)["t3"]
            assert "API first" in docs.notes
            assert any(n.startswith("merge conflict: removed") for n in docs.notes)

    def test_a_previous_merge_is_not_applied_twice(self) -> None:
        """Merging again after a merge brings each event over once, and renumbered ids stay mapped."""
        base = forked()
        ours = forked((10, [{"op": "append", "phase": "Build", "items": ["Tests"]}], "alice"), base=base)
        theirs = forked((11, [{"op": "append", "phase": "Build", "items": ["Bench"]}], "bob"), base=base)
        first = list(merge_events(base, ours, theirs).events)
        later = forked((20, [{"op": "note", "task": "Bench", "text": "on CI"}], "bob"), base=theirs)
        again = merge_events(theirs, first, later)
        found = tasks(again.phases)
        assert [t.content for t in found.values()].count("Bench") == 1
        assert found["t5"].notes == ("on CI",)
        assert len(again.events) == len(first) + 1


class TestMergeFiles:
    def test_written_log_verifies(self, tmp_path: Path) -> None:
        """The merged file is a fresh chain that verifies and reopens to the merged list."""
        base = forked()
        ours = forked((10, [{"op": "start", "task": "Parser"}], "alice"), base=base)
        theirs = forked((11, [{"op": "note", "task": "Lexer", "text": "x"}], "bob"), base=base)
        paths = [save(tmp_path / name, events) for name, events in (("b", base), ("o", ours), ("t", theirs))]
        result = merge_files(*paths)
        store = JsonlStore(tmp_path / "o")
        assert store.verify("plan").ok
        with Session.open("plan", store=store, profile="team") as session:
            assert session.phases == result.phases

    def test_not_a_log(self, tmp_path: Path) -> None:
        """A file that is not a phasetodo log is refused, naming it, and left as it was."""
        other = tmp_path / "other.jsonl"
        other.write_text('{"name": "x"}\n')
        good = save(tmp_path / "g", forked())
        with pytest.raises(GitPlanError, match="not a phasetodo session log"):
            merge_files(good, other, good)
        assert other.read_text() == '{"name": "x"}\n'

    def test_empty_base(self, tmp_path: Path) -> None:
        """Both sides made the log (git gives an empty base): both histories are merged."""
        empty = tmp_path / "empty"
        empty.write_bytes(b"")
        a = forked((5, [{"op": "start", "task": "Parser"}], "alice"))
        b: list[Event] = []
        write(b, [{"op": "init", "list": [{"phase": "Ship", "items": ["Tag"]}]}], 2.0)
        result = merge_files(empty, save(tmp_path / "a", a), save(tmp_path / "b", b))
        assert {p.name for p in result.phases} == {"Build", "Ship"}
        assert read_log(tmp_path / "a" / "plan.jsonl")[-1].phases == result.phases


TASKS = ("Parser", "Lexer", "Docs", "Tests")
_task = st.sampled_from(TASKS)
_op = st.one_of(
    st.builds(lambda o, t: {"op": o, "task": t}, st.sampled_from(["start", "done", "drop", "rm"]), _task),
    st.builds(lambda t, n: {"op": "note", "task": t, "text": n}, _task, st.sampled_from(["a", "b"])),
    st.builds(lambda n: {"op": "append", "phase": "Build", "items": [n]}, st.sampled_from(["New", "Other"])),
)
_agent = st.sampled_from(["alice", "bob", None])
_side = st.lists(st.tuples(st.lists(_op, min_size=1, max_size=3), _agent), max_size=4)
_common = st.lists(st.lists(_op, min_size=1, max_size=2), max_size=2)


@given(common=_common, a=_side, b=_side, offset=st.integers(0, 3))
@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_merge_property(
    tmp_path_factory: pytest.TempPathFactory,
    common: list[list[dict[str, Any]]],
    a: list[tuple[list[dict[str, Any]], str | None]],
    b: list[tuple[list[dict[str, Any]], str | None]],
    offset: int,
) -> None:
    """Two op sequences diverging from a common log merge, either way, into one log whose replay
    is the merged list, that verifies, keeps ids unique and its mark at least both sides'; a side
    merged with its base is itself, and merging the result again with a side changes nothing."""
    base: list[Event] = []
    write(base, [INIT], 1.0)
    for i, ops in enumerate(common):
        write(base, ops, 2.0 + i)
    ours, theirs = list(base), list(base)
    for i, (ops, agent) in enumerate(a):
        write(ours, ops, 10.0 + 2 * i, agent)
    for i, (ops, agent) in enumerate(b):
        write(theirs, ops, 10.0 + 2 * i + offset, agent)  # times tie when the offset is even
    one, other = merge_events(base, ours, theirs), merge_events(base, theirs, ours)
    assert one.phases == other.phases
    assert one.events == other.events
    assert merge_events(base, ours, base).phases == ours[-1].phases
    if not {_same_event(e) for e in ours[len(base) :]} & {_same_event(e) for e in theirs[len(base) :]}:
        # merging the result again with either side brings nothing over twice
        assert merge_events(ours, list(one.events), ours).phases == one.phases
        assert merge_events(theirs, theirs, list(one.events)).phases == one.phases
    ids = [t.id for p in one.phases for t in p.tasks]
    assert len(ids) == len(set(ids))
    marks = [max((p.last_id for p in e[-1].phases), default=0) for e in (ours, theirs)]
    assert max((p.last_id for p in one.phases), default=0) >= max(marks)
    folder = tmp_path_factory.mktemp("merge")
    paths = [save(folder / name, events) for name, events in (("b", base), ("o", ours), ("t", theirs))]
    written = merge_files(*paths)
    store = JsonlStore(folder / "o")
    assert store.verify("plan").ok
    log = store.open("plan")
    latest = log.latest()
    log.close()
    assert latest is not None
    assert latest.phases == written.phases == one.phases
    assert [attrs.evolve(e, phases=()) for e in read_log(paths[1])] == [
        attrs.evolve(e, phases=()) for e in one.events
    ]
