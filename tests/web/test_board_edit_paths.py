"""Edits the board refuses: each answer names what is wrong, and nothing is recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

import phasetodo
from phasetodo.errors import InvalidOption
from phasetodo.web import Board, create_app

from ..web_support import TOKEN, init

BASE = "http://127.0.0.1:8765"
WRITE = {"origin": BASE, "x-phasetodo-token": TOKEN, "sec-fetch-site": "same-origin"}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[phasetodo.JsonlStore]:
    """Session ``plan`` (version 1) and the team plan ``team`` (version 1), in a JSONL store."""
    store = phasetodo.JsonlStore(tmp_path / "store")
    with phasetodo.Session.open("plan", store) as session:
        session.todo_write(init({"Fix": ["Find the bug", "Patch it"]}))
    with phasetodo.Session.open("team", store, profile="team", agent="lead") as session:
        session.todo_write(init({"Work": ["One", "Two"]}))
    yield store
    store.close()


@pytest.fixture
def client(store: phasetodo.JsonlStore) -> Iterator[TestClient]:
    with TestClient(create_app(Board(store), token=TOKEN, max_body=2048), base_url=BASE) as client:
        yield client


def _post(client: TestClient, content: bytes, session_id: str = "plan") -> httpx.Response:
    return client.post(
        f"/api/sessions/{session_id}/edit",
        content=content,
        headers={**WRITE, "content-type": "application/json"},
    )


def _refused(client: TestClient, body: dict[str, Any], session_id: str = "plan") -> tuple[int, str]:
    """Post ``body``; the status and message of the refusal (the log must not have moved)."""
    before = client.get(f"/api/sessions/{session_id}").json()["version"]
    response = client.post(f"/api/sessions/{session_id}/edit", json=body, headers=WRITE)
    assert client.get(f"/api/sessions/{session_id}").json()["version"] == before
    return response.status_code, response.json()["message"]


class TestBodies:
    def test_a_body_that_is_not_json_is_refused(self, client: TestClient) -> None:
        """Bytes that are not JSON answer 400 saying so."""
        response = _post(client, b"{not json")
        assert (response.status_code, response.json()["message"]) == (400, "The edit is not valid JSON.")

    def test_a_body_that_is_not_an_object_is_refused(self, client: TestClient) -> None:
        """A JSON array answers 400: an edit is an object."""
        response = _post(client, b"[1, 2]")
        assert (response.status_code, response.json()["message"]) == (400, "The edit must be a JSON object.")

    def test_a_body_over_the_limit_is_refused(self, client: TestClient) -> None:
        """A body past ``max_body`` bytes answers 413 naming the limit."""
        response = _post(client, b'{"pad": "' + b"x" * 4096 + b'"}')
        assert response.status_code == 413
        assert response.json()["message"] == "An edit may be at most 2048 bytes."


class TestFields:
    def test_markdown_that_is_not_text_is_named(self, client: TestClient) -> None:
        """The markdown action needs the list as text."""
        body = {"expected_version": 1, "action": "markdown", "markdown": ["# A"]}
        assert _refused(client, body) == (400, "Nothing changed: markdown: must be the list as Markdown text")

    def test_a_restore_without_an_integer_version_is_named(self, client: TestClient) -> None:
        """Restore needs the version as an integer."""
        body = {"expected_version": 1, "action": "restore", "version": "1"}
        assert _refused(client, body) == (
            400, "Nothing changed: version: must be the version to restore (an integer)",
        )

    @pytest.mark.parametrize("agent", ["  ", 7])
    def test_a_claim_for_a_blank_agent_is_named(self, client: TestClient, agent: object) -> None:
        """Starting a team task for an agent that is blank or not text is refused, naming ``agent``."""
        body = {"expected_version": 1, "action": "status", "phase": 0, "task": 0, "content": "One",
                "status": "in_progress", "agent": agent}
        assert _refused(client, body, "team") == (
            400, "Nothing changed: agent: must be the name of the agent who claims the task",
        )

    def test_an_unknown_action_names_the_actions(self, client: TestClient) -> None:
        """An action the board lacks is refused, listing those it has."""
        status, message = _refused(client, {"expected_version": 1, "action": "move"})
        assert status == 400
        assert message == (
            "Nothing changed: action: must be one of status, unblock, add, rename, markdown, restore"
        )


class TestTheBoardItself:
    def test_a_read_only_board_refuses_an_edit(self, store: phasetodo.JsonlStore) -> None:
        """``Board(read_only=True).edit`` raises PermissionError before reading anything."""
        with pytest.raises(PermissionError, match="read-only"):
            Board(store, read_only=True).edit("plan", {"expected_version": 1, "action": "add"})

    def test_an_app_needs_a_token(self, store: phasetodo.JsonlStore) -> None:
        """An empty token is refused, naming ``token``."""
        with pytest.raises(ValueError, match="token: must be a non-empty secret"):
            create_app(Board(store), token="")

    def test_an_app_needs_its_host_names(self, store: phasetodo.JsonlStore) -> None:
        """``hosts=None`` (once "any host") is refused, naming ``hosts``."""
        with pytest.raises(InvalidOption, match="hosts: name the hosts the board answers to"):
            create_app(Board(store), token=TOKEN, hosts=None)  # type: ignore[arg-type]
