"""Conversion between JSON-shaped data and phasetodo values.

One private cattrs converter owns every hook: tool arguments become typed ops
(a union tagged on ``"op"``) and phases go to and from the JSON shape of
``details.phases``. Bad input raises our own errors, each naming its place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import cattrs

from . import schema
from .errors import InvalidParams, InvalidPhases
from .model import Phase, Status, Task
from .ops import OPS, Append, Init, Note, Op, PhaseItems

__all__ = ["converter", "dump_phases", "dump_task", "load_phases", "parse_params"]

#: The library's own converter; the global cattrs converter is never touched.
converter = cattrs.Converter()

_STATUSES = {s.value: s for s in Status}


def _structure_op(data: Mapping[str, Any], _: type) -> Op:
    cls = OPS[data["op"]]
    if cls is Init:
        entries = data.get("list")
        return Init(
            None
            if entries is None
            else tuple(PhaseItems(e["phase"], tuple(e["items"])) for e in entries)
        )
    if cls is Append:
        items = data.get("items")
        return Append(data.get("phase"), None if items is None else tuple(items))
    if cls is Note:
        return Note(data.get("task"), data.get("text"))
    if cls.name == "start":
        return cls(data.get("task"))  # type: ignore[call-arg]
    return cls(data.get("task"), data.get("phase"))  # type: ignore[call-arg]


converter.register_structure_hook(Op, _structure_op)  # type: ignore[arg-type]


def parse_params(params: object) -> tuple[Op, ...]:
    """Check tool arguments against the schema and turn them into ops.

    Raises :class:`InvalidParams` listing every problem; nothing else escapes.
    """
    if not schema.is_valid(params):
        raise InvalidParams(schema.problems(params) or ["params: must be JSON-shaped data"])
    assert isinstance(params, dict)
    return tuple(converter.structure(entry, Op) for entry in params["ops"])  # type: ignore[arg-type]


def _unstructure_op(op: Op) -> dict[str, Any]:
    out: dict[str, Any] = {"op": op.name}
    if isinstance(op, Init):
        if op.list is not None:
            out["list"] = [{"phase": e.phase, "items": list(e.items)} for e in op.list]
        return out
    for key, value in ((k, getattr(op, k)) for k in ("task", "phase", "items", "text")):
        if value is not None:
            out[key] = list(value) if key == "items" else value
    return out


for _cls in OPS.values():
    converter.register_unstructure_hook(_cls, _unstructure_op)


def dump_task(task: Task) -> dict[str, Any]:
    """A task as JSON data; ``notes`` is left out when there are none."""
    if task.notes:
        return {"content": task.content, "status": task.status.value, "notes": list(task.notes)}
    return {"content": task.content, "status": task.status.value}


def dump_phases(phases: Iterable[Phase | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Phases in the JSON shape of ``details.phases`` (accepts values or dicts)."""
    return [
        {"name": p.name, "tasks": [dump_task(t) for t in p.tasks]}
        for p in _as_phases(phases)
    ]


def _as_phases(phases: Iterable[Phase | Mapping[str, Any]]) -> Sequence[Phase]:
    items = list(phases)
    if all(isinstance(p, Phase) for p in items):
        return items  # type: ignore[return-value]
    return load_phases(items)


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
    raise InvalidPhases([p if not p.startswith("params") else "phases" + p[6:] for p in found])


def _fast_load(data: Any) -> tuple[Phase, ...]:
    if not isinstance(data, (list, tuple)):
        raise TypeError
    return tuple(_load_phase(p) for p in data)


def _load_phase(data: Any) -> Phase:
    name = data["name"]
    tasks = data["tasks"]
    if type(name) is not str or not isinstance(tasks, (list, tuple)):
        raise TypeError
    return Phase(name, tuple(_load_task(t) for t in tasks))


def _load_task(data: Any) -> Task:
    content = data["content"]
    status = _STATUSES[data["status"]]
    notes = data.get("notes")
    if type(content) is not str:
        raise TypeError
    if notes is None:
        return Task(content, status)
    if not isinstance(notes, (list, tuple)) or not all(type(n) is str for n in notes):
        raise TypeError
    return Task(content, status, tuple(notes))


def _structure_phase(data: Any, _: type) -> Phase:
    return load_phases([data])[0]


converter.register_structure_hook(Phase, _structure_phase)
converter.register_unstructure_hook(Phase, lambda p: dump_phases([p])[0])
converter.register_unstructure_hook(Task, dump_task)
