"""The board's numeric query parameters: ASCII digits with a length cap, anything else a 400."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import phasetodo

from ..web_support import init
from .test_web import _client

#: Not a plain number: a superscript digit, Arabic-Indic digits, 5,000 digits, a sign.
BAD = ("\u00b2", "\u0663", "9" * 5000, "-1", "")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """The board's app over a JSONL store with session ``plan``."""
    store = phasetodo.JsonlStore(tmp_path / "store")
    with phasetodo.Session.open("plan", store, resume="keep") as session:
        session.todo_write(init({"Explore": ["Read the test"]}))
    with _client(store) as opened:
        yield opened
    store.close()


class TestNumbers:
    @pytest.mark.parametrize("value", BAD)
    @pytest.mark.parametrize(
        "path", ["/api/sessions?offset=", "/api/sessions?limit=", "/api/sessions/plan/events?since=",
                 "/api/sessions/plan/events?limit="],
    )
    def test_not_a_plain_number_is_a_400(self, client: TestClient, path: str, value: str) -> None:
        """A value that is not 1 to 18 ASCII digits is answered 400 naming the parameter, never 500."""
        reply = client.get(path + value)
        assert reply.status_code == 400, reply.text
        assert path.rsplit("?", 1)[1].rstrip("=") in reply.text
