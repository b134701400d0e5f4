"""What a strict "not found" suggests (``phasetodo._profiles.hints``), step by step and within its budget."""

from __future__ import annotations

import pytest

from phasetodo._profiles.hints import (
    FUZZY_CANDIDATES,
    FUZZY_MISSES,
    FUZZY_QUERY,
    POSTINGS_READ,
    Hints,
    id_number,
)


class TestIdNumber:
    @pytest.mark.parametrize(
        ("query", "number"),
        [
            ("3", "3"),
            ("#3", "3"),
            ("task-3", "3"),
            ("Task 3", "3"),
            (" t3 ", "3"),
            ("p:12", "12"),
            ("step #7", "7"),
            ("task - #3", "3"),
            ("item_4", "4"),
            ("todo.5", "5"),
            ("phase#6", "6"),
        ],
    )
    def test_ids_and_numbers(self, query: str, number: str) -> None:
        """An id or a number, with or without a prefix word and separator, gives its number."""
        assert id_number(query) == number

    @pytest.mark.parametrize("query", ["task", "#", "task 3 x", "tasks 3", "3 4", "Patch the tokenizer"])
    def test_other_text(self, query: str) -> None:
        """Text that is not exactly an id gives no number."""
        assert id_number(query) is None


class TestSteps:
    def test_blank_query(self) -> None:
        """A blank query suggests nothing."""
        assert Hints(["abc"]).closest("   ") is None

    def test_same_up_to_case_and_spacing(self) -> None:
        """The name equal up to case and spacing wins, the first of several, before any containment."""
        assert Hints(["Fix the bug", "Fix"]).closest("FIX") == "Fix"
        assert Hints(["Fix", "fix"]).closest("FIX") == "Fix"
        assert (
            Hints(["  Patch   the tokenizer "]).closest("patch THE tokenizer") == "  Patch   the tokenizer "
        )

    def test_the_only_name_containing_the_query(self) -> None:
        """A query inside exactly one name suggests it, wherever that name is in the list."""
        assert Hints(["build the parser", "ship"]).closest("build") == "build the parser"
        assert Hints(["build the parser", "ship"]).closest("parser") == "build the parser"
        assert Hints(["ship", "build the parser"]).closest("parser") == "build the parser"
        assert Hints(["ship", "deploy", "build the parser"]).closest("the par") == "build the parser"
        assert Hints(["build the parser", "ship"]).closest("r") == "build the parser"
        assert Hints(["   ", "build the parser"]).closest("parser") == "build the parser"

    def test_a_query_in_two_names_suggests_neither(self) -> None:
        """A query contained in several names is not a containment hint."""
        assert Hints(["alpha build step", "beta build step"]).closest("build") is None
        assert Hints(["build the parser now", "build the lexer now", "ship"]).closest("build") is None
        assert Hints(["ship", "build the parser now", "build the lexer now"]).closest("build") is None

    def test_most_similar(self) -> None:
        """Without a containing name, the most similar name is suggested."""
        assert (
            Hints(["Patch the tokenizer", "Run it"]).closest("Patch the tokenzier") == "Patch the tokenizer"
        )
        assert Hints(["Patch the tokenizer", "Run it"]).closest("Something else entirely") is None

    def test_long_queries_are_not_compared(self) -> None:
        """A query of up to FUZZY_QUERY characters is compared by similarity; a longer one is not."""
        name = "".join(chr(0x4E00 + i) for i in range(FUZZY_QUERY))
        assert Hints([name]).closest(name[:-1] + "x") == name
        assert Hints([name]).closest(name + "x") is None

    def test_only_the_first_misses_are_compared(self) -> None:
        """The similarity step runs for the first FUZZY_MISSES misses of a call, then no more."""
        hints = Hints(["Patch the tokenizer"])
        found = [hints.closest("Patch the tokenzier") for _ in range(FUZZY_MISSES + 2)]
        assert found == ["Patch the tokenizer"] * FUZZY_MISSES + [None, None]
        assert hints.fuzzy == FUZZY_MISSES


class TestLongLists:
    def test_all_names_compared_up_to_the_candidate_count(self) -> None:
        """With FUZZY_CANDIDATES names or fewer, every name is compared, shared words or not."""
        names = [f"name{i:02d} thing" for i in range(FUZZY_CANDIDATES - 1)] + ["Patch the tokenizer"]
        assert Hints(names).closest("Patchthe tokenizr") == "Patch the tokenizer"

    def test_names_sharing_rare_words_are_compared(self) -> None:
        """On a long list, the names sharing the query's rarest words are the ones compared."""
        names = [f"step {i} of the build" for i in range(50)] + ["Patch the tokenizer quickly"]
        assert Hints(names).closest("Patch the tokenzier quickly") == "Patch the tokenizer quickly"
        names += ["zebra crossing", "run away quickly"]
        assert Hints(names).closest("zebra tokenizer quickly") == "Patch the tokenizer quickly"

    def test_common_words_are_read_only_so_far(self) -> None:
        """A word in most names is read up to POSTINGS_READ entries, after the rarer words."""
        names = [f"item {i} common" for i in range(POSTINGS_READ + 5_000)] + ["Patch the tokenizer common"]
        assert Hints(names).closest("Patch the tokenzier common") == "Patch the tokenizer common"

    def test_no_shared_word_no_hint(self) -> None:
        """On a long list, a query sharing no word with any name gets no similarity hint."""
        names = [f"step {i} of the build" for i in range(50)] + ["Patch the tokenizer"]
        assert Hints(names).closest("Patchthe tokenizr") is None


class TestBudget:
    NAMES = ("build the parser", "ship")  # read as "build the parser\nship": 21 characters

    def test_the_budget_is_what_may_be_read(self) -> None:
        """Each miss past the cheap steps reads every name once; it may use the whole budget, no more."""
        hints = Hints(self.NAMES, budget=42)
        assert [hints.closest("parser") for _ in range(3)] == ["build the parser", "build the parser", None]
        assert hints.spent == 42

    def test_a_budget_too_small_for_one_read(self) -> None:
        """A budget smaller than the names leaves only the cheap steps."""
        hints = Hints(self.NAMES, budget=20)
        assert hints.closest("parser") is None
        assert hints.closest("SHIP") == "ship"
        assert hints.spent == 0

    def test_a_budget_of_exactly_one_read(self) -> None:
        """A budget of exactly the names' size allows one read."""
        hints = Hints(self.NAMES, budget=21)
        assert hints.closest("parser") == "build the parser"
        assert hints.closest("parser") is None
        assert hints.spent == 21
