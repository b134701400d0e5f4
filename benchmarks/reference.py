"""The reference implementation's figures on the shared workloads, kept with their provenance.

Measured 2026-12-01 on node 20, on the same machine kind as phasetodo's runs (a
shared 2-core VM); copied from ``../shared/README.md``. Low and high of the runs, in µs
per call (w5: per 200 calls). The reference is timed with its own shallow ``clonePhases``
for the working copy. The table of 2026-11-30 (39–45 µs for w1, 10.2–10.6 ms for w2,
24.8–27.1 ms for w3) also copied the input through JSON on every call, which flattered
phasetodo's ratios on w1–w3; an earlier table, about three times slower, was wrong.
"""

from __future__ import annotations

#: When and where the figures below were measured.
MEASURED = "2026-12-01, node 20, shared 2-core VM (same machine kind), per ../shared/README.md"

#: Workload -> (low, high) µs per call of the reference.
REFERENCE_US: dict[str, tuple[float, float]] = {
    "w1_typical": (23, 26),
    "w2_scale": (7_100, 8_900),
    "w3_append": (21_000, 24_000),
    "w4_markdown": (3_200, 3_900),
    "w5_trace": (27_000, 37_000),
}

#: The goal on dicts, as a fraction of the reference's low figure (w4: Markdown both ways).
GOAL = {"w1_typical": 0.8, "w2_scale": 0.8, "w3_append": 0.8, "w4_markdown": 1.0, "w5_trace": 0.8}
