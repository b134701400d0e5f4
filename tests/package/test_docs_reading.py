"""The docs as a newcomer reads them (issue 35, item 8): where Architecture sits in the
navigation, tables with a header, MCP examples with absolute stores, and command lines that
fit the page's code width."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from .test_docs import DOCS, PAGES, _blocks

#: The characters of one code line that the built site (furo, its default measure) shows
#: without scrolling: measured in Chromium on docs/_build/html/git.html, 90 fit and 91 scroll.
CODE_WIDTH = 90


def _toctree(caption: str) -> list[str]:
    """The entries of docs/index.md's toctree with this caption."""
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    block = re.search(r"```\{toctree\}\n:caption: " + re.escape(caption) + r"\n(.*?)```", text, re.DOTALL)
    assert block, caption
    return [line for line in block.group(1).splitlines() if line and not line.startswith(":")]


class TestNavigation:
    def test_architecture_comes_early(self) -> None:
        """Architecture ("read this first") is among the first three guides, right after Concepts."""
        guides = _toctree("Guides")
        assert guides[:3] == ["install", "concepts", "architecture"]
        assert len(guides) == len(set(guides))


class TestTables:
    def test_every_table_has_a_header(self) -> None:
        """No table of the README or the guides renders an empty header row."""
        for page in PAGES:
            lines = page.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines[1:], start=1):
                if re.fullmatch(r"\|( *:?-+:? *\|)+", line.strip()):
                    cells = lines[number - 1].strip().strip("|").split("|")
                    assert any(cell.strip() for cell in cells), (page.name, number)


class TestMcpExamples:
    @staticmethod
    def _stores() -> list[tuple[str, str]]:
        """The ``--store`` of each ``phasetodo mcp`` line of the sh blocks, with its page."""
        found = []
        for page in PAGES:
            for _, code, _ in _blocks(page, "sh"):
                for line in code.splitlines():
                    words = shlex.split(line.split("  #")[0])
                    if words[:2] == ["phasetodo", "mcp"] and "--store" in words:
                        found.append((page.name, words[words.index("--store") + 1]))
        return found

    def test_the_store_is_an_absolute_path(self) -> None:
        """An MCP server is started by a client in a folder of its own: every example's store
        is an absolute path (or a PostgreSQL address), the teams guide's too."""
        stores = self._stores()
        assert "teams.md" in {page for page, _ in stores}
        for page, store in stores:
            path = re.sub(r"^(sqlite|jsonl):", "", store)
            assert path.startswith("/") or store.startswith("postgresql://"), (page, store)


class TestCodeWidth:
    def test_the_git_and_team_commands_fit(self) -> None:
        """Every line of the git and teams guides' sh blocks (the driver line among them) shows
        whole in the built page."""
        for name in ("git.md", "teams.md"):
            for _, code, _ in _blocks(DOCS / name, "sh"):
                for line in code.splitlines():
                    assert len(line) <= CODE_WIDTH, (name, line)

    def test_the_driver_line_is_shown_whole(self) -> None:
        """The git guide shows the merge driver's command, as git init registers it, on one line."""
        lines = [line for _, code, _ in _blocks(DOCS / "git.md", "sh") for line in code.splitlines()]
        assert "# /path/to/python -P -m phasetodo.cli git merge-driver %O %A %B %P" in lines


class TestReadmeTestCommand:
    def test_says_what_it_costs_and_the_fast_loop(self) -> None:
        """Right after the README's test command: how much it installs, how long it runs, and
        the fast loop."""
        readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
        after = " ".join(readme.partition("<!-- quickstart:test -->")[2].split("\n## ")[0].split())
        assert "installs about 100 packages" in after
        assert "quarter of an hour" in after
        assert '`python -m pytest -m "not slow"`' in after


def test_this_module_reads_real_pages() -> None:
    """The pages these tests read are the project's own."""
    assert (DOCS / "index.md").exists()
    assert Path(__file__).parents[2] / "README.md" in PAGES
