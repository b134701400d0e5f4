"""Shared fixtures: the conformance vectors shipped with the tests."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

VECTORS = Path(__file__).parent / "conformance"


def read_vectors(name: str) -> list[dict[str, Any]]:
    """Every JSON line of one vector file (gzip or plain)."""
    path = VECTORS / name
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
