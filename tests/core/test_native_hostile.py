"""The C module on input whose own code changes it while it is read: no crash, the twin's answer.

Each scenario of :mod:`fuzz.hostile` runs in a child process (a use after free
there fails the test instead of the test run), once with the C module and once
with the Python loops, and both print what they gave.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz import hostile

from phasetodo._core import native

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = """
import sys
from fuzz import hostile
from phasetodo._core import native
twin = native.load_compiled() if sys.argv[2] == "c" else hostile.PYTHON
print(repr(hostile.run(sys.argv[1], twin)))
"""

pytestmark = pytest.mark.skipif(native.load_compiled() is None, reason="the C module is not built here")


def _path() -> str:
    """PYTHONPATH for a child: the caller's (a sanitizer build's package), then the checkout."""
    return os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)]))


def _outcome(name: str, side: str) -> str:
    """What scenario ``name`` printed in a fresh process on one side; fails if it crashed."""
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, name, side],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": _path()},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, f"{name} on {side}: exit {done.returncode}\n{done.stderr[-2000:]}"
    return done.stdout.strip()


class TestHostileInput:
    @pytest.mark.parametrize("name", sorted(hostile.SCENARIOS))
    def test_c_survives_and_agrees(self, name: str) -> None:
        """The C loop neither crashes nor reads freed memory: it gives what the Python loop gives."""
        assert _outcome(name, "c") == _outcome(name, "python")

    def test_fuzz_target_runs_clean(self) -> None:
        """The hostile fuzz target passes a bounded run in a child process."""
        done = subprocess.run(
            [sys.executable, "-m", "fuzz.run", "--target", "hostile", "--examples", "300"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr[-2000:]
        assert "hostile: 300 inputs" in done.stdout


_SUBCLASS_SCRIPT = """
import phasetodo
from phasetodo import Append, Init, Note, PhaseItems

class Loud(str):
    def __hash__(self):
        return 1
    def __eq__(self, other):
        return str.__eq__(self, other)

def kinds(phases):
    return [(type(p["name"]).__name__, [(type(t["content"]).__name__, t["content"], t["status"],
             [type(n).__name__ for n in t.get("notes", [])]) for t in p["tasks"]])
            for p in phases]

init = {"ops": [{"op": "init", "list": [{"phase": Loud("P"), "items": [Loud("a"), Loud("b")]}]},
                {"op": "note", "task": Loud("a"), "text": Loud("n")}]}
more = {"ops": [{"op": "append", "phase": Loud("P"), "items": [Loud("c")]},
                {"op": "start", "task": Loud("c")}]}
print(kinds(phasetodo.todo_write(init)["details"]["phases"]))
session = phasetodo.Session.open("s", store=phasetodo.MemoryStore())
session.todo_write(init)
print(kinds(session.todo_write(more)["details"]["phases"]))
team = phasetodo.Session.open("t", store=phasetodo.MemoryStore(), profile="team", agent="a1")
team.todo_write({"ops": [{"op": "init", "list": [{"phase": Loud("P"),
                 "items": [Loud("a"), {"content": Loud("b"), "after": [Loud("a")]}]}]}]})
blocked = team.todo_write({"ops": [{"op": "block", "task": Loud("a"), "reason": Loud("why")}]})
print(kinds(blocked["details"]["phases"]))
typed = phasetodo.apply((), (Init((PhaseItems(Loud("P"), (Loud("a"),)),)), Append(Loud("P"), (Loud("b"),)),
                              Note(Loud("a"), Loud("n"))))
print(kinds(phasetodo.dump_phases(typed.phases)))
"""


class TestStrSubclasses:
    def test_both_builds_store_plain_strings(self) -> None:
        """``str`` subclasses in params or typed ops become plain ``str``, the same under C and pure."""
        outputs = []
        for pure in ("", "1"):
            done = subprocess.run(
                [sys.executable, "-c", _SUBCLASS_SCRIPT],
                env={**os.environ, "PHASETODO_PURE": pure},
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr[-2000:]
            outputs.append(done.stdout)
        assert outputs[0] == outputs[1]
        assert "Loud" not in outputs[0]
        assert outputs[0].count("'str'") > 10
