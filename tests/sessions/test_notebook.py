"""The example notebook, executed headless with nbclient on a real kernel."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbclient
import nbformat
import pytest

import phasetodo

NOTEBOOK = Path(__file__).parents[2] / "examples" / "phasetodo.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The example notebook after running every cell in a fresh python3 kernel."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    workdir = tmp_path_factory.mktemp("notebook")
    client = nbclient.NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(workdir)}},
    )
    client.execute()  # raises CellExecutionError if any cell fails
    return notebook


def _outputs(notebook: Any, mime: str) -> list[str]:
    return [
        output["data"][mime]
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if mime in output.get("data", {})
    ]


class TestExampleNotebook:
    def test_is_stored_without_outputs(self) -> None:
        """The committed notebook is clean: outputs come from running it."""
        notebook = nbformat.read(NOTEBOOK, as_version=4)
        nbformat.validate(notebook)
        assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")

    def test_every_cell_shows_something(self, executed: Any) -> None:
        """Each code cell produced output: three rich displays and one printed tree."""
        assert len(_outputs(executed, "text/html")) == 3
        assert len(_outputs(executed, "text/markdown")) == 3
        streams = [o for c in executed.cells for o in c.get("outputs", []) if o["output_type"] == "stream"]
        assert [s["name"] for s in streams] == ["stdout"]

    def test_html_tree(self, executed: Any) -> None:
        """The HTML shows roman numerals, checkboxes, progress and note counts."""
        first = _outputs(executed, "text/html")[0]
        assert "after the first call" in first
        assert "<strong>I. Explore</strong>" in first
        assert "<strong>II. Fix</strong>" in first
        assert '<sup title="1 note">1</sup>' in first
        assert "Fails on tabs only." in first
        assert "◐" in first
        assert "☐" in first

    def test_script_in_a_task_is_escaped(self, executed: Any) -> None:
        """A <script> in a task reaches the HTML and Markdown outputs as text only."""
        second = _outputs(executed, "text/html")[1]
        assert "&lt;script&gt;alert(&#x27;hi&#x27;)&lt;/script&gt; stays text" in second
        for html in _outputs(executed, "text/html"):
            assert not re.search(r"<\s*script", html, re.IGNORECASE)
        for markdown in _outputs(executed, "text/markdown"):
            # Markdown shows a backslash-escaped "\<" as a literal "<": no raw tag is left.
            assert not re.search(r"(?<!\\)<script", markdown)
            assert "\\<script\\>" in markdown or "script" not in markdown
        assert "text-decoration:line-through" in second

    def test_session_displays_itself(self, executed: Any) -> None:
        """A Session shows its list titled with its id and version."""
        third = _outputs(executed, "text/html")[2]
        assert "session notebook · version 1" in third
        assert "I. Ship" in third
        assert "Tag the release" in third

    def test_print_gives_the_plain_tree(self, executed: Any) -> None:
        """print() of a TodoList is the plain-text tree of the phasetodo command."""
        stream = next(o for c in executed.cells for o in c.get("outputs", []) if o["output_type"] == "stream")
        assert stream["text"].startswith("I. Explore  1/2\n├── ☑ Read the failing test¹\n")
        assert "└── ☐ <script>alert('hi')</script> stays text" in stream["text"]
        assert phasetodo._views.render.CHECKBOX[phasetodo.Status.COMPLETED] == "☑"
