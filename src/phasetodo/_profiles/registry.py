"""The two profiles a call can run in, and the one place that tells them apart.

* ``"parity"`` (the default) is the reference tool to the character: errors
  are listed, the rest of the batch still applies, the result is never an error.
* ``"strict"`` is opt-in (see :mod:`phasetodo.strict`): all or nothing, with
  errors that point the model at the fix.

Both enforce :class:`~phasetodo.Limits`. A profile is chosen per call; tools
and sessions pass theirs down to each call.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from .._core.codec import parse_params
from .._core.engine import Outcome, apply
from .._core.limits import DEFAULT_LIMITS, Limits
from .._core.model import Phase
from ..errors import PhasetodoError
from .strict import StrictOp, apply_strict, parse_strict_params

__all__ = ["PROFILES", "Profile", "UnknownProfile", "parse_call", "run_call"]

Profile = Literal["parity", "strict", "team"]

#: Every profile name, the default first.
PROFILES: tuple[Profile, ...] = ("parity", "strict")


class UnknownProfile(PhasetodoError, ValueError):
    """A profile name that is neither ``"parity"`` nor ``"strict"``."""

    def __init__(self, name: object) -> None:
        self.name = name
        super().__init__(f"profile: must be one of {', '.join(PROFILES)}, not {name!r}")


def parse_call(params: object, profile: Profile = "parity") -> tuple[StrictOp, ...]:
    """Validate tool arguments against ``profile``'s schema and build the ops.

    Raises :class:`~phasetodo.InvalidParams` before anything is applied,
    :class:`UnknownProfile` for a bad profile name.
    """
    if profile == "parity":
        return parse_params(params)
    if profile == "strict":
        return parse_strict_params(params)
    raise UnknownProfile(profile)


def run_call(
    phases: Iterable[Phase],
    ops: Sequence[StrictOp],
    profile: Profile = "parity",
    limits: Limits | None = DEFAULT_LIMITS,
) -> Outcome:
    """Check ``ops`` against ``limits``, then apply them to ``phases`` in ``profile``.

    Raises :class:`~phasetodo.InvalidParams` naming the limit when the ops, or
    the list they would produce, break ``limits``; the caller then keeps the
    list it had. ``phases`` is never modified. Ops from ``parse_call`` with
    the same profile are expected (``view`` exists only in strict).
    """
    grows = limits is not None and limits.check_ops(ops)
    current = phases if isinstance(phases, (tuple, list)) else tuple(phases)
    outcome: Outcome
    if profile == "parity":
        outcome = apply(current, ops)  # type: ignore[arg-type]
    elif profile == "strict":
        outcome = apply_strict(current, ops)
    else:
        raise UnknownProfile(profile)
    if grows:
        assert limits is not None
        limits.check_result(current, outcome.phases)
    return outcome
