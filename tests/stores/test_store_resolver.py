"""The one store resolver: the store-string grammar and the one default store, everywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import phasetodo
from phasetodo import cli
from phasetodo.errors import FormerDefaultStoreWarning, InvalidOption, InvalidStoreSpec, PhasetodoError
from phasetodo.session import default_directory
from phasetodo.stores import parse_store, store_from_url
from phasetodo.stores._url import ACCEPTED, shown

INIT = {"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Patch the tokenizer"]}]}]}

#: The strings the grammar refuses, with a piece of what the message says about each.
REFUSED = [
    ("sqlite://todo.db", "sqlite: takes a path, not //"),
    ("sqlite:///abs/todo.db", "sqlite: takes a path, not //"),
    ("jsonl://plans", "jsonl: takes a path, not //"),
    ("mysql://x", "unknown store kind 'mysql:'"),
    ("redis://db/todo", "unknown store kind 'redis:'"),
    ("file:plans", "unknown store kind 'file:'"),
    ("jsonl:", "give the path after the colon, as in jsonl:plans"),
    ("sqlite:", "give the path after the colon, as in sqlite:todo.db"),
    ("memory:x", "memory: takes nothing after the colon"),
    ("postgresql:db", "a PostgreSQL store is a URL"),
    ("", "empty"),
    ("   ", "empty"),
    ("host=db dbname=todo", "a key=value DSN"),
]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory, with a HOME of its own and no PHASETODO_HOME."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PHASETODO_HOME", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    return work


def _command(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``phasetodo ARGS`` as a real process in this process's environment."""
    return subprocess.run(
        [sys.executable, "-m", "phasetodo.cli", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "120"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


#: What the filesystem root held when the tests started: a refused string adds nothing there.
_ROOT = frozenset(os.listdir("/"))


def _nothing_at_root() -> None:
    assert frozenset(os.listdir("/")) <= _ROOT


class TestAcceptedForms:
    @pytest.mark.parametrize(
        ("text", "kind", "where"),
        [
            ("memory:", "memory", ""),
            ("MEMORY:", "memory", ""),
            ("jsonl:plans", "jsonl", "plans"),
            ("jsonl:/abs/plans", "jsonl", "/abs/plans"),
            ("jsonl:todo.db", "jsonl", "todo.db"),
            ("plans", "jsonl", "plans"),
            ("./a/b", "jsonl", "./a/b"),
            ("x.db/", "jsonl", "x.db/"),
            ("C:\\plans", "jsonl", "C:\\plans"),
            ("sqlite:todo", "sqlite", "todo"),
            ("sqlite:/abs/todo.db", "sqlite", "/abs/todo.db"),
            ("SQLite:todo.db", "sqlite", "todo.db"),
            ("todo.db", "sqlite", "todo.db"),
            ("todo.sqlite", "sqlite", "todo.sqlite"),
            ("a/todo.sqlite3", "sqlite", "a/todo.sqlite3"),
            ("TODO.DB", "sqlite", "TODO.DB"),
            ("postgresql://me@db/todo", "postgresql", "postgresql://me@db/todo"),
            ("postgres://me@db/todo", "postgresql", "postgres://me@db/todo"),
        ],
    )
    def test_each_form_parses(self, text: str, kind: str, where: str) -> None:
        """Each accepted form names its kind of store and its path or DSN."""
        spec = parse_store(text)
        assert (spec.kind, spec.where, spec.text) == (kind, where, text)

    @pytest.mark.parametrize(
        ("text", "cls"),
        [
            ("memory:", phasetodo.MemoryStore),
            ("jsonl:plans", phasetodo.JsonlStore),
            ("plans", phasetodo.JsonlStore),
            ("sqlite:todo", phasetodo.SqliteStore),
            ("todo.db", phasetodo.SqliteStore),
            ("todo.sqlite3", phasetodo.SqliteStore),
        ],
    )
    def test_each_form_opens_its_store(self, here: Path, text: str, cls: type[phasetodo.Store]) -> None:
        """store_from_url gives the store of that kind, and opening it creates nothing."""
        store = store_from_url(text)
        try:
            assert isinstance(store, cls)
            assert store.sessions() == []
        finally:
            store.close()
        assert list(here.iterdir()) == []

    @pytest.mark.parametrize("text", ["a/b/plans", "jsonl:a/b/plans", "a/b/todo.db", "sqlite:a/b/todo"])
    def test_missing_folders_are_made_at_the_first_write(self, here: Path, text: str) -> None:
        """JSONL and SQLite alike: the folders a store path lacks are made at its first write."""
        store = store_from_url(text)
        try:
            with phasetodo.Session.open("s", store=store) as session:
                assert list(here.iterdir()) == []  # opening made nothing
                session.todo_write(INIT)
        finally:
            store.close()
        assert (here / "a" / "b").is_dir()
        assert any((here / "a" / "b").iterdir())

    def test_a_folder_named_like_a_database_is_refused(self, here: Path) -> None:
        """An existing folder given as a SQLite path is refused, naming the jsonl: form."""
        (here / "plans.db").mkdir()
        with pytest.raises(InvalidStoreSpec, match=r"plans\.db is a directory.*jsonl:plans\.db"):
            store_from_url("plans.db")

    def test_a_file_given_as_a_folder_is_refused(self, here: Path) -> None:
        """An existing file given as a JSONL folder is refused, naming the sqlite: form."""
        (here / "afile").write_text("x", encoding="utf-8")
        with pytest.raises(InvalidStoreSpec, match=r"not a directory.*sqlite:afile"):
            store_from_url("afile")


class TestRejectedForms:
    @pytest.mark.parametrize(("text", "says"), REFUSED)
    def test_refused_with_the_accepted_forms(self, here: Path, text: str, says: str) -> None:
        """A malformed string or an unknown kind is an error naming the accepted forms; nothing is made."""
        with pytest.raises(InvalidStoreSpec) as caught:
            store_from_url(text)
        message = str(caught.value)
        assert says in message
        assert message.endswith(ACCEPTED)
        assert list(here.iterdir()) == []
        _nothing_at_root()

    def test_the_error_is_a_value_error(self) -> None:
        """InvalidStoreSpec is an InvalidOption, so a ValueError and a PhasetodoError."""
        with pytest.raises(InvalidStoreSpec) as caught:
            parse_store("mysql://x")
        assert isinstance(caught.value, InvalidOption)
        assert isinstance(caught.value, ValueError)
        assert isinstance(caught.value, PhasetodoError)

    @pytest.mark.parametrize(
        "text",
        [
            "mysql://me:s3cret@db/todo",
            "postgresql:me:s3cret@db/todo",
            "postgres:db?password=s3cret",
            "host=db password=s3cret",
        ],
    )
    def test_no_password_in_the_message(self, text: str) -> None:
        """The message never shows a password the string carries."""
        with pytest.raises(InvalidStoreSpec) as caught:
            parse_store(text)
        assert "s3cret" not in str(caught.value)

    def test_shown_keeps_paths_and_hides_passwords(self) -> None:
        """shown() hides a URL's password (keeping its user) and password= values, and leaves paths alone."""
        assert shown("postgresql://me:s3cret@db:5432/todo") == "postgresql://me:***@db:5432/todo"
        assert shown("postgres://db/todo?password=s3cret&x=1") == "postgres://db/todo?password=***&x=1"
        assert shown("jsonl:plans/@team") == "jsonl:plans/@team"
        assert shown("plans/@team") == "plans/@team"

    @pytest.mark.slow  # runs the command in a child process
    @pytest.mark.parametrize("text", ["sqlite://todo.db", "mysql://x", "jsonl:"])
    def test_the_command_refuses_them_and_creates_nothing(self, here: Path, text: str) -> None:
        """The command exits 2 on a refused --store, naming the forms; nothing is created here or at /."""
        done = _command("--store", text, "append", "Fix", "Patch it", cwd=here)
        assert done.returncode == 2
        assert f"--store {text}:" in done.stderr
        assert ACCEPTED in done.stderr
        assert list(here.iterdir()) == []
        _nothing_at_root()

    @pytest.mark.slow  # runs the command in a child process
    def test_the_command_hides_a_dsn_password(self, here: Path) -> None:
        """A PostgreSQL store that cannot be reached is named without its password."""
        done = _command("--store", "postgresql://me:s3cret@127.0.0.1:1/todo", "show", cwd=here)
        assert done.returncode == 2
        assert "--store postgresql://me:***@127.0.0.1:1/todo" in done.stderr
        assert "s3cret" not in done.stderr + done.stdout

    def test_the_board_refuses_them_before_listening(self, here: Path) -> None:
        """phasetodo.web.serve takes a store string and refuses a malformed one."""
        pytest.importorskip("starlette")
        pytest.importorskip("uvicorn")
        from phasetodo import web

        with pytest.raises(InvalidStoreSpec, match="unknown store kind 'mysql:'"):
            web.serve("mysql://x")
        assert cli.main(["--store", "mysql://x", "serve"]) == 2


class TestTheCommandTakesEveryForm:
    @pytest.mark.parametrize("text", ["memory:", "jsonl:plans", "plans", "sqlite:todo", "todo.db"])
    def test_append_works(self, here: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
        """--store memory:, jsonl:PATH, a folder, sqlite:PATH and *.db all work on the command."""
        assert cli.main(["--store", text, "append", "Fix", "Patch it"]) == 0
        assert "Patch it" in capsys.readouterr().out


class TestTheLibraryTakesEveryForm:
    @pytest.mark.parametrize("text", ["memory:", "jsonl:plans", "plans", "sqlite:todo", "todo.db"])
    def test_session_open_takes_the_string(self, here: Path, text: str) -> None:
        """Session.open(store=TEXT) opens what --store TEXT opens (it raised AttributeError on a str)."""
        with phasetodo.Session.open("x", store=text) as session:
            session.todo_write(INIT)
            version, storage = session.version, session.storage
        assert version == 1
        assert storage == store_from_url(text).storage
        if text != "memory:":
            assert cli.main(["--store", text, "--session", "x", "--json", "show"]) == 0

    def test_a_bad_string_is_the_commands_error(self, here: Path) -> None:
        """A string the resolver refuses raises the same InvalidStoreSpec, creating nothing."""
        with pytest.raises(InvalidStoreSpec, match="unknown store kind") as raised:
            phasetodo.Session.open("x", store="nope:zz")
        with pytest.raises(InvalidStoreSpec) as direct:
            parse_store("nope:zz")
        assert str(raised.value) == str(direct.value)
        assert os.listdir(here) == []


class TestDefaultStore:
    def test_default_is_dot_phasetodo(self, here: Path) -> None:
        """Without PHASETODO_HOME the default store is ./.phasetodo in the working directory."""
        assert default_directory() == here / ".phasetodo"
        assert phasetodo.stores.default_directory() == default_directory()
        with phasetodo.Session.open("x") as session:
            session.todo_write(INIT)
        assert (here / ".phasetodo" / "x.jsonl").is_file()

    def test_library_honours_phasetodo_home(
        self, here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With PHASETODO_HOME set, Session.open writes under $PHASETODO_HOME/sessions."""
        monkeypatch.setenv("PHASETODO_HOME", str(tmp_path / "ph"))
        with phasetodo.Session.open("x") as session:
            session.todo_write(INIT)
        assert (tmp_path / "ph" / "sessions" / "x.jsonl").is_file()
        assert not (here / ".phasetodo").exists()

    @pytest.mark.slow  # runs the command in a child process
    def test_command_honours_phasetodo_home(
        self, here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With PHASETODO_HOME set, the command writes under $PHASETODO_HOME/sessions."""
        monkeypatch.setenv("PHASETODO_HOME", str(tmp_path / "ph"))
        done = _command("append", "Fix", "Patch it", cwd=here)
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "ph" / "sessions" / "default.jsonl").is_file()
        assert list(here.iterdir()) == []

    @pytest.mark.slow  # runs the command in a child process
    @pytest.mark.parametrize("home", [False, True])
    def test_a_library_session_is_seen_by_the_command(
        self, here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: bool
    ) -> None:
        """Session.open("x") with no store, then `phasetodo --session x show` in a real process: same list."""
        if home:
            monkeypatch.setenv("PHASETODO_HOME", str(tmp_path / "ph"))
        with phasetodo.Session.open("x") as session:
            session.todo_write(INIT)
        done = _command("--session", "x", "show", "--plain", cwd=here)
        assert done.returncode == 0, done.stderr
        assert "Patch the tokenizer" in done.stdout
        again = _command("--session", "x", "show", "--json", cwd=here)
        with phasetodo.Session.open("x", resume="keep") as session:
            assert phasetodo.dump_phases(session.phases) == json.loads(again.stdout)

    @pytest.mark.slow  # runs the command in a child process
    def test_reading_verbs_on_a_missing_default_create_nothing(self, here: Path) -> None:
        """`phasetodo show` with no default store yet exits 1 and creates nothing."""
        done = _command("show", cwd=here)
        assert done.returncode == 1
        assert "there is no store directory ./.phasetodo" in done.stderr
        assert list(here.iterdir()) == []

    def test_a_session_at_the_former_default_warns(
        self, here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A session only under the former XDG default warns, saying how to reach it."""
        state = tmp_path / "state"
        monkeypatch.setenv("XDG_STATE_HOME", str(state))
        former = phasetodo.JsonlStore(state / "phasetodo" / "sessions")
        with phasetodo.Session.open("old", store=former) as old:
            old.todo_write(INIT)
        with pytest.warns(FormerDefaultStoreWarning, match=f"PHASETODO_HOME={state / 'phasetodo'}"):
            phasetodo.Session.open("old").close()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            phasetodo.Session.open("new").close()
            monkeypatch.setenv("PHASETODO_HOME", str(state / "phasetodo"))
            phasetodo.Session.open("old").close()
