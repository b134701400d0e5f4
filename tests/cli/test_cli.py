"""The ``phasetodo`` command, driven as a real subprocess on real stores."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import phasetodo

INIT = {
    "ops": [
        {
            "op": "init",
            "list": [
                {"phase": "Explore", "items": ["Read the failing test", "Find the parser bug"]},
                {"phase": "Fix", "items": ["Patch the tokenizer", "Run the test suite"]},
            ],
        }
    ]
}

_ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: Runs the command with some modules made unimportable, as if not installed.
_WITHOUT = (
    "import sys\n"
    "for name in sys.argv[1].split(','):\n"
    "    sys.modules[name] = None\n"
    "from phasetodo.cli import main\n"
    "sys.exit(main(sys.argv[2:]))\n"
)


def _env(**extra: str) -> dict[str, str]:
    unset = (
        "EDITOR", "VISUAL", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "PHASETODO_HOME"
    )
    env = {k: v for k, v in os.environ.items() if k not in unset}
    # a known terminal: rich rightly writes no styles on TERM=dumb, whatever the caller has
    env.update({"PYTHONIOENCODING": "utf-8", "COLUMNS": "120", "TERM": "xterm-256color", **extra})
    return env


class Cli:
    """The command bound to one store in a scratch directory."""

    def __init__(self, cwd: Path, store: str | None) -> None:
        self.cwd = cwd
        self.store = store

    def run(
        self,
        *args: str,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
        without: tuple[str, ...] = (),
    ) -> subprocess.CompletedProcess[str]:
        """Run ``phasetodo [--store S] ARGS`` and return the finished process."""
        store = ["--store", self.store] if self.store is not None else []
        if without:
            command = [sys.executable, "-c", _WITHOUT, ",".join(without), *store, *args]
        else:
            command = [sys.executable, "-m", "phasetodo.cli", *store, *args]
        return subprocess.run(
            command,
            cwd=self.cwd,
            input=stdin,
            capture_output=True,
            text=True,
            env=env if env is not None else _env(),
            timeout=60,
            check=False,
        )

    def ok(self, *args: str, stdin: str | None = None) -> str:
        """Run and require exit status 0; returns stdout."""
        done = self.run(*args, stdin=stdin)
        assert done.returncode == 0, done.stderr
        return done.stdout

    @contextlib.contextmanager
    def session(self, session: str = "default") -> Iterator[phasetodo.Session]:
        """The same session, opened in this process through the library."""
        spec = self.store if self.store is not None else ".phasetodo"
        store: phasetodo.Store
        if spec.startswith("sqlite:"):
            store = phasetodo.SqliteStore(self.cwd / spec.removeprefix("sqlite:"))
        else:
            store = phasetodo.JsonlStore(self.cwd / spec)
        try:
            with phasetodo.Session.open(session, store=store, resume="keep") as opened:
                yield opened
        finally:
            store.close()

    def phases(self, session: str = "default") -> list[dict[str, Any]]:
        """The stored list, read through the library."""
        with self.session(session) as opened:
            return phasetodo.dump_phases(opened.phases)

    def seed(self) -> Cli:
        """Write INIT to the default session through the library."""
        with self.session() as opened:
            opened.todo_write(INIT)
        return self


@pytest.fixture(params=["jsonl", "sqlite"])
def each_store(request: pytest.FixtureRequest, tmp_path: Path) -> Cli:
    """The command on a JSONL store directory or on a SQLite file."""
    store = "store" if request.param == "jsonl" else "sqlite:todo.db"
    return Cli(tmp_path, store)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The command on a JSONL store directory."""
    return Cli(tmp_path, "store")


@pytest.fixture
def seeded(cli: Cli) -> Cli:
    """A store whose default session holds INIT."""
    return cli.seed()


def _statuses(phases: list[dict[str, Any]]) -> dict[str, str]:
    return {t["content"]: t["status"] for p in phases for t in p["tasks"]}


class TestStores:
    def test_every_verb(self, each_store: Cli) -> None:
        """Each verb works on the JSONL store and on SQLite, state kept between runs."""
        cli = each_store
        assert "Read the failing test" in cli.ok("apply", json.dumps(INIT))
        assert "I. Explore  0/2" in cli.ok("show")
        cli.ok("append", "Fix", "Add a regression test")
        cli.ok("start", "suite")
        cli.ok("done", "suite")
        cli.ok("drop", "parser")
        cli.ok("rm", "regression")
        (cli.cwd / "in.md").write_text(cli.ok("export") + "- [ ] Ship it\n", encoding="utf-8")
        cli.ok("import", "in.md")
        editor = _editor(cli.cwd, "path.write_text(text.replace('[ ] Ship', '[x] Ship'))")
        done = cli.run("edit", env=_env(EDITOR=editor))
        assert done.returncode == 0, done.stderr
        assert _statuses(cli.phases()) == {
            "Read the failing test": "in_progress",
            "Find the parser bug": "abandoned",
            "Patch the tokenizer": "pending",
            "Run the test suite": "completed",
            "Ship it": "completed",
        }
        kinds = [line.split()[2] for line in cli.ok("history").splitlines()]
        assert kinds == ["write"] + ["user_edit"] * 7

    def test_files_land_in_the_store(self, each_store: Cli) -> None:
        """The JSONL store is a directory of logs; the SQLite store one database file."""
        each_store.ok("append", "Solo")
        if each_store.store == "store":
            assert any((each_store.cwd / "store").iterdir())
        else:
            with sqlite3.connect(each_store.cwd / "todo.db") as db:
                assert db.execute("select count(*) from sqlite_master").fetchone()[0] > 0

    def test_sessions_are_separate(self, seeded: Cli) -> None:
        """--session picks another list in the same store."""
        seeded.ok("--session", "other", "append", "Solo")
        assert _statuses(seeded.phases("other")) == {"Solo": "in_progress"}
        assert len(seeded.phases()) == 2

    def test_options_after_the_verb(self, seeded: Cli) -> None:
        """--store and --session are accepted after the verb as well."""
        out = seeded.ok("show", "--session", "default")
        assert "Read the failing test" in out

    def test_show_json(self, seeded: Cli) -> None:
        """show --json prints the phases as details.phases JSON."""
        assert json.loads(seeded.ok("show", "--json")) == seeded.phases()

    def test_default_store_is_dot_phasetodo(self, tmp_path: Path) -> None:
        """Without --store (and without $PHASETODO_HOME) the list lives in ./.phasetodo."""
        cli = Cli(tmp_path, None)
        cli.ok("append", "Fix", "Patch it")
        assert (tmp_path / ".phasetodo").is_dir()
        assert _statuses(cli.phases()) == {"Patch it": "in_progress"}


class TestShow:
    def test_tree(self, seeded: Cli) -> None:
        """show prints the tree with roman numerals and checkboxes."""
        out = seeded.ok("show")
        assert out.splitlines()[:3] == [
            "I. Explore  0/2",
            "├── ◐ Read the failing test",
            "└── ☐ Find the parser bug",
        ]
        assert "II. Fix  0/2" in out

    def test_markup_prints_literally(self, cli: Cli) -> None:
        """Task text like [x] foo or [bold]x[/] prints as typed."""
        cli.ok("append", "P", "[x] foo", "[bold]x[/]")
        out = cli.ok("show")
        assert "◐ [x] foo" in out
        assert "☐ [bold]x[/]" in out

    def test_rich_on_a_terminal(self, seeded: Cli) -> None:
        """On a terminal rich draws the tree in colour, finished tasks struck through."""
        seeded.ok("done", "parser")
        done = seeded.run("show", env=_env(FORCE_COLOR="1"))
        assert done.returncode == 0, done.stderr
        assert re.search(r"\x1b\[(?:\d+;)*9(?:;\d+)*mFind the parser bug\x1b", done.stdout)
        assert _ANSI.sub("", done.stdout) == seeded.ok("show")

    def test_plain_fallback_without_rich(self, seeded: Cli) -> None:
        """Without rich installed (or with --plain) the same tree is plain text, even on a terminal."""
        forced = _env(FORCE_COLOR="1")
        plain = seeded.run("show", without=("rich",), env=forced)
        assert plain.returncode == 0, plain.stderr
        assert "\x1b" not in plain.stdout
        assert plain.stdout == seeded.ok("show")
        assert plain.stdout == seeded.run("show", "--plain", env=forced).stdout

    def test_collapsed(self, cli: Cli) -> None:
        """show --collapsed caps a phase at 8 tasks with +N more."""
        cli.ok("append", "Big", *[f"task {i}" for i in range(11)])
        lines = cli.ok("show", "--collapsed").splitlines()
        assert len(lines) == 10
        assert lines[-1] == "└── +3 more"
        assert len(cli.ok("show").splitlines()) == 12

    def test_empty(self, cli: Cli) -> None:
        """An empty session shows that there is nothing to do."""
        with cli.session() as session:
            session.user_edit([])  # opening alone creates nothing; an empty list is a write
        assert cli.ok("show") == "No todos.\n"


class TestApply:
    def test_prints_summary(self, cli: Cli) -> None:
        """apply prints the tool's summary text and exits 0."""
        out = cli.ok("apply", json.dumps(INIT))
        assert out == phasetodo.todo_write(INIT)["content"][0]["text"] + "\n"

    def test_json_result(self, cli: Cli) -> None:
        """apply --json prints the whole tool result, storage "session"."""
        result = json.loads(cli.ok("apply", "--json", json.dumps(INIT)))
        expected = phasetodo.todo_write(INIT)
        assert result["content"] == expected["content"]
        assert result["details"] == {**expected["details"], "storage": "session"}

    def test_stdin(self, cli: Cli) -> None:
        """apply - reads the parameters from stdin."""
        cli.ok("apply", "-", stdin=json.dumps(INIT))
        assert len(cli.phases()) == 2

    def test_op_errors_exit_1(self, seeded: Cli) -> None:
        """Op errors are reported with exit 1 and the rest of the batch still applies."""
        params = {"ops": [{"op": "done", "task": "nope"}, {"op": "done", "task": "Patch the tokenizer"}]}
        done = seeded.run("apply", json.dumps(params))
        assert done.returncode == 1
        assert done.stdout.startswith('Errors: Task "nope" not found')
        assert _statuses(seeded.phases())["Patch the tokenizer"] == "completed"

    def test_invalid_json_exit_2(self, seeded: Cli) -> None:
        """Text that is not JSON is rejected with exit 2, naming the problem."""
        done = seeded.run("apply", "{ops: [")
        assert done.returncode == 2
        assert "apply: the parameters are not valid JSON" in done.stderr
        assert "line 1 column 2" in done.stderr

    def test_schema_errors_exit_2(self, seeded: Cli) -> None:
        """Arguments that break the schema are listed by place; nothing changes."""
        before = seeded.phases()
        done = seeded.run("apply", json.dumps({"ops": [{"op": "pending"}]}))
        assert done.returncode == 2
        assert "ops[0].op: must be one of init, start, done, drop, rm, append, note" in done.stderr
        assert "nothing was applied" in done.stderr
        assert seeded.phases() == before


class TestVerbs:
    def test_append_to_current_phase(self, seeded: Cli) -> None:
        """append TASK adds to the phase of the first open task."""
        out = seeded.ok("append", "Write notes")
        assert '+ "Write notes" [pending] (Explore)' in out
        assert [t["content"] for t in seeded.phases()[0]["tasks"]][-1] == "Write notes"

    def test_append_to_named_phase(self, seeded: Cli) -> None:
        """append PHASE TASK… adds to that phase, matched ignoring case, or creates it."""
        seeded.ok("append", "fix", "Add a regression test", "Update docs")
        seeded.ok("append", "Ship", "Tag the release")
        phases = seeded.phases()
        assert [t["content"] for t in phases[1]["tasks"]][-2:] == [
            "Add a regression test",
            "Update docs",
        ]
        assert phases[2] == {"name": "Ship", "tasks": [{"content": "Tag the release", "status": "pending"}]}

    def test_append_duplicate_exit_1(self, seeded: Cli) -> None:
        """Appending an existing task reports the op error with exit 1."""
        done = seeded.run("append", "Fix", "Patch the tokenizer", "New one")
        assert done.returncode == 1
        assert 'Task "Patch the tokenizer" already exists' in done.stderr
        assert "New one" in _statuses(seeded.phases())

    def test_done_fuzzy_substring(self, seeded: Cli) -> None:
        """done matches a unique substring of a task."""
        out = seeded.ok("done", "parser")
        assert '~ "Find the parser bug" pending → completed (Explore)' in out
        assert _statuses(seeded.phases())["Find the parser bug"] == "completed"

    def test_words_join_into_one_query(self, seeded: Cli) -> None:
        """Several words are one query, matched ignoring case."""
        seeded.ok("drop", "patch", "THE", "tokenizer")
        assert _statuses(seeded.phases())["Patch the tokenizer"] == "abandoned"

    def test_phase_target(self, seeded: Cli) -> None:
        """A query naming a phase acts on the whole phase."""
        seeded.ok("done", "explore")
        statuses = _statuses(seeded.phases())
        assert statuses["Read the failing test"] == statuses["Find the parser bug"] == "completed"
        assert statuses["Patch the tokenizer"] == "in_progress"

    def test_start_task_and_phase(self, seeded: Cli) -> None:
        """start takes a task, or a phase meaning its first pending task."""
        seeded.ok("start", "suite")
        assert _statuses(seeded.phases())["Run the test suite"] == "in_progress"
        seeded.ok("start", "--phase", "Fix")
        statuses = _statuses(seeded.phases())
        assert statuses["Patch the tokenizer"] == "in_progress"
        assert statuses["Run the test suite"] == "pending"

    def test_start_needs_a_target(self, seeded: Cli) -> None:
        """start without a target is bad usage (exit 2), naming what is missing."""
        done = seeded.run("start")
        assert done.returncode == 2
        assert "start: name the TASK to start" in done.stderr

    def test_ambiguous_lists_candidates(self, seeded: Cli) -> None:
        """An ambiguous query changes nothing, exits 1 and lists the candidates."""
        before = seeded.phases()
        done = seeded.run("done", "test")
        assert done.returncode == 1
        assert '"test" matches 2 targets' in done.stderr
        assert 'task "Read the failing test" (phase "Explore")' in done.stderr
        assert 'task "Run the test suite" (phase "Fix")' in done.stderr
        assert seeded.phases() == before

    def test_not_found(self, seeded: Cli) -> None:
        """A query matching nothing exits 1 naming the query."""
        done = seeded.run("rm", "--task", "Explore")
        assert done.returncode == 1
        assert 'rm: no task matches "Explore"' in done.stderr

    def test_rm_task_and_everything(self, seeded: Cli) -> None:
        """rm removes one task; with --all it removes every task and phase, as the reference's /todo."""
        seeded.ok("rm", "tokenizer")
        assert "Patch the tokenizer" not in _statuses(seeded.phases())
        seeded.ok("rm", "--all")
        assert seeded.phases() == []

    def test_done_everything(self, seeded: Cli) -> None:
        """done --all completes every task."""
        seeded.ok("done", "--all")
        assert set(_statuses(seeded.phases()).values()) == {"completed"}

    def test_verbs_are_user_edits(self, seeded: Cli) -> None:
        """Verbs are logged as user edits; apply as writes; history shows both with times."""
        seeded.ok("done", "parser")
        lines = seeded.ok("history").splitlines()
        assert len(lines) == 2
        assert lines[0].split()[0:3][0] == "1"
        assert " write " in lines[0]
        assert "+2 phases, +4 tasks" in lines[0]
        assert "user_edit (done)" in lines[1]
        assert "1 status change" in lines[1]
        assert lines[1].split()[1].endswith("+00:00")

    def test_history_empty(self, cli: Cli) -> None:
        """history of a session with no events (claimed by an agent at open) says so."""
        store = phasetodo.JsonlStore(cli.cwd / (cli.store or ".phasetodo"))
        phasetodo.Session.open("default", store, agent="main").close()  # opening alone creates nothing
        assert cli.ok("history") == "No events yet.\n"


class TestMarkdown:
    def test_export_stdout_and_file(self, seeded: Cli) -> None:
        """export writes the Markdown checklist to stdout or to a file."""
        text = seeded.ok("export")
        assert text == phasetodo.phases_to_markdown(seeded.phases())
        seeded.ok("export", "todo.md")
        assert (seeded.cwd / "todo.md").read_text(encoding="utf-8") == text

    def test_import_replaces_and_reports(self, seeded: Cli) -> None:
        """import replaces the list as a user edit and prints what changed."""
        (seeded.cwd / "in.md").write_text("# Ship\n- [x] Tag\n- [ ] Announce\n", encoding="utf-8")
        out = seeded.ok("import", "in.md")
        assert '+ phase "Ship"' in out
        assert '- "Patch the tokenizer" [pending] (Fix)' in out
        assert seeded.phases() == [
            {
                "name": "Ship",
                "tasks": [
                    {"content": "Tag", "status": "completed"},
                    {"content": "Announce", "status": "in_progress"},
                ],
            }
        ]
        assert "user_edit (import)" in seeded.ok("history")

    def test_import_stdin(self, cli: Cli) -> None:
        """import - reads Markdown from stdin."""
        cli.ok("import", "-", stdin="- [ ] Orphan\n")
        assert cli.phases()[0]["name"] == "Todos"

    def test_import_errors_exit_2(self, seeded: Cli) -> None:
        """Markdown with errors is rejected with its line numbers; nothing changes."""
        before = seeded.phases()
        (seeded.cwd / "bad.md").write_text("# P\n- [?] what\nhello\n", encoding="utf-8")
        done = seeded.run("import", "bad.md")
        assert done.returncode == 2
        assert 'Line 2: unknown status marker "[?]"' in done.stderr
        assert 'Line 3: unrecognized syntax "hello"' in done.stderr
        assert seeded.phases() == before

    def test_import_missing_file_exit_2(self, seeded: Cli) -> None:
        """A file that cannot be read is named in the error."""
        done = seeded.run("import", "nowhere.md")
        assert done.returncode == 2
        assert "import: cannot read nowhere.md: No such file or directory" in done.stderr


def _editor(tmp: Path, body: str) -> str:
    """An $EDITOR: a Python script that runs ``body`` with ``path`` and ``text`` bound."""
    script = tmp / "editor.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\npath = Path(sys.argv[1])\n"
        "text = path.read_text(encoding='utf-8')\n" + body + "\n",
        encoding="utf-8",
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


class TestEdit:
    def test_edit_applies_and_prints_changes(self, seeded: Cli) -> None:
        """The edited Markdown is applied as a user edit and the changes are printed."""
        editor = _editor(
            seeded.cwd,
            "text = text.replace('- [ ] Run the test suite', '- [x] Run the test suite')\n"
            "path.write_text(text + '- [ ] Write the changelog\\n', encoding='utf-8')",
        )
        done = seeded.run("edit", env=_env(EDITOR=editor))
        assert done.returncode == 0, done.stderr
        assert '~ "Run the test suite" pending → completed (Fix)' in done.stdout
        assert '+ "Write the changelog" [pending] (Fix)' in done.stdout
        statuses = _statuses(seeded.phases())
        assert statuses["Run the test suite"] == "completed"
        assert statuses["Write the changelog"] == "pending"
        assert "user_edit (edit)" in seeded.ok("history")

    def test_unchanged_edit(self, seeded: Cli) -> None:
        """Saving the text unchanged records nothing."""
        done = seeded.run("edit", env=_env(EDITOR=_editor(seeded.cwd, "pass")))
        assert done.returncode == 0
        assert done.stdout.startswith("No changes.")
        assert len(seeded.ok("history").splitlines()) == 1

    def test_bad_markdown_keeps_text(self, seeded: Cli) -> None:
        """Edited Markdown with errors changes nothing, exits 2 and keeps the text."""
        editor = _editor(seeded.cwd, "path.write_text(text + 'oops\\n', encoding='utf-8')")
        before = seeded.phases()
        done = seeded.run("edit", env=_env(EDITOR=editor))
        assert done.returncode == 2
        assert 'unrecognized syntax "oops"' in done.stderr
        kept = done.stderr.split("your text is kept in ")[1].split(")")[0]
        assert Path(kept).read_text(encoding="utf-8").endswith("oops\n")
        Path(kept).unlink()
        assert seeded.phases() == before

    def test_editor_failure(self, seeded: Cli) -> None:
        """An editor that exits non-zero changes nothing (exit 2, status named)."""
        done = seeded.run("edit", env=_env(EDITOR=_editor(seeded.cwd, "sys.exit(3)")))
        assert done.returncode == 2
        assert "exited with status 3; nothing changed" in done.stderr

    def test_no_editor(self, seeded: Cli) -> None:
        """Without $EDITOR, edit says to set it."""
        done = seeded.run("edit")
        assert done.returncode == 2
        assert "$EDITOR is not set" in done.stderr


class TestBadOptions:
    def test_store_is_a_file(self, tmp_path: Path) -> None:
        """A --store that is a file is rejected, naming it and the sqlite: form."""
        (tmp_path / "afile").write_text("x", encoding="utf-8")
        done = Cli(tmp_path, "afile").run("show")
        assert done.returncode == 2
        assert "--store afile: not a directory" in done.stderr
        assert "sqlite:afile" in done.stderr

    def test_unknown_store_kind(self, tmp_path: Path) -> None:
        """A --store with an unknown kind: prefix is rejected, naming the kind."""
        done = Cli(tmp_path, "redis://db/todo").run("show")
        assert done.returncode == 2
        assert "--store redis://db/todo: unknown store kind 'redis:'" in done.stderr
        assert not (tmp_path / "redis:").exists()

    def test_sqlite_without_file(self, tmp_path: Path) -> None:
        """sqlite: with no file name is rejected."""
        done = Cli(tmp_path, "sqlite:").run("show")
        assert done.returncode == 2
        assert "--store sqlite:: give the path after the colon, as in sqlite:todo.db" in done.stderr

    def test_sqlite_file_is_a_directory(self, tmp_path: Path) -> None:
        """sqlite:DIR is rejected, naming the directory."""
        (tmp_path / "d").mkdir()
        done = Cli(tmp_path, "sqlite:d").run("show")
        assert done.returncode == 2
        assert "--store sqlite:d: d is a directory, not a SQLite file" in done.stderr

    def test_sqlite_file_is_not_a_database(self, tmp_path: Path) -> None:
        """A file that is not SQLite is rejected with the store named."""
        (tmp_path / "junk.db").write_bytes(b"this is not a database" * 100)
        done = Cli(tmp_path, "sqlite:junk.db").run("show")
        assert done.returncode == 2
        assert "--store sqlite:junk.db" in done.stderr

    @pytest.mark.parametrize("session", ["../escape", "a/b", ""])
    def test_bad_session_id(self, cli: Cli, session: str) -> None:
        """A session id that could leave the store is rejected, naming --session."""
        done = cli.run("--session", session, "show")
        assert done.returncode == 2
        assert f"--session {session!r}" in done.stderr
        assert "Traceback" not in done.stderr

    @pytest.mark.parametrize("dsn", ["sqlite:todo.db", "store", "mysql://db/todo"])
    def test_db_init_needs_a_postgresql_dsn(self, cli: Cli, dsn: str) -> None:
        """`db init` with anything but a postgresql:// DSN is bad usage, naming it; nothing is made."""
        done = cli.run("db", "init", dsn)
        assert done.returncode == 2
        assert f"db init: {dsn!r} is not a PostgreSQL DSN" in done.stderr
        assert not list(cli.cwd.iterdir())

    def test_db_needs_an_action(self, cli: Cli) -> None:
        """`db` alone is bad usage: it names the missing action."""
        done = cli.run("db")
        assert done.returncode == 2
        assert "ACTION" in done.stderr

    def test_unknown_verb(self, cli: Cli) -> None:
        """An unknown verb is bad usage (exit 2)."""
        done = cli.run("frobnicate")
        assert done.returncode == 2
        assert "invalid choice: 'frobnicate'" in done.stderr


class TestDemo:
    def test_demo_on_a_fresh_directory(self, tmp_path: Path) -> None:
        """demo plays its calls into session "demo" of ./.phasetodo, even without rich."""
        cli = Cli(tmp_path, None)
        done = cli.run("demo", without=("rich",))
        assert done.returncode == 0, done.stderr
        out = done.stdout
        assert out.startswith('── call 1: todo_write {"ops": [{"op": "init"')
        assert 'Errors: Task "Patch the lexer" not found' in out
        assert "rejected, nothing applied:\ninvalid todo_write parameters:" in out
        assert "── Markdown export\n# Explore\n- [x] Read the failing test\n  > Fails on tabs only." in out
        assert "- [-] Rewrite the lexer" in out
        assert "stored as session 'demo' in ./.phasetodo (version 7)" in out
        assert (tmp_path / ".phasetodo").is_dir()
        assert cli.phases() == []
        assert _statuses(cli.phases("demo"))["Add a regression test"] == "pending"

    def test_demo_into_named_session(self, cli: Cli) -> None:
        """demo --session ID plays into that session of the given store."""
        cli.ok("--session", "try", "demo")
        assert len(cli.phases("try")) == 2


class TestMcp:
    def test_missing_extra_exit_2(self, cli: Cli) -> None:
        """Without the mcp package, mcp exits 2 naming the extra to install."""
        done = cli.run("mcp", without=("mcp",))
        assert done.returncode == 2
        assert "python -m pip install './phasetodo[mcp]' from a clone" in done.stderr

    def test_serves_the_session(self, seeded: Cli) -> None:
        """mcp serves the --store/--session list over stdio (initialize, then todo_read)."""
        command = [sys.executable, "-m", "phasetodo.cli", "--store", str(seeded.store), "mcp"]
        with subprocess.Popen(
            command,
            cwd=seeded.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=_env(),
        ) as server:
            assert server.stdin is not None
            assert server.stdout is not None

            def send(message: dict[str, Any]) -> None:
                server.stdin.write(json.dumps(message) + "\n")
                server.stdin.flush()

            send(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "test", "version": "0"},
                    },
                }
            )
            assert json.loads(server.stdout.readline())["id"] == 1
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            send(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "todo_read", "arguments": {}},
                }
            )
            reply = json.loads(server.stdout.readline())
            server.stdin.close()
            assert server.wait(timeout=30) == 0
        assert reply["id"] == 2
        assert "Read the failing test" in reply["result"]["content"][0]["text"]
        assert reply["result"]["structuredContent"]["storage"] == "session"


README = Path(__file__).parents[2] / "README.md"
# The README is the front door; its tour of the command moved to the command guide.
COMMAND_GUIDE = Path(__file__).parents[2] / "docs" / "command.md"
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


def _tour() -> list[tuple[str, str]]:
    """The ``$ command`` / output pairs of docs/command.md's cli section (once the README's), in order."""
    text = COMMAND_GUIDE.read_text(encoding="utf-8")
    match = re.search(r"<!-- section:cli -->\n(.*?)<!-- /section:cli -->", text, re.DOTALL)
    assert match, "docs/command.md has no cli section"
    steps: list[tuple[str, str]] = []
    for block in re.findall(r"```console\n(.*?)```", match[1], re.DOTALL):
        for chunk in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, _, output = chunk.partition("\n")
            steps.append((command, output))
    return steps


class TestReadme:
    def test_tour_output_is_real(self, tmp_path: Path) -> None:
        """The command guide's tour, run in order on a fresh store, prints what the guide shows."""
        steps = _tour()
        assert len(steps) >= 4
        for command, expected in steps:
            words = shlex.split(command)
            assert words[0] == "phasetodo"
            done = subprocess.run(
                [sys.executable, "-m", "phasetodo.cli", *words[1:]],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                env=_env(),
                timeout=60,
                check=False,
            )
            actual = _TIME.sub("TIME", done.stdout + done.stderr)
            expected = _TIME.sub("TIME", expected)
            if "…\n" in expected:  # the README elides the rest of this output
                expected = expected.split("…\n")[0]
                actual = actual[: len(expected)]
            assert actual == expected, command
