"""A JSONL log whose header line was changed: opening names the header field, keeps every byte."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import phasetodo
from phasetodo.errors import CorruptLog


def _log_with_header(folder: Path, header: str, name: str = "s") -> Path:
    """Session ``s`` written once, its header line replaced by ``header``, the file named ``name``."""
    store = phasetodo.JsonlStore(folder)
    with phasetodo.Session.open("s", store) as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a"]}]}]})
    store.close()
    path = folder / "s.jsonl"
    _, rest = path.read_text().split("\n", 1)
    target = folder / f"{name}.jsonl"
    path.unlink()
    target.write_text(header + "\n" + rest)
    return target


class TestHeaderFields:
    @pytest.mark.parametrize(
        ("header", "message"),
        [
            ('{"format":2,"session":"s","owner":5}', "header.owner: must be a string"),
            ('{"format":9,"session":"s","owner":null}', "header.format: unsupported log format 9"),
            ('{"format":"2","session":"s","owner":null}', "header.format: unsupported log format '2'"),
            ("[1]", "not a phasetodo session log (it does not begin with a session header)"),
        ],
        ids=["owner", "format-too-new", "format-text", "not-an-object"],
    )
    def test_the_header_field_is_named(self, tmp_path: Path, header: str, message: str) -> None:
        """Each way the header can be wrong is named on line 1, and the file is left as it was."""
        path = _log_with_header(tmp_path, header)
        before = path.read_bytes()
        with pytest.raises(CorruptLog, match=rf"s\.jsonl:1: .*{re.escape(message)}"):
            phasetodo.Session.open("s", phasetodo.JsonlStore(tmp_path))
        assert path.read_bytes() == before

    def test_a_log_renamed_to_another_session_is_refused(self, tmp_path: Path) -> None:
        """A log copied under another session's name says whose it is."""
        _log_with_header(tmp_path, '{"format":2,"session":"s","owner":null}', name="t")
        named = r"t\.jsonl:1: .*header\.session: names 's', not this session 't'"
        with pytest.raises(CorruptLog, match=named):
            phasetodo.Session.open("t", phasetodo.JsonlStore(tmp_path))
