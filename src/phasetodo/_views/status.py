"""The one table of how each status looks, read by every view.

Each :class:`Look` holds the Markdown markers (the first is written, all are
read), the summary symbol, the checkbox of the terminal and notebook views,
the rich and HTML styles, and whether the status is open (work remains).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .._core.model import Status

__all__ = ["LOOKS", "Look"]


@attrs.frozen
class Look:
    """How one status is shown."""

    markers: tuple[str, ...]
    symbol: str
    checkbox: str
    style: str
    box_style: str
    html_style: str

    @property
    def marker(self) -> str:
        """The Markdown marker written for the status (``- [x] task``)."""
        return self.markers[0]


#: Every status's look.
LOOKS: Mapping[Status, Look] = {
    Status.PENDING: Look((" ", ""), "○", "☐", "", "", ""),
    Status.IN_PROGRESS: Look(
        ("/", ">"), "→", "◐", "bold yellow", "bold yellow", "font-weight:bold"
    ),
    Status.COMPLETED: Look(
        ("x", "X"), "✓", "☑", "dim strike", "green",
        "text-decoration:line-through;opacity:.6",
    ),
    Status.ABANDONED: Look(
        ("-", "~"), "✗", "☒", "dim red strike", "red",
        "text-decoration:line-through;opacity:.6;color:#b33",
    ),
    # Team plans only: written as [!]; only the lossless reader takes it back.
    Status.BLOCKED: Look(("!",), "⊘", "⊘", "magenta", "magenta", "color:#a3a"),
}
