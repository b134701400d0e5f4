"""Hostile objects for the C twins: inputs whose own Python code changes what is being read.

A host's dicts may hold keys whose hash equals ``"status"``'s and whose ``__eq__``
takes the content out of the task; a list may hold ``str`` subclasses whose
``__hash__`` empties it; a column's attributes may be properties that clear the
list of columns. Each such call of Python code can drop the last reference to
something the C loop is reading. :data:`SCENARIOS` builds each case by name;
:func:`strategy` mixes them into generated lists for the ``hostile`` fuzz target.
Under an ASan build any use after free is reported; without one, the filler
strings allocated after each removal take the freed memory, so a stale pointer
shows as a wrong content or a crash.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable
from types import ModuleType, SimpleNamespace
from typing import Any

from hypothesis import strategies as st

from phasetodo._core import native
from phasetodo._core.model import Status

__all__ = ["PYTHON", "SCENARIOS", "check", "hostile_phases", "run"]

#: What the twins may raise on input they do not take.
REFUSED = (TypeError, KeyError, ValueError, AttributeError)

#: Strings allocated after a removal, kept alive so that they sit in the freed memory.
_FILLERS: list[str] = []


def _fresh(text: str) -> str:
    """An equal string that only its new owner refers to (not interned, not a constant)."""
    return "".join([text[:1], text[1:]]) if len(text) > 1 else text + ""


def _fill(size: int) -> None:
    _FILLERS.extend("".join(["#", "#" * max(size - 1, 0)]) for _ in range(64))


class Collider:
    """A dict key whose hash equals ``twin``'s; once armed, comparing it runs ``action`` once.

    It is armed after its dict is built: inserting ``twin`` after it compares the two.
    """

    armed = False

    def __init__(self, twin: str, action: Callable[[], None]) -> None:
        self.twin, self.action = twin, action

    def __hash__(self) -> int:
        return hash(self.twin)

    def __eq__(self, other: object) -> bool:
        if self.armed:
            self.armed = False
            self.action()
        return False


class Shifty(str):
    """A ``str`` whose ``__hash__`` runs ``action`` (once) before hashing as its text."""

    action: Callable[[], None] | None = None

    def __hash__(self) -> int:
        action, self.action = self.action, None
        if action is not None:
            action()
        return str.__hash__(self)


def _task_losing(key: str, size: int = 24) -> dict[Any, Any]:
    """A task dict that loses ``key`` while ``"status"`` is looked up."""
    task: dict[Any, Any] = {"content": _fresh("c" * size)}

    def take() -> None:
        task.pop(key, None)
        _fill(size)

    collider = Collider("status", take)
    task[collider] = 0
    task["status"] = "pending"
    task["notes"] = [_fresh("n" * size)]
    collider.armed = True
    return task


def rows_content_freed(twin: ModuleType) -> Any:
    """``rows`` on a task whose content leaves the dict during the status lookup."""
    return twin.rows([{"name": "P", "tasks": [_task_losing("content")]}])


def rows_notes_freed(twin: ModuleType) -> Any:
    """``rows`` on a task whose notes leave the dict during the lookups."""
    return twin.rows([{"name": "P", "tasks": [_task_losing("notes")]}])


def rows_name_freed(twin: ModuleType) -> Any:
    """``rows`` on a phase whose name leaves the dict during the tasks lookup."""
    size = 24
    phase: dict[Any, Any] = {"name": _fresh("p" * size)}

    def take() -> None:
        phase.pop("name", None)
        _fill(size)

    collider = Collider("tasks", take)
    phase[collider] = 0
    phase["tasks"] = [{"content": "t", "status": "pending"}]
    collider.armed = True
    return twin.rows([phase])


def _column(contents: list[Any], statuses: list[Any] | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        name="P",
        contents=contents,
        statuses=statuses if statuses is not None else [Status.IN_PROGRESS] * len(contents),
        notes=[None] * len(contents),
    )


def index_hash_empties(twin: ModuleType) -> Any:
    """``index`` on a column whose first content's hash empties all three lists."""
    first = Shifty("a")
    col = _column([first, *("b" * 200)])
    first.action = lambda: (col.contents.clear(), col.statuses.clear(), col.notes.clear())
    return _index_outcome(twin.index([col]))


def index_name_empties_cols(twin: ModuleType) -> Any:
    """``index`` on a column whose name's hash drops the column from the list of columns."""
    cols: list[Any] = []
    name = Shifty(_fresh("phase name"))
    name.action = cols.clear
    cols.append(SimpleNamespace(name=name, contents=["a"], statuses=[Status.PENDING], notes=[None]))
    return _index_outcome(twin.index(cols))


class _Vanishing:
    """A column whose ``name`` attribute clears the list that holds the column."""

    def __init__(self, cols: list[Any]) -> None:
        self._cols = cols
        self.contents = [_fresh("x" * 30)]
        self.statuses = [Status.PENDING]
        self.notes = [(_fresh("note " * 6),)]

    @property
    def name(self) -> str:
        self._cols.clear()
        gc.collect()
        return "P"


def parts_column_vanishes(twin: ModuleType) -> Any:
    """``parts`` on a column that takes itself out of the list while it is read."""
    cols: list[Any] = []
    cols.append(_Vanishing(cols))
    return twin.parts(cols, ("    ○ ", "    ◐ ", "    ● ", "    ⊘ "))


def render_column_vanishes(twin: ModuleType) -> Any:
    """``render`` on a column that takes itself out of the list while it is read."""
    cols: list[Any] = []
    cols.append(_Vanishing(cols))
    return twin.render(cols, (" ", "/", "x", "-"))


def _index_outcome(index: Any) -> Any:
    """An index as plain data (its values are the columns themselves)."""
    by_name, by_content, active, total = index
    return sorted(map(str, by_name)), sorted(map(str, by_content)), len(active), total


#: Each scenario by name: a function of the twin (the C module or :data:`PYTHON`).
SCENARIOS: dict[str, Callable[[ModuleType], Any]] = {
    f.__name__: f
    for f in (
        rows_content_freed,
        rows_notes_freed,
        rows_name_freed,
        index_hash_empties,
        index_name_empties_cols,
        parts_column_vanishes,
        render_column_vanishes,
    )
}


def run(name: str, twin: ModuleType | SimpleNamespace) -> tuple[str, Any]:
    """One scenario's outcome: ``("ok", value)`` or ``("refused", error type name)``."""
    try:
        return "ok", SCENARIOS[name](twin)
    except REFUSED as error:
        return "refused", type(error).__name__


#: The Python loops under the C module's names.
PYTHON = SimpleNamespace(
    rows=native._rows, index=native._index, parts=native._parts, render=native._render,
    make_tasks=native._make_tasks,
)

_KEYS = ("name", "tasks", "content", "status", "notes")


@st.composite
def hostile_phases(draw: st.DrawFn) -> list[Any]:
    """Phase dicts in which colliding keys and ``str`` subclasses change the input as it is read.

    Each hostile object, when its code runs, does one of: take a key out of its dict,
    empty its dict, empty the list of tasks, empty the list of phases.
    """
    phases: list[Any] = []
    colliders: list[Collider] = []
    for _ in range(draw(st.integers(1, 3))):
        tasks: list[Any] = []
        phase: dict[Any, Any] = {}
        for _ in range(draw(st.integers(0, 4))):
            task: dict[Any, Any] = {}
            content = draw(st.text(max_size=12))
            if draw(st.booleans()):
                content = Shifty(content)
                content.action = _action(draw, task, tasks, phases)
            task["content"] = content
            task["status"] = draw(st.sampled_from(["pending", "in_progress", "completed", "abandoned"]))
            if draw(st.booleans()):
                task["notes"] = draw(st.lists(st.text(max_size=8), max_size=2))
            _collide(draw, task, tasks, phases, colliders)
            tasks.append(task)
        phase["name"] = draw(st.text(max_size=8))
        phase["tasks"] = tasks
        _collide(draw, phase, tasks, phases, colliders)
        phases.append(phase)
    for collider in colliders:
        collider.armed = True
    return phases


def _collide(
    draw: st.DrawFn, target: dict[Any, Any], tasks: list[Any], phases: list[Any], made: list[Collider]
) -> None:
    """Maybe add a key that collides with one of ``target``'s, re-inserting the rest after it."""
    if draw(st.booleans()):
        collider = Collider(draw(st.sampled_from(_KEYS)), _action(draw, target, tasks, phases))
        rest = dict(target)
        target.clear()
        target[collider] = 0
        target.update(rest)
        made.append(collider)


def _action(
    draw: st.DrawFn, target: dict[Any, Any], tasks: list[Any], phases: list[Any]
) -> Callable[[], None]:
    kind = draw(st.sampled_from(["pop", "clear", "tasks", "phases"]))
    key = draw(st.sampled_from(_KEYS))

    def act() -> None:
        if kind == "pop":
            target.pop(key, None)
        elif kind == "clear":
            target.clear()
        elif kind == "tasks":
            tasks.clear()
        else:
            phases.clear()
        _fill(16)

    return act


def check(phases: list[Any], twin: ModuleType | SimpleNamespace) -> None:
    """Every loop of ``twin`` on ``phases`` (and on the columns they give) returns or refuses."""
    try:
        rows = twin.rows(phases)
    except REFUSED:
        return
    cols = [
        SimpleNamespace(name=n, contents=c, statuses=s, notes=list(map(_tuple, ns))) for n, c, s, ns in rows
    ]
    for call in (
        lambda: twin.index(cols),
        lambda: twin.parts(cols, ("    ○ ", "    ◐ ", "    ● ", "    ⊘ ")),
        lambda: twin.render(cols, (" ", "/", "x", "-")),
    ):
        with contextlib.suppress(*REFUSED):
            call()


def _tuple(cell: Any) -> Any:
    return tuple(cell) if type(cell) is list else cell
