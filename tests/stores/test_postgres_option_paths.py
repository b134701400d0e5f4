"""PostgresStore's options are checked before any connection is tried (no server needed)."""

from __future__ import annotations

import pytest

import phasetodo
from phasetodo.errors import InvalidOptionType

#: Nothing listens on port 1: a check that let the call through would fail to connect instead.
NOWHERE = "postgresql://nobody@127.0.0.1:1/x"


class TestOptions:
    @pytest.mark.parametrize("listen", ["yes", "auto", 1, 0])
    def test_listen_must_be_true_false_or_none(self, listen: object) -> None:
        """``listen`` as text or a number is refused, naming it, before connecting."""
        with pytest.raises(InvalidOptionType, match=f"^listen: must be True, False or None, not {listen!r}$"):
            phasetodo.PostgresStore(NOWHERE, listen=listen)  # type: ignore[arg-type]

    @pytest.mark.parametrize("clock", [None, "server", 1])
    def test_server_clock_must_be_true_or_false(self, clock: object) -> None:
        """``server_clock`` must be a bool; None or text is refused, naming it, before connecting."""
        with pytest.raises(InvalidOptionType, match=f"^server_clock: must be True or False, not {clock!r}$"):
            phasetodo.PostgresStore(NOWHERE, server_clock=clock)  # type: ignore[arg-type]
