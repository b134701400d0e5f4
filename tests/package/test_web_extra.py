"""``import phasetodo.web`` without the ``web`` extra: an ImportError that names the extra.

Each test runs a child interpreter whose ``sitecustomize`` puts a meta-path finder first that
hides some packages, as if they were not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: The child's sitecustomize: the packages named in PHASETODO_TEST_HIDE cannot be imported.
SITECUSTOMIZE = """
import importlib.abc
import os
import sys

HIDDEN = frozenset(os.environ["PHASETODO_TEST_HIDE"].split(","))


class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == hidden or name.startswith(hidden + ".") for hidden in HIDDEN):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Hide())
"""

#: What the child reports of ``import phasetodo.web``, as one JSON line.
CHILD = """
import json
import phasetodo  # the package itself needs no extra
try:
    import phasetodo.web
except ImportError as error:
    cause = error.__cause__
    print(json.dumps({"type": type(error).__name__, "name": error.name, "message": str(error),
                      "cause": None if cause is None else str(cause)}))
else:
    print(json.dumps(None))
"""


def _import_web(tmp_path: Path, hidden: str) -> dict[str, str] | None:
    """``import phasetodo.web`` in a child interpreter where ``hidden`` (comma-separated) is not installed."""
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    env["PHASETODO_TEST_HIDE"] = hidden
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, str] | None = json.loads(done.stdout)
    return found


class TestWithoutTheWebExtra:
    @pytest.mark.parametrize("hidden", ["anyio", "starlette", "uvicorn", "anyio,starlette,uvicorn"])
    def test_names_the_extra(self, tmp_path: Path, hidden: str) -> None:
        """With any of the extra's packages missing, the error says which extra to install, and how."""
        error = _import_web(tmp_path, hidden)
        assert error is not None
        assert error["type"] == "ModuleNotFoundError"
        assert error["name"] in hidden.split(",")
        message = error["message"]
        assert message.startswith("phasetodo.web (the board, phasetodo serve) needs the 'web' extra")
        assert f"no module named {error['name']!r}" in message
        assert "python -m pip install './phasetodo[web]'" in message
        assert ".whl[web]'" in message
        assert error["cause"] == f"No module named {error['name']!r}"

    def test_other_missing_modules_are_not_renamed(self, tmp_path: Path) -> None:
        """A missing module that is not the extra's is reported as it is."""
        error = _import_web(tmp_path, "phasetodo.web.board")
        assert error is not None
        assert error["name"] == "phasetodo.web.board"
        assert "extra" not in error["message"]

    def test_with_the_extra_it_imports(self, tmp_path: Path) -> None:
        """The same child, hiding nothing of the extra, imports the board."""
        assert _import_web(tmp_path, "no_such_package") is None
