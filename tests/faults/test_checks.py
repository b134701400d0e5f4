"""The fault checker's checks, fed hand-made histories: each finds its anomaly, and only it."""

from __future__ import annotations

from typing import Any

from benchmarks._faults import checks


def event(
    version: int,
    agent: str | None,
    tasks: dict[str, list[Any]],
    *,
    rid: str | None = None,
    time: float | None = None,
) -> dict[str, Any]:
    return {
        "version": version,
        "time": float(version) if time is None else time,
        "agent": agent,
        "lead": "lead",
        "rid": rid,
        "tasks": tasks,
    }


def write(
    agent: str,
    rid: str,
    version: int,
    start: float,
    end: float,
    *,
    text: str = "",
    tasks: dict[str, list[Any]] | None = None,
) -> dict[str, Any]:
    return {
        "agent": agent,
        "kind": "write",
        "rid": rid,
        "start": start,
        "end": end,
        "ok": True,
        "error": False,
        "version": version,
        "changed": True,
        "tasks": tasks,
        "text": text,
    }


def read(agent: str, version: int, start: float, end: float) -> dict[str, Any]:
    return {
        "agent": agent,
        "kind": "read",
        "start": start,
        "end": end,
        "ok": True,
        "version": version,
        "text": "",
    }


PENDING = {"t": ["pending", None]}
W1 = {"t": ["in_progress", "w1"]}
W2 = {"t": ["in_progress", "w2"]}


class TestCompletions:
    def test_a_task_closed_once_by_its_holder_is_fine(self) -> None:
        """One completion by the agent that held the task is no anomaly."""
        log = [event(1, "lead", PENDING), event(2, "w1", W1), event(3, "w1", {"t": ["completed", "w1"]})]
        assert checks.completions(log) == []

    def test_a_task_completed_twice_is_found(self) -> None:
        """A task that goes to completed, back, and to completed again is completed twice."""
        log = [
            event(1, "w1", W1),
            event(2, "w1", {"t": ["completed", "w1"]}),
            event(3, "lead", PENDING),
            event(4, "w1", {"t": ["completed", "w1"]}),
        ]
        assert [a.kind for a in checks.completions(log)] == ["completed-twice"]

    def test_a_completion_by_a_non_holder_is_found(self) -> None:
        """w1 closing a task w2 holds is found."""
        log = [event(1, "w2", W2), event(2, "w1", {"t": ["completed", "w2"]})]
        assert [a.kind for a in checks.completions(log)] == ["completed-by-non-holder"]


class TestVoidedClaims:
    def test_a_holder_closing_its_own_claim_is_fine(self) -> None:
        """A write from the current claim is no anomaly."""
        assert checks.voided_claims([event(1, "w1", W1), event(2, "w1", {"t": ["completed", "w1"]})]) == []

    def test_a_write_after_a_takeover_is_found(self) -> None:
        """w1's write on a task w2 took over (then w3) is a write from a voided claim."""
        w3 = {"t": ["in_progress", "w3"]}
        log = [
            event(1, "w1", W1),
            event(2, "w2", W2),
            event(3, "w3", w3),
            event(4, "w1", {"t": ["completed", "w3"]}),
        ]
        assert [a.kind for a in checks.voided_claims(log)] == ["voided-claim-write"]


class TestLostWrites:
    def test_an_acknowledged_write_in_the_log_is_fine(self) -> None:
        """The log carries the (agent, request id) of the acknowledged write."""
        assert checks.lost_writes([write("w1", "call-1", 2, 0, 1)], [event(2, "w1", W1, rid="call-1")]) == []

    def test_an_acknowledged_write_missing_from_the_log_is_found(self) -> None:
        """An acknowledged write whose (agent, id) no event carries is lost."""
        found = checks.lost_writes([write("w1", "call-1", 2, 0, 1)], [event(2, "w2", W2, rid="call-1")])
        assert [a.kind for a in found] == ["lost-write"]

    def test_a_write_the_log_holds_at_another_version_is_found(self) -> None:
        """An acknowledgement names the version: the log holding the call elsewhere is a lost write."""
        log = [event(2, "w2", W2, rid="call-9"), event(3, "w1", W1, rid="call-1")]
        found = checks.lost_writes([write("w1", "call-1", 2, 0, 1)], log)
        assert [a.detail for a in found] == ["w1 call-1 acknowledged at v2, the log has it at v3"]


class TestStaleReads:
    def test_a_read_overlapping_the_write_may_see_the_old_version(self) -> None:
        """A read that started before the acknowledgement may return the older version."""
        assert checks.stale_reads([write("w1", "call-1", 5, 0, 2), read("r", 4, 1, 3)]) == []

    def test_a_read_after_the_acknowledgement_returning_older_is_found(self) -> None:
        """A read that started after v5 was acknowledged and returned v4 is stale."""
        found = checks.stale_reads([write("w1", "call-1", 5, 0, 2), read("r", 4, 3, 4)])
        assert [a.kind for a in found] == ["stale-read"]


class TestRequestIds:
    def test_the_same_id_from_two_agents_applied_once_each_is_fine(self) -> None:
        """call-1 from w1 and from w2 are two calls, each applied once and answered as its caller."""
        calls = [
            write("w1", "call-1", 2, 0, 1, text="You (w1) are on t"),
            write("w2", "call-1", 3, 0, 1, text="You (w2) are on u"),
        ]
        log = [event(2, "w1", W1, rid="call-1"), event(3, "w2", W2, rid="call-1")]
        assert checks.request_ids(calls, log) == []

    def test_an_id_applied_twice_is_found(self) -> None:
        """One (agent, id) carried by two events was applied twice."""
        log = [event(2, "w1", W1, rid="call-1"), event(3, "w1", W1, rid="call-1")]
        assert [a.kind for a in checks.request_ids([], log)] == ["applied-twice"]

    def test_another_callers_reply_is_found(self) -> None:
        """w2 answered with w1's reply is a foreign reply."""
        calls = [write("w2", "call-1", 2, 0, 1, text="You (w1) are on t")]
        assert [a.kind for a in checks.request_ids(calls, [])] == ["foreign-reply"]


class TestClock:
    def test_times_that_never_go_back_are_fine(self) -> None:
        """Equal or rising event times are no anomaly."""
        assert checks.clock([event(1, "a", PENDING, time=5), event(2, "b", PENDING, time=5)]) == []

    def test_a_time_going_back_is_found(self) -> None:
        """An event earlier than the one before it is found."""
        found = checks.clock([event(1, "a", PENDING, time=5), event(2, "b", PENDING, time=4)])
        assert [a.kind for a in found] == ["time-backwards"]


class TestStaleBase:
    def test_a_write_whose_reply_the_log_holds_is_fine(self) -> None:
        """The list the write's reply showed is the log's list at that version."""
        log = [event(2, "w1", W1, rid="call-1")]
        assert checks.stale_base([write("w1", "call-1", 2, 0, 1, tasks=W1)], log) == []

    def test_a_write_built_on_a_list_the_log_no_longer_holds_is_found(self) -> None:
        """A reply showing a list the log's event at that version does not hold is found."""
        found = checks.stale_base(
            [write("w1", "call-1", 2, 0, 1, tasks=W2)], [event(2, "w1", W1, rid="call-1")]
        )
        assert [a.kind for a in found] == ["stale-base"]


def swap(kept: int, start: float, end: float) -> dict[str, Any]:
    return {"agent": "injector", "kind": "replace", "start": start, "end": end, "kept": kept}


class TestSwaps:
    def test_a_write_past_the_shared_history_may_go_with_its_branch(self) -> None:
        """A write acknowledged past the version both branches share, before the swap, is not lost."""
        calls = [write("w1", "call-1", 5, 0, 1), swap(3, 2, 3)]
        assert checks.lost_writes(calls, [event(4, "lead", W2)]) == []

    def test_a_write_in_the_shared_history_must_stay(self) -> None:
        """A write the sibling shares (at or below ``kept``) is still checked."""
        calls = [write("w1", "call-1", 3, 0, 1), swap(3, 2, 3)]
        assert [a.kind for a in checks.lost_writes(calls, [event(4, "lead", W2)])] == ["lost-write"]

    def test_a_write_after_the_swap_must_stay(self) -> None:
        """A write that began after the swap ended is checked like any other."""
        calls = [swap(3, 2, 3), write("w1", "call-1", 5, 4, 5)]
        assert [a.kind for a in checks.lost_writes(calls, [event(4, "lead", W2)])] == ["lost-write"]

    def test_a_read_after_a_swap_may_return_the_sibling(self) -> None:
        """A read after a swap may return fewer versions than a write the swap took away."""
        calls = [write("w1", "call-1", 9, 0, 1), swap(3, 2, 3), read("r", 4, 4, 5)]
        assert checks.stale_reads(calls) == []

    def test_a_read_before_the_swap_is_still_checked(self) -> None:
        """A swap that began after the read ended excuses nothing."""
        calls = [write("w1", "call-1", 9, 0, 1), read("r", 4, 2, 3), swap(3, 4, 5)]
        assert [a.kind for a in checks.stale_reads(calls)] == ["stale-read"]

    def test_a_write_on_the_old_branch_after_the_swap_is_found(self) -> None:
        """A write that began after the swap but shows the old branch's list is a stale base."""
        calls = [swap(3, 2, 3), write("w1", "call-1", 5, 4, 5, tasks=W1)]
        log = [event(4, "lead", W2), event(5, "w1", W2, rid="call-1")]
        assert [a.kind for a in checks.stale_base(calls, log)] == ["stale-base"]


def beat(agent: str, version: int, until: float | None, start: float = 0.0) -> dict[str, Any]:
    return {
        "agent": agent, "kind": "beat", "start": start, "end": start + 0.1, "ok": True,
        "task": "t", "version": version, "until": until, "text": "",
    }


class TestRenewals:
    def test_a_takeover_after_the_beats_deadline_is_fine(self) -> None:
        """w1 beat at v2 until 20; w2 took the task at time 21."""
        log = [event(2, "w1", W1), event(3, "w2", W2, time=21.0)]
        assert checks.renewals([beat("w1", 2, 20.0)], log) == []

    def test_a_takeover_before_the_beats_deadline_is_found(self) -> None:
        """w2 took the task at time 15, before the deadline 20 w1's heartbeat was given."""
        log = [event(2, "w1", W1), event(3, "w2", W2, time=15.0)]
        found = checks.renewals([beat("w1", 2, 20.0)], log)
        assert [a.kind for a in found] == ["renewal-ignored"]
        assert "taken from w1 by w2 at v3" in found[0].detail

    def test_a_claim_the_holder_closed_ends_the_check(self) -> None:
        """Once w1 completed the task, a later claim by w2 is not a takeover of w1's claim."""
        log = [event(2, "w1", W1), event(3, "w1", {"t": ["completed", "w1"]}), event(4, "w2", W2, time=5.0)]
        assert checks.renewals([beat("w1", 2, 20.0)], log) == []

    def test_a_beat_that_renewed_nothing_or_overlapped_a_swap_is_not_checked(self) -> None:
        """No deadline acknowledged, or a swap of the log under the beat: nothing to hold."""
        log = [event(2, "w1", W1), event(3, "w2", W2, time=15.0)]
        assert checks.renewals([beat("w1", 2, None)], log) == []
        assert checks.renewals([beat("w1", 2, 20.0, start=1.0), swap(1, 0.5, 2.0)], log) == []


class TestCheck:
    def test_a_clean_history_has_no_anomaly(self) -> None:
        """All checks together on a sound history find nothing."""
        calls = [write("w1", "call-1", 2, 0, 1, text="You (w1) are on t", tasks=W1), read("r", 2, 2, 3)]
        log = [event(1, "lead", PENDING), event(2, "w1", W1, rid="call-1")]
        assert checks.check(calls, log) == []
