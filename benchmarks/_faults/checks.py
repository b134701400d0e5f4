"""The checks of a recorded history: small pure functions, each returning its anomalies.

A *call* is one record an agent wrote (a dict): ``agent``, ``kind`` (``write``, ``read``
or ``beat``: a heartbeat, with the ``task`` it renewed and the deadline ``until`` it
acknowledged), ``rid`` (the request id, writes only), ``start``/``end`` (wall-clock
seconds around the call), ``ok`` (the call returned; False when it raised),
``error`` (the reply was an error result), ``version`` (the version the write was
acknowledged at, or the version the read returned) and ``text`` (the reply's first
line). An *event* is one entry of the final log: ``version``, ``time``, ``agent``,
``rid`` and ``tasks`` (content to ``[status, owner]``). Every check takes the calls
and/or the events and returns a list of :class:`Anomaly`.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import attrs

Record = dict[str, Any]


@attrs.frozen
class Anomaly:
    """One broken guarantee: its kind and what shows it."""

    kind: str
    detail: str


def _acked(call: Record) -> bool:
    return call["kind"] == "write" and bool(call["ok"]) and not call["error"]


def _swaps(calls: Sequence[Record]) -> list[Record]:
    """The ``replace`` records: when the log was swapped, and the version both branches share."""
    return [c for c in calls if c["kind"] == "replace"]


def _dropped(call: Record, swaps: Sequence[Record], before: float = float("inf")) -> bool:
    """Whether a swap (one that started before ``before``) may have taken ``call``'s event away:
    the call began before the swap ended and was acknowledged past the shared history."""
    return any(
        call["version"] > s["kept"] and call["start"] < s["end"] and s["start"] < before for s in swaps
    )


def completions(events: Sequence[Record]) -> list[Anomaly]:
    """A task completed twice, or completed by an agent that did not hold it."""
    found: list[Anomaly] = []
    done: Counter[str] = Counter()
    before: dict[str, list[Any]] = {}
    for event in events:
        for task, (status, _owner) in event["tasks"].items():
            was = before.get(task)
            if status == "completed" and (was is None or was[0] != "completed"):
                done[task] += 1
                if done[task] == 2:
                    found.append(Anomaly("completed-twice", f"{task!r} again at v{event['version']}"))
                holder = was[1] if was is not None and was[0] == "in_progress" else None
                if holder is not None and event["agent"] not in (None, holder, event.get("lead")):
                    found.append(
                        Anomaly(
                            "completed-by-non-holder",
                            f"{task!r} held by {holder} closed by {event['agent']} at v{event['version']}",
                        )
                    )
        before = {task: list(value) for task, value in event["tasks"].items()}
    return found


def voided_claims(events: Sequence[Record]) -> list[Anomaly]:
    """A write accepted on a task from an agent whose claim on it a later takeover voided."""
    found: list[Anomaly] = []
    voided: dict[str, set[str]] = {}
    before: dict[str, list[Any]] = {}
    for event in events:
        agent = event["agent"]
        for task, (status, owner) in event["tasks"].items():
            was = before.get(task)
            if was is not None and list(was) == [status, owner]:
                continue
            if (
                agent is not None
                and agent in voided.get(task, set())
                and not (status == "in_progress" and owner == agent)
            ):
                found.append(
                    Anomaly("voided-claim-write", f"{agent} changed {task!r} at v{event['version']}")
                )
            if status == "in_progress" and owner is not None:
                if was is not None and was[0] == "in_progress" and was[1] not in (None, owner):
                    voided.setdefault(task, set()).add(str(was[1]))
                voided.get(task, set()).discard(owner)
        before = {task: list(value) for task, value in event["tasks"].items()}
    return found


def lost_writes(calls: Sequence[Record], events: Sequence[Record]) -> list[Anomaly]:
    """An acknowledged write (with a request id) that the final log does not carry at the
    version it was acknowledged at (or at all)."""
    logged = {(e["agent"], e["rid"]): e["version"] for e in events if e["rid"] is not None}
    swaps = _swaps(calls)
    found: list[Anomaly] = []
    for c in calls:
        if not (_acked(c) and c["rid"] is not None and c.get("changed")) or _dropped(c, swaps):
            continue
        at = logged.get((c["agent"], c["rid"]))
        if at is None or (c["version"] is not None and at != c["version"]):
            where = "not in the log" if at is None else f"the log has it at v{at}"
            found.append(
                Anomaly("lost-write", f"{c['agent']} {c['rid']} acknowledged at v{c['version']}, {where}")
            )
    return found


def stale_reads(calls: Sequence[Record]) -> list[Anomaly]:
    """A read that started after a write was acknowledged at v, returning a version below v
    (unless a swap of the log that began before the read ended took that write away)."""
    acks = [c for c in calls if _acked(c) and c["version"] is not None]
    swaps = _swaps(calls)
    found: list[Anomaly] = []
    for read in (c for c in calls if c["kind"] == "read" and c["ok"]):
        newest = max(
            (
                a["version"]
                for a in acks
                if a["end"] < read["start"] and not _dropped(a, swaps, before=read["end"])
            ),
            default=0,
        )
        if read["version"] < newest:
            found.append(
                Anomaly(
                    "stale-read", f"{read['agent']} read v{read['version']} after v{newest} was acknowledged"
                )
            )
    return found


_YOU = re.compile(r"You \(([^)]*)\)")


def request_ids(calls: Sequence[Record], events: Sequence[Record]) -> list[Anomaly]:
    """An (agent, request id) applied more than once, or answered with another caller's reply."""
    found: list[Anomaly] = []
    applied = Counter((e["agent"], e["rid"]) for e in events if e["rid"] is not None)
    found += [
        Anomaly("applied-twice", f"{a} {r} applied {n} times") for (a, r), n in applied.items() if n > 1
    ]
    for call in calls:
        if not _acked(call):
            continue
        named = _YOU.search(call["text"] or "")
        if named and named.group(1) != call["agent"]:
            found.append(
                Anomaly("foreign-reply", f"{call['agent']} {call['rid']} answered as {named.group(1)}")
            )
    return found


def renewals(calls: Sequence[Record], events: Sequence[Record]) -> list[Anomaly]:
    """A claim taken over before the deadline an acknowledged heartbeat gave it.

    The agent held the task at the version it read before the beat and wrote nothing in
    between; so the first event after that version where the task leaves it is a takeover
    that the beat's renewal must have held off until ``until`` (both times are the plan's).
    Beats that a swap of the log may have sent to another branch are not checked.
    """
    swaps = _swaps(calls)
    found: list[Anomaly] = []
    for beat in calls:
        if beat["kind"] != "beat" or beat["until"] is None or any(beat["start"] < s["end"] for s in swaps):
            continue
        agent, task = beat["agent"], beat["task"]
        for event in events:
            if event["version"] <= beat["version"]:
                continue
            status, owner = event["tasks"].get(task, (None, None))
            if status == "in_progress" and owner == agent:
                continue
            if status == "in_progress" and event["time"] < beat["until"]:
                found.append(
                    Anomaly(
                        "renewal-ignored",
                        f"{task!r} taken from {agent} by {owner} at v{event['version']}, "
                        f"{beat['until'] - event['time']:.3f} s before its heartbeat's deadline",
                    )
                )
            break
    return found


def clock(events: Sequence[Record]) -> list[Anomaly]:
    """An event whose time is earlier than the event before it."""
    return [
        Anomaly(
            "time-backwards", f"v{b['version']} at {b['time']:.3f} after v{a['version']} at {a['time']:.3f}"
        )
        for a, b in itertools.pairwise(events)
        if b["time"] < a["time"]
    ]


def stale_base(calls: Sequence[Record], events: Sequence[Record]) -> list[Anomaly]:
    """An acknowledged write whose reply shows a list the final log never held at that version.

    Each acknowledged write records ``tasks`` (the list its reply showed); the event of the
    final log at the acknowledged version must hold that list, else the write was built on
    a history the log no longer has (a log replaced under a live handle).
    """
    by_version = {e["version"]: e for e in events}
    swaps = _swaps(calls)
    found: list[Anomaly] = []
    for call in calls:
        if not _acked(call) or call.get("tasks") is None or not call.get("changed"):
            continue
        if _dropped(call, swaps):
            continue  # its branch is gone: lost_writes and this check look at the kept one only
        event = by_version.get(call["version"])
        if (
            event is not None
            and (event["agent"], event["rid"]) == (call["agent"], call["rid"])
            and event["tasks"] != call["tasks"]
        ):
            found.append(Anomaly("stale-base", f"{call['agent']} {call['rid']} at v{call['version']}"))
    return found


CHECKS: tuple[Callable[[Sequence[Record], Sequence[Record]], list[Anomaly]], ...] = (
    lambda calls, events: completions(events),
    lambda calls, events: voided_claims(events),
    lost_writes,
    lambda calls, events: stale_reads(calls),
    request_ids,
    lambda calls, events: clock(events),
    stale_base,
    renewals,
)

KINDS = (
    "completed-twice",
    "completed-by-non-holder",
    "voided-claim-write",
    "lost-write",
    "stale-read",
    "applied-twice",
    "foreign-reply",
    "time-backwards",
    "stale-base",
    "renewal-ignored",
    "store-unusable",
)


def check(calls: Sequence[Record], events: Sequence[Record]) -> list[Anomaly]:
    """Every check over one run's calls and final log."""
    return [anomaly for run in CHECKS for anomaly in run(calls, events)]
