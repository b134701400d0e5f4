"""The one result value a ``todo_write`` call produces, and the JSON shapes made from it.

A profile's ``report`` builds a :class:`ToolResult` from the engine's outcome;
it flows unchanged through the tool, the session and the integrations, and
JSON is made from it only at the edges (:meth:`ToolResult.to_json`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

import attrs

from .._core.engine import Outcome
from .._core.model import Phase

if TYPE_CHECKING:
    from .._views.diff import StatusChange

__all__ = ["DetailsJSON", "PhaseJSON", "ResultJSON", "Storage", "TaskJSON", "TextPart", "ToolResult"]

#: Where a result's list lives, as ``details.storage`` says.
Storage = Literal["session", "memory"]


class TextPart(TypedDict):
    """One text part of a result's ``content``."""

    type: Literal["text"]
    text: str


class _TaskBase(TypedDict):
    content: str
    status: Literal["pending", "in_progress", "completed", "abandoned", "blocked"]


class TaskJSON(_TaskBase, total=False):
    """A task in ``details.phases``; ``notes`` is absent when there are none, and
    ``owner``, ``reason`` and ``after`` (team plans) when they are not set."""

    notes: list[str]
    owner: str
    reason: str
    after: list[str]


class PhaseJSON(TypedDict):
    """A phase in ``details.phases``."""

    name: str
    tasks: list[TaskJSON]


class _DetailsBase(TypedDict):
    phases: list[PhaseJSON]
    storage: Storage


class DetailsJSON(_DetailsBase, total=False):
    """A result's ``details``: the list after the call and where it lives, plus what the
    profile adds (strict: ``profile``, ``transitions``, ``errors``; team: ``profile``,
    ``agent``, ``task``, ``ready``, ``errors``, ``scope``) and a dry run's
    ``dry_run`` and ``diff``."""

    profile: str
    transitions: list[dict[str, str]]
    errors: list[str]
    dry_run: bool
    diff: dict[str, Any]
    agent: str | None
    task: str | None
    ready: list[str]
    scope: str


class _ResultBase(TypedDict):
    content: list[TextPart]
    details: DetailsJSON


class ResultJSON(_ResultBase, total=False):
    """The JSON of a ``todo_write`` result: ``content``, ``details`` and, when the
    profile can refuse a call, ``isError``. ``details`` always holds ``phases`` and
    ``storage``; strict adds ``profile``, ``transitions`` and ``errors``; a dry run
    adds ``dry_run`` and ``diff``."""

    isError: bool


@attrs.frozen
class ToolResult:
    """One tool result: the text the model reads, the details and an error flag.

    ``details`` is the JSON-ready details (``{"phases": [...], "storage": ...}``
    and what the profile adds). ``phases`` is the list after the call as values,
    ``errors`` the op errors, ``transitions`` the status changes the call made.
    An error result (``is_error``) leaves the list as it was and says why in
    ``text``; ``problems`` holds the argument problems, one per line.
    ``flags_error`` says whether the JSON carries ``isError`` (profiles whose
    calls can be refused always send it). ``outcome``, given instead of ``phases``,
    is the engine's outcome the phases are read from on first use: a caller that
    wants only the JSON (``todo_write``) never has the list frozen into values.
    """

    text: str
    details: Mapping[str, Any]
    is_error: bool = False
    problems: tuple[str, ...] = ()
    _phases: tuple[Phase, ...] | None = attrs.field(default=None, eq=False)
    errors: tuple[str, ...] = ()
    transitions: tuple[StatusChange, ...] = ()
    flags_error: bool = False
    _outcome: Outcome | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)

    @cached_property
    def phases(self) -> tuple[Phase, ...]:
        """The list after the call, as values."""
        if self._phases is not None:
            return self._phases
        return () if self._outcome is None else self._outcome.phases

    @property
    def content(self) -> list[TextPart]:
        """The text as a one-part content list, the shape every host accepts."""
        return [{"type": "text", "text": self.text}]

    def to_json(self) -> ResultJSON:
        """The ``todo_write`` result as JSON-ready data (fresh, safe to modify)."""
        details = cast("DetailsJSON", _copy(self.details))
        out: ResultJSON = {"content": self.content, "details": details}
        if self.flags_error or self.is_error:
            out["isError"] = self.is_error
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"content", "details", "is_error"}`` (the shape hosts log)."""
        return {"content": self.content, "details": _copy(self.details), "is_error": self.is_error}

    def as_dry_run(self, before: Iterable[Phase]) -> ToolResult:
        """This result as a dry run's: the text says nothing was saved and what would change.

        ``details`` gains ``"dry_run": true`` and ``"diff"``.
        """
        from .._views.diff import diff_phases, format_diff  # dry runs only: kept out of the import

        diff = diff_phases(before, self.phases)
        if diff.is_empty:
            head = "Dry run — nothing was saved. The call would change nothing."
        else:
            head = (
                "Dry run — nothing was saved. The call would make these changes:\n"
                f"{format_diff(diff)}"
            )
        details = {**self.details, "dry_run": True, "diff": diff.to_json()}
        return attrs.evolve(self, text=f"{head}\n\n{self.text}", details=details)

    def with_storage(self, storage: Storage) -> ToolResult:
        """The same result reporting ``storage`` in ``details.storage``."""
        if self.details.get("storage") == storage:
            return self
        return attrs.evolve(self, details={**self.details, "storage": storage})


def _copy(details: Mapping[str, Any]) -> dict[str, Any]:
    """A new top-level details dict; the lists inside are shared (built fresh per call)."""
    return dict(details)
