"""The optional C accelerator, phasetodo._core._speedups; all other metadata is in pyproject.toml.

The extension is optional: where it does not compile (no C compiler, no Python headers) setuptools
warns and the pure-Python package installs as usual. Set PHASETODO_BUILD_EXT=0 at build time to skip
it altogether (the wheel is then pure Python, tagged py3-none-any).
"""

from __future__ import annotations

import os

from setuptools import Extension, setup

_BUILD_EXT = os.environ.get("PHASETODO_BUILD_EXT", "1") != "0"

setup(
    ext_modules=[
        Extension("phasetodo._core._speedups", ["src/phasetodo/_core/_speedups.c"], optional=True),
    ]
    if _BUILD_EXT
    else [],
)
