"""The reference implementation's figures on the shared workloads, kept with their provenance.

Measured 2026-11-30 on node 20, on the same machine kind as phasetodo's runs (a
shared 2-core VM), side by side with phasetodo; copied from ``../shared/README.md``
(its corrected table). Low and high of the runs, in µs per call (w5: per 200 calls).
An earlier table, about three times slower, was wrong and is not used.
"""

from __future__ import annotations

#: When and where the figures below were measured.
MEASURED = "2026-11-30, node 20, shared 2-core VM (same machine kind), per ../shared/README.md"

#: Workload -> (low, high) µs per call of the reference.
REFERENCE_US: dict[str, tuple[float, float]] = {
    "w1_typical": (39, 45),
    "w2_scale": (10_200, 10_600),
    "w3_append": (24_800, 27_100),
    "w4_markdown": (3_500, 4_400),
    "w5_trace": (29_000, 33_000),
}

#: The goal on dicts, as a fraction of the reference's low figure (w4: Markdown both ways).
GOAL = {"w1_typical": 0.8, "w2_scale": 0.8, "w3_append": 0.8, "w4_markdown": 1.0, "w5_trace": 0.8}
