"""The README and docs/*.md: every Python example runs, and what the pages promise holds.

A page's ``python`` blocks run in order, in one namespace, in a fresh interpreter started in a
scratch folder with the installed ``phasetodo`` command on PATH. A block whose fence comes
right after a line ``<!-- docs:no-run -->`` is shown but not run (docs/contributing.md).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
NO_RUN = "<!-- docs:no-run -->"
# The README is also the package's long description, so its links are absolute.
BLOB = "https://github.com/phasetodo/phasetodo/blob/main/"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```$", re.DOTALL | re.MULTILINE)

# Runs each block compiled with the page's name and its first line, so a failure points at it.
DRIVER = """
import json, sys
namespace = {"__name__": "__docs__"}
for path, line, code in json.load(sys.stdin):
    exec(compile("\\n" * line + code, path, "exec"), namespace)
"""


def _blocks(page: Path, language: str) -> list[tuple[int, str, bool]]:
    """Each block of ``language``: its first code line (0-based), its code and whether it runs."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        if match.group(1) != language:
            continue
        start = text.count("\n", 0, match.start())
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        found.append((start + 1, match.group(2), before.strip() != NO_RUN))
    return found


RUNNABLE = [page for page in PAGES if any(runs for _, _, runs in _blocks(page, "python"))]


def _readme() -> str:
    return README.read_text(encoding="utf-8")


class TestExamples:
    @pytest.mark.slow  # each page's blocks run in a child interpreter with its frameworks loaded
    @pytest.mark.parametrize("page", RUNNABLE, ids=[page.name for page in RUNNABLE])
    def test_python_blocks_run(self, page: Path, tmp_path: Path) -> None:
        """Every runnable Python block of the page runs, in order, in one fresh interpreter."""
        blocks = [(str(page), line, code) for line, code, runs in _blocks(page, "python") if runs]
        env = dict(os.environ)
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        env.pop("PHASETODO_HOME", None)
        done = subprocess.run(
            [sys.executable, "-c", DRIVER],
            input=json.dumps(blocks),
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr

    def test_pages_have_examples(self) -> None:
        """The README and the guides with code show runnable Python."""
        names = {page.name for page in RUNNABLE}
        for name in ("README.md", "concepts.md", "profiles.md", "sessions.md", "agents.md", "teams.md"):
            assert name in names, name

    def test_no_run_marker_is_documented_and_rare(self) -> None:
        """The skip marker is explained in the contributing guide and used at most on a few blocks."""
        assert NO_RUN in (DOCS / "contributing.md").read_text(encoding="utf-8")
        skipped = sum(not runs for page in PAGES for _, _, runs in _blocks(page, "python"))
        assert skipped <= 3


class TestReadme:
    def test_short(self) -> None:
        """The README is a front door: at most 10,000 characters."""
        assert len(_readme()) <= 10_000

    def test_links_work_from_a_clone(self) -> None:
        """Every link to the project's own files is relative, so it opens in a clone too."""
        links = re.findall(r"\]\(([^)]+)\)", _readme())
        assert links
        assert [link for link in links if "github.com/phasetodo" in link] == []
        root = Path(__file__).parents[2]
        for link in links:
            if "://" not in link:
                assert (root / link.split("#")[0]).exists(), link

    def test_install_is_honest(self) -> None:
        """No install line assumes a package index: phasetodo installs from a path or a wheel."""
        for page in PAGES:
            for line in page.read_text(encoding="utf-8").splitlines():
                if "does not" in line:
                    continue
                assert not re.search(r"pip install (-\S+ )*['\"]?phasetodo\b", line), (page.name, line)
        readme = _readme()
        assert "pip install phasetodo` does not work" in readme
        assert "--no-build-isolation" in readme

    def test_quick_start_markers(self) -> None:
        """Both quick-start markers are there, each right before a one-line sh block."""
        for marker in ("<!-- quickstart:run -->", "<!-- quickstart:test -->"):
            match = re.search(re.escape(marker) + r"\n```sh\n([^\n]+)\n```\n", _readme())
            assert match, marker
            assert match.group(1).startswith("python3 -m venv .venv && . .venv/bin/activate")

    def test_says_what_the_reference_is(self) -> None:
        """The README names the reference and all three profiles."""
        readme = _readme()
        assert "**The reference** is the `todo_write` tool" in readme
        for profile in ("`parity`", "`strict`", "`team`"):
            assert profile in readme

    def test_names_the_team_verbs_and_the_session_id_limit(self) -> None:
        """The README names ready, block and unblock, and the 200-character session-id limit."""
        words = " ".join(_readme().split())
        for verb in ("`ready`", "`block TASK [--reason TEXT]`", "`unblock TASK`"):
            assert verb in words, verb
        assert "a session id has at most 200 characters" in words
        assert "four profiles" in words

    def test_links_stay_in_the_repository(self) -> None:
        """Every link into the repository (relative, or the README's absolute ones) names one of its files."""
        for page in PAGES:
            text = page.read_text(encoding="utf-8")
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                if target.startswith(BLOB):
                    path = (ROOT / target.removeprefix(BLOB).split("#")[0]).resolve()
                elif re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue
                else:
                    path = (page.parent / target.split("#")[0]).resolve()
                assert path.is_relative_to(ROOT.resolve()), (page.name, target)
                assert path.exists(), (page.name, target)

    @pytest.mark.slow  # one child process per command
    def test_terminal_example_runs(self, tmp_path: Path) -> None:
        """The README's terminal commands (but serve) run, in order, on the demo's store."""
        (block,) = [code for _, code, _ in _blocks(README, "console")]
        commands = [line.removeprefix("$ ").split("  #")[0] for line in block.splitlines()]
        steps = [["demo"]] + [shlex.split(command)[1:] for command in commands if " serve" not in command]
        env = {key: value for key, value in os.environ.items() if key != "PHASETODO_HOME"}
        for words in steps:
            done = subprocess.run(
                [sys.executable, "-m", "phasetodo", *words],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, (words, done.stdout, done.stderr)
        assert "Update the changelog" in done.stdout or "user_edit (append)" in done.stdout

    def test_mcp_config_matches_the_guide(self) -> None:
        """The README's MCP client config is the one docs/agents.md shows and tests."""
        (readme_config,) = [code for _, code, _ in _blocks(README, "json")]
        guide_configs = [code for _, code, _ in _blocks(DOCS / "agents.md", "json")]
        assert [json.loads(readme_config)] == [json.loads(code) for code in guide_configs]

    def test_mcp_configs_are_absolute(self) -> None:
        """Every MCP client config of the README and docs/agents.md names command and store by
        absolute paths: a client starts the server elsewhere, with a smaller PATH."""
        for page in (README, DOCS / "agents.md"):
            text = page.read_text(encoding="utf-8")
            lines = re.findall(r"claude mcp add phasetodo -- ([^`\n]+)", text)
            commands = [shlex.split(line) for line in lines]
            commands += [
                [server["command"], *server["args"]]
                for _, code, _ in _blocks(page, "json")
                for server in [json.loads(code)["mcpServers"]["phasetodo"]]
            ]
            assert len(commands) >= 2, page.name
            for words in commands:
                assert words[0].startswith("/"), (page.name, words)
                assert words[0].endswith("/bin/phasetodo"), (page.name, words)
                assert words[words.index("--store") + 1].startswith("/"), (page.name, words)
            assert "`-m phasetodo`" in text, page.name  # the interpreter's form is given too


class TestGuides:
    def test_every_verb_is_in_the_table(self) -> None:
        """docs/command.md's verb table has a row for every verb of the phasetodo command."""
        import argparse

        from phasetodo.cli import _parser

        (verbs,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
        text = (DOCS / "command.md").read_text(encoding="utf-8")
        rows = [line[2:] for line in text.splitlines() if line.startswith("| `")]
        firsts = [re.split(r"(?<!\\) \| ", row)[0] for row in rows]
        words = set(re.findall(r"[a-z]+", " ".join(firsts)))
        assert "ready" in words
        for verb in verbs.choices:
            assert verb in words, verb

    def test_session_id_limit_is_documented(self) -> None:
        """docs/sessions.md gives the session-id limit the stores enforce."""
        from phasetodo.errors import InvalidSessionId
        from phasetodo.stores import check_session_id

        assert check_session_id("x" * 200) == "x" * 200
        with pytest.raises(InvalidSessionId):
            check_session_id("x" * 201)
        assert "more than 200 characters" in (DOCS / "sessions.md").read_text(encoding="utf-8")

    def test_profiles_guide_names_four(self) -> None:
        """docs/profiles.md says there are four profiles, as phasetodo.profiles.PROFILES has."""
        from phasetodo.profiles import PROFILES

        assert len(PROFILES) == 4
        assert "one of four profiles" in (DOCS / "profiles.md").read_text(encoding="utf-8")

    def test_every_guide_is_in_the_index(self) -> None:
        """Every page of docs/ is in the index's table of contents (or marked orphan)."""
        index = (DOCS / "index.md").read_text(encoding="utf-8")
        for page in DOCS.glob("*.md"):
            if page.name == "index.md" or page.read_text(encoding="utf-8").startswith("---\norphan: true"):
                continue
            assert re.search(rf"^{re.escape(page.stem)}$", index, re.M), page.name


class TestConsoleExamples:
    """The command lines of the docs' ``sh`` and ``console`` blocks, and the ``console`` examples
    that tests elsewhere do not run (docs/command.md's run in tests/cli/test_cli.py, the
    README's in TestReadme.test_terminal_example_runs, docs/git.md's merge in
    tests/git/test_git_repos.py, TestMerge.test_the_guides_example)."""

    @staticmethod
    def _steps(page: Path) -> list[tuple[str, str]]:
        """The (command, output) pairs of the page's console blocks, in order."""
        steps = []
        for _, code, _ in _blocks(page, "console"):
            for chunk in re.split(r"^\$ ", code, flags=re.MULTILINE)[1:]:
                command, _, output = chunk.partition("\n")
                steps.append((command.split("  #")[0].strip(), output))
        return steps

    @staticmethod
    def _command_lines() -> list[tuple[str, list[str]]]:
        """Each ``phasetodo ...`` (or ``python -m phasetodo ...``) line of a sh or console block
        of the README and the guides: its page and its words, comments left out."""
        found = []
        for page in PAGES:
            for language in ("sh", "console"):
                for _, code, _ in _blocks(page, language):
                    for line in code.splitlines():
                        words = shlex.split(re.split(r"\s+#", line.removeprefix("$ "))[0])
                        if words[:3] == ["python", "-m", "phasetodo"]:
                            words = words[2:]
                        if words and words[0] == "phasetodo":
                            found.append((page.name, words))
        return found

    def test_every_command_line_parses(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Every command line of the docs' sh and console blocks is one the command's parser
        accepts: its verb and options exist (the blocks whose output is not shown, and those
        that need a server, a browser or a git merge, are checked this far)."""
        from phasetodo.cli import _parser

        lines = self._command_lines()
        assert len(lines) >= 25
        for _, words in lines:
            if words[1:] == ["--version"]:
                with pytest.raises(SystemExit) as exited:
                    _parser().parse_args(words[1:])
                assert exited.value.code == 0
            else:
                _parser().parse_args(words[1:])  # a bad line exits 2, failing the test
        capsys.readouterr()

    @pytest.mark.slow  # one child process per command
    def test_verify_example_is_real(self, tmp_path: Path) -> None:
        """docs/sessions.md's verify example: a 120-record log verifies, and after an edit of
        the record of version 37 the chain breaks there (exit 1), in the words the page shows."""
        import phasetodo

        store = phasetodo.JsonlStore(tmp_path / ".phasetodo")
        with phasetodo.Session.open("agent-42", store=store) as session:
            session.todo_write({"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Patch it"]}]}]})
            for number in range(2, 121):
                session.todo_write({"ops": [{"op": "note", "task": "Patch it", "text": f"try {number}"}]})
        store.close()
        (intact, whole), (edited, broken) = self._steps(DOCS / "sessions.md")[:2]
        log = tmp_path / ".phasetodo" / "agent-42.jsonl"
        env = {key: value for key, value in os.environ.items() if key != "PHASETODO_HOME"}

        def run(command: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "phasetodo", *shlex.split(command)[1:]],
                cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False,
            )

        done = run(intact)
        assert done.returncode == 0, done.stderr
        shown = re.sub(r"[0-9a-f]{4}…", "HASH", whole)
        assert re.sub(r"[0-9a-f]{64}", "HASH", done.stdout) == shown
        lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
        assert '"version":37,' in lines[37]
        assert '"try 37"' in lines[37]
        lines[37] = lines[37].replace('"try 37"', '"try 73"')
        log.write_text("".join(lines), encoding="utf-8")
        done = run(edited)
        assert done.returncode == 1
        assert done.stdout + done.stderr == broken
