"""The built-in profiles by name, and turning a name or a value into a profile.

Each built-in profile's module is imported the first time the profile is asked for:
a host that only calls the default profile does not load the team plans' engine
(about a third of ``import phasetodo``) or the strict profile's hints.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import Union

from ..errors import UnknownProfile
from .registry import Profile

__all__ = ["BUILTIN", "PROFILES", "ProfileLike", "resolve", "shared_by_name"]

#: Where each built-in profile lives (module of this package, name), the default first.
#: A new built-in profile is one entry here.
_WHERE: dict[str, tuple[str, str]] = {
    "parity": (".parity", "PARITY"),
    "strict": (".strict", "STRICT"),
    "team": (".team", "TEAM"),
    "todo": (".todo", "TODO"),
}


class _Builtin(Mapping[str, Profile]):
    """The built-in profiles by name, each imported on first use and then kept."""

    def __init__(self) -> None:
        self._loaded: dict[str, Profile] = {}

    def __getitem__(self, name: str) -> Profile:
        found = self._loaded.get(name)
        if found is None:
            module, attribute = _WHERE[name]
            found = self._loaded[name] = getattr(import_module(module, __package__), attribute)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(_WHERE)

    def __len__(self) -> int:
        return len(_WHERE)


#: The built-in profiles by name, the default first.
BUILTIN: Mapping[str, Profile] = _Builtin()

#: Every built-in profile name, the default first.
PROFILES: tuple[str, ...] = tuple(_WHERE)

#: A profile, or the name of a built-in one.
ProfileLike = Union[Profile, str]  # noqa: UP007 - a runtime alias on 3.10


def resolve(profile: ProfileLike) -> Profile:
    """The profile ``profile`` names; a :class:`Profile` value is returned as it is.

    Raises :class:`~phasetodo.errors.UnknownProfile` for any other value.
    """
    if isinstance(profile, Profile):
        return profile
    if isinstance(profile, str) and profile in _WHERE:
        return BUILTIN[profile]
    raise UnknownProfile(profile, BUILTIN)


def shared_by_name(name: object) -> bool:
    """Whether ``name``, a profile's name as a log records it, is a built-in profile many
    agents write (a team plan's): what the board asks of a log's events."""
    return isinstance(name, str) and name in _WHERE and BUILTIN[name].shared
