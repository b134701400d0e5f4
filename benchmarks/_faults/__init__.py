"""Private parts of :mod:`benchmarks.faults`: the history checks (pure functions)."""
