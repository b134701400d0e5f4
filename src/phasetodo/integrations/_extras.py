"""The one rule for an integration whose framework is missing: say which extra installs it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import install_hint

__all__ = ["needs_extra"]


@contextmanager
def needs_extra(module: str, what: str, extra: str) -> Iterator[None]:
    """Imports inside the block that fail raise again, saying that ``module`` needs ``what``
    and how to install ``extra`` (the missing module's ``name`` kept)."""
    try:
        yield
    except ImportError as error:
        message = f"{module} needs {what}: {install_hint(extra)}"
        raise type(error)(message, name=error.name) from error
