"""Where what was checked is kept: ``PHASETODO_CACHE_DIR``, else ``$XDG_CACHE_HOME``, else
``~/.cache`` (docs/sessions.md), and nothing is kept for a log without hashes."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import phasetodo

INIT = {"ops": [{"op": "init", "list": [{"phase": "P", "items": ["a", "b"]}]}]}


def _write_and_open(folder: Path) -> int:
    """Write two events to session ``s``, then open it fresh; the version it read."""
    store = phasetodo.JsonlStore(folder)
    with phasetodo.Session.open("s", store) as session:
        session.todo_write(INIT)
        session.todo_write({"ops": [{"op": "done", "task": "a"}]})
    store.close()
    store = phasetodo.JsonlStore(folder)
    with phasetodo.Session.open("s", store) as session:
        version = session.version
    store.close()
    return version


def _marks(folder: Path) -> list[dict[str, object]]:
    return [json.loads(path.read_text()) for path in folder.iterdir() if not path.name.startswith(".")]


class TestWhereMarksAreKept:
    def test_xdg_cache_home_is_used_without_the_override(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without ``PHASETODO_CACHE_DIR`` the mark goes under ``$XDG_CACHE_HOME/phasetodo/chain``."""
        monkeypatch.delenv("PHASETODO_CACHE_DIR")
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert _write_and_open(tmp_path / "logs") == 2
        marks = _marks(tmp_path / "xdg" / "phasetodo" / "chain")
        assert [mark["version"] for mark in marks] == [2]

    def test_the_home_cache_is_used_without_either(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without either variable the mark goes under ``~/.cache/phasetodo/chain``."""
        monkeypatch.delenv("PHASETODO_CACHE_DIR")
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert _write_and_open(tmp_path / "logs") == 2
        marks = _marks(tmp_path / "home" / ".cache" / "phasetodo" / "chain")
        assert [mark["version"] for mark in marks] == [2]

    def test_a_log_without_hashes_keeps_no_mark(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A log whose records carry no hash is read (with a warning) and leaves nothing to trust later."""
        monkeypatch.setenv("PHASETODO_CACHE_DIR", str(tmp_path / "cache"))
        store = phasetodo.JsonlStore(tmp_path / "logs")
        with phasetodo.Session.open("s", store) as session:
            session.todo_write(INIT)
        store.close()
        path = tmp_path / "logs" / "s.jsonl"
        header, *records = path.read_text().splitlines()
        bare = [json.dumps({k: v for k, v in json.loads(line).items() if k != "hash"}) for line in records]
        path.write_text("\n".join([header, *bare]) + "\n")
        store = phasetodo.JsonlStore(tmp_path / "logs")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with phasetodo.Session.open("s", store) as session:
                assert session.version == 1
        store.close()
        assert any(issubclass(w.category, phasetodo.errors.TamperedLogWarning) for w in caught)
        chain = tmp_path / "cache" / "chain"
        assert not chain.exists() or _marks(chain) == []
