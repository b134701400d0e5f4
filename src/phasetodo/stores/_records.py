"""How an event is kept in a log: a delta, and now and then a checkpoint.

A record is one event as JSON data. A ``write`` record carries the validated
``ops`` and the ``profile`` that ran them; a ``user_edit`` or ``clear`` record
carries ``edit``, a structural diff against the list before it. A *checkpoint*
record also carries ``phases``, the whole list after it, so that opening a log
reads its newest checkpoint and replays only the records after it.

Replay applies a write's ops with the same engine and profile (no limits: the
call passed them when it was made), so the list after every record is exactly
the list the writer saw. Records of format 1 logs always carry ``phases``: every
one of them is a checkpoint, and they read as they always did.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from .._core.codec import dump_phases, load_phases, load_task
from .._core.model import Phase, Task
from .._profiles.builtin import BUILTIN
from .._profiles.registry import CallContext
from ..errors import InvalidParams, InvalidPhases
from ._base import Event, event_fields
from ._requests import request_from_json

__all__ = [
    "FORMAT",
    "Tail",
    "decode",
    "dumps",
    "encode",
    "encode_next",
    "is_checkpoint",
    "is_slow",
    "loads",
    "plan_of",
]

#: The newest record format: 1 kept a snapshot per event, 2 keeps deltas and checkpoints.
FORMAT = 2
#: A checkpoint is due once the deltas since the last one weigh this much more than it...
_MIN_TAIL_BYTES = 4096
#: ...or once the engine-only records after it would take this many passes over a big
#: list to replay (one pass costs about 2.5 reads of its checkpoint on 10,000 tasks)...
_REPLAY_PASSES = 16
#: ...where a list this small counts as this big: passes over small lists are cheap, so
#: they may pile up to ``_SMALL_LIST * _REPLAY_PASSES`` bytes of list passed over.
_SMALL_LIST = 16384
#: A write also keeps its structural diff (replayed in O(phases), not O(tasks)) when
#: the diff is at most this many bytes larger than its ops.
EDIT_SLACK = 256
#: A checkpoint also keeps its diff, when at most this many bytes, for the readers that hold
#: the list before it (every agent following the plan): they patch it rather than decode
#: the whole list. A reader that opens the log at the checkpoint reads its ``phases``.
CHECKPOINT_EDIT = 4096


def dumps(data: Any) -> str:
    """One record as compact ASCII JSON (no lone surrogate or odd line break can leak)."""
    return json.dumps(data, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    """Parse one record; raises ``ValueError`` for bad JSON, too deep nesting included."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to be a phasetodo record") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 text ({error.reason})") from None


@attrs.define
class Tail:
    """What follows the newest checkpoint of a log: how many bytes, and how many
    records that only the engine can replay (each costs a pass over the list).

    ``base`` is the size of that checkpoint; :meth:`due` says when the next
    record should be a checkpoint again, so that opening a log costs one
    checkpoint read plus a tail bounded in proportion to the list:

    - once the deltas outweigh the checkpoint (bytes): a log of small deltas
      then pays at most about one more delta per write for its checkpoints,
      which keeps a write on 10,000 tasks under 1 KB plus its ops;
    - once the engine-only records (ops whose diff was too big to keep, i.e.
      writes that changed much of the list) would take ``_REPLAY_PASSES``
      passes over the list to replay. Their replay grows with the list, so
      their number must not: at most 16 passes (about 40 checkpoint reads on
      10,000 tasks) whatever the list's size. The price is one checkpoint per
      16 such writes, about 1/16 of the list (40 KB on 10,000 tasks) each on
      average: a write that rewrites every task pays a few bytes per task it
      changed, while writes that change little keep the 1 KB target above.
    """

    slow: int = 0
    size: int = 0
    base: int = 0

    def due(self) -> bool:
        """Whether the next record should carry the whole list."""
        if self.size >= max(self.base, _MIN_TAIL_BYTES):
            return True
        return self.slow >= _REPLAY_PASSES * max(1, _SMALL_LIST // max(self.base, 1))

    def outweighs(self, record_bytes: int) -> bool:
        """Whether one record of ``record_bytes`` would by itself make a checkpoint due (a list
        built in one write, such as a first ``init`` of 100,000 tasks): that record is then
        the checkpoint, so the next writer does not pay for one (and no reader replays it)."""
        return record_bytes >= max(self.base, _MIN_TAIL_BYTES)

    def add(self, record_bytes: int, checkpoint_bytes: int | None, *, slow: bool = True) -> None:
        """Account for one more record (``checkpoint_bytes``: the size of its list, if it has one)."""
        if checkpoint_bytes is not None:
            self.slow, self.size, self.base = 0, 0, checkpoint_bytes
        else:
            self.slow += slow
            self.size += record_bytes


def is_slow(data: object) -> bool:
    """Whether a parsed record can only be replayed by the engine (no diff, no list)."""
    return (type(data) is dict or isinstance(data, Mapping)) and "edit" not in data and "phases" not in data


def encode(event: Event, before: tuple[Phase, ...], *, checkpoint: bool) -> dict[str, Any]:
    """The record of ``event``, which follows the list ``before``."""
    out: dict[str, Any] = {"version": event.version, "kind": event.kind, "time": event.time}
    if event.source is not None:
        out["source"] = event.source
    if event.agent is not None:
        out["agent"] = event.agent
    if event.request is not None:
        out["request"] = event.request.to_json()
    if event.ops is not None:
        out["profile"] = event.profile or "parity"
        out["ops"] = list(event.ops)
        if not checkpoint:
            edit = diff(before, event.phases)
            if len(dumps(edit)) <= len(dumps(out["ops"])) + EDIT_SLACK:
                out["edit"] = edit
    else:
        if event.profile is not None:  # what ran the call, for the record; replay needs no profile
            out["profile"] = event.profile
        if not checkpoint:
            out["edit"] = diff(before, event.phases)
    if checkpoint:
        out["phases"] = dump_phases(event.phases)
        if before and "edit" not in out:  # a reader holding the list before patches it instead
            edit = diff(before, event.phases)
            if len(dumps(edit)) <= CHECKPOINT_EDIT:
                out["edit"] = edit
    return out


def encode_next(
    event: Event,
    before: tuple[Phase, ...],
    tail: Tail,
    *,
    checkpoint: bool = False,
    plan: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], bool]:
    """The record of ``event`` as a log with ``tail`` appends it, and whether it is a checkpoint:
    when ``checkpoint`` is asked, when the tail is due, or when the delta alone outweighs the
    tail's checkpoint (:meth:`Tail.outweighs`).

    ``plan`` (the plan's session id, owner and profile) goes into the record of version 1,
    so the hash chain covers what grants rights on the plan, like every event."""
    checkpoint = checkpoint or tail.due()
    record = encode(event, before, checkpoint=checkpoint)
    if not checkpoint and tail.outweighs(len(dumps(record))):
        record, checkpoint = encode(event, before, checkpoint=True), True
    if plan is not None and event.version == 1:
        record["plan"] = dict(plan)
    return record, checkpoint


def plan_of(raw: str | bytes | None, session_id: str) -> dict[str, Any] | None:
    """The ``plan`` a log's first record carries (session, owner, profile), or None for a
    record written before the plan was chained. Raises ``ValueError`` naming a bad field."""
    if raw is None:
        return None
    data = loads(raw)
    plan = data.get("plan") if isinstance(data, Mapping) else None
    if plan is None:
        return None
    if not isinstance(plan, Mapping):
        raise ValueError("event.plan: must be an object")
    if plan.get("session") != session_id:
        raise ValueError(f"event.plan.session: names {plan.get('session')!r}, not {session_id!r}")
    for key in ("owner", "profile"):
        if plan.get(key) is not None and type(plan[key]) is not str:
            raise ValueError(f"event.plan.{key}: must be a string")
    return {"session": session_id, "owner": plan.get("owner"), "profile": plan.get("profile")}


def is_checkpoint(data: object) -> bool:
    """Whether a parsed record carries the whole list."""
    return (type(data) is dict or isinstance(data, Mapping)) and "phases" in data


def decode(data: object, before: tuple[Phase, ...] | None, *, in_turn: bool = False) -> Event:
    """The event a parsed record holds, its list materialized from ``before``.

    ``before`` is the list after the previous record (``()`` for the first);
    ``None`` when it is unknown, which only a checkpoint can follow. With ``in_turn``
    the caller vouches that ``before`` is the list of the record just before this one,
    and a checkpoint that keeps its diff is patched onto it rather than read whole.
    Raises ``ValueError`` naming the bad field.
    """
    data, version, kind, time = event_fields(data, ("source", "agent", "profile"))
    ops = data.get("ops")
    profile = data.get("profile")
    request = request_from_json(data.get("request"), data.get("agent"))
    if ops is not None:
        if type(ops) is not list:
            raise ValueError("event.ops: must be a list")
        if profile is None:
            profile = "parity"
        if profile not in BUILTIN:
            raise ValueError(f"event.profile: {profile!r} is not a profile this version knows")
    phases = _patched_checkpoint(data, before) if in_turn else None
    if phases is not None:
        pass  # a checkpoint read in turn: what changed, not the whole list
    elif "phases" in data:
        try:
            phases = load_phases(data["phases"])
        except InvalidPhases as error:
            raise ValueError(f"event.phases: {'; '.join(error.problems)}") from error
    elif before is None:
        raise ValueError("event: a delta with no checkpoint before it")
    elif "edit" in data:
        phases = patch(before, data["edit"])
    elif ops is not None:
        phases = _replay(ops, str(profile), before, data.get("agent"))
    else:
        raise ValueError("event: has neither phases, ops nor edit")
    return Event(
        version, kind, time, phases, data.get("source"), data.get("agent"),
        tuple(ops) if ops is not None else None, profile, request,
    )


def _patched_checkpoint(
    data: Mapping[str, Any], before: tuple[Phase, ...] | None
) -> tuple[Phase, ...] | None:
    """A checkpoint's list from its diff on ``before`` (None: it keeps no diff, or the diff
    does not give as many phases as its list has, which is then read whole)."""
    listed, edit = data.get("phases"), data.get("edit")
    if not before or type(listed) is not list or edit is None:
        return None
    phases = patch(before, edit)
    return phases if len(phases) == len(listed) else None


def _replay(ops: list[Any], name: str, before: tuple[Phase, ...], agent: str | None) -> tuple[Phase, ...]:
    """The list after a write: its ops parsed and applied again by the same profile, for the same agent."""
    profile = BUILTIN[name]
    try:
        return profile.apply(before, profile.parse({"ops": ops}), CallContext(agent)).phases
    except InvalidParams as error:
        raise ValueError(f"event.ops: {'; '.join(error.problems)}") from error


# -- structural diff -------------------------------------------------------------------
#
# An edit is a list of entries that build the new list in order: ``[a, b]`` copies the
# previous list's phases ``a`` to ``b - 1``; ``{"at": i, "name": ..., "tasks": [...]}``
# is a phase built from previous phase ``i``'s tasks (``[a, b]`` ranges) and new task
# objects; a phase object without ``at`` is new. Unchanged runs cost a few bytes.


def diff(before: Sequence[Phase], after: Sequence[Phase]) -> list[Any]:
    """An edit that turns ``before`` into ``after``, sized by what changed.

    Phases and tasks are matched by identity first (the engine shares what it
    left alone), then by value among the rest, so it costs what changed rather
    than hashing the whole list, and a rebuilt but equal value still matches.
    """
    find = _matcher(before, after)
    named: dict[str, int] = {}
    for index, phase in enumerate(before):
        named.setdefault(phase.name, index)
    out: list[Any] = []
    for phase in after:
        at = named.get(phase.name)
        # Hashing whole phases to find an equal one pays only when the namesake is equal.
        found = find(phase, by_value=at is None or before[at] == phase)
        if found is not None:
            _extend(out, found)
            continue
        if at is None:
            out.append(dump_phases([phase])[0])
        else:
            entry = {"at": at, "name": phase.name, "tasks": _task_diff(before[at].tasks, phase.tasks)}
            if phase.last_id:  # a team plan's id high-water mark
                entry["last_id"] = phase.last_id
            out.append(entry)
    return out


def _matcher(before: Sequence[Any], after: Sequence[Any]) -> Callable[..., int | None]:
    """Where in ``before`` an item of ``after`` is: the same object, else (``by_value``) an
    equal one among the items ``after`` does not hold itself (hashed only when first needed)."""
    by_id: dict[int, int] = {}
    for index, item in enumerate(before):
        by_id.setdefault(id(item), index)
    values: dict[Any, int] | None = None

    def find(item: Any, *, by_value: bool = True) -> int | None:
        nonlocal values
        index = by_id.get(id(item))
        if index is not None or not by_value:
            return index
        if values is None:
            kept = set(map(id, after))
            values = {}
            for index, old in enumerate(before):
                if id(old) not in kept:
                    values.setdefault(old, index)
        return values.get(item)

    return find


def _extend(out: list[Any], index: int) -> None:
    last = out[-1] if out else None
    if isinstance(last, list) and last[1] == index:
        last[1] = index + 1
    else:
        out.append([index, index + 1])


def _task_diff(before: Sequence[Task], after: Sequence[Task]) -> list[Any]:
    find = _matcher(before, after)
    out: list[Any] = []
    for task in after:
        found = find(task)
        if found is None:
            out.append(dump_phases([Phase("", (task,))])[0]["tasks"][0])
        else:
            _extend(out, found)
    return out


def patch(before: tuple[Phase, ...], edit: object) -> tuple[Phase, ...]:
    """Apply an edit made by :func:`diff`; raises ``ValueError`` when it does not fit."""
    if type(edit) is not list:
        raise ValueError("event.edit: must be a list")
    out: list[Phase] = []
    for entry in edit:
        if type(entry) is list:
            out.extend(_span(before, entry, "event.edit"))
        elif isinstance(entry, dict) and "at" in entry:
            at = entry["at"]
            if type(at) is not int or not 0 <= at < len(before):
                raise ValueError("event.edit.at: not a phase of the list before")
            parts = entry.get("tasks")
            name = entry.get("name")
            if type(parts) is not list or type(name) is not str:
                raise ValueError("event.edit: a changed phase needs a name and a list of tasks")
            tasks: list[Task] = []
            for part in parts:
                if type(part) is list:
                    tasks.extend(_span(before[at].tasks, part, "event.edit.tasks"))
                else:
                    tasks.append(_load_task(name, part))
            last_id = entry.get("last_id", 0)
            if type(last_id) is not int or last_id < 0:
                raise ValueError("event.edit.last_id: must be an integer >= 0")
            out.append(Phase(name, tuple(tasks), last_id))
        else:
            out.extend(_load([entry]))
    return tuple(out)


def _span(items: Sequence[Any], entry: list[Any], place: str) -> Sequence[Any]:
    if len(entry) == 2:
        first, end = entry
        if type(first) is int and type(end) is int and 0 <= first < end <= len(items):
            return items[first:end]
    raise ValueError(f"{place}: {entry!r} is not a range of the list before")


def _load_task(phase: str, data: object) -> Task:
    """A new task of an edit (checked on the fast path; a bad one is named by the full reader)."""
    try:
        return load_task(data)
    except (KeyError, TypeError, AttributeError, ValueError):
        return _load([{"name": phase, "tasks": [data]}])[0].tasks[0]


def _load(data: Iterable[Any]) -> tuple[Phase, ...]:
    try:
        return load_phases(list(data))
    except InvalidPhases as error:
        raise ValueError(f"event.edit: {'; '.join(error.problems)}") from error
