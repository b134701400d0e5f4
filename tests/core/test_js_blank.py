"""JavaScript's blank text (``is_blank``), checked against the answers JavaScript gave."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from phasetodo._core.jsstring import is_blank, trim

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent.parent / "jsrules" / "jsrules.jsonl").read_text("utf-8").split("\n")
    if line
]


class TestBlank:
    @pytest.mark.parametrize("case", CASES[::7])
    def test_blank_is_empty_once_trimmed(self, case: dict[str, Any]) -> None:
        """A text is blank exactly when JavaScript's trim() leaves nothing of it."""
        assert is_blank(case["s"]) is (case["trim"] == "")

    def test_javascript_whitespace_not_pythons(self) -> None:
        """U+FEFF is blank, as in JavaScript; U+001C and U+0085 are not, unlike in Python."""
        assert is_blank("\ufeff \t")
        assert not is_blank("\x1c")
        assert not is_blank("\x85")
        assert trim("\x85a\ufeff") == "\x85a"
