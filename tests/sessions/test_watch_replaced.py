"""A long-lived watch whose log is replaced (a checkout) at the worst moment: after it found no
new events and before it looked at the head. The new history must still be yielded, not taken
for the one the watch had read."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from phasetodo import JsonlStore, Session, _watching
from phasetodo.session import _Followed


class _ReplacedAfterEmptyRead:
    """The session's log, but the first read that finds nothing new swaps the file for
    ``sibling`` (a real ``os.replace``, what git does) before returning."""

    def __init__(self, log: Any, sibling: Path, path: Path) -> None:
        self._log, self._sibling, self._path = log, sibling, path

    def events(self, since: int = 0) -> Iterator[Any]:
        found = list(self._log.events(since))
        if not found and self._sibling.exists():
            os.replace(self._sibling, self._path)
        return iter(found)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)


@attrs.frozen
class _View:
    """The session's view, reading through the log above."""

    inner: _Followed
    log: Any

    @property
    def head(self) -> Any:
        return self.inner.head

    @property
    def closed(self) -> bool:
        return self.inner.closed

    @property
    def version(self) -> int:
        return self.inner.version

    def sync(self) -> Any:
        return self.inner.sync()

    def advance_to(self, version: int, phases: Any) -> None:
        self.inner.advance_to(version, phases)


def _two_branches(tmp_path: Path) -> tuple[JsonlStore, Path, Path]:
    """A plan's store, its log's path, and a sibling log (a branch) of as many events once the
    caller writes once more: the sibling appended "Only on the branch"."""
    store = JsonlStore(tmp_path / "store")
    with Session.open("plan", store, resume="keep") as session:
        session.todo_write({"ops": [{"op": "init", "list": [{"phase": "Work", "items": ["One"]}]}]})
    path = store.path_for("plan")
    (tmp_path / "sibling").mkdir()
    sibling = tmp_path / "sibling" / path.name
    sibling.write_bytes(path.read_bytes())
    with Session.open("plan", JsonlStore(tmp_path / "sibling"), resume="keep") as other:
        other.todo_write({"ops": [{"op": "append", "phase": "Work", "items": ["Only on the branch"]}]})
    return store, path, sibling


def test_a_checkout_between_the_read_and_the_head_is_yielded(tmp_path: Path) -> None:
    store, path, sibling = _two_branches(tmp_path)
    with Session.open("plan", store, resume="keep") as session:
        session.todo_write({"ops": [{"op": "start", "task": "One"}]})
        view = _View(_Followed(session), _ReplacedAfterEmptyRead(session._log, sibling, path))
        event = next(_watching.watch(view, timeout=2.0), None)
        assert event is not None, "the replaced log was taken for the one already read"
        assert event.version == 2
        assert [t.content for t in event.phases[0].tasks] == ["One", "Only on the branch"]
        assert [t.content for t in session.phases[0].tasks] == ["One", "Only on the branch"]


@pytest.mark.parametrize("named", [False, True], ids=["after-none", "after-the-version"])
def test_awatch_yields_a_checkout_under_it(tmp_path: Path, named: bool) -> None:
    """:meth:`Session.awatch` (what ACP follows a plan with, naming the version it sent last)
    adopts a replaced log and yields it."""
    import asyncio

    store, path, sibling = _two_branches(tmp_path)
    with Session.open("plan", store, resume="keep") as session:
        session.todo_write({"ops": [{"op": "start", "task": "One"}]})

        async def first() -> Any:
            asyncio.get_running_loop().call_later(0.3, os.replace, sibling, path)
            async for event in session.awatch(timeout=5.0, after=session.version if named else None):
                return event
            return None

        event = asyncio.run(first())
        assert event is not None, "awatch never yielded the checked-out log"
        assert [t.content for t in event.phases[0].tasks] == ["One", "Only on the branch"]
        assert [t.content for t in session.phases[0].tasks] == ["One", "Only on the branch"]
