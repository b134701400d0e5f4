"""Importing Markdown is held to the limits of one ``todo_write`` call: a clear error, bounded memory."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import phasetodo
from phasetodo import InvalidParams, Limits, markdown_to_phases

LOSSLESS = phasetodo.views.LOSSLESS_MARKER + "\n"


def _peak(read: Callable[[], Any]) -> tuple[int, BaseException | None]:
    """The traced memory peak while ``read`` runs, and what it raised."""
    tracemalloc.start()
    try:
        read()
    except Exception as error:
        raised: BaseException | None = error
    else:
        raised = None
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, raised


def _checklist(size: int) -> str:
    """A checklist of phases, tasks and notes of at least ``size`` characters."""
    tasks = "".join(f"- [ ] task {t} with some words in it\n" for t in range(200))
    block = f"# Phase\n{tasks}  > a note\n\n"
    return block * (size // len(block) + 1)


class TestDocumentSize:
    def test_fifty_megabytes_fail_fast(self) -> None:
        """A 50 MB checklist raises InvalidParams naming max_payload and its size, fast, in little memory."""
        text = _checklist(50 * 1024 * 1024)
        started = time.perf_counter()
        peak, raised = _peak(lambda: markdown_to_phases(text))
        elapsed = time.perf_counter() - started
        assert isinstance(raised, InvalidParams)
        assert raised.problems == (
            f"text: {len(text):,} characters, over the limit max_payload=10,000,000",
        )
        assert peak < 5 * len(text)
        assert elapsed < 1.0  # loose: reading it took about 4 s

    @pytest.mark.parametrize("prefix", ["", LOSSLESS], ids=["reference", "lossless"])
    def test_the_limit_is_max_payload(self, prefix: str) -> None:
        """A text of exactly max_payload characters is read; one more is refused."""
        body = "- [ ] a\n"
        limits = Limits(max_payload=len(prefix) + 3 * len(body))
        phases, errors = markdown_to_phases(prefix + body * 3, limits=limits)
        assert (sum(len(p.tasks) for p in phases), errors) == (3, [])
        with pytest.raises(InvalidParams, match="over the limit max_payload="):
            markdown_to_phases(prefix + body * 3 + " ", limits=limits)

    def test_no_limits(self) -> None:
        """limits=None reads a text over every default limit."""
        text = "- [ ] a\n" * 100_001
        phases, errors = markdown_to_phases(text, limits=None)
        assert (sum(len(p.tasks) for p in phases), errors) == (100_001, [])


class TestCounts:
    @pytest.mark.parametrize(
        "text",
        [
            "- [ ] a\n- [ ] b\n- [ ] c\n- [ ] d\n",  # one run of plain task lines
            "- [ ] a\n- [x]  b\n-   [ ] c\n* [/] d\n",  # line by line
            LOSSLESS + "- [ ] a\n- [ ] b\n- [ ] c\n- [ ] d\n",
        ],
        ids=["run", "lines", "lossless"],
    )
    def test_tasks(self, text: str) -> None:
        """More tasks than max_tasks raise, naming the limit; as many are read."""
        with pytest.raises(InvalidParams) as raised:
            markdown_to_phases(text, limits=Limits(max_tasks=3))
        assert raised.value.problems == ("text: more than 3 tasks, over the limit max_tasks=3",)
        phases, _ = markdown_to_phases(text, limits=Limits(max_tasks=4))
        assert sum(len(p.tasks) for p in phases) == 4

    @pytest.mark.parametrize("prefix", ["", LOSSLESS], ids=["reference", "lossless"])
    def test_phases(self, prefix: str) -> None:
        """More phases than max_phases raise; the implicit Todos phase counts."""
        with pytest.raises(InvalidParams, match=r"more than 2 phases, over the limit max_phases=2$"):
            markdown_to_phases(prefix + "- [ ] a\n# B\n# C\n", limits=Limits(max_phases=2))
        phases, _ = markdown_to_phases(prefix + "- [ ] a\n# B\n", limits=Limits(max_phases=2))
        assert [p.name for p in phases] == ["Todos", "B"]

    @pytest.mark.parametrize("prefix", ["", LOSSLESS], ids=["reference", "lossless"])
    def test_reading_stops_at_the_limit(self, prefix: str) -> None:
        """Past max_tasks the reader stops: memory stays below the text's own size."""
        text = prefix + "# P\n" + "- [ ] a task\n- [x]  another\n" * 100_000
        peak, raised = _peak(lambda: markdown_to_phases(text, limits=Limits(max_tasks=100)))
        assert isinstance(raised, InvalidParams)
        assert peak < len(text)


class TestTexts:
    @pytest.mark.parametrize("prefix", ["", LOSSLESS], ids=["reference", "lossless"])
    def test_each_text_is_bounded(self, prefix: str) -> None:
        """A too long phase name, task content or note is named by its place and its limit."""
        text = prefix + "# Phase\n- [ ] abcdef\n  > " + "n" * 11 + "\n"
        with pytest.raises(InvalidParams) as raised:
            markdown_to_phases(text, limits=Limits(max_name=4, max_content=5, max_note=10))
        assert raised.value.problems == (
            "phases[0].name: 5 characters, over the limit max_name=4",
            "phases[0].tasks[0].content: 6 characters, over the limit max_content=5",
            "phases[0].tasks[0].notes[0]: 11 characters, over the limit max_note=10",
        )


class TestCommand:
    def test_import_over_the_limit_exits_2(self, tmp_path: Path) -> None:
        """phasetodo import of a text over max_payload exits 2, names the limit and changes nothing."""
        (tmp_path / "big.md").write_text(_checklist(10_000_001), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "PHASETODO_HOME"}
        done = subprocess.run(
            [sys.executable, "-m", "phasetodo.cli", "--store", "store", "import", "big.md"],
            cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60, check=False,
        )
        assert done.returncode == 2, done.stderr
        assert "over the limit max_payload=10,000,000" in done.stderr
        assert not (tmp_path / "store").exists() or not any((tmp_path / "store").iterdir())
