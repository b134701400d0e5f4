"""Apply an ordered batch of ops to a copy of the phases, as the reference does.

Every profile runs its batch on one working copy, :class:`~phasetodo._core.columns.Columns`
(a profile with rules of its own subclasses it). Its indexes, content -> phase
and name -> phase, make an op cost what it touches rather than a scan of the
whole list; unchanged phases and tasks are the input's, which is never mutated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any, TypeVar

import attrs

from .codec import as_phases
from .columns import Columns
from .model import Phase
from .ops import Op, View

__all__ = ["Outcome", "apply", "load", "normalize"]

_Work = TypeVar("_Work", bound=Columns)


def _frozen(phases: tuple[Phase, ...] | Columns) -> tuple[Phase, ...]:
    """An outcome's phases: given, or frozen from its working copy (compared and shown so)."""
    return phases.phases() if isinstance(phases, Columns) else phases


@attrs.frozen
class Outcome:
    """What a batch produced: the normalized phases and the non-fatal errors.

    ``phases`` may be given as the working copy itself (a :class:`Columns`): the
    values are then frozen from it when first read, so a call whose caller wants
    only the JSON result never builds them. ``columns`` is the working copy the
    phases were frozen from: a report writes the result from it in one pass. It is
    never changed after the batch.
    """

    _phases: tuple[Phase, ...] | Columns = attrs.field(eq=_frozen, repr=lambda p: repr(_frozen(p)))
    errors: tuple[str, ...] = ()
    columns: Columns | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)

    @cached_property
    def phases(self) -> tuple[Phase, ...]:
        """The normalized list as values."""
        return _frozen(self._phases)

    def size(self) -> tuple[int, int]:
        """How many phases and tasks the list holds, without freezing it."""
        if isinstance(self._phases, Columns):
            return len(self._phases.cols), self._phases.count
        return len(self.phases), sum(len(phase.tasks) for phase in self.phases)


def load(phases: Iterable[Phase | Mapping[str, Any]], work: Callable[[Sequence[Any]], _Work]) -> _Work:
    """The working copy of ``phases`` (values or JSON dicts), as a ``work`` (``Columns`` or a profile's).

    JSON that is not plain goes through the careful converter, which raises
    :class:`~phasetodo.InvalidPhases` naming each bad place.
    """
    items: Sequence[Any] = phases if type(phases) in (list, tuple) else tuple(phases)  # type: ignore[assignment]
    try:
        return work(items)
    except TypeError:
        return work(as_phases(items))


def apply(phases: Iterable[Phase | Mapping[str, Any]], ops: Iterable[Op | View]) -> Outcome:
    """Apply ``ops`` in order to a copy of ``phases``, then normalize.

    Errors are collected, not raised: each op that cannot apply adds the
    reference's message and the batch goes on. ``phases`` is left untouched.
    """
    work = load(phases, Columns)
    work.apply(ops)
    return Outcome(work, tuple(work.errors), columns=work)


def normalize(phases: Iterable[Phase]) -> tuple[Phase, ...]:
    """The single-active rule on its own: what an empty batch would return.

    Several tasks in progress: the first stays, the others become pending.
    None: the first pending task is started. Unchanged phases are reused.
    """
    return apply(phases, ()).phases
