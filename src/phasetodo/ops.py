"""The op values a ``todo_write`` batch is made of: the reference's seven, strict's ``view``
and the team profile's own (``block``, ``unblock``, ``after`` and items with dependencies).

``OPS`` is the registry of the reference's ops (wire name to class), in the order the
docs list them. The names are the core's and the team profile's own ``__all__``,
re-exported as they are.
"""

from __future__ import annotations

from ._core import ops as _core_ops
from ._core.ops import *  # noqa: F403 - exactly the names of its __all__
from ._profiles.team import ops as _team_ops
from ._profiles.team.ops import *  # noqa: F403 - exactly the names of its __all__

__all__ = [*_core_ops.__all__, *_team_ops.__all__]
