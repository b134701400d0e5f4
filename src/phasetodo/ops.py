"""The op values a ``todo_write`` batch is made of: the reference's seven, strict's ``view``
and the team profile's own (``block``, ``unblock``, ``after`` and items with dependencies).

``OPS`` is the registry of the reference's ops (wire name to class), in the order the
docs list them.
"""

from __future__ import annotations

from ._core.ops import OPS, Append, Done, Drop, Init, Note, Op, PhaseItems, Rm, Start, View
from ._profiles.team_ops import After, Block, TeamAppend, TeamInit, TeamItem, TeamOp, TeamPhase, Unblock

__all__ = [
    "OPS",
    "After",
    "Append",
    "Block",
    "Done",
    "Drop",
    "Init",
    "Note",
    "Op",
    "PhaseItems",
    "Rm",
    "Start",
    "TeamAppend",
    "TeamInit",
    "TeamItem",
    "TeamOp",
    "TeamPhase",
    "Unblock",
    "View",
]
