"""A team plan to and from beads (``bd``) JSONL: one issue per line.

beads is an issue tracker for coding agents whose export is JSON lines, one issue each. A plan
and an export map as follows:

=====================================  ==============================================
phasetodo                              beads
=====================================  ==============================================
a phase                                an ``epic`` issue (``issue_type: "epic"``)
a task in that phase                   an issue with a ``parent-child`` dependency on it
the task's ``id``                      the issue's ``id``
content                                ``title``
the first note                         ``description``
the other notes                        ``comments`` (their ``text``)
owner                                  ``assignee``
``after``                              ``blocks`` dependencies on those tasks
pending, in progress                   ``open``, ``in_progress``
blocked, its reason                    ``blocked``, the issue's ``notes``
completed                              ``closed``
abandoned                              ``closed`` with a ``close_reason`` of dropping
=====================================  ==============================================

A close reason of ``dropped``, ``wontfix``, ``won't fix``, ``abandoned``, ``cancelled`` or
``not planned`` means abandoned (:data:`ABANDON_REASONS`); any other closed issue is completed.
Issues that no epic holds go to one phase (``phase``, by default ``"Issues"``). What a plan
cannot hold (labels, priority, the issue type, timestamps, beads' ``owner``, the other
dependency types, a ``deferred`` status, …) is kept as the task's last note, ``beads:`` and
the fields as JSON (:data:`KEPT_PREFIX`), and written back on export, so an import exported
again gives the same issues. An epic's own fields (description, priority, owner, timestamps,
…) are kept the same way, with the first task of its phase (:data:`EPIC_FIELD`). Phases have no
ids: an export names its epics ``<prefix>-e1``, ``<prefix>-e2``, … in phase order.

An issue or epic without a kept priority is written with ``priority`` 2, beads' default
(:data:`DEFAULT_PRIORITY`; ``bd import`` reads a missing priority as 0, the most urgent), and an
imported priority of 2 is not kept.

What cannot be kept at all is listed in the import's non-fatal errors: a deleted ``tombstone``
issue, the fields of an epic that holds no issue, nested epics, a closed epic that holds open
issues (exported again as open), and the lines of a ``bd export`` that are not issues (the
``_schema`` header of a canonical export, ``_type: "memory"`` records).

An import is bounded: its ``blocks`` links are walked once, depth first (a link that would
close a cycle is kept with its issue, not enforced, and listed), it is held to the size limits
of a Markdown import (:class:`~phasetodo.Limits`, raising :class:`~phasetodo.InvalidParams`),
and :class:`~phasetodo.errors.InvalidBeads` names the line and field of every wrong shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

import attrs

from .._core.codec import as_phases
from .._core.limits import DEFAULT_LIMITS, Limits
from .._core.model import Phase, Status, Task
from ..errors import InvalidBeads

__all__ = [
    "ABANDON_REASONS",
    "DEFAULT_PRIORITY",
    "EPIC_FIELD",
    "KEPT_PREFIX",
    "MARK_FIELD",
    "BeadsImport",
    "beads_to_phases",
    "issues_from_phases",
    "phases_from_issues",
    "phases_to_beads",
]

#: Close reasons (case-insensitive) that mean a task was dropped rather than done.
ABANDON_REASONS = frozenset(
    {"dropped", "wontfix", "won't fix", "abandoned", "cancelled", "canceled", "not planned"}
)

#: The kept field that marks an issue no epic held (its phase is the import's ``phase``).
LOOSE = "phasetodo_loose"

#: The kept field listing the ``blocks`` links an import could not enforce (they closed a cycle).
UNENFORCED = "phasetodo_not_enforced"

#: The field of the first epic that carries the plan's id high-water mark (``Phase.last_id``).
MARK_FIELD = "phasetodo_last_id"

#: The kept field of a phase's first task that holds its epic's own fields (and the epic's ``id``).
EPIC_FIELD = "phasetodo_epic"

#: The priority beads gives an issue by default; an export writes it where none was kept.
DEFAULT_PRIORITY = 2

#: How the note that keeps what a plan cannot hold begins (the JSON object follows).
KEPT_PREFIX = "beads: "

_OPEN_STATUSES = {"open": Status.PENDING, "in_progress": Status.IN_PROGRESS, "blocked": Status.BLOCKED}
_HELD = frozenset(
    {"id", "title", "description", "status", "assignee", "close_reason", "notes", "comments", "dependencies"}
)


@attrs.frozen
class BeadsImport:
    """What an import read: the plan's phases, and the non-fatal errors (what was not kept)."""

    phases: tuple[Phase, ...]
    errors: tuple[str, ...] = ()


# -- export ---------------------------------------------------------------------------------------


def phases_to_beads(phases: Iterable[Phase | Mapping[str, Any]], *, prefix: str = "pt") -> str:
    """The plan as beads JSONL: each phase's epic, then its tasks' issues, one per line."""
    return "".join(
        json.dumps(issue, ensure_ascii=False) + "\n" for issue in issues_from_phases(phases, prefix=prefix)
    )


def issues_from_phases(
    phases: Iterable[Phase | Mapping[str, Any]], *, prefix: str = "pt"
) -> list[dict[str, Any]]:
    """The plan as beads issues (JSON-ready dicts); tasks without an id get ``<prefix>-<n>``."""
    plan = as_phases(phases)
    ids = _task_ids(plan, prefix)
    tasks = {task.content: ids[key] for key, task in _tasks(plan)}
    links = _Links(tasks, tuple(_epic_ids(plan, prefix, set(ids.values()))))
    out: list[dict[str, Any]] = []
    for number, (phase, epic) in enumerate(zip(plan, links.epics, strict=True)):
        if epic is not None:
            out.append(_epic(phase, epic))
        for index, task in enumerate(phase.tasks):
            out.append(_issue(task, ids[(number, index)], epic, links))
        if phase.last_id:  # the plan's id high-water mark, so that no id is issued twice
            (out[-1 - len(phase.tasks)] if epic else out[0])[MARK_FIELD] = phase.last_id
    return out


def _epic(phase: Phase, ident: str) -> dict[str, Any]:
    """The phase's epic: its own fields as imported (kept with one of its tasks), else the
    defaults; closed when every task of the phase is, unless it was kept open."""
    fields: dict[str, Any] = {}
    for task in phase.tasks:
        kept = _split_kept(task.notes)[1].get(EPIC_FIELD)
        if isinstance(kept, dict) and kept.get("id") == ident:
            fields = {k: v for k, v in kept.items() if k != "id"}
            break
    closed = bool(phase.tasks) and all(t.status.is_closed for t in phase.tasks)
    status = fields.pop("status", None)
    if not isinstance(status, str) or (status == "closed" and not closed):
        status = "closed" if closed else "open"
    epic: dict[str, Any] = {"id": ident, "title": phase.name, "status": status}
    priority = fields.pop("priority", DEFAULT_PRIORITY)
    if priority is not None:
        epic["priority"] = priority
    epic["issue_type"] = "epic"
    epic.update(fields)
    return epic


@attrs.frozen
class _Links:
    """An export's ids: task content -> issue id, and each phase's epic (``None``: loose issues)."""

    tasks: Mapping[str, str]
    epics: tuple[str | None, ...]


def _epic_ids(plan: Sequence[Phase], prefix: str, taken: set[str]) -> Iterable[str | None]:
    """Each phase's epic id: the one its tasks were imported under, else ``<prefix>-e<N>``;
    ``None`` for the phase an import made of the issues no epic held."""
    for number, phase in enumerate(plan, start=1):
        kept = [_split_kept(t.notes)[1] for t in phase.tasks]
        if kept and all(k.get(LOOSE) for k in kept):
            yield None
            continue
        yield _epic_id(kept, f"{prefix}-e{number}", taken)


def _epic_id(kept: Sequence[Mapping[str, Any]], made: str, taken: set[str]) -> str:
    for fields in kept:  # the epic whose own fields its first task keeps
        epic = fields.get(EPIC_FIELD)
        ident = epic.get("id") if isinstance(epic, dict) else None
        if isinstance(ident, str) and ident not in taken:
            taken.add(ident)
            return ident
    for fields in kept:
        for dep in fields.get("dependencies") or ():
            if isinstance(dep, dict) and dep.get("type") == "parent-child":
                ident = dep.get("depends_on_id")
                if isinstance(ident, str) and ident not in taken:
                    taken.add(ident)
                    return ident
    while made in taken:
        made += "x"
    taken.add(made)
    return made


def _tasks(plan: Sequence[Phase]) -> Iterable[tuple[tuple[int, int], Task]]:
    for p, phase in enumerate(plan):
        for t, task in enumerate(phase.tasks):
            yield (p, t), task


def _task_ids(plan: Sequence[Phase], prefix: str) -> dict[tuple[int, int], str]:
    taken = {task.id for _, task in _tasks(plan) if task.id is not None}
    ids: dict[tuple[int, int], str] = {}
    number = 0
    for key, task in _tasks(plan):
        ident = task.id
        while ident is None or (task.id is None and ident in taken):
            number += 1
            ident = f"{prefix}-{number}"
        taken.add(ident)
        ids[key] = ident
    return ids


def _issue(task: Task, ident: str, epic: str | None, links: _Links) -> dict[str, Any]:
    notes, kept = _split_kept(task.notes)
    kept.pop(LOOSE, None)
    kept.pop(EPIC_FIELD, None)
    issue: dict[str, Any] = {"id": ident, "title": task.content}
    issue.update(_status_fields(task, kept))
    priority = kept.pop("priority", DEFAULT_PRIORITY)
    if priority is not None:  # None: imported without one
        issue["priority"] = priority
    if "description" in kept:  # imported with comments but no description
        description = kept.pop("description")
        if description is not None:
            issue["description"] = description
    elif notes:
        issue["description"], notes = notes[0], notes[1:]
    kept_comments = kept.pop("comments", None)
    if notes:
        issue["comments"] = _comments(ident, notes, kept_comments)
    elif kept_comments == []:
        issue["comments"] = []  # an empty list, as imported
    blank = kept.pop("assignee", None)
    if task.owner is not None:
        issue["assignee"] = task.owner
    elif blank is not None:
        issue["assignee"] = blank  # an empty assignee, as imported
    made = [(epic, "parent-child")] if epic is not None else []
    made += [(links.tasks[a], "blocks") for a in task.after if a in links.tasks]
    listed = "dependencies" in kept
    unenforced = kept.pop(UNENFORCED, [])
    deps = _dependencies(ident, made, kept.pop("dependencies", None), links, unenforced)
    if deps or listed:
        issue["dependencies"] = deps
    issue.update(kept)  # what the plan could not hold, as it was imported
    return issue


def _dependencies(
    ident: str, made: Sequence[tuple[str, str]], kept: object, links: _Links, unenforced: object
) -> list[dict[str, Any]]:
    """The task's links: those it was imported with, in their order and with their fields,
    less the plan's own kinds (``blocks`` on a task, ``parent-child`` on an epic) that it no
    longer has; then the plan's links that are new."""
    originals = [d for d in kept if isinstance(d, dict)] if isinstance(kept, list) else []
    tasks = set(links.tasks.values()) - set(unenforced if isinstance(unenforced, list) else ())
    wanted: set[tuple[object, object]] = set(made)
    still = frozenset(made)  # a link given twice on import is written twice
    out = []
    for dep in originals:
        pair = (dep.get("depends_on_id"), dep.get("type"))
        ours = (pair[1] == "blocks" and pair[0] in tasks) or (
            pair[1] == "parent-child" and pair[0] not in tasks
        )
        if not ours or pair in still:
            out.append(dep)
            wanted.discard(pair)
    return out + [{"issue_id": ident, "depends_on_id": t, "type": k} for t, k in made if (t, k) in wanted]


def _status_fields(task: Task, kept: dict[str, Any]) -> dict[str, Any]:
    status, kept_status, kept_notes = task.status, kept.pop("status", None), kept.pop("notes", None)
    if status is Status.BLOCKED:
        out: dict[str, Any] = {"status": "blocked"}
        if task.reason:
            out["notes"] = task.reason
        return out
    if kept_notes is not None:
        kept["notes"] = kept_notes  # beads' own notes of an issue that is not blocked
    if status.is_closed:
        reason = kept.pop("close_reason", None)
        abandoned = isinstance(reason, str) and reason.strip().casefold() in ABANDON_REASONS
        if status is Status.ABANDONED and not abandoned:
            reason = "dropped"
        elif status is Status.COMPLETED and abandoned:
            reason = None
        return {"status": "closed", **({"close_reason": reason} if reason is not None else {})}
    if status is Status.PENDING and kept_status is not None:
        return {"status": kept_status}  # deferred, pinned, …: still open work here
    return {"status": "in_progress" if status is Status.IN_PROGRESS else "open"}


def _comments(ident: str, notes: Sequence[str], kept: object) -> list[dict[str, Any]]:
    """The notes after the first as comments; a comment imported with more fields keeps them."""
    originals = kept if isinstance(kept, list) else []
    out = []
    for index, text in enumerate(notes):
        original = originals[index] if index < len(originals) else None
        if isinstance(original, dict) and original.get("text") == text:
            out.append(original)
        else:
            out.append({"issue_id": ident, "text": text})
    return out


def _split_kept(notes: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    if notes and notes[-1].startswith(KEPT_PREFIX):
        try:
            kept = json.loads(notes[-1][len(KEPT_PREFIX) :])
        except ValueError:
            kept = None
        if isinstance(kept, dict):
            return list(notes[:-1]), kept
    return list(notes), {}


# -- import ---------------------------------------------------------------------------------------


def beads_to_phases(
    text: str, *, phase: str = "Issues", limits: Limits | None = DEFAULT_LIMITS
) -> BeadsImport:
    """Read beads JSONL into a team plan. Raises :class:`~phasetodo.errors.InvalidBeads`
    naming every line that is not a beads issue, and the field that is wrong; what is not kept
    is in ``errors``, with the records of a ``bd export`` that are not issues (its header,
    memories), which are skipped.

    ``limits`` bound the export as they bound a Markdown import (``None``: no limits): a longer
    text, or one with more epics or issues than a plan may hold, raises
    :class:`~phasetodo.InvalidParams` naming the limit, read no further."""
    if limits is not None:
        limits.check_document(len(text))
    issues, skipped = _read(text, limits)
    read = _phases(issues, phase, limits)
    return attrs.evolve(read, errors=(*skipped, *read.errors)) if skipped else read


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """The text's lines with their numbers, one at a time (JSON strings may hold U+2028)."""
    number, start = 1, 0
    while start <= len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        yield number, text[start:end]
        number, start = number + 1, end + 1


def _records(text: str) -> Iterator[tuple[int, object, str | None]]:
    """Each line that is not blank: its number, and its JSON value or why it has none."""
    for number, line in _lines(text):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as error:
            yield number, None, f"not JSON ({error.msg})"
        except RecursionError:
            yield number, None, "JSON nested too deeply"


def _read(text: str, limits: Limits | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The issues of an export and the lines skipped (not issues); raises ``InvalidBeads``
    naming every bad line, or ``InvalidParams`` once the issues pass a size limit."""
    if limits is not None and text.count("\n") >= limits.max_tasks:
        _count_only(text, limits)  # it may be over: count first, holding one issue at a time
    issues: list[dict[str, Any]] = []
    problems: list[str] = []
    skipped: list[str] = []
    lines: dict[str, int] = {}
    count = _Count(limits)
    for number, issue, bad in _records(text):
        if bad is not None:
            problems.append(f"line {number}: {bad}")
            continue
        other = _other_record(issue)
        if other:
            skipped.append(f"line {number}: {other}")
            continue
        found = _issue_problems(issue)
        if found:
            problems += [f"line {number}: {problem}" for problem in found]
            continue
        record = cast(dict[str, Any], issue)  # an object: _issue_problems says so
        if record["id"] in lines:
            problems.append(
                f"line {number}: issue {record['id']!r}: the id is given twice "
                f"(first on line {lines[record['id']]})"
            )
            continue
        lines[record["id"]] = number
        count.add(record)
        issues.append(record)
    if problems:
        raise InvalidBeads(problems)
    return issues, skipped


def _count_only(text: str, limits: Limits) -> None:
    """Raise ``InvalidParams`` when the text's issues pass a size limit, keeping none of them."""
    count = _Count(limits)
    for _, issue, bad in _records(text):
        if bad is None and _other_record(issue) is None and not _issue_problems(issue):
            count.add(cast(dict[str, Any], issue))


class _Count:
    """The epics (phases) and issues (tasks) read so far, held to ``limits`` as they come."""

    def __init__(self, limits: Limits | None) -> None:
        self.limits = limits
        self.phases = self.tasks = 0

    def add(self, issue: Mapping[str, Any]) -> None:
        if issue.get("status") == "tombstone":
            return
        if issue.get("issue_type") == "epic":
            self.phases += 1
        else:
            self.tasks += 1
        limits = self.limits
        if limits is not None and (self.phases > limits.max_phases or self.tasks > limits.max_tasks):
            limits.check_read(self.phases, self.tasks)


def _other_record(record: object) -> str | None:
    """What a line of a ``bd export`` that is not an issue is: the header or a memory, …"""
    if not isinstance(record, dict):
        return None
    if "_schema" in record:
        return f"the export's header ({record['_schema']!r}): not imported"
    kind = record.get("_type")
    if kind is not None and kind != "issue":
        return f"a beads {kind!r} record, not an issue: not imported"
    return None


#: The fields an import reads that must be strings when present (beads writes them so).
_STRINGS = ("status", "assignee", "description", "notes", "close_reason")


def _issue_problems(issue: object) -> list[str]:
    """What is wrong with the shape of one issue, each problem naming its field."""
    if not isinstance(issue, dict):
        return [f"not a beads issue ({_json_kind(issue)}, not an object)"]
    for field in ("id", "title"):
        if not isinstance(issue.get(field), str) or not issue[field].strip():
            return [f"not a beads issue: {field!r} must be a non-empty string"]
    where = f"issue {issue['id']!r}"
    found = [
        f"{where}: {field!r} must be a string, not {_json_kind(issue[field])}"
        for field in _STRINGS
        if field in issue and not isinstance(issue[field], str)
    ]
    for field in ("dependencies", "comments", "labels"):
        if field in issue and not isinstance(issue[field], list):
            found.append(f"{where}: {field!r} must be a list, not {_json_kind(issue[field])}")
    found += _entry_problems(where, "dependencies", issue, "depends_on_id", ("type",))
    found += _entry_problems(where, "comments", issue, "text", ())
    return found


def _entry_problems(
    where: str, field: str, issue: Mapping[str, Any], needed: str, optional: Sequence[str]
) -> list[str]:
    """The problems of a list of objects (links, comments): each must be an object whose
    ``needed`` field is a string (non-empty but for a comment's text), and whose ``optional``
    ones are strings when present."""
    entries = issue.get(field)
    if not isinstance(entries, list):
        return []
    found = []
    empty_ok = needed == "text"
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            found.append(f"{where}: {field}[{index}] must be an object, not {_json_kind(entry)}")
            continue
        value = entry.get(needed)
        if not isinstance(value, str) or not (value or empty_ok):
            shown = _json_kind(value) if needed in entry else "missing"
            wanted = "a string" if empty_ok else "a non-empty string"
            found.append(f"{where}: {field}[{index}].{needed} must be {wanted}, not {shown}")
        for name in optional:
            if name in entry and not isinstance(entry[name], str):
                found.append(
                    f"{where}: {field}[{index}].{name} must be a string, not {_json_kind(entry[name])}"
                )
    return found


def _json_kind(value: object) -> str:
    """How a JSON value is named in an error: an object, a list, a number, …"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a JSON object"
    if isinstance(value, list):
        return "a JSON list"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "an empty string" if not value else "a string"
    return f"a {type(value).__name__}"


def phases_from_issues(
    issues: Iterable[Mapping[str, Any]], *, phase: str = "Issues", limits: Limits | None = DEFAULT_LIMITS
) -> BeadsImport:
    """beads issues (dicts) as a team plan; see the module's table. Raises
    :class:`~phasetodo.errors.InvalidBeads` naming every issue (``issues[N]``) of the wrong
    shape, and :class:`~phasetodo.InvalidParams` past ``limits``, as :func:`beads_to_phases`."""
    items: list[dict[str, Any]] = []
    problems: list[str] = []
    places: dict[str, int] = {}
    count = _Count(limits)
    for index, given in enumerate(issues):
        issue = dict(given) if isinstance(given, Mapping) else given
        found = _issue_problems(issue)
        if not found and issue["id"] in places:
            found = [f"issue {issue['id']!r}: the id is given twice (first as issues[{places[issue['id']]}])"]
        if found:
            problems += [f"issues[{index}]: {problem}" for problem in found]
            continue
        places[issue["id"]] = index
        count.add(issue)
        items.append(issue)
    if problems:
        raise InvalidBeads(problems)
    return _phases(items, phase, limits)


def _phases(items: Sequence[dict[str, Any]], phase: str, limits: Limits | None) -> BeadsImport:
    """Checked issues as a team plan, held to ``limits`` (the names, contents and notes too)."""
    errors: list[str] = []
    kinds = {i["id"]: i.get("issue_type") for i in items}
    epics = [i for i in items if i.get("issue_type") == "epic" and i.get("status") != "tombstone"]
    members: dict[str, list[dict[str, Any]]] = {e["id"]: [] for e in epics}
    loose: list[dict[str, Any]] = []
    for issue in items:
        if issue.get("status") == "tombstone":
            errors.append(f"issue {issue['id']!r} is deleted (tombstone): not imported")
        elif kinds[issue["id"]] == "epic":
            _epic_nesting(issue, kinds, errors)
        else:
            parent = _parent_epic(issue, members)
            (members[parent] if parent is not None else loose).append(issue)
    for epic in epics:
        fields = _epic_fields(epic, members[epic["id"]], errors)
        if fields:  # kept with the phase's first task; written back on the epic
            members[epic["id"]][0] = {**members[epic["id"]][0], EPIC_FIELD: fields}
    contents = _contents(items, errors)
    waits = _waits(items, contents, errors)
    groups = [(e["title"], e["id"], members[e["id"]]) for e in epics]
    if loose:
        groups.append((phase, None, loose))
    names: set[str] = set()
    phases = []
    for name, ident, group in groups:
        if name in names:
            errors.append(f"epic {ident!r}: its title repeats another's, so its phase is '{name} [{ident}]'")
            name = f"{name} [{ident}]"
        names.add(name)
        phases.append(Phase(name, tuple(_task(i, contents, waits, members, ident is None) for i in group)))
    mark = max([_mark(e) for e in epics] + [_id_number(i["id"]) for i in items], default=0)
    if phases and mark:
        phases[0] = attrs.evolve(phases[0], last_id=mark)
    if limits is not None:
        limits.check_read(len(phases), len(contents))
        limits.check_texts(phases)
    return BeadsImport(tuple(phases), tuple(errors))


def _mark(epic: Mapping[str, Any]) -> int:
    value = epic.get(MARK_FIELD)
    return value if type(value) is int and value > 0 else 0


def _id_number(ident: str) -> int:
    """The number of a phasetodo id ``t<N>``; 0 for any other id (a beads one)."""
    digits = ident[1:]
    return int(digits) if ident[:1] == "t" and digits.isdigit() and digits.isascii() else 0


def _epic_nesting(epic: Mapping[str, Any], kinds: Mapping[str, object], errors: list[str]) -> None:
    for dep in _deps(epic):
        if dep.get("type") == "parent-child" and kinds.get(str(dep.get("depends_on_id"))) == "epic":
            errors.append(
                f"epic {epic['id']!r} is inside epic {dep['depends_on_id']!r}: phases are not nested"
            )


def _epic_fields(
    epic: Mapping[str, Any], group: Sequence[Mapping[str, Any]], errors: list[str]
) -> dict[str, Any]:
    """The epic's own fields that an export would not write by itself (with its ``id``), or
    ``{}``; listed in ``errors`` when the epic holds no issue to keep them with."""
    fields = {k: v for k, v in epic.items() if k not in {"id", "title", "issue_type", MARK_FIELD}}
    closed = bool(group) and all(i.get("status") == "closed" for i in group)
    if fields.get("status") == ("closed" if closed else "open"):
        del fields["status"]
    elif fields.get("status") == "closed":
        errors.append(f"epic {epic['id']!r} is closed but holds open issues: exported again as open")
        del fields["status"]
    _default_priority(epic, fields)
    if fields and not group:
        lost = ", ".join(sorted(fields))
        errors.append(f"epic {epic['id']!r} holds no issue: {lost} not kept (a phase has only a name)")
        return {}
    return {"id": epic["id"], **fields} if fields else {}


def _default_priority(issue: Mapping[str, Any], kept: dict[str, Any]) -> None:
    """beads' default priority goes without saying; no priority at all is kept as ``None``."""
    if "priority" not in issue:
        kept["priority"] = None
    elif type(issue["priority"]) is int and issue["priority"] == DEFAULT_PRIORITY:
        kept.pop("priority", None)


def _deps(issue: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The issue's links: objects, as checked on reading."""
    deps: list[dict[str, Any]] = issue.get("dependencies") or []
    return deps


def _parent_epic(issue: Mapping[str, Any], members: Mapping[str, object]) -> str | None:
    for dep in _deps(issue):
        if dep.get("type") == "parent-child" and dep.get("depends_on_id") in members:
            return str(dep["depends_on_id"])
    return None


def _contents(items: Sequence[Mapping[str, Any]], errors: list[str]) -> dict[str, str]:
    """Issue id -> task content: the title, made unique with the id where titles repeat."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    for issue in items:
        if issue.get("issue_type") == "epic" or issue.get("status") == "tombstone":
            continue
        content = issue["title"]
        if content in seen:
            content = f"{content} [{issue['id']}]"
            errors.append(f"issue {issue['id']!r}: its title repeats another's, so its task is {content!r}")
        seen.add(content)
        out[issue["id"]] = content
    return out


def _waits(
    items: Sequence[Mapping[str, Any]], contents: Mapping[str, str], errors: list[str]
) -> dict[str, list[str]]:
    """Issue id -> the task issues it waits for (``blocks``), leaving out the links that would
    close a cycle (a plan's waits have none); such a link is kept with the issue, and listed.

    One depth-first walk over the links, from the issues in file order and each issue's links
    in their order: a link back to an issue whose walk is still under way closes a cycle. What
    is left has no cycle, and each link left out would close one with the links kept."""
    links = {i["id"]: _blocks(i, contents) for i in items if i["id"] in contents}
    graph: dict[str, list[str]] = {}
    closing: dict[str, list[str]] = {}
    done: dict[str, bool] = {}  # False while its walk is under way, True once it is over
    path: list[str] = []  # the walk under way, and how far each of its issues' links got
    at: list[int] = []
    for root in links:
        if root in done:
            continue
        done[root] = False
        path.append(root)
        at.append(0)
        while path:
            node, index = path[-1], at[-1]
            targets = links[node]
            if index == len(targets):
                done[node] = True
                path.pop()
                at.pop()
                continue
            at[-1] = index + 1
            target = targets[index]
            state = done.get(target)
            if state is False:
                closing.setdefault(node, []).append(target)
                continue
            graph.setdefault(node, []).append(target)
            if state is None:
                done[target] = False
                path.append(target)
                at.append(0)
    for ident in links:  # named in file order
        for target in closing.get(ident, ()):
            errors.append(f"issue {ident!r}: waiting on {target!r} would close a cycle; kept, not enforced")
    return graph


def _blocks(issue: Mapping[str, Any], contents: Mapping[str, str]) -> list[str]:
    """The task issues this one names in its ``blocks`` links, once each, in their order."""
    targets = (d["depends_on_id"] for d in _deps(issue) if d.get("type") == "blocks")
    return list(dict.fromkeys(t for t in targets if t in contents))


def _task(
    issue: Mapping[str, Any],
    contents: Mapping[str, str],
    waits: Mapping[str, Sequence[str]],
    epics: Mapping[str, object],
    loose: bool,
) -> Task:
    """The issue as a task; ``loose``: no epic holds it."""
    kept = {k: v for k, v in issue.items() if k not in _HELD}
    _default_priority(issue, kept)
    status, reason = _status(issue, kept)
    notes: list[str] = []
    description = issue.get("description")
    if isinstance(description, str) and description:
        notes.append(description)
    comments = list(issue.get("comments") or ())  # objects with a string text: checked on reading
    if comments and not notes:
        kept["description"] = description if isinstance(description, str) else None
    notes += [c["text"] for c in comments]
    if issue.get("comments") == [] or any(
        c != {"issue_id": issue["id"], "text": c["text"]} for c in comments
    ):
        kept["comments"] = comments  # an empty list, or comments with authors, times, …
    waited = waits.get(issue["id"], ())
    after = [contents[t] for t in waited]
    mine = set(waited)
    deps = _deps(issue)
    if not _plain_links(issue["id"], deps, mine, epics) or issue.get("dependencies") == []:
        kept["dependencies"] = list(deps)  # kept whole: other types, their times, …
    loose_waits = [
        d["depends_on_id"]
        for d in deps
        if d.get("type") == "blocks" and d.get("depends_on_id") in contents and d["depends_on_id"] not in mine
    ]
    if loose_waits:
        kept[UNENFORCED] = loose_waits
    if loose:
        kept[LOOSE] = True
    if issue.get("assignee") == "":
        kept["assignee"] = ""
    if kept:
        notes.append(KEPT_PREFIX + _KEPT(kept))
    owner = issue.get("assignee") or None
    return Task(contents[issue["id"]], status, tuple(notes), owner, reason, tuple(after), issue["id"])


#: The kept fields' JSON, as ``json.dumps(kept, ensure_ascii=False, sort_keys=True)`` writes
#: it, with one encoder made once (an import writes one per task).
_KEPT = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode


def _plain_links(
    ident: str, deps: Sequence[Mapping[str, Any]], mine: set[str], epics: Mapping[str, object]
) -> bool:
    """Whether the links say no more than the task does: each a ``blocks`` link it waits on,
    or its epic's ``parent-child`` link, once, with only ``issue_id``, ``depends_on_id`` and ``type``."""
    pairs: set[tuple[str, object]] = set()
    for dep in deps:
        target, kind = dep["depends_on_id"], dep.get("type")
        held = (kind == "blocks" and target in mine) or (kind == "parent-child" and target in epics)
        if not held or (target, kind) in pairs:  # a repeated link is kept as given
            return False
        if len(dep) != 3 or "type" not in dep or dep.get("issue_id", dep) != ident:
            return False
        pairs.add((target, kind))
    return True


def _status(issue: Mapping[str, Any], kept: dict[str, Any]) -> tuple[Status, str | None]:
    status = issue.get("status", "open")
    if status == "closed":
        reason = issue.get("close_reason")
        abandoned = isinstance(reason, str) and reason.strip().casefold() in ABANDON_REASONS
        if reason and not (abandoned and reason == "dropped"):
            kept["close_reason"] = reason
        return (Status.ABANDONED if abandoned else Status.COMPLETED), None
    if status == "blocked":
        notes = issue.get("notes")
        return Status.BLOCKED, notes if isinstance(notes, str) and notes else None
    if issue.get("notes"):
        kept["notes"] = issue["notes"]
    if status not in _OPEN_STATUSES:
        kept["status"] = status  # deferred, pinned, hooked, …: open work that waits
        return Status.PENDING, None
    return _OPEN_STATUSES[status], None
