"""The public Hypothesis strategies in phasetodo.testing do what their knobs say."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import phasetodo
from phasetodo import Phase, Status, Task, testing
from phasetodo._core.jsstring import WHITESPACE
from phasetodo._core.schema import is_valid

from ..budget import examples

RELAXED = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
TERMINATORS = "\n\r\u2028\u2029"
SMALL = testing.names(alphabet="abcdef", max_size=3)


def reach(strategy: st.SearchStrategy[Any], condition: Any) -> Any:
    """The first drawn value meeting ``condition`` (no shrinking: only reachability matters)."""
    return find(strategy, condition, settings=settings(phases=[Stage.generate], max_examples=examples(2000)))


def _contents(phases: tuple[Phase, ...]) -> list[str]:
    return [t.content for p in phases for t in p.tasks]


def _has_repeat(items: list[str]) -> bool:
    return len(set(items)) < len(items)


class TestValues:
    @RELAXED
    @given(testing.statuses(allowed=["pending", Status.COMPLETED]))
    def test_statuses_allowed(self, status: Status) -> None:
        """statuses(allowed=...) draws only the statuses named."""
        assert status in (Status.PENDING, Status.COMPLETED)

    @RELAXED
    @given(testing.names(alphabet="xy", min_size=2, max_size=3))
    def test_names_alphabet_and_size(self, name: str) -> None:
        """names() keeps to its alphabet and size bounds."""
        assert set(name) <= {"x", "y"}
        assert 2 <= len(name) <= 3

    @RELAXED
    @given(testing.names(markdown_safe=True))
    def test_markdown_safe_names(self, name: str) -> None:
        """A Markdown-safe name is non-empty, unpadded and on one line."""
        assert name
        assert name == name.strip(WHITESPACE)
        assert not set(name) & set(TERMINATORS)

    @RELAXED
    @given(testing.note_texts(markdown_safe=True))
    def test_markdown_safe_notes(self, note: str) -> None:
        """A Markdown-safe note has no empty line and no \\r, U+2028 or U+2029."""
        assert all(note.split("\n"))
        assert not set(note) & set("\r\u2028\u2029")

    @RELAXED
    @given(testing.tasks(contents=st.just("t"), status=st.just(Status.ABANDONED), max_notes=1))
    def test_tasks_use_their_strategies(self, task: Task) -> None:
        """tasks() builds from the strategies it is given."""
        assert (task.content, task.status) == ("t", Status.ABANDONED)
        assert len(task.notes) <= 1

    @RELAXED
    @given(testing.phase(min_tasks=1, max_tasks=2))
    def test_single_phase(self, phase: Phase) -> None:
        """phase() draws one Phase within its task bounds."""
        assert isinstance(phase, Phase)
        assert 1 <= len(phase.tasks) <= 2


class TestPhases:
    @RELAXED
    @given(testing.phases(min_size=1, max_size=2, min_tasks=1, max_tasks=3, max_notes=0))
    def test_size_knobs(self, phases: tuple[Phase, ...]) -> None:
        """phases() keeps to its phase, task and note bounds and returns a tuple of Phase."""
        assert isinstance(phases, tuple)
        assert 1 <= len(phases) <= 2
        assert all(1 <= len(p.tasks) <= 3 for p in phases)
        assert all(not t.notes for p in phases for t in p.tasks)

    @RELAXED
    @given(testing.phases(alphabet="ab", max_tasks=2))
    def test_alphabet_knob(self, phases: tuple[Phase, ...]) -> None:
        """The alphabet reaches phase names, task contents and notes."""
        text = "".join(p.name for p in phases) + "".join(_contents(phases))
        text += "".join(n for p in phases for t in p.tasks for n in t.notes)
        assert set(text) <= {"a", "b"}

    @RELAXED
    @given(testing.phases(names=SMALL))
    def test_unique_by_default(self, phases: tuple[Phase, ...]) -> None:
        """Without duplicates, phase names and task contents never repeat."""
        assert not _has_repeat([p.name for p in phases])
        assert not _has_repeat(_contents(phases))

    def test_duplicates_knob_repeats(self) -> None:
        """duplicates=True reaches lists that repeat a task content and a phase name."""
        found = reach(
            testing.phases(duplicates=True),
            lambda ps: _has_repeat(_contents(ps)) and _has_repeat([p.name for p in ps]),
        )
        assert _has_repeat(_contents(found))

    @RELAXED
    @given(testing.phases(normalized=True))
    def test_normalized_knob(self, phases: tuple[Phase, ...]) -> None:
        """normalized=True lists are fixed points of normalize()."""
        assert phasetodo.profiles.normalize(phases) == phases

    def test_unnormalized_by_default(self) -> None:
        """By default a list may hold several tasks in progress, as a host may store it."""
        found = reach(
            testing.phases(),
            lambda ps: [t.status for p in ps for t in p.tasks].count(Status.IN_PROGRESS) > 1,
        )
        assert phasetodo.profiles.normalize(found) != found

    @RELAXED
    @given(testing.phases(min_size=1, normalized=True, markdown_safe=True))
    def test_markdown_safe_lists_round_trip(self, phases: tuple[Phase, ...]) -> None:
        """Normalized, Markdown-safe lists come back from Markdown unchanged."""
        parsed, errors = phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(phases))
        assert (tuple(parsed), errors) == (phases, [])

    @RELAXED
    @given(testing.phases(duplicates=True))
    def test_lists_survive_json(self, phases: tuple[Phase, ...]) -> None:
        """Every drawn list goes to details JSON and back unchanged."""
        assert phasetodo.load_phases(phasetodo.dump_phases(phases)) == phases

    @pytest.mark.parametrize(
        ("knobs", "named"),
        [
            ({"min_size": 3, "max_size": 1}, "max_size=1"),
            ({"min_tasks": -1}, "min_tasks=-1"),
            ({"alphabet": ""}, "alphabet=''"),
        ],
    )
    def test_bad_knobs_named(self, knobs: dict[str, Any], named: str) -> None:
        """A bad knob raises InvalidArgument naming it."""
        with pytest.raises(InvalidArgument, match=named):
            testing.phases(**knobs).example()

    def test_bad_status_named(self) -> None:
        """statuses(allowed=...) names a value that is not a status."""
        with pytest.raises(InvalidArgument, match="'done' is not one of"):
            testing.statuses(allowed=["pending", "done"])


KNOWN = (
    Phase("Build", (Task("a"), Task("b", Status.COMPLETED))),
    Phase("Ship", (Task("c"),)),
)
FRESH = testing.names(alphabet="XYZ", max_size=3)


def _targets(op: phasetodo.ops.Op) -> list[str]:
    return [value for value in (getattr(op, "task", None), getattr(op, "phase", None)) if value]


class TestOps:
    @RELAXED
    @given(
        testing.op_batches(
            KNOWN, existing=1.0, incomplete=0.0, names=FRESH, kinds=["start", "done", "drop", "rm", "note"]
        )
    )
    def test_existing_targets_are_found(self, batch: tuple[phasetodo.ops.Op, ...]) -> None:
        """existing=1.0 on a list that keeps its names: every target is found."""
        outcome = phasetodo.apply(KNOWN, [op for op in batch if not isinstance(op, phasetodo.ops.Rm)])
        assert not [e for e in outcome.errors if "not found" in e]

    @RELAXED
    @given(testing.op_batches(KNOWN, existing=0.0, names=FRESH, kinds=["start", "note"]))
    def test_fresh_targets_are_missed(self, batch: tuple[phasetodo.ops.Op, ...]) -> None:
        """existing=0.0 with a disjoint alphabet: every targeted op misses."""
        outcome = phasetodo.apply(KNOWN, batch)
        assert len(outcome.errors) == len(batch)

    @RELAXED
    @given(testing.op_batches(existing=1.0, incomplete=0.0, names=FRESH, min_size=2))
    def test_batch_targets_what_it_made(self, batch: tuple[phasetodo.ops.Op, ...]) -> None:
        """Targets made by an earlier init or append in the batch count as existing."""
        made: set[str] = set()
        for op in batch:
            if isinstance(op, phasetodo.ops.Init):
                made = {e.phase for e in op.list or ()} | {i for e in op.list or () for i in e.items}
            elif isinstance(op, phasetodo.ops.Append):
                made |= {op.phase or "", *(op.items or ())}
            elif not isinstance(op, phasetodo.ops.Append) and made:
                assert set(_targets(op)) <= made

    @RELAXED
    @given(testing.op_batches(KNOWN, incomplete=1.0, kinds=["start", "append"]))
    def test_incomplete_ops_report_missing_fields(self, batch: tuple[phasetodo.ops.Op, ...]) -> None:
        """incomplete=1.0: each op lacks a field, and the engine says which."""
        outcome = phasetodo.apply(KNOWN, batch)
        assert len(outcome.errors) == len(batch)
        assert all(e.startswith("Missing ") for e in outcome.errors)

    @RELAXED
    @given(testing.op_batches(KNOWN, incomplete=0.0, names=FRESH))
    def test_complete_ops_lack_nothing(self, batch: tuple[phasetodo.ops.Op, ...]) -> None:
        """incomplete=0.0: no op lacks a field it needs."""
        outcome = phasetodo.apply(KNOWN, batch)
        assert not [e for e in outcome.errors if e.startswith("Missing ")]

    @RELAXED
    @given(testing.ops(kinds=["note"]))
    def test_ops_kinds(self, op: phasetodo.ops.Op) -> None:
        """ops(kinds=...) draws only the op kinds named."""
        assert isinstance(op, phasetodo.ops.Note)

    def test_unknown_kind_named(self) -> None:
        """An unknown op kind raises InvalidArgument naming the choice."""
        with pytest.raises(InvalidArgument, match="kinds="):
            testing.ops(kinds=["pending"]).example()

    def test_bad_share_named(self) -> None:
        """A probability outside [0, 1] raises InvalidArgument naming it."""
        with pytest.raises(InvalidArgument, match=r"existing=1\.5"):
            testing.op_batches(existing=1.5).example()


class TestParams:
    @RELAXED
    @given(testing.calls(duplicates=True))
    def test_valid_params_apply(self, call: tuple[tuple[Phase, ...], Any]) -> None:
        """valid=True arguments pass the schema and todo_write applies them."""
        phases, params = call
        assert is_valid(params)
        result = phasetodo.todo_write(params, phases)
        assert result["details"]["storage"] == "memory"

    @RELAXED
    @given(testing.params(KNOWN, valid=False))
    def test_invalid_params_raise(self, params: Any) -> None:
        """valid=False arguments raise InvalidParams with problems, changing nothing."""
        stored = phasetodo.dump_phases(KNOWN)
        with pytest.raises(phasetodo.InvalidParams) as caught:
            phasetodo.todo_write(params, stored)
        assert caught.value.problems
        assert stored == phasetodo.dump_phases(KNOWN)

    @RELAXED
    @given(testing.params(KNOWN, extras=True))
    def test_extras_stay_valid(self, params: Any) -> None:
        """extras=True adds keys the schema ignores; the arguments stay valid."""
        assert is_valid(params)

    def test_mixed_reaches_both(self) -> None:
        """valid=None draws both accepted and rejected arguments."""
        assert is_valid(reach(testing.params(valid=None), is_valid))
        assert not is_valid(reach(testing.params(valid=None), lambda p: not is_valid(p)))

    def test_min_ops_named(self) -> None:
        """min_ops below the schema's minItems raises InvalidArgument naming it."""
        with pytest.raises(InvalidArgument, match="min_ops=0"):
            testing.params(min_ops=0).example()


class TestMarkdown:
    @RELAXED
    @given(testing.markdown_documents())
    def test_well_formed_parse_cleanly(self, text: str) -> None:
        """Well-formed documents parse without errors."""
        assert phasetodo.markdown_to_phases(text)[1] == []

    @RELAXED
    @given(testing.markdown_documents(broken=True))
    def test_broken_report_errors(self, text: str) -> None:
        """Broken documents make the reader report at least one line."""
        errors = phasetodo.markdown_to_phases(text)[1]
        assert errors
        assert all(e.startswith("Line ") for e in errors)

    @pytest.mark.parametrize("variant", ["[~]", "[>]", "[X]", "\r\n", "+", "###"])
    def test_variants_reached(self, variant: str) -> None:
        """Well-formed documents use the variants the reader accepts."""
        documents = testing.markdown_documents(max_size=2, max_tasks=3, max_notes=0)
        assert variant in reach(documents, lambda text: variant in text)


class TestRegistration:
    @RELAXED
    @given(st.from_type(Phase), st.from_type(Task), st.from_type(phasetodo.ops.PhaseItems))
    def test_from_type_values(self, phase: Phase, task: Task, items: phasetodo.ops.PhaseItems) -> None:
        """st.from_type knows the value types."""
        assert isinstance(phase, Phase)
        assert isinstance(task, Task)
        assert items.items

    @pytest.mark.parametrize("kind", list(phasetodo.ops.OPS))
    def test_from_type_each_op(self, kind: str) -> None:
        """st.from_type builds every op class, and the Op union reaches it."""
        cls = phasetodo.ops.OPS[kind]
        assert isinstance(reach(st.from_type(cls), lambda _: True), cls)
        assert isinstance(reach(st.from_type(phasetodo.ops.Op), lambda op: isinstance(op, cls)), cls)

    @pytest.mark.slow
    def test_entry_point_registers_without_import(self) -> None:
        """A fresh interpreter knows Phase through the entry point; import phasetodo alone
        loads no Hypothesis."""
        script = textwrap.dedent(
            """
            import sys
            import phasetodo
            assert "hypothesis" not in sys.modules and "phasetodo.testing" not in sys.modules
            from hypothesis import strategies as st
            from hypothesis import find
            phase = find(st.from_type(phasetodo.Phase), lambda p: len(p.tasks) > 1)
            assert "phasetodo.testing" in sys.modules
            print(type(phase).__name__, len(phase.tasks))
            """
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["Phase", "2"]

    @pytest.mark.slow
    def test_importing_the_module_first_works(self) -> None:
        """``import phasetodo.testing`` before Hypothesis (whose import runs the hook) still registers."""
        script = textwrap.dedent(
            """
            import phasetodo.testing
            from hypothesis import find, strategies as st
            import phasetodo
            print(type(find(st.from_type(phasetodo.Task), lambda t: True)).__name__)
            """
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["Task"]


DOCS = Path(__file__).parents[2] / "docs" / "property-testing.md"


@pytest.mark.slow
class TestDocs:
    def test_docs_examples_pass(self, tmp_path: Path) -> None:
        """Every Python example of docs/property-testing.md is a passing test module."""
        blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
        assert len(blocks) >= 4
        for number, block in enumerate(blocks):
            (tmp_path / f"test_doc_{number}.py").write_text(block, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-seed=0", "."],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert re.search(r"\b(\d+) passed", done.stdout)


class TestFuzzHarness:
    @pytest.mark.slow
    def test_fuzz_run_reports_inputs(self) -> None:
        """python -m fuzz.run runs every target and reports how many inputs each took."""
        done = subprocess.run(
            [sys.executable, "-m", "fuzz.run", "--examples", "20"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parents[2],
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        counts = dict(re.findall(r"^(\w+): (\d+) inputs", done.stdout, re.MULTILINE))
        assert sorted(counts) == ["markdown", "params", "phases"]
        assert all(int(n) >= 1 for n in counts.values())

    @pytest.mark.slow
    def test_fuzz_run_rejects_a_bad_budget(self) -> None:
        """--examples below 1 is refused with a message naming the option."""
        done = subprocess.run(
            [sys.executable, "-m", "fuzz.run", "--examples", "0"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parents[2],
            check=False,
        )
        assert done.returncode == 2
        assert "--examples" in done.stderr
