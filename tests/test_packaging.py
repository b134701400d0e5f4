"""What a package index and a fresh clone see: the built wheel and sdist, and the README."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest

import phasetodo

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and sdist, built from this tree by hatchling (no network)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-d", str(out)],
        cwd=ROOT, check=True, capture_output=True, timeout=300,
    )
    return out


def _metadata(built: Path) -> tuple[list[str], Message]:
    (wheel,) = built.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        return names, Parser().parsestr(archive.read(meta).decode("utf-8"))


class TestDistributions:
    def test_license_in_repo_wheel_and_sdist(self, built: Path) -> None:
        """The MIT LICENSE file is in the repository, the wheel and the sdist."""
        assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
        names, _ = _metadata(built)
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
        (sdist,) = built.glob("*.tar.gz")
        with tarfile.open(sdist) as archive:
            assert any(n.endswith("/LICENSE") for n in archive.getnames())

    def test_metadata(self, built: Path) -> None:
        """Project-URLs, the tested Python versions, the development status and requires-python."""
        _, meta = _metadata(built)
        urls = meta.get_all("Project-URL") or []
        assert urls
        assert all(", https://" in url for url in urls)
        classifiers = meta.get_all("Classifier") or []
        assert "Programming Language :: Python :: 3.11" in classifiers
        assert "Programming Language :: Python :: 3.13" in classifiers
        assert any(c.startswith("Development Status :: ") for c in classifiers)
        assert meta["Requires-Python"] == ">=3.11"
        assert meta["License-Expression"] == "MIT"

    def test_version(self) -> None:
        """phasetodo.__version__ is the installed distribution's version."""
        from importlib.metadata import version

        assert phasetodo.__version__ == version("phasetodo")


class TestReadme:
    def test_links_are_absolute(self) -> None:
        """Every Markdown link in the README works on a package index: absolute, no relative paths."""
        text = README.read_text(encoding="utf-8")
        links = re.findall(r"\]\(([^)]*)\)", text)
        assert [link for link in links if not link.startswith("https://")] == []

    def _command(self, marker: str) -> str:
        text = README.read_text(encoding="utf-8")
        match = re.search(rf"<!-- quickstart:{marker} -->\n```sh\n(.*?)\n```", text, re.DOTALL)
        assert match, marker
        return match[1]

    @pytest.mark.parametrize("marker", ["run", "test"])
    def test_quick_start_is_self_contained(self, marker: str) -> None:
        """Each quick-start command makes and uses its own virtual environment with python3 only."""
        command = self._command(marker)
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
        assert not re.search(r"(^|[ ;&|])(python|pip)3? -m pip install", command.split("activate", 1)[0])

    def test_ci_runs_the_readme_test_command(self) -> None:
        """.ci/run extracts exactly the README's test command and runs it."""
        script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
        extract = re.search(r"^test_command=\$\((.*)\)$", script, re.MULTILINE)
        assert extract, "no test_command= line in .ci/run"
        got = subprocess.run(
            ["sh", "-c", extract[1]], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()
        assert got == self._command("test")
        assert 'sh -c "$test_command"' in script
