"""Finding what a person means (``phasetodo done parser``): tasks, then phases, then "did you mean"."""

from __future__ import annotations

import pytest

from phasetodo import Phase, Status, Task
from phasetodo._core.fuzzy import AmbiguousTarget, Target, TargetNotFound, resolve, suggest

PHASES = (
    Phase("Explore", (Task("Read the failing test"), Task("Find the parser bug"))),
    Phase("Fix", (Task("Patch the tokenizer"), Task("Run the test suite"))),
)


class TestTasks:
    def test_exact_text_beats_other_cases(self) -> None:
        """An exact match decides even when other names match up to case."""
        phases = (Phase("P", (Task("fix"), Task("Fix"), Task("FIX"))),)
        assert resolve("Fix", phases) == Target("task", "Fix", "P")

    def test_whole_name_up_to_case_beats_substrings(self) -> None:
        """A name equal up to case decides before names that only contain the query."""
        phases = (Phase("P", (Task("Deploy"), Task("Deploy the docs"))),)
        assert resolve("deploy", phases) == Target("task", "Deploy", "P")

    def test_query_is_trimmed(self) -> None:
        """Spaces around the query do not keep it from naming a task exactly."""
        phases = (Phase("P", (Task("Deploy"), Task("Deploy the docs"))),)
        assert resolve("  Deploy ", phases) == Target("task", "Deploy", "P")

    def test_the_one_unfinished_match_wins(self) -> None:
        """Of several tasks holding the query, the one still open is meant."""
        phases = (Phase("P", (Task("Fix auth docs", Status.COMPLETED), Task("Fix auth bug"))),)
        assert resolve("auth", phases) == Target("task", "Fix auth bug", "P")

    def test_ambiguous_names_the_query(self) -> None:
        """An ambiguous query is named in the error, with how many targets it matches."""
        with pytest.raises(AmbiguousTarget) as caught:
            resolve("the", PHASES)
        assert caught.value.query == "the"
        assert str(caught.value).startswith('"the" matches 4 targets:\n  task "Read the failing test"')

    def test_miss_suggests_the_closest(self) -> None:
        """A typo of one word suggests the task holding that word."""
        with pytest.raises(TargetNotFound) as caught:
            resolve("tokenzier", PHASES)
        assert caught.value.suggestions == ("Patch the tokenizer",)
        assert (
            str(caught.value) == 'no task or phase matches "tokenzier"; did you mean "Patch the tokenizer"?'
        )

    def test_phase_label(self) -> None:
        """A phase target describes itself by its name only."""
        assert Target("phase", "Fix", "Fix").describe() == 'phase "Fix"'
        assert Target("task", "Patch it", "Fix").describe() == 'task "Patch it" (phase "Fix")'


class TestPhases:
    def test_exact_name_beats_prefixes(self) -> None:
        """A phase named exactly (any case) wins over longer names starting the same."""
        phases = (Phase("Build tools"), Phase("Build"))
        assert resolve("build", phases) == Target("phase", "Build", "Build")

    def test_unique_prefix_then_substring(self) -> None:
        """A prefix of one phase names it; else a substring of one phase does."""
        phases = (Phase("Rebuild"), Phase("Build"), Phase("Docs"))
        assert resolve("buil", phases) == Target("phase", "Build", "Build")
        assert resolve("oc", phases) == Target("phase", "Docs", "Docs")

    def test_several_phases_are_listed(self) -> None:
        """A query that several phases hold, none by prefix alone, lists them as phases."""
        phases = (Phase("Rebuild"), Phase("Build"), Phase("Docs"))
        with pytest.raises(AmbiguousTarget) as caught:
            resolve("uil", phases)
        assert caught.value.candidates == (
            Target("phase", "Rebuild", "Rebuild"),
            Target("phase", "Build", "Build"),
        )
        assert str(caught.value) == '"uil" matches 2 targets:\n  phase "Rebuild"\n  phase "Build"'

    def test_suggestions_follow_the_kinds(self) -> None:
        """A miss suggests the names of the kinds searched: tasks, phases, or both."""
        with pytest.raises(TargetNotFound) as caught:
            resolve("Explroe", PHASES)
        assert caught.value.suggestions == ("Explore",)
        with pytest.raises(TargetNotFound) as caught:
            resolve("Explroe", PHASES, kinds=("task",))
        assert caught.value.suggestions == ()
        with pytest.raises(TargetNotFound) as caught:
            resolve("tokenzier", PHASES, kinds=("phase",))
        assert caught.value.suggestions == ()


class TestSuggest:
    def test_blank_query_suggests_nothing(self) -> None:
        """An empty or all-space query suggests nothing."""
        assert suggest("", ["a"]) == ()
        assert suggest("   ", ["a"]) == ()

    def test_unrelated_query_suggests_nothing(self) -> None:
        """Names that are not alike enough are not suggested."""
        assert suggest("zzzz", ["Patch the tokenizer", "Run it"]) == ()

    def test_best_first_at_most_three(self) -> None:
        """The closest names come first, and at most three are given."""
        assert suggest("parse", ["xx", "parsed", "parser", "parses", "parsec"]) == (
            "parsed",
            "parser",
            "parses",
        )
        assert suggest("tokenzier", ["tokens", "the tokenizer"]) == ("the tokenizer",)
        assert suggest("parser", ["parsec", "parse", "parsers"]) == ("parsers", "parse", "parsec")

    def test_similarity_at_the_cutoff_counts(self) -> None:
        """A name exactly as alike as the cutoff (0.7) is suggested; one a little less is not."""
        assert suggest("abcdefg", ["abcdefghijklm"]) == ("abcdefghijklm",)  # 2*7/20 = 0.7
        assert suggest("abcdefg", ["abcdefghijklmn"]) == ()  # 2*7/21

    def test_long_queries_compare_every_character(self) -> None:
        """A long query (200 characters and more) is compared in full, common characters included."""
        name = " ".join(f"word{i}" for i in range(40))
        assert len(name) > 200
        assert suggest(name.replace("word17", "wrod17"), [name]) == (name,)

    def test_duplicate_names_count_once(self) -> None:
        """A name given twice is suggested once."""
        assert suggest("tokenzier", ["the tokenizer", "the tokenizer"]) == ("the tokenizer",)
