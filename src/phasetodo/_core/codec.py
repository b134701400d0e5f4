"""Conversion between JSON-shaped data and phasetodo values.

One private cattrs converter owns every hook: tool arguments become typed ops
(a union tagged on ``"op"``) and phases go to and from the JSON shape of
``details.phases``. Bad input raises our own errors, each naming its place.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import cattrs

from ..errors import InvalidParams, InvalidPhases
from . import schema
from .model import Lease, Phase, Status, Task, TeamFields, make_task
from .ops import OPS, Append, Done, Drop, Init, Note, Op, PhaseItems, Rm, Start

__all__ = ["as_phases", "dump_lease", "dump_phases", "dump_task", "load_phases", "load_task", "parse_params"]

_STATUSES = {s.value: s for s in Status}
_WIRE = {s: s.value for s in Status}
#: The keys a team plan's task may have beyond the reference's.
_TEAM_KEYS = frozenset(("owner", "reason", "after", "id", "lease"))


_TARGETED: dict[str, type[Done | Drop | Rm]] = {"done": Done, "drop": Drop, "rm": Rm}


def _structure_op(data: Mapping[str, Any], _: object) -> Op:
    """Build the op value from one schema-valid op entry; unknown keys are ignored."""
    name = data["op"]
    if name == "init":
        entries = data.get("list")
        if entries is None:
            return Init()
        return Init(tuple(PhaseItems(e["phase"], tuple(e["items"])) for e in entries))
    if name == "append":
        items = data.get("items")
        return Append(data.get("phase"), None if items is None else tuple(items))
    if name == "note":
        return Note(data.get("task"), data.get("text"))
    if name == "start":
        return Start(data.get("task"))
    return _TARGETED[name](data.get("task"), data.get("phase"))



def parse_params(params: object) -> tuple[Op, ...]:
    """Check tool arguments against the schema and turn them into ops.

    Raises :class:`InvalidParams` listing every problem; nothing else escapes.
    A ``null`` op field is rejected, as the reference does.
    """
    if not schema.is_valid(params):
        raise InvalidParams(schema.problems(params) or ["params: must be JSON-shaped data"])
    assert isinstance(params, dict)
    return tuple([_structure_op(entry, Op) for entry in params["ops"]])


def _unstructure_op(op: Op) -> dict[str, Any]:
    out: dict[str, Any] = {"op": op.name}
    if isinstance(op, Init):
        if op.list is not None:
            out["list"] = [{"phase": e.phase, "items": list(e.items)} for e in op.list]
        return out
    for key, value in ((k, getattr(op, k, None)) for k in ("task", "phase", "items", "text")):
        if value is not None:
            out[key] = list(value) if key == "items" else value
    return out


def dump_task(task: Task) -> dict[str, Any]:
    """A task as JSON data; ``notes``, ``owner``, ``reason``, ``after`` and ``id`` are left out when empty."""
    out: dict[str, Any] = {"content": task.content, "status": _WIRE[task.status]}
    if task.notes:
        out["notes"] = list(task.notes)
    if task.has_team_fields:
        _dump_team_fields(task, out)
    return out


def _dump_team_fields(task: Task, out: dict[str, Any]) -> dict[str, Any]:
    """Add a team plan's keys to a dumped task (only the ones that are set)."""
    if task.owner is not None:
        out["owner"] = task.owner
    if task.reason is not None:
        out["reason"] = task.reason
    if task.after:
        out["after"] = list(task.after)
    if task.id is not None:
        out["id"] = task.id
    if task.lease is not None:
        out["lease"] = dump_lease(task.lease)
    return out


def dump_lease(lease: Lease) -> dict[str, Any]:
    """A claim's lease as JSON: its epoch, and the times and agent that are set."""
    out: dict[str, Any] = {"epoch": lease.epoch}
    if lease.until is not None:
        out["until"] = lease.until
    if lease.lapsed is not None:
        out["lapsed"] = lease.lapsed
    if lease.lapsed_at is not None:
        out["lapsed_at"] = lease.lapsed_at
    if lease.voided:
        out["voided"] = list(lease.voided)
    return out


def _load_lease(data: object) -> Lease:
    """A lease from JSON (type-checked: ``TypeError`` for the careful loader to name)."""
    if type(data) is not dict:
        raise TypeError
    epoch, until = data.get("epoch", 0), data.get("until")
    lapsed, at, voided = data.get("lapsed"), data.get("lapsed_at"), data.get("voided", [])
    if type(epoch) is not int or epoch < 0 or (lapsed is not None and type(lapsed) is not str):
        raise TypeError
    if type(voided) is not list or not all(type(agent) is str for agent in voided):
        raise TypeError
    for time in (until, at):
        if time is not None and (type(time) not in (int, float) or not math.isfinite(time)):
            raise TypeError
    return Lease(
        epoch, None if until is None else float(until), lapsed, None if at is None else float(at),
        tuple(voided),
    )


def dump_phases(phases: Iterable[Phase | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Phases in the JSON shape of ``details.phases`` (accepts values or dicts)."""
    wire = _WIRE
    values = _as_phases(phases)
    out: list[dict[str, Any]] = [
        {
            "name": p.name,
            "tasks": [
                (
                    {"content": t.content, "status": wire[t.status], "notes": list(t.notes)}
                    if t.notes
                    else {"content": t.content, "status": wire[t.status]}
                )
                if t.owner is None
                and t.reason is None
                and not t.after
                and t.id is None
                and t.lease is None
                else dump_task(t)
                for t in p.tasks
            ],
        }
        for p in values
    ]
    for dumped, phase in zip(out, values, strict=True):
        if phase.last_id:
            dumped["last_id"] = phase.last_id
    return out


def as_phases(phases: Iterable[Phase | Mapping[str, Any]]) -> tuple[Phase, ...]:
    """Phases given as ``Phase`` values or JSON dicts, as a tuple of values.

    Dicts are loaded with :func:`load_phases` (raising ``InvalidPhases``); the
    package's views and tools take their phases through here.
    """
    items = phases if isinstance(phases, tuple) else tuple(phases)
    if all(isinstance(p, Phase) for p in items):
        return items  # type: ignore[return-value]
    return load_phases(items)


#: The former private name of :func:`as_phases`.
_as_phases = as_phases


def load_phases(data: object) -> tuple[Phase, ...]:
    """Build phases from JSON data, taken as given (not normalized).

    Raises :class:`InvalidPhases` naming every malformed place, for example
    ``[0].tasks[2].status: must be one of pending, in_progress, completed, abandoned``.
    """
    try:
        return _fast_load(data)
    except (KeyError, TypeError, AttributeError, ValueError):
        pass
    found = schema.problems(data, schema.PHASES_SCHEMA, "")
    found = [p if not p.startswith("params") else "phases" + p[6:] for p in found]
    raise InvalidPhases(found or ["phases: must be a list of {name, tasks} objects"])


def _fast_load(data: Any) -> tuple[Phase, ...]:
    if not isinstance(data, (list, tuple)):
        raise TypeError
    return tuple(_load_phase(p) for p in data)


def _load_phase(data: Any) -> Phase:
    name = data["name"]
    if type(name) is not str:
        raise TypeError
    tasks = tuple(map(load_task, data["tasks"]))
    mark = data.get("last_id", 0)
    if type(mark) is not int or mark < 0:
        raise TypeError
    return Phase(name, tasks, mark)


def load_task(item: Any) -> Task:
    """One task from its JSON object, type-checked but with no message: raises ``TypeError``,
    ``KeyError`` or ``AttributeError`` for bad data (:func:`load_phases` names the place)."""
    content = item["content"]
    notes = item.get("notes")
    if type(content) is not str:
        raise TypeError
    if notes:
        if not isinstance(notes, list) or not all(type(n) is str for n in notes):
            raise TypeError
        notes = tuple(notes)
    elif notes is None or notes == []:
        notes = ()
    else:
        raise TypeError
    team = _load_team_fields(item) if len(item) > 2 and not _TEAM_KEYS.isdisjoint(item) else None
    return make_task(content, _STATUSES[item["status"]], notes, team)


def _load_team_fields(item: Mapping[str, Any]) -> TeamFields:
    """A team plan's ``owner``, ``reason``, ``after``, ``id`` and ``lease`` of a task (type-checked)."""
    owner, reason, after, ident = item.get("owner"), item.get("reason"), item.get("after"), item.get("id")
    if ident is not None and type(ident) is not str:
        raise TypeError
    if owner is not None and type(owner) is not str:
        raise TypeError
    if reason is not None and type(reason) is not str:
        raise TypeError
    if after is None:
        after = []
    if not isinstance(after, list) or not all(type(a) is str for a in after):
        raise TypeError
    lease = item.get("lease")
    return TeamFields(owner, reason, tuple(after), ident, None if lease is None else _load_lease(lease))


def _structure_phase(data: Any, _: type) -> Phase:
    return load_phases([data])[0]


def _make_converter() -> cattrs.Converter:
    """The library's own cattrs converter, with every hook; the global one is never touched."""
    import cattrs

    made = cattrs.Converter()
    made.register_structure_hook(Op, _structure_op)
    for cls in OPS.values():
        made.register_unstructure_hook(cls, _unstructure_op)
    made.register_structure_hook(Phase, _structure_phase)
    made.register_unstructure_hook(Phase, lambda p: dump_phases([p])[0])
    made.register_unstructure_hook(Task, dump_task)
    return made


_converter: list[cattrs.Converter] = []


def __getattr__(name: str) -> Any:
    """``converter`` is built on first use: importing cattrs is most of the import time."""
    if name == "converter":
        if not _converter:
            _converter.append(_make_converter())
        return _converter[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
