"""The optional C accelerator, phasetodo._core._speedups; all other metadata is in pyproject.toml.

The extension is optional: where it does not compile (no C compiler, no Python headers) the build
prints one line saying so, the pure-Python package installs as usual and its wheel is tagged
py3-none-any. Set PHASETODO_BUILD_EXT=0 at build time to skip it altogether (the same wheel).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext

_BUILD_EXT = os.environ.get("PHASETODO_BUILD_EXT", "1") != "0"
_SPEEDUPS = Extension("phasetodo._core._speedups", ["src/phasetodo/_core/_speedups.c"], optional=True)

#: Filled by the build: whether the C module was compiled into this build.
_BUILT: list[bool] = []


class _BuildExt(build_ext):
    """build_ext that says so, on stderr, when the optional module did not compile."""

    def run(self) -> None:
        super().run()
        built = os.path.exists(self.get_ext_fullpath(_SPEEDUPS.name))
        _BUILT.append(built)
        if not built:
            print(
                "phasetodo: the optional C accelerator was not built (no working C compiler or "
                "Python headers); the pure-Python package installs, with the same results, slower",
                file=sys.stderr,
            )


class _BdistWheel(bdist_wheel):
    """bdist_wheel that tags a wheel without the C module as pure Python (py3-none-any)."""

    def get_tag(self) -> tuple[str, str, str]:
        if _BUILT and not any(_BUILT):
            self.root_is_pure = True
            return ("py3", "none", "any")
        return super().get_tag()


setup(
    ext_modules=[_SPEEDUPS] if _BUILD_EXT else [],
    cmdclass={"build_ext": _BuildExt, "bdist_wheel": _BdistWheel},
)
