"""Size limits where the mutation check found no test: exact counts, exact bounds, team ops.

A call that breaks a limit is walked a second time to list every breach; these
tests make that walk count what the first one counts, and hold the team
profile's own ops (``block``, ``after``, items with ``after``) to the same limits.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import phasetodo
from phasetodo import InvalidParams, Limits, markdown_to_phases

BEFORE = [
    {
        "name": "P1",
        "tasks": [{"content": "aa", "status": "in_progress"}, {"content": "bbb", "status": "pending"}],
    }
]

#: One op of every core kind, with the characters each carries.
EVERY_OP: list[dict[str, Any]] = [
    {
        "op": "init",
        "list": [{"phase": "P1", "items": ["aa", "bbb"]}, {"phase": "P4", "items": ["d"]}],
    },  # 7 + 3
    {"op": "append", "phase": "P2", "items": ["cccc"]},  # 2 + 4
    {"op": "append", "phase": "P3"},  # 2, no items
    {"op": "note", "task": "aa", "text": "hello"},  # 2 + 5
    {"op": "note", "task": "aa"},  # 2, no text
    {"op": "start", "task": "bbb"},  # 3
    {"op": "done", "phase": "P2"},  # 2
    {"op": "drop", "task": "aa", "phase": "P1"},  # 2 + 2
    {"op": "rm"},  # 0
]
EVERY_OP_CHARS = 36

#: The team profile's own ops, with the characters each carries.
TEAM_OPS: list[dict[str, Any]] = [
    {"op": "init", "list": [{"phase": "Ph", "items": ["t1", {"content": "t2", "after": ["t1"]}]}]},  # 2+2+2+2
    {"op": "append", "phase": "Ph", "items": [{"content": "t3", "after": ["t1", "t2"]}]},  # 2+2+2+2
    {"op": "append", "phase": "Ph"},  # 2
    {"op": "block", "task": "t3", "reason": "no disk"},  # 2 + 7
    {"op": "unblock", "task": "t3"},  # 2
    {"op": "after", "task": "t3", "after": ["t1", "t2"]},  # 2 + 2 + 2
    {"op": "after", "task": "t2"},  # 2
    {"op": "start", "task": "t1"},  # 2
    {"op": "done", "task": "t1", "phase": "Ph"},  # 2 + 2
]
TEAM_OPS_CHARS = 43


def problems(ops: list[dict[str, Any]], limits: Limits, profile: str = "parity") -> tuple[str, ...]:
    """The problems of a call that the limits refuse (the stored list unchanged)."""
    phases = copy.deepcopy(BEFORE)
    with pytest.raises(InvalidParams) as caught:
        phasetodo.todo_write({"ops": ops}, phases, profile=profile, limits=limits)
    assert phases == BEFORE
    return caught.value.problems


def allowed(ops: list[dict[str, Any]], limits: Limits, profile: str = "parity") -> None:
    """The call passes the limits (what the engine then makes of it does not matter here)."""
    phasetodo.todo_write({"ops": ops}, copy.deepcopy(BEFORE), profile=profile, limits=limits)


class TestPayloadCount:
    def test_every_core_op_is_counted(self) -> None:
        """The payload breach gives the exact number of characters of every op kind."""
        limit = EVERY_OP_CHARS - 1
        over = f"ops: {EVERY_OP_CHARS} characters of text in all, over the limit max_payload={limit}"
        assert problems(EVERY_OP, Limits(max_payload=EVERY_OP_CHARS - 1)) == (over,)
        allowed(EVERY_OP, Limits(max_payload=EVERY_OP_CHARS))

    def test_payload_at_the_limit_is_not_listed_with_another_breach(self) -> None:
        """Next to another breach, a payload of exactly max_payload is not reported."""
        limits = Limits(max_payload=EVERY_OP_CHARS, max_ops=len(EVERY_OP) - 1)
        assert problems(EVERY_OP, limits) == (
            f"ops: {len(EVERY_OP)} operations, over the limit max_ops={len(EVERY_OP) - 1}",
        )

    def test_every_team_op_is_counted(self) -> None:
        """The team profile's ops count every text: items, their after, reasons, after lists."""
        limit = TEAM_OPS_CHARS - 1
        over = f"ops: {TEAM_OPS_CHARS} characters of text in all, over the limit max_payload={limit}"
        assert problems(TEAM_OPS, Limits(max_payload=TEAM_OPS_CHARS - 1), "team") == (over,)
        allowed(TEAM_OPS, Limits(max_payload=TEAM_OPS_CHARS), "team")

    def test_team_payload_at_the_limit_is_not_listed_with_another_breach(self) -> None:
        """Next to another breach, a team call's payload of exactly max_payload is not reported."""
        limits = Limits(max_payload=TEAM_OPS_CHARS, max_ops=len(TEAM_OPS) - 1)
        assert problems(TEAM_OPS, limits, "team") == (
            f"ops: {len(TEAM_OPS)} operations, over the limit max_ops={len(TEAM_OPS) - 1}",
        )

    def test_one_team_op_over_the_payload(self) -> None:
        """One team op whose texts are over max_payload only together is refused."""
        ops = [{"op": "after", "task": "t3", "after": ["t1", "t2", "t4"]}]
        assert problems(ops, Limits(max_payload=7), "team") == (
            "ops: 8 characters of text in all, over the limit max_payload=7",
        )


class TestBoundsInTheListingWalk:
    def test_texts_at_their_limits_are_not_listed(self) -> None:
        """Listing another breach, texts exactly at their limits are left out."""
        ops: list[dict[str, Any]] = [
            {"op": "init", "list": [{"phase": "P1", "items": ["abc"]}]},
            {"op": "append", "phase": "P2", "items": ["abc", "xyz"]},
            {"op": "note", "task": "abc", "text": "hello"},
            {"op": "done", "task": "abc", "phase": "P1"},
            {"op": "start", "task": "abc"},
        ]
        limits = Limits(max_content=3, max_name=2, max_note=5, max_ops=4)
        assert problems(ops, limits) == ("ops: 5 operations, over the limit max_ops=4",)

    def test_team_texts_at_their_limits_are_not_listed(self) -> None:
        """Listing another breach, a team op's texts exactly at their limits are left out."""
        ops: list[dict[str, Any]] = [
            {"op": "block", "task": "abc", "reason": "hello"},
            {"op": "append", "phase": "P2", "items": [{"content": "abc", "after": ["xyz"]}]},
        ]
        limits = Limits(max_content=3, max_name=2, max_note=5, max_ops=1)
        assert problems(ops, limits, "team") == ("ops: 2 operations, over the limit max_ops=1",)

    def test_exactly_max_ops_is_not_listed_with_another_breach(self) -> None:
        """A call of exactly max_ops ops that breaks another limit is refused for that one only."""
        ops = [{"op": "append", "phase": "P", "items": ["abcd"]}, {"op": "done", "task": "a"}]
        assert problems(ops, Limits(max_ops=2, max_content=3)) == (
            "ops[0].items[0]: 4 characters, over the limit max_content=3",
        )

    def test_only_the_long_items_are_listed(self) -> None:
        """Of an op's items, only those over max_content are named."""
        ops = [{"op": "append", "phase": "P", "items": ["abc", "abcd", "ab", "abcde"]}]
        assert problems(ops, Limits(max_content=3)) == (
            "ops[0].items[1]: 4 characters, over the limit max_content=3",
            "ops[0].items[3]: 5 characters, over the limit max_content=3",
        )


class TestTeamOpTexts:
    @pytest.mark.parametrize(
        ("op", "problem"),
        [
            (
                {"op": "block", "task": "x" * 11, "reason": "r"},
                "ops[0].task: 11 characters, over the limit max_content=10",
            ),
            (
                {"op": "block", "task": "t", "reason": "x" * 21},
                "ops[0].reason: 21 characters, over the limit max_note=20",
            ),
            (
                {"op": "unblock", "task": "x" * 11},
                "ops[0].task: 11 characters, over the limit max_content=10",
            ),
            (
                {"op": "after", "task": "x" * 11, "after": []},
                "ops[0].task: 11 characters, over the limit max_content=10",
            ),
            (
                {"op": "after", "task": "t", "after": ["a", "x" * 11]},
                "ops[0].after[1]: 11 characters, over the limit max_content=10",
            ),
            (
                {"op": "append", "phase": "xxxx", "items": ["a"]},
                "ops[0].phase: 4 characters, over the limit max_name=3",
            ),
            (
                {"op": "append", "phase": "P", "items": ["a", {"content": "x" * 11}]},
                "ops[0].items[1]: 11 characters, over the limit max_content=10",
            ),
            (
                {"op": "append", "phase": "P", "items": [{"content": "a", "after": ["x" * 11]}]},
                "ops[0].items[0].after[0]: 11 characters, over the limit max_content=10",
            ),
            (
                {"op": "init", "list": [{"phase": "P", "items": ["a"]}, {"phase": "xxxx", "items": ["b"]}]},
                "ops[0].list[1].phase: 4 characters, over the limit max_name=3",
            ),
            (
                {"op": "init", "list": [{"phase": "P", "items": ["a", "x" * 11]}]},
                "ops[0].list[0].items[1]: 11 characters, over the limit max_content=10",
            ),
        ],
    )
    def test_each_text_is_named_with_its_limit(self, op: dict[str, Any], problem: str) -> None:
        """A team op's text past its limit is named by its place and the limit of its kind."""
        assert problems([op], Limits(max_name=3, max_content=10, max_note=20), "team") == (problem,)

    def test_each_text_has_the_limit_of_its_kind(self) -> None:
        """Task references are bounded like contents, reasons like notes, phases like names."""
        limits = Limits(max_name=3, max_content=10, max_note=20)
        allowed([{"op": "block", "task": "x" * 10, "reason": "y" * 20}], limits, "team")
        allowed([{"op": "unblock", "task": "x" * 10}], limits, "team")
        allowed([{"op": "after", "task": "x" * 10, "after": ["y" * 10]}], limits, "team")
        allowed(
            [{"op": "append", "phase": "abc", "items": [{"content": "x" * 10, "after": ["y" * 10]}]}],
            limits,
            "team",
        )
        allowed([{"op": "init", "list": [{"phase": "abc", "items": ["x" * 10]}]}], limits, "team")


class TestListSize:
    @pytest.mark.parametrize("profile", ["parity", "strict"])
    def test_an_oversized_list_may_be_replaced_by_one_as_large(self, profile: str) -> None:
        """An init that keeps an oversized list's size is allowed; one that grows it is not."""
        big = [
            {"name": n, "tasks": [{"content": f"{n}{i}", "status": "pending"} for i in range(2)]}
            for n in "ABC"
        ]
        limits = Limits(max_tasks=4, max_phases=2)
        same = [{"op": "init", "list": [{"phase": n, "items": [f"{n}{i}" for i in range(2)]} for n in "ABC"]}]
        phasetodo.todo_write({"ops": same}, big, profile=profile, limits=limits)
        more = [
            {"op": "init", "list": [{"phase": n, "items": [f"{n}{i}" for i in range(3)]} for n in "ABCD"]}
        ]
        with pytest.raises(InvalidParams) as caught:
            phasetodo.todo_write({"ops": more}, big, profile=profile, limits=limits)
        assert caught.value.problems == (
            "phases: the list would hold 4 phases, over the limit max_phases=2",
            "phases: the list would hold 12 tasks, over the limit max_tasks=4",
        )


class TestTeamGrowth:
    @pytest.mark.parametrize(
        "last", [{"op": "block", "task": "a", "reason": "r"}, {"op": "note", "task": "a", "text": "n"}]
    )
    def test_a_call_that_grows_is_checked_whatever_comes_last(self, last: dict[str, Any]) -> None:
        """A team call that appends past max_tasks is refused, even when its last op adds nothing."""
        ops = [{"op": "append", "phase": "P1", "items": ["a", "b", "c"]}, last]
        assert problems(ops, Limits(max_tasks=4), "team") == (
            "phases: the list would hold 5 tasks, over the limit max_tasks=4",
        )


class TestDocuments:
    def test_exactly_as_many_phases_and_tasks_as_allowed(self) -> None:
        """A document with max_phases phases and max_tasks tasks is read."""
        phases, errors = markdown_to_phases(
            "# A\n- [ ] a\n# B\n- [ ] b\n", limits=Limits(max_phases=2, max_tasks=2)
        )
        assert ([p.name for p in phases], errors) == (["A", "B"], [])

    @pytest.mark.parametrize(
        ("text", "problem"),
        [
            (
                "# Phase\n- [ ] abcdef\n",
                "phases[0].tasks[0].content: 6 characters, over the limit max_content=5",
            ),
            (
                "# Phase\n- [ ] abc\n  > " + "n" * 11 + "\n",
                "phases[0].tasks[0].notes[0]: 11 characters, over the limit max_note=10",
            ),
            ("# Phase\n- [ ] abc\n# Longer\n", "phases[1].name: 6 characters, over the limit max_name=5"),
        ],
        ids=["content", "note", "name"],
    )
    def test_one_text_over_is_enough(self, text: str, problem: str) -> None:
        """A document whose only long text is a content, a note or a name is refused for it."""
        with pytest.raises(InvalidParams) as caught:
            markdown_to_phases(text, limits=Limits(max_name=5, max_content=5, max_note=10))
        assert caught.value.problems == (problem,)

    def test_texts_at_their_limits_are_not_listed(self) -> None:
        """Listing a long text, the texts exactly at their limits are left out."""
        text = "# Phase\n- [ ] abcde\n  > " + "n" * 10 + "\n# Phases\n"
        with pytest.raises(InvalidParams) as caught:
            markdown_to_phases(text, limits=Limits(max_name=5, max_content=5, max_note=10))
        assert caught.value.problems == ("phases[1].name: 6 characters, over the limit max_name=5",)
