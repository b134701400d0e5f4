"""The board's HTTP surface: every route through httpx against the ASGI app, and a real server."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

import phasetodo
import phasetodo.web
from phasetodo.web import Board, create_app
from phasetodo.web.access import Access
from phasetodo.web.edits import add_task, rename

from ..stores.test_plan_header import OLD_LOGS
from ..web_support import TOKEN, init, kinds, latest, running_board, write_from_another_process

BASE = "http://127.0.0.1:8765"
ORIGIN = {"origin": BASE}
WRITE = {"origin": BASE, "x-phasetodo-token": TOKEN, "sec-fetch-site": "same-origin"}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[phasetodo.JsonlStore]:
    """A JSONL store with session ``plan`` (two phases, version 2) and session ``team`` (owned)."""
    store = phasetodo.JsonlStore(tmp_path / "store")
    with phasetodo.Session.open("plan", store, resume="keep") as session:
        session.todo_write(init({"Explore": ["Read the test", "Find the bug"], "Fix": ["Patch it"]}))
        session.todo_write({"ops": [{"op": "note", "task": "Read the test", "text": "tabs only"}]})
    with phasetodo.Session.open("team", store, agent="lead") as session:
        session.todo_write(init({"Work": ["One"]}))
    yield store
    store.close()


def _sibling_branch(store: phasetodo.JsonlStore, tmp_path: Path) -> tuple[Path, Path]:
    """The plan's log path, and a copy of that log (a branch) that appended "Only on the branch"."""
    path = store.path_for("plan")
    folder = tmp_path / "sibling"
    folder.mkdir()
    (folder / path.name).write_bytes(path.read_bytes())
    with phasetodo.Session.open("plan", phasetodo.JsonlStore(folder), resume="keep") as other:
        other.todo_write({"ops": [{"op": "append", "phase": "Fix", "items": ["Only on the branch"]}]})
    return path, folder / path.name


def _client(store: phasetodo.Store, *, read_only: bool = False) -> TestClient:
    board = Board(store, read_only=read_only)
    return TestClient(create_app(board, token=TOKEN), base_url=BASE)


@pytest.fixture
def client(store: phasetodo.JsonlStore) -> Iterator[TestClient]:
    """An httpx client on the board's ASGI app over ``store``."""
    with _client(store) as client:
        yield client


#: Every file the board's page may load, as shipped in the package.
STATIC_FILES = sorted(p.name for p in (Path(phasetodo.web.__file__).parent / "static").iterdir())
_IMPORT = re.compile(r'^import (?:[^"]* from )?"\./([\w-]+\.js)";$', re.MULTILINE)


def _modules(client: TestClient) -> dict[str, str]:
    """The board's script as the browser loads it: main.js and every module it imports, by name."""
    found: dict[str, str] = {}
    waiting = ["main.js"]
    while waiting:
        name = waiting.pop()
        if name in found:
            continue
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        found[name] = response.text
        waiting.extend(_IMPORT.findall(response.text))
    return found


def _edit(client: TestClient, body: dict[str, Any], headers: dict[str, str] | None = None) -> httpx.Response:
    return client.post("/api/sessions/plan/edit", json=body, headers=WRITE if headers is None else headers)


class TestPages:
    @pytest.mark.parametrize("path", ["/", "/s/plan", "/s/plan/history", "/s/plan/v/1"])
    def test_every_page_is_the_static_shell(self, client: TestClient, path: str) -> None:
        """Pages are one static HTML file: no plan data is put into markup by the server."""
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        assert '<script type="module" src="/static/main.js"></script>' in response.text
        assert response.text.count("<script") == 1
        assert "Read the test" not in response.text

    def test_the_shell_preloads_every_module(self, client: TestClient) -> None:
        """board.html names each module main.js imports for preloading, so none waits on another."""
        shell = client.get("/s/plan").text
        preloaded = set(re.findall(r'<link rel="modulepreload" href="/static/([\w-]+\.js)">', shell))
        assert preloaded == set(_modules(client)) - {"main.js"}

    def test_responses_carry_a_strict_content_security_policy(self, client: TestClient) -> None:
        """No inline script can run: scripts and styles come only from the board itself."""
        for path in ("/", "/api/sessions", "/static/main.js", "/static/plan-list.js"):
            headers = client.get(path).headers
            policy = headers["content-security-policy"]
            assert "script-src 'self'" in policy
            assert "default-src 'none'" in policy
            assert "unsafe-inline" not in policy
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["referrer-policy"] == "no-referrer"

    @pytest.mark.parametrize("name", STATIC_FILES)
    def test_static_files_are_served_from_the_package(self, client: TestClient, name: str) -> None:
        """The page needs nothing from outside the machine: its files ship in the package."""
        response = client.get(f"/static/{name}")
        assert response.status_code == 200
        assert "http://" not in response.text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in response.text

    def test_script_never_builds_markup_from_text(self, client: TestClient) -> None:
        """Plan text only ever reaches the page as text nodes, in every module of the script."""
        for name, script in _modules(client).items():
            for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
                assert sink not in script, name

    def test_the_entry_module_imports_every_script_the_package_ships(self, client: TestClient) -> None:
        """main.js reaches each .js file of the package through static imports, and only those."""
        assert not any("import(" in script for script in _modules(client).values())  # no late imports
        assert set(_modules(client)) == {name for name in STATIC_FILES if name.endswith(".js")}

    def test_scripts_are_served_as_javascript(self, client: TestClient) -> None:
        """Every module comes as text/javascript (a browser runs a module script only with a JS type)."""
        for name in _modules(client):
            assert client.get(f"/static/{name}").headers["content-type"] == "text/javascript; charset=utf-8"

    def test_script_and_style_types_do_not_depend_on_the_system_mime_table(
        self, client: TestClient, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A MIME table that calls .js and .css plain text (some systems do) changes nothing."""
        import starlette.responses

        monkeypatch.setattr(starlette.responses, "guess_type", lambda *_args, **_kw: ("text/plain", None))
        assert client.get("/static/main.js").headers["content-type"] == "text/javascript; charset=utf-8"
        assert client.get("/static/board.css").headers["content-type"] == "text/css; charset=utf-8"
        assert client.get("/static/favicon.svg").headers["content-type"].startswith("text/plain")

    def test_a_private_board_serves_its_script_without_the_token(self, store: phasetodo.JsonlStore) -> None:
        """Reads beyond loopback want the token on the API only: the page and its modules load first."""
        app = create_app(Board(store), token=TOKEN, hosts=Access(private=True))
        with TestClient(app, base_url=BASE) as client:
            assert client.get("/api/sessions").status_code == 403
            assert client.get("/").status_code == 200
            for name in _modules(client):
                assert client.get(f"/static/{name}").status_code == 200, name

    def test_a_foreign_host_header_is_refused(self, client: TestClient) -> None:
        """A page on another name (DNS rebinding) cannot read the plans."""
        response = client.get("/api/sessions", headers={"host": "evil.example:8765"})
        assert response.status_code == 400
        assert response.json()["error"] == "host"

    @pytest.mark.parametrize("host", ["localhost:8765", "127.0.0.1", "[::1]:8765"])
    def test_local_host_names_are_served(self, client: TestClient, host: str) -> None:
        """The loopback names a browser uses all reach the board."""
        assert client.get("/api/sessions", headers={"host": host}).status_code == 200


class TestReads:
    def test_sessions_lists_progress_agents_and_last_change(self, client: TestClient) -> None:
        """The sessions page data: counts, open tasks, owner, last event."""
        data = client.get("/api/sessions").json()
        assert [s["id"] for s in data["sessions"]] == ["plan", "team"]
        plan, team = data["sessions"]
        assert (plan["tasks"], plan["open"], plan["completed"], plan["version"]) == (3, 3, 0, 2)
        assert plan["kind"] == "write"
        assert plan["active"] == ["Read the test"]
        assert team["owner"] == "lead"
        assert team["agents"] == ["lead"]
        assert data["read_only"] is False

    def test_agents_are_everyone_who_wrote(self, client: TestClient, store: phasetodo.JsonlStore) -> None:
        """A shared session lists each agent that wrote to it, and a new writer joins live."""
        with phasetodo.Session.open("shared", store, resume="keep") as session:
            session.todo_write(init({"A": ["one", "two"]}), agent="bob")
            session.todo_write({"ops": [{"op": "done", "task": "one"}]}, agent="ann")
            assert client.get("/api/sessions/shared").json()["agents"] == ["ann", "bob"]
            session.todo_write({"ops": [{"op": "done", "task": "two"}]}, agent="cy")
        shared = next(s for s in client.get("/api/sessions").json()["sessions"] if s["id"] == "shared")
        assert shared["agents"] == ["ann", "bob", "cy"]
        assert shared["agent"] == "cy"

    def test_a_longer_branch_checked_out_lists_only_its_own_agents(
        self, client: TestClient, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """A checkout of a branch with more events than the log the board read: agents who wrote
        only on the old branch leave the list (the longer history is not an append to it)."""
        with phasetodo.Session.open("shared", store, resume="keep") as session:
            session.todo_write(init({"A": ["one", "two"]}), agent="bob")
        path = store.path_for("shared")
        branch = tmp_path / "branch"
        branch.mkdir()
        (branch / path.name).write_bytes(path.read_bytes())
        with phasetodo.Session.open("shared", phasetodo.JsonlStore(branch), resume="keep") as other:
            for item in ("three", "four"):
                other.todo_write({"ops": [{"op": "append", "phase": "A", "items": [item]}]}, agent="dee")
        with phasetodo.Session.open("shared", store, resume="keep") as session:
            session.todo_write({"ops": [{"op": "done", "task": "one"}]}, agent="ann")
        assert client.get("/api/sessions/shared").json()["agents"] == ["ann", "bob"]
        os.replace(branch / path.name, path)  # what git does on checkout: a new file
        shown = client.get("/api/sessions/shared").json()
        assert (shown["version"], shown["agents"]) == (3, ["bob", "dee"])

    def test_plan_is_the_newest_list(self, client: TestClient) -> None:
        """The plan route gives every phase, task, status and note with its version."""
        data = client.get("/api/sessions/plan").json()
        assert data["version"] == 2
        assert data["phases"][0]["tasks"][0] == {
            "content": "Read the test",
            "status": "in_progress",
            "notes": ["tabs only"],
        }
        assert data["counts"]["open"] == 3
        assert data["agents"] == []

    def test_unknown_session_is_404_and_is_not_created(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """Reading a session the store lacks creates nothing."""
        for path in (
            "/api/sessions/nope",
            "/api/sessions/nope/events",
            "/api/sessions/nope/markdown",
            "/api/sessions/nope/versions/1",
            "/api/sessions/nope/stream",
        ):
            response = client.get(path)
            assert response.status_code == 404, path
            assert "nope" in response.json()["message"]
        assert store.sessions() == ["plan", "team"]

    def test_history_has_every_event_with_its_diff(self, client: TestClient) -> None:
        """Each event: version, kind, time and what it changed from the one before."""
        events = client.get("/api/sessions/plan/events").json()["events"]
        assert [e["version"] for e in events] == [1, 2]
        assert [t["content"] for t in events[0]["diff"]["added"]] == [
            "Read the test",
            "Find the bug",
            "Patch it",
        ]
        assert events[1]["diff"]["notes_added"] == [
            {"phase": "Explore", "content": "Read the test", "text": "tabs only"}
        ]
        assert isinstance(events[1]["time"], float)

    def test_history_since_gives_only_newer_events(self, client: TestClient) -> None:
        """``since`` lets a live history page fetch only what is new."""
        events = client.get("/api/sessions/plan/events?since=1").json()["events"]
        assert [e["version"] for e in events] == [2]
        assert client.get("/api/sessions/plan/events?since=x").status_code == 400

    def test_history_limit_keeps_the_newest_events(self, client: TestClient) -> None:
        """``limit`` gives the newest events and says how many older ones were left out."""
        data = client.get("/api/sessions/plan/events?limit=1").json()
        assert [e["version"] for e in data["events"]] == [2]
        assert data["omitted"] == 1
        assert data["events"][0]["diff"]["notes_added"][0]["text"] == "tabs only"
        assert client.get("/api/sessions/plan/events?limit=0").status_code == 400

    def test_plan_at_a_version(self, client: TestClient) -> None:
        """The plan as it was at any version, with the newest version beside it."""
        data = client.get("/api/sessions/plan/versions/1").json()
        assert (data["version"], data["latest"]) == (1, 2)
        assert "notes" not in data["phases"][0]["tasks"][0]
        assert client.get("/api/sessions/plan/versions/3").status_code == 404

    def test_markdown_of_the_newest_list(self, client: TestClient) -> None:
        """The editor starts from the list as Markdown and the version it shows."""
        data = client.get("/api/sessions/plan/markdown").json()
        assert data["version"] == 2
        assert data["markdown"].startswith("# Explore\n- [/] Read the test\n  > tabs only\n")


class TestWrites:
    def test_done_is_a_user_edit_from_the_board(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """Marking a task done appends one user_edit event with source board."""
        body = {
            "expected_version": 2,
            "action": "status",
            "phase": 1,
            "task": 0,
            "status": "completed",
            "content": "Patch it",
        }
        response = _edit(client, body)
        assert response.status_code == 200
        assert response.json()["plan"]["version"] == 3
        assert kinds(store, "plan")[-1] == ("user_edit", "board")
        assert latest(store, "plan")[1].tasks[0].status is phasetodo.Status.COMPLETED

    def test_start_sets_the_active_task_back_to_pending(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """Starting a task keeps one task active, as the start op does."""
        body = {"expected_version": 2, "action": "status", "phase": 1, "task": 0, "status": "in_progress"}
        assert _edit(client, body).status_code == 200
        statuses = [t.status.value for p in latest(store, "plan") for t in p.tasks]
        assert statuses == ["pending", "pending", "in_progress"]

    def test_add_rename_markdown_and_restore(self, client: TestClient, store: phasetodo.JsonlStore) -> None:
        """Each edit kind lands as its own user_edit event, building on the one before."""
        steps = [
            {"action": "add", "phase": "Fix", "content": "Add a regression test"},
            {"action": "add", "phase": "Ship", "content": "Tag the release"},
            {"action": "rename", "phase": 1, "task": 0, "old": "Patch it", "name": "Patch the lexer"},
            {"action": "rename", "phase": 0, "old": "Explore", "name": "Look"},
            {"action": "markdown", "markdown": "# Only\n- [ ] one\n- [x] two\n"},
            {"action": "restore", "version": 1},
        ]
        for number, step in enumerate(steps):
            response = _edit(client, {**step, "expected_version": 2 + number})
            assert response.status_code == 200, response.text
        history = client.get("/api/sessions/plan/events").json()["events"]
        assert [e["kind"] for e in history[2:]] == ["user_edit"] * len(steps)
        added = [t["content"] for e in history[2:4] for t in e["diff"]["added"]]
        assert added == ["Add a regression test", "Tag the release"]
        assert history[6]["diff"]["added"] == [
            {"phase": "Only", "content": "one", "status": "in_progress"},
            {"phase": "Only", "content": "two", "status": "completed"},
        ]
        first = client.get("/api/sessions/plan/versions/1").json()["phases"]
        assert client.get("/api/sessions/plan").json()["phases"] == first

    def test_an_edit_that_changes_nothing_records_nothing(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """Restoring the newest version is a no-op: no event."""
        response = _edit(client, {"expected_version": 2, "action": "restore", "version": 2})
        assert response.json()["changed"] is False
        assert len(kinds(store, "plan")) == 2

    def test_a_stale_page_gets_a_conflict_and_nothing_changes(
        self, client: TestClient, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """An edit based on version 2 after another process wrote version 3 is refused."""
        write_from_another_process(
            tmp_path / "store", "plan", {"ops": [{"op": "done", "task": "Find the bug"}]}
        )
        body = {"expected_version": 2, "action": "status", "phase": 1, "task": 0, "status": "completed"}
        response = _edit(client, body)
        assert response.status_code == 409
        data = response.json()
        assert (data["error"], data["expected"], data["version"]) == ("conflict", 2, 3)
        assert "Nothing changed" in data["message"]
        assert [k for k, _ in kinds(store, "plan")] == ["write", "write", "write"]

    @pytest.mark.parametrize(
        ("headers", "code"),
        [
            ({"origin": BASE}, "token"),
            ({"origin": BASE, "x-phasetodo-token": "wrong"}, "token"),
            ({"x-phasetodo-token": TOKEN}, "origin"),
            ({"origin": "http://evil.example", "x-phasetodo-token": TOKEN}, "origin"),
            ({"origin": "http://127.0.0.1:9999", "x-phasetodo-token": TOKEN}, "origin"),
            ({"origin": BASE, "x-phasetodo-token": TOKEN, "sec-fetch-site": "cross-site"}, "origin"),
            ({"origin": BASE, "x-phasetodo-token": TOKEN, "sec-fetch-site": "same-site"}, "origin"),
        ],
    )
    def test_writes_without_token_or_from_elsewhere_are_refused(
        self, client: TestClient, store: phasetodo.JsonlStore, headers: dict[str, str], code: str
    ) -> None:
        """Every write needs the token and a same-origin request; a refused one changes nothing."""
        body = {"expected_version": 2, "action": "status", "phase": 1, "task": 0, "status": "completed"}
        response = _edit(client, body, headers)
        assert response.status_code == 403
        assert response.json()["error"] == code
        assert len(kinds(store, "plan")) == 2

    def test_a_write_must_be_json(self, client: TestClient, store: phasetodo.JsonlStore) -> None:
        """A form post (which another site could send) is refused by its content type."""
        response = client.post(
            "/api/sessions/plan/edit",
            content=b"action=status",
            headers={**WRITE, "content-type": "application/x-www-form-urlencoded"},
        )
        assert response.status_code == 415
        assert len(kinds(store, "plan")) == 2

    def test_an_oversized_edit_is_refused(self, store: phasetodo.JsonlStore) -> None:
        """A body past the limit is refused before it is parsed."""
        app = create_app(Board(store), token=TOKEN, max_body=100)
        with TestClient(app, base_url=BASE) as client:
            body = {"expected_version": 2, "action": "markdown", "markdown": "# A\n" + "- [ ] x\n" * 50}
            response = _edit(client, body)
        assert response.status_code == 413
        assert len(kinds(store, "plan")) == 2

    def test_read_only_refuses_every_write(self, store: phasetodo.JsonlStore) -> None:
        """``--read-only``: even a write with the token is refused."""
        with _client(store, read_only=True) as client:
            assert client.get("/api/sessions").json()["read_only"] is True
            for action in (
                {"action": "restore", "version": 1},
                {"action": "add", "phase": "X", "content": "y"},
            ):
                response = _edit(client, {"expected_version": 2, **action})
                assert response.status_code == 403
                assert response.json()["error"] == "read_only"
        assert len(kinds(store, "plan")) == 2

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"action": "status", "phase": 0, "task": 0, "status": "completed"}, "expected_version"),
            ({"expected_version": 2, "action": "explode"}, "action"),
            (
                {"expected_version": 2, "action": "status", "phase": 5, "task": 0, "status": "completed"},
                "phase",
            ),
            ({"expected_version": 2, "action": "status", "phase": 0, "task": 0, "status": "done"}, "status"),
            (
                {
                    "expected_version": 2,
                    "action": "status",
                    "phase": 0,
                    "task": 0,
                    "status": "completed",
                    "content": "Something else",
                },
                "task",
            ),
            ({"expected_version": 2, "action": "add", "phase": "Fix", "content": "Patch it"}, "content"),
            ({"expected_version": 2, "action": "add", "phase": "Fix", "content": "  "}, "content"),
            ({"expected_version": 2, "action": "add", "phase": "Fix", "content": "a\nb"}, "content"),
            ({"expected_version": 2, "action": "rename", "phase": 0, "name": "Fix"}, "name"),
            ({"expected_version": 2, "action": "rename", "phase": 0, "task": 0, "name": "Patch it"}, "name"),
            ({"expected_version": 2, "action": "markdown", "markdown": "# A\n- [?] what\n"}, "markdown"),
            ({"expected_version": 2, "action": "restore", "version": 9}, "version"),
        ],
    )
    def test_bad_edits_name_the_field_and_change_nothing(
        self, client: TestClient, store: phasetodo.JsonlStore, body: dict[str, Any], field: str
    ) -> None:
        """A malformed edit is a 400 whose message names the field; nothing is appended."""
        response = _edit(client, body)
        assert response.status_code == 400, response.text
        assert field in response.json()["message"]
        assert len(kinds(store, "plan")) == 2

    def test_an_edit_on_an_owned_session_is_allowed(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """A person may edit an agent's session; the owner stays."""
        body = {"expected_version": 1, "action": "status", "phase": 0, "task": 0, "status": "completed"}
        response = client.post("/api/sessions/team/edit", json=body, headers=WRITE)
        assert response.status_code == 200
        assert kinds(store, "team")[-1] == ("user_edit", "board")

    def test_writes_to_an_unknown_session_are_404(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """The board never creates a session."""
        body = {"expected_version": 0, "action": "add", "phase": "A", "content": "b"}
        assert client.post("/api/sessions/ghost/edit", json=body, headers=WRITE).status_code == 404
        assert store.sessions() == ["plan", "team"]


class TestTeamPlans:
    """Board edits on a team plan are a person's edits, repaired to the team rules."""

    @staticmethod
    def _crew(store: phasetodo.Store) -> None:
        """Session ``crew``: a team plan whose agent w1 holds "A"; "B" and "C" are pending."""
        with phasetodo.Session.open("crew", store, profile="team", agent="lead") as lead:
            assert not lead.todo_write(init({"Work": ["A", "B", "C"]})).get("isError")
        with phasetodo.Session.open("crew", store, profile="team", agent="w1") as worker:
            assert not worker.todo_write({"ops": [{"op": "start", "task": "A"}]}).get("isError")

    @staticmethod
    def _unowned_active(phases: tuple[phasetodo.Phase, ...]) -> list[str]:
        return [
            t.content for p in phases for t in p.tasks
            if t.status is phasetodo.Status.IN_PROGRESS and t.owner is None
        ]

    def test_a_board_start_without_an_agent_is_refused(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """A claim on a team plan always has an owner: a Start that names no agent changes nothing."""
        self._crew(store)
        body = {"expected_version": 2, "action": "status", "phase": 0, "task": 1, "status": "in_progress"}
        response = client.post("/api/sessions/crew/edit", json=body, headers=WRITE)
        assert response.status_code == 400, response.text
        assert "a person does not claim tasks" in response.json()["message"]
        assert self._unowned_active(latest(store, "crew")) == []
        assert len(kinds(store, "crew")) == 2

    def test_a_board_start_claims_for_the_agent_it_names(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """A Start that names an agent claims the task for that agent, by the team rules."""
        self._crew(store)
        body = {
            "expected_version": 2, "action": "status", "phase": 0, "task": 1, "status": "in_progress",
            "agent": "w2",
        }
        response = client.post("/api/sessions/crew/edit", json=body, headers=WRITE)
        assert response.status_code == 200, response.text
        assert [(t.content, t.status.value, t.owner) for t in latest(store, "crew")[0].tasks] == [
            ("A", "in_progress", "w1"), ("B", "in_progress", "w2"), ("C", "pending", None)
        ]
        assert kinds(store, "crew")[-1] == ("user_edit", "board")

    def test_a_board_edit_on_a_team_plan_is_repaired_before_it_is_recorded(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """A Markdown edit that starts a task with no owner lands with the task pending."""
        self._crew(store)
        text = "# Work\n\n- [ ] A\n- [/] B\n- [ ] C\n"
        body = {"expected_version": 2, "action": "markdown", "markdown": text}
        response = client.post("/api/sessions/crew/edit", json=body, headers=WRITE)
        assert response.status_code == 200, response.text
        assert kinds(store, "crew")[-1] == ("user_edit", "board")
        assert self._unowned_active(latest(store, "crew")) == []

    def test_unblock_runs_the_team_profiles_unblock(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """Unblock from the board is the team op, as ``phasetodo unblock`` runs it: pending, no reason."""
        self._crew(store)
        with phasetodo.Session.open("crew", store, profile="team", agent="lead") as lead:
            assert not lead.todo_write({"ops": [{"op": "block", "task": "C", "reason": "CI"}]}).get("isError")
        body = {"expected_version": 3, "action": "unblock", "phase": 0, "task": 2, "content": "C"}
        response = client.post("/api/sessions/crew/edit", json=body, headers=WRITE)
        assert response.status_code == 200, response.text
        assert response.json()["plan"]["team"] is True
        task = latest(store, "crew")[0].tasks[2]
        assert (task.status, task.owner, task.reason) == (phasetodo.Status.PENDING, None, None)
        assert kinds(store, "crew")[-1] == ("user_edit", "board")

    def test_unblock_of_a_task_that_is_not_blocked_changes_nothing(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """The team engine refuses to unblock a task that is not blocked; nothing is recorded."""
        self._crew(store)
        body = {"expected_version": 2, "action": "unblock", "phase": 0, "task": 1, "content": "B"}
        response = client.post("/api/sessions/crew/edit", json=body, headers=WRITE)
        assert response.status_code == 400, response.text
        assert len(kinds(store, "crew")) == 2

    def test_unblock_is_for_team_plans(self, client: TestClient) -> None:
        """A parity plan has no blocked tasks to unblock: the edit is refused, naming the action."""
        body = {"expected_version": 2, "action": "unblock", "phase": 0, "task": 0, "content": "Read the test"}
        response = _edit(client, body)
        assert response.status_code == 400
        assert "unblock is for team and todo plans" in response.json()["message"]

    def test_the_plan_says_whether_it_is_a_team_plan(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """``team`` in a plan's JSON tells the page to offer the team view's parts."""
        self._crew(store)
        assert client.get("/api/sessions/crew").json()["team"] is True
        assert client.get("/api/sessions/plan").json()["team"] is False

    def test_an_old_team_plan_is_a_team_plan_on_the_board(self, tmp_path: Path) -> None:
        """A team plan written before the profile was recorded is a team plan on the board, by
        the same one inference the library and the command make."""
        folder = tmp_path / "old"
        folder.mkdir()
        shutil.copy(OLD_LOGS / "team_plan.jsonl", folder / "s.jsonl")
        store = phasetodo.JsonlStore(folder)
        with _client(store) as client:
            plan = client.get("/api/sessions/s").json()
        assert plan["team"] is True
        assert plan["agents"] == ["lead"]
        store.close()

    def test_a_plan_with_no_team_writes_keeps_the_reference_rules(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """Only team plans are repaired: a Start on a parity plan stays in progress."""
        body = {"expected_version": 2, "action": "status", "phase": 1, "task": 0, "status": "in_progress"}
        assert _edit(client, body).status_code == 200
        assert self._unowned_active(latest(store, "plan")) == ["Patch it"]


class TestTodoPlans:
    """A plan in the todo profile on the board: blocked tasks with their blockers, a person's edits."""

    @staticmethod
    def _todo(store: phasetodo.JsonlStore) -> None:
        with phasetodo.Session.open("ship", store, profile="todo") as session:
            session.todo_write({"op": "init", "items": ["A", "B", "C"]})
            assert not session.todo_write({"op": "block", "task": "B", "reason": "CI is down"}).get("isError")

    def test_a_blocked_task_comes_with_its_blocker(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """The plan's JSON carries the blocker as the reason the page shows ("Blocked: …")."""
        self._todo(store)
        tasks = client.get("/api/sessions/ship").json()["phases"][0]["tasks"]
        assert tasks[1] == {"content": "B", "status": "blocked", "reason": "CI is down"}

    def test_unblock_from_the_board(self, client: TestClient, store: phasetodo.JsonlStore) -> None:
        """Unblock on a todo plan runs the tool's unblock as a person's edit: pending, no blocker."""
        self._todo(store)
        body = {"expected_version": 2, "action": "unblock", "phase": 0, "task": 1, "content": "B"}
        response = client.post("/api/sessions/ship/edit", json=body, headers=WRITE)
        assert response.status_code == 200, response.text
        task = latest(store, "ship")[0].tasks[1]
        assert (task.status, task.reason) == (phasetodo.Status.PENDING, None)
        assert kinds(store, "ship")[-1] == ("user_edit", "board")

    def test_a_drop_from_the_board_is_a_persons(
        self, client: TestClient, store: phasetodo.JsonlStore
    ) -> None:
        """Drop on the board is a person's cancel: the task is dropped by "user" (it settles)."""
        self._todo(store)
        body = {"expected_version": 2, "action": "status", "phase": 0, "task": 2, "content": "C",
                "status": "abandoned"}
        response = client.post("/api/sessions/ship/edit", json=body, headers=WRITE)
        assert response.status_code == 200, response.text
        task = latest(store, "ship")[0].tasks[2]
        assert (task.status, task.owner) == (phasetodo.Status.ABANDONED, "user")


class TestSqlite:
    def test_the_board_reads_and_edits_a_sqlite_store(self, tmp_path: Path) -> None:
        """The same routes work over SQLite; another connection's write makes a page stale."""
        store = phasetodo.SqliteStore(tmp_path / "todo.db")
        with phasetodo.Session.open("db", store) as session:
            session.todo_write(init({"A": ["one", "two"]}))
        with _client(store) as client:
            assert client.get("/api/sessions/db").json()["version"] == 1
            body = {"expected_version": 1, "action": "status", "phase": 0, "task": 1, "status": "completed"}
            assert client.post("/api/sessions/db/edit", json=body, headers=WRITE).status_code == 200
            other = phasetodo.SqliteStore(tmp_path / "todo.db")
            with phasetodo.Session.open("db", other) as session:
                session.todo_write({"ops": [{"op": "done", "task": "one"}]})
            other.close()
            stale = client.post("/api/sessions/db/edit", json={**body, "expected_version": 2}, headers=WRITE)
            assert stale.status_code == 409
            events = client.get("/api/sessions/db/events").json()["events"]
            assert [(e["kind"], e["source"]) for e in events] == [
                ("write", None),
                ("user_edit", "board"),
                ("clear", "resume"),  # the other session reopened stripped: "two" was done
                ("write", None),
            ]
        store.close()


class TestManySessions:
    def test_reading_many_sessions_keeps_few_files_open(self, tmp_path: Path) -> None:
        """Logs beyond ``keep_open`` are closed again, so big stores do not exhaust file handles."""
        store = phasetodo.JsonlStore(tmp_path / "many")
        for number in range(40):
            with phasetodo.Session.open(f"s{number:02}", store) as session:
                session.todo_write(init({"A": [f"task {number}"]}))
        board = Board(store, keep_open=4)
        before = len(os.listdir("/proc/self/fd"))
        for _ in range(2):
            data = board.sessions()
            assert [s["tasks"] for s in data["sessions"]] == [1] * 40
        assert len(os.listdir("/proc/self/fd")) - before <= 4
        board.close()
        store.close()


class TestEdits:
    def test_team_fields_pass_through_an_edit(self) -> None:
        """Keys the board does not know (owner, reason, after) are kept as they are."""
        phases = [
            {
                "name": "W",
                "tasks": [
                    {"content": "a", "status": "in_progress", "owner": "ann"},
                    {"content": "c", "status": "blocked", "owner": "ann", "reason": "waits for CI"},
                ],
            }
        ]
        out = rename(add_task(phases, "W", "b"), 0, 0, "a2", "a")
        assert out[0]["tasks"] == [
            {"content": "a2", "status": "in_progress", "owner": "ann"},
            {"content": "c", "status": "blocked", "owner": "ann", "reason": "waits for CI"},
            {"content": "b", "status": "pending"},
        ]
        assert phases[0]["tasks"][0]["content"] == "a"  # the input is not touched

    def test_add_and_rename_keep_names_unique(self) -> None:
        """Tasks are named by content, so neither edit may create a duplicate."""
        phases = [{"name": "A", "tasks": [{"content": "x", "status": "pending"}]}, {"name": "B", "tasks": []}]
        with pytest.raises(ValueError, match="content"):
            add_task(phases, "B", "x")
        with pytest.raises(ValueError, match="name"):
            rename(phases, 1, None, "A")
        assert rename(phases, 0, 0, "x")[0]["tasks"][0]["content"] == "x"


@pytest.mark.slow
class TestLive:
    def test_the_feed_sends_a_write_from_another_process(
        self, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """The plan stream sends the plan on connect and again after another process writes."""
        with (
            running_board(store) as (url, _board),
            httpx.Client(base_url=url, timeout=30) as http,
            http.stream("GET", "/api/sessions/plan/stream") as stream,
        ):
            assert stream.headers["content-type"].startswith("text/event-stream")
            seen: list[int] = []
            for line in stream.iter_lines():
                if not line.startswith("data: "):
                    continue
                seen.append(json.loads(line.removeprefix("data: "))["version"])
                if len(seen) == 1:
                    write_from_another_process(
                        tmp_path / "store", "plan", {"ops": [{"op": "done", "task": "Read the test"}]}
                    )
                else:
                    break
        assert seen == [2, 3]

    def test_a_page_that_shows_a_version_gets_only_what_changed(
        self, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """With ``?since=`` the feed sends nothing for the head shown, then a delta of the
        changed tasks (by position) with the plan's head; each message carries its head id as its id."""
        with (
            running_board(store) as (url, _board),
            httpx.Client(base_url=url, timeout=30) as http,
        ):
            shown = http.get("/api/sessions/plan").json()
            with http.stream("GET", f"/api/sessions/plan/stream?since={shown['head']}") as stream:
                lines: list[str] = []
                write_from_another_process(
                    tmp_path / "store", "plan", {"ops": [{"op": "done", "task": "Read the test"}]}
                )
                for line in stream.iter_lines():
                    lines.append(line)
                    if line.startswith("data: "):
                        break
            now = http.get("/api/sessions/plan").json()
        assert lines[-3:] == ["event: delta", f"id: {now['head']}", lines[-1]]
        delta = json.loads(lines[-1].removeprefix("data: "))
        assert (delta["since"], delta["version"]) == (shown["head"], shown["version"] + 1)
        assert delta["length"] == len(now["phases"])
        explore = now["phases"][0]["tasks"]  # done, and the next task started: those two only
        assert delta["changes"] == [{"at": 0, "tasks": [[0, explore[0]], [1, explore[1]]]}]
        assert {k: v for k, v in delta.items() if k not in ("since", "length", "changes")} == {
            k: v for k, v in now.items() if k != "phases"
        }

    def test_a_reconnecting_page_names_its_version_in_last_event_id(
        self, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """``Last-Event-ID`` (what the browser sends when it reconnects) wins over ``?since=``; a
        head the board does not hold, or a bare version, gets the whole plan."""
        with (
            running_board(store) as (url, board),
            httpx.Client(base_url=url, timeout=30) as http,
        ):
            head = board.plan("plan")["head"]
            done = {"ops": [{"op": "done", "task": "Patch it"}]}
            write_from_another_process(tmp_path / "store", "plan", done)
            unknown = "12345-0123456789abcdef"
            for header, kind in ((head, "delta"), ("2", "plan"), (unknown, "plan")):
                path = f"/api/sessions/plan/stream?since={head}"
                with http.stream("GET", path, headers={"last-event-id": header}) as stream:
                    first = next(line for line in stream.iter_lines() if line.startswith("event: "))
                assert first == f"event: {kind}", header

    def test_a_log_replaced_under_the_board_is_sent_whole(
        self, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """A checkout that swaps the log for a sibling with as many events: the page showing the
        old plan gets the new plan whole (never a delta applied to the old list), and reads too."""
        path, sibling = _sibling_branch(store, tmp_path)
        with phasetodo.Session.open("plan", store, resume="keep") as session:  # the same length here
            session.todo_write({"ops": [{"op": "done", "task": "Read the test"}]})
        with (
            running_board(store) as (url, _board),
            httpx.Client(base_url=url, timeout=30) as http,
        ):
            shown = http.get("/api/sessions/plan").json()
            with http.stream("GET", f"/api/sessions/plan/stream?since={shown['head']}") as stream:
                os.replace(sibling, path)  # what git does on checkout: a new file
                lines = []
                for line in stream.iter_lines():
                    lines.append(line)
                    if line.startswith("data: "):
                        break
            now = http.get("/api/sessions/plan").json()
        sent = json.loads(lines[-1].removeprefix("data: "))
        assert lines[-3:-1] == ["event: plan", f"id: {now['head']}"]
        assert sent == now
        assert (shown["version"], now["version"]) == (3, 3)
        assert now["head"] != shown["head"]
        assert [t["content"] for t in now["phases"][1]["tasks"]] == ["Patch it", "Only on the branch"]
        assert now["phases"][0]["tasks"][0]["status"] == "in_progress"  # not done on the branch

    def test_the_feed_yields_a_checkout_that_lands_between_two_waits(
        self, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """A log replaced by a sibling of as many events while the feed's consumer was busy (not
        while it waited) still moves the feed: the watch that starts next must not take the new
        history in silently. The CI run that found this lost the page's checkout for good."""
        import anyio

        from phasetodo.web.feed import versions

        path, sibling = _sibling_branch(store, tmp_path)
        board = Board(store)

        async def follow() -> list[int | None]:
            feed = versions(board, "plan", wait=0.2)
            seen = [await feed.__anext__()]
            with phasetodo.Session.open("plan", store, resume="keep") as session:
                session.todo_write({"ops": [{"op": "done", "task": "Read the test"}]})
            with anyio.fail_after(10):
                seen.append(await feed.__anext__())
                os.replace(sibling, path)  # between two waits: the feed is not waiting
                seen.append(await feed.__anext__())
            await feed.aclose()
            return seen

        try:
            assert anyio.run(follow) == [2, 3, 3]
            assert "Only on the branch" in board.plan_text("plan")[1]
        finally:
            board.close()

    def test_the_feed_follows_a_postgresql_store(self, postgres_store: phasetodo.PostgresStore) -> None:
        """On PostgreSQL the plan stream sends a write made by another process (LISTEN/NOTIFY)."""
        with phasetodo.Session.open("plan", postgres_store) as session:
            session.todo_write(init({"Fix": ["Find the bug", "Patch it"]}))
        command = [sys.executable, "-m", "phasetodo", "--store", postgres_store.dsn, "--session", "plan",
                   "done", "Find the bug"]
        with (
            running_board(postgres_store) as (url, _board),
            httpx.Client(base_url=url, timeout=30) as http,
            http.stream("GET", "/api/sessions/plan/stream") as stream,
        ):
            seen: list[int] = []
            for line in stream.iter_lines():
                if not line.startswith("data: "):
                    continue
                seen.append(json.loads(line.removeprefix("data: "))["version"])
                if len(seen) == 1:
                    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
                    assert done.returncode == 0, done.stderr
                else:
                    break
        assert seen == [1, 2]

    def test_the_sessions_feed_sees_a_new_session(self, store: phasetodo.JsonlStore, tmp_path: Path) -> None:
        """The sessions stream sends the list again when a session appears."""
        with (
            running_board(store) as (url, _board),
            httpx.Client(base_url=url, timeout=30) as http,
            http.stream("GET", "/api/stream") as stream,
        ):
            lists: list[list[str]] = []
            for line in stream.iter_lines():
                if not line.startswith("data: "):
                    continue
                lists.append([s["id"] for s in json.loads(line.removeprefix("data: "))["sessions"]])
                if len(lists) == 1:
                    write_from_another_process(tmp_path / "store", "fresh", init({"A": ["b"]}))
                else:
                    break
        assert lists == [["plan", "team"], ["fresh", "plan", "team"]]

    def test_the_server_answers_on_loopback_only_by_default(self, store: phasetodo.JsonlStore) -> None:
        """A real server: reads work, a write with the token and origin works."""
        with running_board(store) as (url, _board), httpx.Client(base_url=url, timeout=30) as http:
            assert http.get("/api/sessions").status_code == 200
            body = {"expected_version": 2, "action": "add", "phase": "Fix", "content": "More"}
            response = http.post(
                "/api/sessions/plan/edit", json=body, headers={"origin": url, "x-phasetodo-token": TOKEN}
            )
            assert response.status_code == 200
        assert kinds(store, "plan")[-1] == ("user_edit", "board")


@pytest.mark.slow
class TestServeCommand:
    def _serve(self, tmp_path: Path, *more: str) -> tuple[subprocess.Popen[str], str]:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "phasetodo",
                "--store",
                str(tmp_path / "store"),
                "serve",
                "--port",
                "0",
                *more,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        return proc, proc.stdout.readline()

    def _stop(self, proc: subprocess.Popen[str]) -> int:
        """Ctrl-C: the server stops cleanly."""
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert "Traceback" not in err, err
        return proc.returncode

    def test_serve_prints_the_address_with_the_token(
        self, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """``phasetodo serve`` binds 127.0.0.1 and prints the URL that carries the token."""
        proc, line = self._serve(tmp_path)
        try:
            assert line.startswith("phasetodo board: http://127.0.0.1:")
            url, _, token = line.strip().split(" ")[-1].partition("?token=")
            assert len(token) >= 24
            with httpx.Client(base_url=url, timeout=30) as http:
                assert [s["id"] for s in _retry(http, "/api/sessions")["sessions"]] == ["plan", "team"]
                body = {"expected_version": 2, "action": "add", "phase": "Fix", "content": "From the CLI"}
                refused = http.post("/api/sessions/plan/edit", json=body, headers={"origin": url.rstrip("/")})
                assert refused.status_code == 403
                done = http.post(
                    "/api/sessions/plan/edit",
                    json=body,
                    headers={"origin": url.rstrip("/"), "x-phasetodo-token": token},
                )
                assert done.status_code == 200
        finally:
            assert self._stop(proc) == 0

    def test_read_only_prints_no_token_and_refuses_writes(
        self, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """``--read-only`` shows the board and refuses every write."""
        proc, line = self._serve(tmp_path, "--read-only")
        try:
            assert line.startswith("phasetodo board (read-only): http://127.0.0.1:")
            assert "token" not in line
            url = line.strip().split(" ")[-1]
            with httpx.Client(base_url=url, timeout=30) as http:
                assert _retry(http, "/api/sessions")["read_only"] is True
                body = {"expected_version": 2, "action": "add", "phase": "Fix", "content": "x"}
                response = http.post(
                    "/api/sessions/plan/edit", json=body, headers={"origin": url.rstrip("/")}
                )
                assert response.json()["error"] == "read_only"
        finally:
            assert self._stop(proc) == 0
        assert len(kinds(store, "plan")) == 2

    def test_a_port_in_use_is_a_usage_error(self, store: phasetodo.JsonlStore, tmp_path: Path) -> None:
        """When the port is taken the command says so and exits 2, printing no address."""
        with socket.create_server(("127.0.0.1", 0)) as taken:
            port = str(taken.getsockname()[1])
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "phasetodo",
                    "--store",
                    str(tmp_path / "store"),
                    "serve",
                    "--port",
                    port,
                ],
                capture_output=True,
                text=True,
                timeout=60,
            )
        assert done.returncode == 2
        assert done.stdout == ""
        assert f"serve: cannot listen on 127.0.0.1 port {port}" in done.stderr

    def test_a_bad_store_is_a_usage_error(self, tmp_path: Path) -> None:
        """A store spec that cannot work exits 2 before serving anything."""
        (tmp_path / "file").write_text("x")
        done = subprocess.run(
            [sys.executable, "-m", "phasetodo", "--store", str(tmp_path / "file"), "serve"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ},
        )
        assert done.returncode == 2
        assert "not a directory" in done.stderr


def _retry(http: httpx.Client, path: str) -> Any:
    """GET ``path`` once the server listens (it prints its address just before)."""
    for _ in range(300):
        try:
            return http.get(path).json()
        except httpx.ConnectError:
            import time

            time.sleep(0.05)
    raise AssertionError("the board never answered")
