"""What a package index and a fresh clone see: the built wheel and sdist, and the README."""

from __future__ import annotations

import io
import os
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

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
#: What no pure-Python distribution holds: C sources and compiled modules.
COMPILED = (".c", ".h", ".so", ".pyd", ".pyc")
#: The Python versions phasetodo supports (and .ci/run tests): each has its classifier.
SUPPORTED = ("3.11", "3.12", "3.13")


def _tree() -> set[str]:
    """The entries a build could leave behind: the top level, and everything under src/."""
    top = {entry.name for entry in ROOT.iterdir()}
    under_src = {
        str(path.relative_to(ROOT)) for path in (ROOT / "src").rglob("*") if "__pycache__" not in path.parts
    }
    return top | under_src


def _checked_members(archive: tarfile.TarFile, dest: Path) -> list[tarfile.TarInfo]:
    """The archive's members, once each is a plain file or directory landing inside ``dest``."""
    root = dest.resolve()
    members = archive.getmembers()
    for member in members:
        target = (root / member.name).resolve()
        if not (member.isfile() or member.isdir()) or (target != root and root not in target.parents):
            raise ValueError(f"unsafe member in the archive: {member.name!r}")
    return members


def _extract(archive: tarfile.TarFile, dest: Path) -> None:
    """Unpack safely: the ``data`` filter where this Python has it (3.11.4 on), else our own check."""
    if hasattr(tarfile, "data_filter"):
        archive.extractall(dest, filter="data")
    else:
        archive.extractall(dest, members=_checked_members(archive, dest))


def _build(hook: str, source: Path, out: Path, work: Path, **extra_env: str) -> str:
    """Run one setuptools PEP 517 hook in a subprocess in `source`, its scratch files kept in `work`.

    DIST_EXTRA_CONFIG points setuptools' build/ and *.egg-info at `work`, so the tree stays as it was.
    No build isolation and no index: this is an offline build.
    """
    config = work / "setuptools.cfg"
    config.write_text(f"[egg_info]\negg_base = {work}\n[build]\nbuild_base = {work / 'build'}\n")
    env = dict(os.environ)
    env["DIST_EXTRA_CONFIG"] = str(config)
    env.update(extra_env)
    code = f"import sys, setuptools.build_meta as backend; backend.{hook}(sys.argv[1])"
    done = subprocess.run(
        [sys.executable, "-c", code, str(out)],
        cwd=source, env=env, check=True, capture_output=True, text=True, timeout=300,
    )
    return done.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and sdist, built from this tree by setuptools' PEP 517 hooks (no network)."""
    out = tmp_path_factory.mktemp("dist")
    work = tmp_path_factory.mktemp("work")
    before = _tree()
    _build("build_sdist", ROOT, out, work)
    _build("build_wheel", ROOT, out, work)
    assert _tree() == before, "the build left files in the tree"
    return out


def _sdist_names(built: Path) -> list[str]:
    """The sdist's member names without the leading `phasetodo-<version>/`."""
    (sdist,) = built.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        return [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]


def _metadata(built: Path) -> tuple[list[str], Message]:
    (wheel,) = built.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        return names, Parser().parsestr(archive.read(meta).decode("utf-8"))


def _version_from(root: Path) -> str:
    """What ``phasetodo --version`` prints when the package is imported from ``root`` (an
    unpacked wheel), in an isolated interpreter."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from phasetodo.cli import main; sys.exit(main(['--version']))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, str(root)],
        capture_output=True, text=True, check=True, timeout=60,
    )
    return done.stdout.strip()


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
        for minor in SUPPORTED:
            assert f"Programming Language :: Python :: {minor}" in classifiers
        assert any(c.startswith("Development Status :: ") for c in classifiers)
        assert meta["Requires-Python"] == ">=3.11"
        assert meta["License-Expression"] == "MIT"

    def test_classifiers_name_every_supported_python(self) -> None:
        """pyproject.toml classifies each supported Python, from requires-python's lowest on."""
        import tomllib

        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        versions = [
            c.rsplit(" :: ", 1)[1]
            for c in project["classifiers"]
            if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
        ]
        assert tuple(versions) == SUPPORTED
        assert project["requires-python"] == f">={SUPPORTED[0]}"

    def test_version(self) -> None:
        """phasetodo.__version__ is the installed distribution's version."""
        from importlib.metadata import version

        assert phasetodo.__version__ == version("phasetodo")


class TestPureBuild:
    def test_wheel_carries_package_data(self, built: Path) -> None:
        """The wheel holds py.typed and the board's static files, and no C source or compiled file."""
        names, _ = _metadata(built)
        static = {p.name for p in (ROOT / "src" / "phasetodo" / "web" / "static").iterdir()}
        assert static
        assert {f"phasetodo/web/static/{name}" for name in static} <= set(names)
        assert "phasetodo/py.typed" in names
        assert [n for n in names if n.endswith(COMPILED)] == []

    def test_wheel_is_pure_python(self, built: Path) -> None:
        """The wheel is tagged py3-none-any and its WHEEL file says it is purelib."""
        (wheel,) = built.glob("*.whl")
        assert wheel.name.endswith("-py3-none-any.whl")
        with zipfile.ZipFile(wheel) as archive:
            info = next(n for n in archive.namelist() if n.endswith(".dist-info/WHEEL"))
            fields = Parser().parsestr(archive.read(info).decode("utf-8"))
        assert fields["Root-Is-Purelib"] == "true"
        assert fields.get_all("Tag") == ["py3-none-any"]

    def test_source_tree_has_no_c(self) -> None:
        """No C source in the package and no setup.py: pyproject.toml alone declares the build."""
        assert [p for p in (ROOT / "src").rglob("*") if p.suffix in (".c", ".h")] == []
        assert not (ROOT / "setup.py").exists()

    def test_sdist_carries_the_project(self, built: Path) -> None:
        """The sdist holds pyproject.toml, MANIFEST.in and the tests, and no C or compiled files."""
        names = _sdist_names(built)
        for needed in ("pyproject.toml", "MANIFEST.in", "tests/package/test_packaging.py"):
            assert needed in names
        assert "setup.py" not in names
        assert [n for n in names if n.endswith(COMPILED)] == []

    def test_sdist_builds_a_pure_wheel(self, built: Path, tmp_path: Path) -> None:
        """A wheel built from the unpacked sdist (as pip does from an index) is py3-none-any too."""
        (sdist,) = built.glob("*.tar.gz")
        with tarfile.open(sdist) as archive:
            _extract(archive, tmp_path / "src")
        (source,) = (tmp_path / "src").iterdir()
        (tmp_path / "out").mkdir()
        (tmp_path / "work").mkdir()
        _build("build_wheel", source, tmp_path / "out", tmp_path / "work")
        (wheel,) = (tmp_path / "out").glob("*.whl")
        assert wheel.name.endswith("-py3-none-any.whl")

    def test_version_from_the_wheel(self, built: Path, tmp_path: Path) -> None:
        """phasetodo --version run from the unpacked wheel prints the package and its version only."""
        (wheel,) = built.glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(tmp_path)
        assert _version_from(tmp_path) == f"phasetodo {phasetodo.__version__}"


def _tar(path: Path, *members: tuple[str, bytes | None, bytes]) -> Path:
    """A tar file of (name, data or None for a symlink, link target) members."""
    with tarfile.open(path, "w") as archive:
        for name, data, target in members:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.linkname = tarfile.SYMTYPE, target.decode()
                archive.addfile(info)
            else:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return path


class TestSafeExtract:
    def test_without_the_data_filter(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """On a Python without tarfile.data_filter (3.11.0 to 3.11.3) plain members still unpack."""
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
        path = _tar(tmp_path / "a.tar", ("pkg/setup.py", b"print()", b""))
        with tarfile.open(path) as archive:
            _extract(archive, tmp_path / "out")
        assert (tmp_path / "out" / "pkg" / "setup.py").read_bytes() == b"print()"

    @pytest.mark.parametrize(
        "member",
        [("../evil", b"x", b""), ("/abs/evil", b"x", b""), ("pkg/link", None, b"/etc/passwd")],
        ids=["parent", "absolute", "symlink"],
    )
    def test_unsafe_members_are_refused(
        self, tmp_path: Path, member: tuple[str, bytes | None, bytes]
    ) -> None:
        """Without the filter, a member outside the destination or a link is refused, nothing written."""
        path = _tar(tmp_path / "a.tar", member)
        with tarfile.open(path) as archive, pytest.raises(ValueError, match="unsafe member"):
            _checked_members(archive, tmp_path / "out")
        assert not (tmp_path / "out").exists()
        assert not (tmp_path / "evil").exists()


class TestReadme:
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
