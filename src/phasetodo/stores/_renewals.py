"""Heartbeats kept beside a plan's log: the renewed deadlines of claims, one per task.

A heartbeat renews its agent's claim by writing one :class:`~phasetodo.Renewal` into a small
table the store keeps next to the log (a file beside the JSONL log, a table in SQLite and
PostgreSQL, a dict in memory), replacing the table whole under the plan's lock. The permanent
history grows only with writes, never with beats.

Losing the table loses nothing the log promises: a claim then lapses at the deadline of its
holder's last write, another agent may take it over, and the holder's later writes on it are
fenced as after any takeover. So the table is not chained nor synced to disk, and an entry
that does not read back as a renewal is skipped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._core.model import Renewal

__all__ = ["LazyRenewals", "dump_renewals", "load_renewals", "renewals_from_json", "renewals_to_json"]


def renewals_to_json(renewals: Mapping[str, Renewal]) -> list[list[Any]]:
    """The table as JSON data: one ``[task, agent, epoch, until]`` row per renewal."""
    return [[r.task, r.agent, r.epoch, r.until] for r in renewals.values()]


def _row(data: object) -> Renewal | None:
    """A row of :func:`renewals_to_json` back as a renewal, or None when it is not one."""
    if not isinstance(data, (list, tuple)) or len(data) != 4:
        return None
    task, agent, epoch, until = data
    if not isinstance(task, str) or not isinstance(agent, str) or type(epoch) is not int:
        return None
    if isinstance(until, bool) or not isinstance(until, (int, float)) or not math.isfinite(until):
        return None
    return Renewal(task, agent, epoch, float(until))


def renewals_from_json(data: object) -> dict[str, Renewal]:
    """The renewals of :func:`renewals_to_json`'s data by task id; what is not one is skipped."""
    rows = data if isinstance(data, list) else ()
    found = (_row(row) for row in rows)
    return {r.task: r for r in found if r is not None}


def dump_renewals(renewals: Mapping[str, Renewal]) -> str:
    """The table as the text a store keeps (compact ASCII JSON)."""
    return json.dumps(renewals_to_json(renewals), separators=(",", ":"))


def load_renewals(text: str | bytes | None) -> dict[str, Renewal]:
    """The table a store kept as :func:`dump_renewals` text; none when it is missing or does
    not read back (as after a crash while it was rewritten)."""
    if text is None:
        return {}
    try:
        return renewals_from_json(json.loads(text))
    except (ValueError, RecursionError):
        return {}


class LazyRenewals(Mapping[str, Renewal]):
    """A log's renewals, read from the store on the first look only: most writes never look
    (a claim is looked up here only once its last write's deadline has passed)."""

    def __init__(self, read: Callable[[], Mapping[str, Renewal]]) -> None:
        self._read = read
        self._found: Mapping[str, Renewal] | None = None

    def _table(self) -> Mapping[str, Renewal]:
        if self._found is None:
            self._found = self._read()
        return self._found

    def __getitem__(self, task: str) -> Renewal:
        return self._table()[task]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())
