"""The command run in this process, for tests that read its exit status and output."""

from __future__ import annotations

import pytest

from phasetodo.cli import main


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The exit status, stdout and stderr of ``phasetodo ARGS``."""
    try:
        status = main(list(args))
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err
