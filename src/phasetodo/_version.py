"""The installed package's version, read once from its metadata."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    #: The version of the installed distribution, such as ``0.1.0.dev0``.
    __version__: str = version("phasetodo")
except PackageNotFoundError:  # pragma: no cover - running from a source tree that is not installed
    __version__ = "0+unknown"
