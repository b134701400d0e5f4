"""The built-in profiles by name, and turning a name or a value into a profile."""

from __future__ import annotations

from typing import Union

from ..errors import UnknownProfile
from .parity import PARITY
from .registry import Profile
from .strict import STRICT
from .team import TEAM
from .todo import TODO

__all__ = ["BUILTIN", "PROFILES", "ProfileLike", "resolve"]

#: The built-in profiles by name, the default first. A new built-in profile is one entry here.
BUILTIN: dict[str, Profile] = {p.name: p for p in (PARITY, STRICT, TEAM, TODO)}

#: Every built-in profile name, the default first.
PROFILES: tuple[str, ...] = tuple(BUILTIN)

#: A profile, or the name of a built-in one.
ProfileLike = Union[Profile, str]  # noqa: UP007 - a runtime alias on 3.10


def resolve(profile: ProfileLike) -> Profile:
    """The profile ``profile`` names; a :class:`Profile` value is returned as it is.

    Raises :class:`~phasetodo.errors.UnknownProfile` for any other value.
    """
    if isinstance(profile, Profile):
        return profile
    found = BUILTIN.get(profile) if isinstance(profile, str) else None
    if found is None:
        raise UnknownProfile(profile, BUILTIN)
    return found
