"""Plans that travel with the code: a JSONL store in a git repository, merged by git.

``init_repo`` makes ``.phasetodo/`` in a repository (a JSONL store meant to be
committed), gives its session files ``merge=phasetodo`` in ``.gitattributes`` and
registers the merge driver in the repository's git config. The driver
(``phasetodo git merge-driver``) calls :func:`merge_files`: the history both sides
share, then both sides' later events in time order, each applied as the change it
made (matched by task id, else by phase and content) onto the merged list.
Changes that collide are kept as the later one and recorded as a ``merge-conflict``
event that notes both values on the task. :func:`phases_at` reads a plan as of a ref.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from ._core.codec import dump_phases
from ._core.model import Phase, Task
from .errors import CorruptLog, GitPlanError, InvalidEvent
from .stores import Event, JsonlStore

__all__ = [
    "ATTRIBUTES_LINE",
    "CONFLICT_SOURCE",
    "STORE_DIR",
    "Conflict",
    "InitReport",
    "MergeResult",
    "driver_command",
    "init_repo",
    "log_at",
    "merge_events",
    "merge_files",
    "phases_at",
    "read_log",
    "store_at",
    "top_level",
]

#: The store folder, relative to the repository's top.
STORE_DIR = ".phasetodo"
#: The ``source`` of the ``user_edit`` event that records a merge's conflicts.
CONFLICT_SOURCE = "merge-conflict"
#: The ``.gitattributes`` line that hands the session logs to the driver.
ATTRIBUTES_LINE = f"{STORE_DIR}/*.jsonl merge=phasetodo"
#: What the store makes beside its logs that must not be committed.
_IGNORED = "# made by the phasetodo store, never committed\n*.torn\n*.compact\n"
#: The fields of a task whose two different new values are a conflict (``notes`` merge).
_FIELDS = ("content", "status", "owner", "reason", "after", "lease")
_REPORTED = frozenset(("content", "status", "owner", "reason", "after"))


# -- reading logs ------------------------------------------------------------------------


@attrs.frozen
class _Log:
    session: str | None
    owner: str | None
    events: tuple[Event, ...]


def read_log(path: str | os.PathLike[str], session_id: str | None = None) -> tuple[Event, ...]:
    """The events of the session log in the file ``path`` (any name; an empty file has none).

    ``session_id`` defaults to the one the file's header names. Raises
    :class:`~phasetodo.errors.GitPlanError` when the file is not a phasetodo log.
    """
    return _read(Path(path), session_id).events


def _read(path: Path, session_id: str | None = None) -> _Log:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise GitPlanError(f"{path}: cannot read it: {error.strerror or error}") from error
    if not data.strip():
        return _Log(session_id, None, ())
    first = data.split(b"\n", 1)[0]
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or "format" not in header or not isinstance(header.get("session"), str):
        raise GitPlanError(f"{path}: not a phasetodo session log (its first line is no session header)")
    sid = session_id if session_id is not None else header["session"]
    owner = header.get("owner") if isinstance(header.get("owner"), str) else None
    with tempfile.TemporaryDirectory(prefix="phasetodo-git-") as folder:
        store = JsonlStore(folder, fsync=False)
        try:
            shutil.copyfile(path, store.path_for(sid))
            log = store.open(sid)
            try:
                events = tuple(log.events())
            finally:
                log.close()
        except (CorruptLog, InvalidEvent, ValueError) as error:
            raise GitPlanError(f"{path}: not a readable phasetodo session log: {error}") from error
    return _Log(sid, owner, events)


# -- the merge -----------------------------------------------------------------------------


@attrs.frozen
class Conflict:
    """Two branches changed one field of one task differently: ``kept`` (the later change,
    at ``time``) won over ``lost``; ``task`` is the task's id, else its content."""

    task: str
    field: str
    kept: str
    lost: str
    time: float

    def text(self) -> str:
        """The note the conflict leaves on its task."""
        when = datetime.fromtimestamp(self.time, UTC).isoformat(timespec="seconds")
        if self.field == "removed":
            return f"merge conflict: removed on one branch, changed on the other ({self.kept}); kept"
        return (
            f"merge conflict: {self.field} {self.lost} on one branch, {self.kept} on the other; "
            f"kept {self.kept}, the later change ({when})"
        )


@attrs.frozen
class MergeResult:
    """A merged log: its ``events`` (versions from 1), the final list and the conflicts recorded."""

    events: tuple[Event, ...]
    phases: tuple[Phase, ...]
    conflicts: tuple[Conflict, ...]
    common: int


def _id_number(task_id: str | None) -> int | None:
    if task_id is None or not task_id.startswith("t") or not task_id[1:].isdigit():
        return None
    return int(task_id[1:])


def _mark(phases: Sequence[Phase]) -> int:
    ids = (_id_number(t.id) or 0 for p in phases for t in p.tasks)
    return max(max((p.last_id for p in phases), default=0), max(ids, default=0))


_Key = tuple[str, ...]


def _keys(phases: Sequence[Phase]) -> dict[_Key, tuple[str, Task]]:
    """Each task by its key (its id, else phase, content and which copy), with its phase."""
    out: dict[_Key, tuple[str, Task]] = {}
    seen: Counter[tuple[str, str]] = Counter()
    for phase in phases:
        for task in phase.tasks:
            if task.id is not None:
                out[("id", task.id)] = (phase.name, task)
            else:
                n = seen[(phase.name, task.content)]
                seen[(phase.name, task.content)] += 1
                out[("c", phase.name, task.content, str(n))] = (phase.name, task)
    return out


def _shown(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return "none" if value is None else str(value)


class _Merged:
    """The merged list being built: phases in order, each a list of tasks."""

    def __init__(self, phases: Sequence[Phase]) -> None:
        self.names: list[str] = [p.name for p in phases]
        self.tasks: dict[str, list[Task]] = {p.name: list(p.tasks) for p in phases}
        self.mark = _mark(phases)

    def freeze(self) -> tuple[Phase, ...]:
        out = [Phase(name, tuple(self.tasks[name])) for name in self.names]
        if out and self.mark:
            out[0] = attrs.evolve(out[0], last_id=self.mark)
        return tuple(out)

    def find(self, key: _Key) -> tuple[str, int] | None:
        if key[0] == "id":
            for name in self.names:
                for i, task in enumerate(self.tasks[name]):
                    if task.id == key[1]:
                        return name, i
            return None
        _, phase, content, copy = key
        tasks = self.tasks.get(phase)
        if tasks is None:
            return None
        n = int(copy)
        for i, task in enumerate(tasks):
            if task.id is None and task.content == content:
                if n == 0:
                    return phase, i
                n -= 1
        return None

    def ids(self) -> set[str]:
        return {t.id for name in self.names for t in self.tasks[name] if t.id is not None}

    def ensure_phase(self, name: str, order: Sequence[str]) -> None:
        if name in self.tasks:
            return
        at = len(self.names)
        index = list(order).index(name) if name in order else -1
        for before in reversed(list(order)[:index] if index > 0 else []):
            if before in self.tasks:
                at = self.names.index(before) + 1
                break
        else:
            if index == 0:
                at = 0
        self.names.insert(at, name)
        self.tasks[name] = []

    def insert(self, phase: str, task: Task, after: Task | None, order: Sequence[str]) -> None:
        self.ensure_phase(phase, order)
        tasks = self.tasks[phase]
        at = len(tasks)
        if after is None:
            at = 0
        else:
            for i, other in enumerate(tasks):
                if other == after or (after.id is not None and other.id == after.id):
                    at = i + 1
                    break
        tasks.insert(at, task)

    def drop_empty(self, names: Sequence[str]) -> None:
        for name in names:
            if name in self.tasks and not self.tasks[name]:
                self.names.remove(name)
                del self.tasks[name]


@attrs.define
class _Side:
    """One branch's later events and its task ids as the merged list names them."""

    ids: dict[str, str] = attrs.field(factory=dict)


#: One later event: its place in the merged order, the event, its side's list before it, its side.
_Place = tuple[float, str, str, int]
_Item = tuple[_Place, Event, tuple[Phase, ...], int]


def _phases_hash(event: Event) -> str:
    return hashlib.sha256(json.dumps(dump_phases(event.phases), sort_keys=True).encode()).hexdigest()


def _signature(before: Sequence[Phase], after: Sequence[Phase]) -> frozenset[str]:
    """The contents of the tasks an event added, changed or removed (told without task ids, which
    a copy in a merged log may have others of, nor values, which a merge may have reconciled)."""
    old, new = _keys(before), _keys(after)
    out: set[str] = set()
    for key, (phase, task) in new.items():
        known = old.get(key)
        if known is None or known[1] != task or known[0] != phase:
            out.add(task.content)
            if known is not None:
                out.add(known[1].content)
    out.update(task.content for key, (_, task) in old.items() if key not in new)
    return frozenset(out)


def _rank(event: Event) -> str:
    """A hash of what makes an event itself, the same for its copies and on either side."""
    return hashlib.sha256(json.dumps(_same_event(event), default=str).encode()).hexdigest()


def _same_event(event: Event) -> tuple[Any, ...]:
    """What tells two copies of one event apart from two events (a previous merge's copy)."""
    return (event.kind, event.time, event.agent, event.source, event.request.id if event.request else None)


def merge_events(
    base: Sequence[Event], ours: Sequence[Event], theirs: Sequence[Event]
) -> MergeResult:
    """Merge two histories of one session that grew from a common one.

    The events both sides share (a prefix) are kept; then every later event of
    either side, in time order (ties by a hash of their content, so swapping the
    sides gives the same log), is applied as the change it made to its own list.
    ``base`` is the version git found in common; the shared prefix is read off the
    two sides themselves, so a base that is no prefix of theirs (a rebase) still merges.
    """
    del base  # the sides' own shared prefix is what counts
    common = 0
    while common < min(len(ours), len(theirs)) and ours[common] == theirs[common]:
        common += 1
    start = tuple(ours[common - 1].phases) if common else ()
    start_mark = _mark(start)
    later: list[_Item] = []
    top = start_mark
    for side, events in ((0, ours[common:]), (1, theirs[common:])):
        before = start
        key: _Place = (-math.inf, "", "", 0)  # the shared history comes first
        for event in events:
            if event.source == CONFLICT_SOURCE:  # a previous merge's record stays after its change
                key = (key[0], key[1], key[2], key[3] + 1)
            else:
                listed = sorted(_signature(before, event.phases))
                key = (event.time, _rank(event), hashlib.sha256(repr(listed).encode()).hexdigest(), 0)
            later.append((key, event, before, side))
            top = max(top, _mark(event.phases))
            before = event.phases
    later.sort(key=lambda item: item[0])

    merged = _Merged(start)
    sides = (_Side(), _Side())
    fresh = [top]  # the next id a collision gets is above every id either side issued
    out: list[Event] = list(ours[:common])
    conflicts: list[Conflict] = []

    def translate(side: int, task: Task) -> Task:
        number = _id_number(task.id)
        if task.id is None or number is None or number <= start_mark:
            return task
        ids = sides[side].ids
        if task.id not in ids:
            taken = merged.ids() | set(sides[1 - side].ids.values())
            if task.id in taken:
                fresh[0] += 1
                ids[task.id] = f"t{fresh[0]}"
            else:
                ids[task.id] = task.id
        new = ids[task.id]
        return task if new == task.id else attrs.evolve(task, id=new)

    def key_of(side: int, key: _Key, task: Task) -> _Key:
        return ("id", translate(side, task).id or "") if key[0] == "id" else key

    # A copy of an event a previous merge already brought over (same kind, time, agent, source
    # and request id, on the other side, touching a task it touched, or one of them changing
    # nothing) is applied once: the copy in the merged log (the higher version), the other
    # copy's new ids mapped to it.
    groups: dict[int, list[int]] = {}
    group_of: dict[int, int] = {}
    candidates: dict[tuple[Any, ...], list[tuple[int, frozenset[str]]]] = {}
    for number, item in enumerate(later):
        same, sign = _same_event(item[1]), _signature(item[2], item[1].phases)
        for leader, other_sign in candidates.get(same, []):
            sides_in = {later[i][3] for i in groups[leader]}
            if item[3] not in sides_in and (sign & other_sign or not sign or not other_sign):
                groups[leader].append(number)
                group_of[number] = leader
                break
        else:
            groups[number] = [number]
            group_of[number] = number
            candidates.setdefault(same, []).append((number, sign))
    done: set[int] = set()
    for number in range(len(later)):
        leader = group_of[number]
        if leader in done:
            continue
        done.add(leader)
        members = [later[i] for i in groups[leader]]
        _, event, before, side = max(members, key=lambda c: (c[1].version, c[0], _phases_hash(c[1])))
        prior = merged.freeze()
        found = _apply(merged, side, before, event, translate, key_of)
        merged.mark = max([merged.mark, _mark(event.phases), *(_id_number(i) or 0 for i in merged.ids())])
        after = merged.freeze()
        for _, other, _, other_side in members:
            if other is not event:
                _map_copies(sides, event, side, other, other_side)
        keep_ops = event.ops is not None and _bare(prior) == _bare(before) and after == event.phases
        out.append(
            Event(
                len(out) + 1, event.kind, event.time, after, event.source, event.agent,
                event.ops if keep_ops else None, event.profile, event.request,
            )
        )
        if found:
            conflicts.extend(found)
            for conflict in found:
                _note(merged, conflict)
            out.append(Event(len(out) + 1, "user_edit", event.time, merged.freeze(), CONFLICT_SOURCE))
    final = out[-1].phases if out else ()
    return MergeResult(tuple(out), tuple(final), tuple(conflicts), common)


def _bare(phases: Sequence[Phase]) -> tuple[tuple[str, tuple[Task, ...]], ...]:
    return tuple((p.name, p.tasks) for p in phases)


def _map_copies(sides: tuple[_Side, _Side], first: Event, first_side: int, copy: Event, side: int) -> None:
    """Name the tasks a copy of an event added as the first copy's tasks are named."""
    if first_side == side:
        return
    by_content = {(t.content, p.name): t.id for p in first.phases for t in p.tasks if t.id is not None}
    for phase in copy.phases:
        for task in phase.tasks:
            if task.id is None or task.id in sides[side].ids:
                continue
            other = by_content.get((task.content, phase.name))
            if other is not None:
                sides[side].ids[task.id] = sides[first_side].ids.get(other, other)


def _apply(
    merged: _Merged, side: int, before: Sequence[Phase], event: Event, translate: Any, key_of: Any
) -> list[Conflict]:
    """Apply what ``event`` changed on its side (from ``before``) to ``merged``; its conflicts."""
    old, new = _keys(before), _keys(event.phases)
    order = [p.name for p in event.phases]
    found: list[Conflict] = []
    for key, (_, task) in old.items():
        if key in new:
            continue
        where = merged.find(key_of(side, key, task))
        if where is None:
            continue
        current = merged.tasks[where[0]][where[1]]
        if current == translate(side, task):
            del merged.tasks[where[0]][where[1]]
        else:
            what = _what(task, current)
            found.append(Conflict(current.id or current.content, "removed", what, "", event.time))
    previous: dict[int, Task | None] = {}
    for listed in event.phases:
        last: Task | None = None
        for task in listed.tasks:
            previous[id(task)] = last
            last = task
    for key, (phase, task) in new.items():
        known = old.get(key)
        if known is not None and known[1] == task and known[0] == phase:
            continue  # unchanged on this side: nothing to look up
        mine = translate(side, task)
        where = merged.find(key_of(side, key, task))
        prior = previous[id(task)]
        anchor = translate(side, prior) if prior is not None else None
        if known is None:
            if where is None:
                merged.insert(phase, mine, anchor, order)
            continue
        was_phase, was = known
        theirs = translate(side, was)
        if where is None:  # removed on the other side, changed on this one: nothing is lost
            merged.insert(phase, mine, anchor, order)
            found.append(Conflict(mine.id or mine.content, "removed", _what(was, task), "", event.time))
            continue
        current = merged.tasks[where[0]][where[1]]
        changes: dict[str, Any] = {}
        for field in _FIELDS:
            was_value, new_value, now = getattr(theirs, field), getattr(mine, field), getattr(current, field)
            if was_value == new_value or now == new_value:
                continue
            changes[field] = new_value
            if now != was_value and field in _REPORTED:
                name = current.id or current.content
                found.append(Conflict(name, field, _shown(new_value), _shown(now), event.time))
        if task.notes != was.notes:
            notes = list(task.notes)
            if current.notes != was.notes:  # the other side changed them too: both changes
                notes = list(current.notes)
                for note in (Counter(was.notes) - Counter(task.notes)).elements():
                    if note in notes:
                        notes.remove(note)
                seen: Counter[str] = Counter()
                old_count = Counter(was.notes)
                for note in task.notes:  # this side's new notes, in its order
                    seen[note] += 1
                    if seen[note] > old_count[note]:
                        notes.append(note)
            changes["notes"] = tuple(notes)
        updated = attrs.evolve(current, **changes) if changes else current
        if phase != was_phase and where[0] == was_phase:
            del merged.tasks[where[0]][where[1]]
            merged.insert(phase, updated, anchor, order)
        else:
            merged.tasks[where[0]][where[1]] = updated
    removed_phases = [p.name for p in before if p.name not in order]
    merged.drop_empty(removed_phases)
    for name in order:  # a phase this side added, even left empty
        if name not in {p.name for p in before}:
            merged.ensure_phase(name, order)
    return found


def _what(was: Task, now: Task) -> str:
    parts = [
        f"{field} {_shown(getattr(now, field))}"
        for field in _FIELDS
        if getattr(was, field) != getattr(now, field)
    ]
    if was.notes != now.notes:
        parts.append("notes")
    return ", ".join(parts) or "changed"


def _note(merged: _Merged, conflict: Conflict) -> None:
    for name in merged.names:
        tasks = merged.tasks[name]
        for i, task in enumerate(tasks):
            if task.id == conflict.task or (task.id is None and task.content == conflict.task):
                tasks[i] = attrs.evolve(task, notes=(*task.notes, conflict.text()))
                return


# -- files ---------------------------------------------------------------------------------


def merge_files(
    base: str | os.PathLike[str],
    ours: str | os.PathLike[str],
    theirs: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
) -> MergeResult:
    """Merge three versions of one session log and write the result over ``out`` (default ``ours``).

    The merged log is written through the JSONL store's own append path, so its
    hash chain is fresh and it verifies. Raises
    :class:`~phasetodo.errors.GitPlanError` when a file is not a phasetodo log.
    """
    logs = [_read(Path(p)) for p in (base, ours, theirs)]
    named = sorted({log.session for log in logs if log.session is not None})
    if not named:
        raise GitPlanError(f"{ours}: none of the three versions is a phasetodo session log")
    if len(named) > 1:
        raise GitPlanError(f"{ours}: the three versions are logs of different sessions: {', '.join(named)}")
    sid = named[0]
    owners = sorted({log.owner for log in logs if log.owner is not None})
    owner = logs[0].owner if logs[0].owner is not None else (owners[0] if owners else None)
    result = merge_events(logs[0].events, logs[1].events, logs[2].events)
    target = Path(ours if out is None else out)
    with tempfile.TemporaryDirectory(prefix="phasetodo-merge-") as folder:
        store = JsonlStore(folder, fsync=False)
        log = store.open(sid, owner=owner)
        try:
            with log.lock():
                for event in result.events:
                    log.append(event)
        finally:
            log.close()
        data = store.path_for(sid).read_bytes()
    temp = target.with_name(target.name + ".merging")
    temp.write_bytes(data)
    os.replace(temp, target)
    return result


# -- the repository ------------------------------------------------------------------------


def _git(repo: str | os.PathLike[str], *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    try:
        done = subprocess.run(["git", "-C", os.fspath(repo), *args], capture_output=True, check=False)
    except FileNotFoundError as error:
        raise GitPlanError("git: the git command is not installed (or not on PATH)") from error
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitPlanError(f"git {' '.join(args)}: {message[-1] if message else 'failed'}")
    return done


def top_level(repo: str | os.PathLike[str] = ".") -> Path:
    """The top folder of the git work tree holding ``repo``."""
    done = _git(repo, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise GitPlanError(f"{os.fspath(repo)}: not in a git repository")
    return Path(done.stdout.decode().strip())


@attrs.frozen
class InitReport:
    """What :func:`init_repo` did: the store folder, and which of its steps changed anything."""

    store: Path
    made_store: bool
    added_attributes: bool
    set_driver: bool


def driver_command() -> str:
    """The merge driver's command line, with this interpreter's absolute path (no PATH lookup)."""
    return f"{shlex.quote(sys.executable)} -m phasetodo.cli git merge-driver %O %A %B %P"


def init_repo(repo: str | os.PathLike[str] = ".") -> InitReport:
    """Set a git repository up for plans that travel with the code; safe to repeat.

    Makes ``.phasetodo/`` (with a ``.gitignore`` for the store's own side files), adds
    ``.phasetodo/*.jsonl merge=phasetodo`` to ``.gitattributes`` and registers the
    driver (``merge.phasetodo.name`` and ``.driver``) in the repository's own config.
    """
    top = top_level(repo)
    store = top / STORE_DIR
    made = not store.is_dir()
    store.mkdir(exist_ok=True)
    ignore = store / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_IGNORED, encoding="utf-8")
    attributes = top / ".gitattributes"
    text = attributes.read_text(encoding="utf-8") if attributes.exists() else ""
    added = ATTRIBUTES_LINE not in text.splitlines()
    if added:
        gap = "" if not text or text.endswith("\n") else "\n"
        attributes.write_text(f"{text}{gap}{ATTRIBUTES_LINE}\n", encoding="utf-8")
    command = driver_command()
    now = _git(top, "config", "--local", "--get", "merge.phasetodo.driver", check=False)
    changed = now.returncode != 0 or now.stdout.decode().strip() != command
    if changed:
        _git(top, "config", "--local", "merge.phasetodo.name", "phasetodo session logs")
        _git(top, "config", "--local", "merge.phasetodo.driver", command)
    return InitReport(store, made, added, changed)


@contextmanager
def store_at(
    ref: str, session_id: str = "default", repo: str | os.PathLike[str] = "."
) -> Iterator[JsonlStore]:
    """A read-only JSONL store holding session ``session_id`` as it was at ``ref``, in a temp folder."""
    top = top_level(repo)
    done = _git(top, "show", f"{ref}:{STORE_DIR}/{session_id}.jsonl", check=False)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = message[-1] if message else "git show failed"
        raise GitPlanError(f"--at {ref}: no {STORE_DIR}/{session_id}.jsonl at {ref} ({why})")
    with tempfile.TemporaryDirectory(prefix="phasetodo-at-") as folder:
        store = JsonlStore(folder, fsync=False)
        path = store.path_for(session_id)
        path.write_bytes(done.stdout)
        path.chmod(0o444)
        yield store


def log_at(ref: str, session_id: str = "default", repo: str | os.PathLike[str] = ".") -> tuple[Event, ...]:
    """The events of session ``session_id`` as committed at ``ref``."""
    with store_at(ref, session_id, repo) as store:
        return read_log(store.path_for(session_id), session_id)


def phases_at(ref: str, session_id: str = "default", repo: str | os.PathLike[str] = ".") -> tuple[Phase, ...]:
    """The plan of session ``session_id`` as committed at ``ref`` (a branch, tag or commit)."""
    events = log_at(ref, session_id, repo)
    return events[-1].phases if events else ()
