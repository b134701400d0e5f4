"""``apply`` refuses an op given a key its op does not take (a misspelled ``task``), unless told not to.

Every test drives the real command in a subprocess on a real JSONL store (see ``test_cli``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import phasetodo

from .test_cli import Cli


def _statuses(session: phasetodo.Session) -> dict[str, str]:
    return {t.content: t.status.value for p in session.phases for t in p.tasks}


@pytest.fixture
def seeded(tmp_path: Path) -> Cli:
    """The command on a JSONL store whose default session holds the two phases of ``test_cli``."""
    return Cli(tmp_path, "store").seed()


TYPO = json.dumps({"ops": [{"op": "done", "taks": "Find the parser bug"}]})


@pytest.mark.slow
class TestUnknownKeys:
    def test_typo_is_refused_and_nothing_applied(self, seeded: Cli) -> None:
        """A misspelled key is refused (exit 2), naming the key and the keys done takes; nothing changes."""
        with seeded.session() as opened:
            before = opened.version
        done = seeded.run("apply", TYPO)
        assert done.returncode == 2, done.stdout
        assert "ops[0].taks: done takes no key 'taks'; it takes op, phase, task" in done.stderr
        assert "nothing was applied" in done.stderr
        with seeded.session() as opened:
            assert opened.version == before
            assert "completed" not in _statuses(opened).values()

    def test_flag_lets_the_reference_ignore_the_key(self, seeded: Cli) -> None:
        """--allow-unknown-keys ignores the key as the reference does: done with no target completes all."""
        seeded.ok("apply", "--allow-unknown-keys", TYPO)
        with seeded.session() as opened:
            assert set(_statuses(opened).values()) == {"completed"}

    def test_known_keys_still_apply(self, seeded: Cli) -> None:
        """An op with only the keys it takes is applied as before."""
        seeded.ok("apply", json.dumps({"ops": [{"op": "done", "task": "Read the failing test"}]}))
        with seeded.session() as opened:
            assert _statuses(opened)["Read the failing test"] == "completed"
