"""The reference implementation's figures on the benchmark workloads, kept with their source.

Source: the reference harness's table "reference on node 20, this machine kind
(measured 2026-12-01)", in the README of the project's shared bench folder (the folder
the workloads in ``benchmarks/workloads/`` were copied from), measured on node 20 on the
same machine kind as phasetodo's runs (a shared 2-core VM). Low and high of the runs,
in µs per call (w5: per 200 calls). The reference is timed with its own shallow ``clonePhases``
for the working copy. The table of 2026-11-30 (39–45 µs for w1, 10.2–10.6 ms for w2,
24.8–27.1 ms for w3) also copied the input through JSON on every call, which flattered
phasetodo's ratios on w1–w3; an earlier table, about three times slower, was wrong.
"""

from __future__ import annotations

#: When and where the figures below were measured.
MEASURED = "2026-12-01, node 20, shared 2-core VM (same machine kind), the reference harness's table"

#: Workload -> (low, high) µs per call of the reference.
REFERENCE_US: dict[str, tuple[float, float]] = {
    "w1_typical": (23, 26),
    "w2_scale": (7_100, 8_900),
    "w3_append": (21_000, 24_000),
    "w4_markdown": (3_200, 3_900),
    "w5_trace": (27_000, 37_000),
}

#: The floor on dicts (issue 33), as a fraction of the reference's low figure (w4: Markdown both ways).
GOAL = {"w1_typical": 1.3, "w2_scale": 0.8, "w3_append": 0.5, "w4_markdown": 1.3, "w5_trace": 0.6}
#: The floor on ``--scaling``: 1,000 ``done`` ops over 100 on the 10,000-task list.
SCALING_GOAL = 2.0
#: The floor on ``import phasetodo`` in a fresh interpreter, in ms.
IMPORT_GOAL_MS = 60
