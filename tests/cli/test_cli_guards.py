"""The command as a person meets it: no accidental wipes, no phantom sessions, honest exits.

Every test drives the real command in a subprocess on real stores (see ``test_cli``).
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

import phasetodo

from .test_cli import INIT, Cli, _editor, _env, _statuses

#: Text that would act on a terminal if printed raw: OSC 8 hyperlink, CSI, BEL, C1 CSI, bidi.
HOSTILE = "a\x1b]8;;http://x\x07b\x1b[2Jc\x9b31m\u202ed\u200fe\u061cf"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u200f", "\u061c")


def _raw(text: str) -> list[str]:
    """The terminal-acting characters found raw in ``text``."""
    return [c for c in RAW if c in text]


def _on_terminal(cli: Cli, *args: str, answer: str | None = None) -> tuple[int, str]:
    """Run the command with stdin, stdout and stderr on a pseudo-terminal; returns (status, output)."""
    primary, secondary = pty.openpty()
    store = ["--store", cli.store] if cli.store is not None else []
    process = subprocess.Popen(
        [sys.executable, "-m", "phasetodo.cli", *store, *args],
        cwd=cli.cwd,
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=_env(),
    )
    os.close(secondary)
    out = b""
    answered = False
    while True:
        ready, _, _ = select.select([primary], [], [], 30)
        if not ready:
            process.kill()
            break
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if answer is not None and not answered and b"[y/N]" in out:
            os.write(primary, answer.encode() + b"\n")
            answered = True
    os.close(primary)
    return process.wait(timeout=30), out.decode("utf-8", "replace")


def _owned(cli: Cli, agent: str) -> phasetodo.Session:
    """Start the default session owned by ``agent`` (a JSONL store)."""
    spec = cli.store or ".phasetodo"
    return phasetodo.Session.open("default", store=phasetodo.JsonlStore(cli.cwd / spec), agent=agent)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The command on a JSONL store directory."""
    return Cli(tmp_path, "store")


@pytest.fixture
def seeded(cli: Cli) -> Cli:
    """A store whose default session holds INIT."""
    return cli.seed()


class TestWholeListNeedsAll:
    @pytest.mark.parametrize("verb", ["rm", "done", "drop"])
    @pytest.mark.parametrize("target", [[], [""], ["   "]])
    def test_refused_without_all(self, seeded: Cli, verb: str, target: list[str]) -> None:
        """A verb with no (or a blank) target changes nothing and exits 2 without --all."""
        before = seeded.phases()
        done = seeded.run(verb, *target)
        assert done.returncode == 2
        assert "--all" in done.stderr
        assert seeded.phases() == before

    def test_all_touches_everything(self, seeded: Cli) -> None:
        """--all does what the bare verb used to: every task completed, then every task removed."""
        seeded.ok("done", "--all")
        assert set(_statuses(seeded.phases()).values()) == {"completed"}
        seeded.ok("rm", "--all")
        assert all(p["tasks"] == [] for p in seeded.phases())

    def test_all_with_a_target_is_usage(self, seeded: Cli) -> None:
        """--all and a target together are bad usage; nothing changes."""
        before = seeded.phases()
        done = seeded.run("done", "--all", "parser")
        assert done.returncode == 2
        assert seeded.phases() == before

    @pytest.mark.parametrize("target", [[], ["parser"]])
    def test_start_refuses_all_without_contradiction(self, seeded: Cli, target: list[str]) -> None:
        """start --all is bad usage, and the message does not ask for what was already done."""
        before = seeded.phases()
        done = seeded.run("start", "--all", *target)
        assert done.returncode == 2
        assert done.stderr == (
            "phasetodo: start: starts one task, so --all does not apply; name the TASK (or a PHASE)\n"
        )
        assert seeded.phases() == before

    def test_terminal_confirmation(self, seeded: Cli) -> None:
        """On a terminal the verb asks; 'n' changes nothing (exit 2), 'y' goes ahead."""
        status, out = _on_terminal(seeded, "done", answer="n")
        assert status == 2, out
        assert "[y/N]" in out
        assert "completed" not in set(_statuses(seeded.phases()).values())
        status, out = _on_terminal(seeded, "done", answer="y")
        assert status == 0, out
        assert set(_statuses(seeded.phases()).values()) == {"completed"}


class TestUndo:
    def test_undo_restores_previous_version(self, seeded: Cli) -> None:
        """undo brings back the list before the last change, as a new user_edit event."""
        before = seeded.phases()
        seeded.ok("rm", "--all")
        out = seeded.ok("undo")
        assert '+ "Read the failing test"' in out
        assert seeded.phases() == before
        lines = seeded.ok("history").splitlines()
        assert len(lines) == 3
        assert "user_edit (undo)" in lines[2]

    def test_undo_to_a_version(self, seeded: Cli) -> None:
        """undo VERSION restores that version's list, whatever came after."""
        first = seeded.phases()
        seeded.ok("done", "parser")
        seeded.ok("append", "Fix", "More")
        seeded.ok("undo", "1")
        assert seeded.phases() == first

    def test_bad_version(self, seeded: Cli) -> None:
        """A version the log does not have is bad usage; nothing changes."""
        for version in ("7", "1", "-1", "x"):
            done = seeded.run("undo", version)
            assert done.returncode == 2, version
        assert len(seeded.ok("history").splitlines()) == 1

    def test_undo_on_missing_session(self, cli: Cli) -> None:
        """undo never creates a session."""
        done = cli.run("undo")
        assert done.returncode == 1
        assert not (cli.cwd / "store").exists()


class TestNoPhantoms:
    @pytest.mark.parametrize(
        "verb", [["show"], ["history"], ["export"], ["show", "--json"], ["done", "x"], ["rm", "--all"]]
    )
    def test_missing_session_is_an_error(self, seeded: Cli, verb: list[str]) -> None:
        """Reading a session that is not there exits 1, lists the store's sessions, creates nothing."""
        done = seeded.run("--session", "typo", *verb)
        assert done.returncode == 1
        said = done.stderr + done.stdout  # under --json the error is on stdout
        assert "no session 'typo'" in said
        assert "'default'" in said
        assert not (seeded.cwd / "store" / "typo.jsonl").exists()

    @pytest.mark.parametrize("store", ["missing", "sqlite:missing.db"])
    def test_missing_store_is_an_error(self, tmp_path: Path, store: str) -> None:
        """A store path that does not exist is an error for a reading verb; nothing is created."""
        done = Cli(tmp_path, store).run("show")
        assert done.returncode == 1
        assert "missing" in done.stderr
        assert list(tmp_path.iterdir()) == []

    def test_sqlite_missing_session(self, tmp_path: Path) -> None:
        """On SQLite too, a missing session is an error that adds no row."""
        cli = Cli(tmp_path, "sqlite:todo.db").seed()
        done = cli.run("--session", "typo", "show")
        assert done.returncode == 1
        store = phasetodo.SqliteStore(tmp_path / "todo.db")
        try:
            assert store.sessions() == ["default"]
        finally:
            store.close()

    def test_writing_verbs_still_create(self, cli: Cli) -> None:
        """append and apply start a new session as before."""
        cli.ok("--session", "fresh", "append", "Fix", "Patch it")
        assert _statuses(cli.phases("fresh")) == {"Patch it": "in_progress"}


class TestDidYouMean:
    def test_typo_suggests_closest(self, seeded: Cli) -> None:
        """A typo exits 1 and suggests the closest tasks."""
        done = seeded.run("done", "tokenzier")
        assert done.returncode == 1
        assert 'did you mean "Patch the tokenizer"' in done.stderr


class TestExitCodesAndJson:
    def test_owned_session_needs_agent(self, cli: Cli) -> None:
        """Writing to an owned session without --agent exits 2 and suggests --agent."""
        _owned(cli, "main").close()
        done = cli.run("apply", json.dumps(INIT))
        assert done.returncode == 2
        assert "--agent main" in done.stderr
        assert cli.ok("apply", json.dumps(INIT), "--agent", "main")

    @pytest.mark.parametrize(
        "args",
        [
            ["show"],
            ["history"],
            ["export"],
            ["done", "parser"],
            ["drop", "parser"],
            ["start", "suite"],
            ["rm", "parser"],
            ["append", "Fix", "More"],
            ["undo"],
        ],
    )
    def test_every_verb_takes_json(self, seeded: Cli, args: list[str]) -> None:
        """Every verb accepts --json and prints one JSON document."""
        out = seeded.ok(*args, "--json")
        json.loads(out)

    def test_change_json_shape(self, seeded: Cli) -> None:
        """A change verb's JSON has the new version, the change lines and the phases."""
        data = json.loads(seeded.ok("done", "parser", "--json"))
        assert data["version"] == 2
        assert data["changes"] == ['~ "Find the parser bug" pending → completed (Explore)']
        assert data["phases"] == seeded.phases()

    def test_history_json(self, seeded: Cli) -> None:
        """history --json lists each event with version, kind and counts."""
        seeded.ok("done", "parser")
        events = json.loads(seeded.ok("history", "--json"))
        assert [e["version"] for e in events] == [1, 2]
        assert events[1]["kind"] == "user_edit"
        assert events[1]["source"] == "done"
        assert events[0]["tasks"] == 4

    @pytest.mark.parametrize(
        ("args", "status"),
        [
            (["apply", '{"ops": [{"op": "pending"}]}'], 2),
            (["apply", "{not json"], 2),
            (["done", "nothing-like-it"], 1),
            (["--session", "typo", "show"], 1),
            (["rm"], 2),
        ],
    )
    def test_errors_under_json_are_objects(self, seeded: Cli, args: list[str], status: int) -> None:
        """Under --json an error is one JSON object on stdout with the status and message."""
        done = seeded.run(*args, "--json")
        assert done.returncode == status
        error = json.loads(done.stdout)["error"]
        assert error["status"] == status
        assert error["message"]

    def test_invalid_params_json_lists_problems(self, seeded: Cli) -> None:
        """apply --json with invalid parameters gives the problems as a list."""
        done = seeded.run("apply", '{"ops": [{"op": "pending"}]}', "--json")
        problems = json.loads(done.stdout)["error"]["problems"]
        assert problems == ["ops[0].op: must be one of init, start, done, drop, rm, append, note"]

    def test_bare_command_prints_help(self, cli: Cli) -> None:
        """phasetodo with no verb prints the help and exits 0."""
        done = cli.run()
        assert done.returncode == 0
        assert "usage: phasetodo" in done.stdout
        assert "undo" in done.stdout

    def test_version(self, cli: Cli) -> None:
        """--version prints the package version, as phasetodo.__version__ has it, and nothing else."""
        assert cli.ok("--version") == f"phasetodo {phasetodo.__version__}\n"
        assert phasetodo.__version__[0].isdigit()

    def test_limit_exits_2(self, seeded: Cli) -> None:
        """A value over a limit is invalid input: exit 2, naming the limit."""
        done = seeded.run("append", "Fix", "x" * 10_001)
        assert done.returncode == 2
        assert "max_content" in done.stderr

    def test_deep_nesting_exits_2(self, seeded: Cli) -> None:
        """Deeply nested JSON is rejected with a message, not a traceback."""
        done = seeded.run("apply", "[" * 100_000)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert "nest" in done.stderr


class TestCollapsedAndPlurals:
    def test_collapsed_shows_the_active_task(self, cli: Cli) -> None:
        """show --collapsed always shows the active task, far down a long phase."""
        cli.ok("append", "I", *[f"task {i}" for i in range(40)])
        for i in range(30):
            with cli.session() as session:
                session.todo_write({"ops": [{"op": "done", "task": f"task {i}"}]})
        out = cli.ok("show", "--collapsed")
        assert "◐ task 30" in out
        assert len(out.splitlines()) <= 12

    def test_history_singular(self, cli: Cli) -> None:
        """history says 1 task, not 1 tasks."""
        cli.ok("append", "Fix", "Patch it")
        line = cli.ok("history").splitlines()[0]
        assert "1 task, 1 open" in line

    def test_anchor_singular(self) -> None:
        """The compaction anchor says 1 phase, not 1 phases."""
        one = [{"name": "Fix", "tasks": [{"content": "a", "status": "pending"}]}]
        text = phasetodo.compaction_anchor(one)
        assert "in 1 phase." in text
        assert "1 phases" not in text
        assert "1 tasks" not in text


class TestHardening:
    def test_import_dev_zero_is_capped(self, seeded: Cli) -> None:
        """import of an endless file stops at a cap with a clear error (exit 2)."""
        done = seeded.run("import", "/dev/zero")
        assert done.returncode == 2
        assert "MemoryError" not in done.stderr
        assert "bytes" in done.stderr

    def test_empty_import_is_cancelled(self, seeded: Cli) -> None:
        """An empty import changes nothing unless --allow-empty."""
        before = seeded.phases()
        done = seeded.run("import", "-", stdin="")
        assert done.returncode == 2
        assert "--allow-empty" in done.stderr
        assert seeded.phases() == before
        seeded.ok("import", "-", "--allow-empty", stdin="")
        assert all(not p["tasks"] for p in seeded.phases())

    def test_emptied_edit_is_cancelled(self, seeded: Cli) -> None:
        """An $EDITOR that empties the file cancels the edit; --allow-empty applies it."""
        before = seeded.phases()
        editor = _editor(seeded.cwd, "path.write_text('', encoding='utf-8')")
        done = seeded.run("edit", env=_env(EDITOR=editor))
        assert done.returncode == 2
        assert "cancel" in done.stderr
        assert seeded.phases() == before
        done = seeded.run("edit", "--allow-empty", env=_env(EDITOR=editor))
        assert done.returncode == 0, done.stderr

    def _hostile(self, cli: Cli) -> Cli:
        init = {"ops": [{"op": "init", "list": [{"phase": "P", "items": [HOSTILE, "b"]}]}]}
        cli.ok("apply", json.dumps(init))
        return cli

    @pytest.mark.parametrize(
        "args",
        [
            ["apply", json.dumps({"ops": [{"op": "note", "task": HOSTILE, "text": HOSTILE}]})],
            ["apply", json.dumps({"ops": [{"op": "done", "task": HOSTILE + "zz"}]})],
            ["done", "a"],
            ["done", "--task", "b"],
            ["append", "P", HOSTILE + "2"],
            ["show"],
            ["history"],
        ],
    )
    def test_task_text_is_escaped(self, cli: Cli, args: list[str]) -> None:
        """Every output line carrying task text, stdout and stderr, shows control characters as escapes."""
        done = self._hostile(cli).run(*args)
        assert _raw(done.stdout) == []
        assert _raw(done.stderr) == []

    def test_json_escapes_c1_and_bidi(self, cli: Cli) -> None:
        """--json output escapes C1 and bidi characters and still parses to the same text."""
        out = self._hostile(cli).ok("show", "--json")
        assert _raw(out) == []
        assert json.loads(out)[0]["tasks"][0]["content"] == HOSTILE

    def test_import_error_lines_escaped(self, cli: Cli) -> None:
        """Markdown error lines quoting hostile text are escaped."""
        done = cli.run("import", "-", stdin=f"# P\n{HOSTILE}\n")
        assert done.returncode == 2
        assert _raw(done.stderr) == []

    def test_export_to_a_terminal_is_escaped(self, cli: Cli) -> None:
        """export escapes on a terminal; piped, it is the Markdown byte for byte."""
        self._hostile(cli)
        status, out = _on_terminal(cli, "export")
        assert status == 0
        assert _raw(out) == []
        piped = cli.ok("export")
        assert HOSTILE in piped
