"""The profiles (behaviours of one engine) and what goes with them: the engine's typed entry
points, their outcomes, the parameter schemas and the lookup by name.

A profile is a value: ``PARITY`` (the reference, the default), ``STRICT`` (all-or-nothing
batches, hints), ``TEAM`` (many agents on one plan) and ``TODO`` (the reference's current
one-op ``todo`` tool on a durable list). Each carries its own ``schema``;
the module-level schemas are the same dicts under their old names.
"""

from __future__ import annotations

from ._core.codec import parse_params
from ._core.engine import Outcome, apply, normalize
from ._core.schema import DETAILS_SCHEMA, PARAMS_SCHEMA, STRICT_PARAMS_SCHEMA
from ._profiles.builtin import PROFILES, ProfileLike, resolve
from ._profiles.parity import PARITY
from ._profiles.registry import CallContext, Profile
from ._profiles.strict import STRICT, StrictOutcome, apply_strict
from ._profiles.team import TEAM
from ._profiles.team.schema import TEAM_PARAMS_SCHEMA
from ._profiles.todo import TODO, TODO_PARAMS_SCHEMA

__all__ = [
    "DETAILS_SCHEMA",
    "PARAMS_SCHEMA",
    "PARITY",
    "PROFILES",
    "STRICT",
    "STRICT_PARAMS_SCHEMA",
    "TEAM",
    "TEAM_PARAMS_SCHEMA",
    "TODO",
    "TODO_PARAMS_SCHEMA",
    "CallContext",
    "Outcome",
    "Profile",
    "ProfileLike",
    "StrictOutcome",
    "apply",
    "apply_strict",
    "normalize",
    "parse_params",
    "resolve",
]
