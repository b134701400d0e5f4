"""The board under attack and load (issue 21, items 2, 5 and 11): real servers, real sockets."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

import phasetodo
from phasetodo.errors import InvalidOption
from phasetodo.web import Access, Board, Limits, access_for, create_app
from phasetodo.web.server import make_server

from ..web_support import TOKEN, init, kinds, write_from_another_process

EDIT = {"expected_version": 2, "action": "add", "phase": "Fix", "content": "More"}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[phasetodo.JsonlStore]:
    """A JSONL store in ``tmp_path / "store"`` with session ``plan`` at version 2."""
    store = phasetodo.JsonlStore(tmp_path / "store", fsync=False)
    with phasetodo.Session.open("plan", store, resume="keep") as session:
        session.todo_write(init({"Explore": ["Read the test", "Find the bug"], "Fix": ["Patch it"]}))
        session.todo_write({"ops": [{"op": "note", "task": "Read the test", "text": "tabs only"}]})
    yield store
    store.close()


@contextmanager
def board_server(
    store: phasetodo.Store, *, limits: Limits | None = None, access: Access | None = None, every: float = 0.1
) -> Iterator[tuple[str, Board]]:
    """The board as ``phasetodo serve`` runs it (caps, timeouts), on 127.0.0.1 in a thread."""
    limits = limits or Limits()
    board = Board(store)
    app = create_app(
        board,
        token=TOKEN,
        hosts=access or Access(),
        every=every,
        max_streams=limits.streams,
        body_timeout=limits.body_timeout,
    )
    sock = socket.create_server(("127.0.0.1", 0))
    server = make_server(app, board, limits, timeout_graceful_shutdown=5)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(2000):
        if server.started or not thread.is_alive():
            break
        time.sleep(0.01)
    assert server.started, "the board's server did not start"
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", board
    finally:
        board.close()
        server.should_exit = True
        thread.join(30)
        sock.close()


def _serve(
    tmp_path: Path, *more: str, preexec: Callable[[], None] | None = None
) -> tuple[subprocess.Popen[str], list[str]]:
    """``phasetodo serve --port 0`` over ``tmp_path / "store"``; returns it and its first lines."""
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
        preexec_fn=preexec,
    )
    assert proc.stdout is not None
    lines = [proc.stdout.readline()]
    if "--host" in more and more[more.index("--host") + 1].startswith("0"):
        lines.append(proc.stdout.readline())  # the warning
    return proc, lines


def _stop(proc: subprocess.Popen[str]) -> str:
    """Ctrl-C the server; returns what it wrote to stderr."""
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return err


def _address(line: str) -> tuple[int, str]:
    """The port and token of the address a board printed."""
    url = line.strip().split(" ")[-1]
    rest, _, token = url.partition("?token=")
    return int(rest.rstrip("/").rsplit(":", 1)[1]), token


def _wait_up(port: int) -> None:
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the board never listened")


def _get(port: int, path: str, host: str, headers: dict[str, str] | None = None) -> httpx.Response:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
        return http.get(path, headers={"host": host, **(headers or {})})


def _status(sock: socket.socket) -> int:
    """The status code of the response arriving on ``sock``."""
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError(f"closed before a status line: {head!r}")
        head += chunk
    return int(head.split(b" ", 2)[1])


class TestHostAllowlist:
    """Item 2: a Host allowlist on every bound address; reads need the token beyond loopback."""

    def test_a_board_on_every_interface_refuses_a_rebinding_host(
        self, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """``--host 0.0.0.0``: a page on another name gets nothing, nor a write with its own Origin."""
        proc, lines = _serve(tmp_path, "--host", "0.0.0.0")
        try:
            port, token = _address(lines[0])
            _wait_up(port)
            evil = f"evil.example:{port}"
            read = _get(port, "/api/sessions", evil, {"x-phasetodo-token": token})
            assert (read.status_code, read.json()["error"]) == (400, "host")
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
                write = http.post(
                    "/api/sessions/plan/edit",
                    json=EDIT,
                    headers={"host": evil, "origin": f"http://{evil}", "x-phasetodo-token": token},
                )
            assert (write.status_code, write.json()["error"]) == (400, "host")
        finally:
            _stop(proc)
        assert len(kinds(store, "plan")) == 2

    def test_reads_beyond_loopback_need_the_token(self, store: phasetodo.JsonlStore, tmp_path: Path) -> None:
        """Bound to every interface, a read needs the token (header, or ``?token=`` on a feed)."""
        proc, lines = _serve(tmp_path, "--host", "0.0.0.0")
        try:
            port, token = _address(lines[0])
            _wait_up(port)
            here = f"127.0.0.1:{port}"
            refused = _get(port, "/api/sessions/plan", here)
            assert (refused.status_code, refused.json()["error"]) == (403, "token")
            assert _get(port, "/api/sessions/plan", here, {"x-phasetodo-token": "wrong"}).status_code == 403
            assert _get(port, "/api/sessions/plan", here, {"x-phasetodo-token": token}).json()["version"] == 2
            assert _get(port, "/", here).status_code == 200  # the page shell holds no plan data
            with (
                httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http,
                http.stream("GET", f"/api/sessions/plan/stream?token={token}") as feed,
            ):
                assert feed.status_code == 200
        finally:
            _stop(proc)

    def test_the_warning_says_what_is_exposed(self, store: phasetodo.JsonlStore, tmp_path: Path) -> None:
        """The startup warning names who can do what, over what, and how to add a name."""
        proc, lines = _serve(tmp_path, "--host", "0.0.0.0", "--read-only")
        try:
            assert "?token=" in lines[0]  # a read-only board beyond loopback still needs it for reads
            warning = lines[1]
            for words in ("other machines", "read every plan", "plain HTTP", "--allow-host", "token"):
                assert words in warning, warning
            assert "edit" not in warning
        finally:
            _stop(proc)

    def test_allow_host_adds_a_name(self, store: phasetodo.JsonlStore, tmp_path: Path) -> None:
        """``--allow-host board.lan`` (repeatable) answers to that name and no other new one."""
        proc, lines = _serve(tmp_path, "--host", "0.0.0.0", "--allow-host", "board.lan", "--allow-host", "b2")
        try:
            port, token = _address(lines[0])
            _wait_up(port)
            with_token = {"x-phasetodo-token": token}
            assert _get(port, "/api/sessions", f"BOARD.lan:{port}", with_token).status_code == 200
            assert _get(port, "/api/sessions", "b2", with_token).status_code == 200
            assert _get(port, "/api/sessions", f"other.lan:{port}", with_token).status_code == 400
            assert _get(port, "/api/sessions", f"192.168.7.7:{port}", with_token).status_code == 200
        finally:
            _stop(proc)

    def test_a_loopback_alias_keeps_the_host_check(self, store: phasetodo.JsonlStore, tmp_path: Path) -> None:
        """``--host 127.0.0.2`` answers to its own address without the token, never to another name."""
        if sys.platform != "linux":
            pytest.skip("only Linux routes all of 127.0.0.0/8 to loopback")
        proc, lines = _serve(tmp_path, "--host", "127.0.0.2")
        try:
            port, _token = _address(lines[0])
            for _ in range(400):
                try:
                    socket.create_connection(("127.0.0.2", port), timeout=5).close()
                    break
                except OSError:
                    time.sleep(0.05)
            with httpx.Client(base_url=f"http://127.0.0.2:{port}", timeout=30) as http:
                assert http.get("/api/sessions").status_code == 200
                assert http.get("/api/sessions", headers={"host": "evil.example"}).status_code == 400
        finally:
            _stop(proc)

    def test_a_bad_allow_host_is_refused_before_listening(self, tmp_path: Path) -> None:
        """A name with a port or a path in it is an error, and nothing listens."""
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "phasetodo",
                "--store",
                str(tmp_path / "s"),
                "serve",
                "--allow-host",
                "a/b",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0
        assert "allow_host" in done.stderr
        assert done.stdout == ""

    def test_access_for_each_kind_of_address(self) -> None:
        """Loopback addresses read without the token; anything else needs it; wildcards take IP literals."""
        loop = access_for("127.0.0.2", "127.0.0.2")
        assert not loop.private
        assert loop.allows("127.0.0.2:1")
        assert not loop.allows("evil.example")
        assert loop.allows("LOCALHOST.:8765")
        assert loop.allows("[::1]:8765")
        lan = access_for("192.168.1.5", "192.168.1.5", ["board.lan"])
        assert lan.private
        assert lan.allows("192.168.1.5:80")
        assert lan.allows("board.lan")
        assert not lan.allows("192.168.1.6")
        assert not lan.allows("")
        wild = access_for("::", "::")
        assert wild.private
        assert wild.any_ip
        assert wild.allows("[fe80::1]:9")
        assert not wild.allows("evil.example")
        with pytest.raises(InvalidOption, match="allow_host"):
            access_for("::", "::", ["board.lan:8765"])

    def test_the_app_no_longer_takes_any_host(self, store: phasetodo.JsonlStore) -> None:
        """``hosts=None`` (once: answer to any Host) is refused."""
        with pytest.raises(InvalidOption, match="hosts"):
            create_app(Board(store), token=TOKEN, hosts=None)  # type: ignore[arg-type]


class TestCtrlC:
    """The address is printed once the board serves, so a Ctrl-C from then on stops it."""

    def test_ctrl_c_right_after_the_address_stops_the_board(self, tmp_path: Path) -> None:
        for _ in range(5):
            proc, lines = _serve(tmp_path)
            assert "?token=" in lines[0]
            port, _ = _address(lines[0])
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                pass  # it listens as soon as it speaks
            err = _stop(proc)
            assert proc.returncode == 0, err
            assert "Traceback" not in err, err


class _CountingStore(phasetodo.MemoryStore):
    """A memory store that counts how often it is listed."""

    def __init__(self) -> None:
        super().__init__()
        self.listings = 0

    def sessions(self) -> list[str]:
        self.listings += 1
        return super().sessions()


@pytest.fixture
def many() -> _CountingStore:
    """300 sessions (more than the board keeps open), each with three tasks."""
    store = _CountingStore()
    for number in range(300):
        with phasetodo.Session.open(f"s{number:03d}", store, resume="keep", clear_delay=-1) as session:
            session.todo_write(init({"P": ["a", "b", "c"]}))
    store.listings = 0
    return store


class TestSessionsPage:
    """Item 5: one listing of the store per request and per poll, a page at a time."""

    def test_one_listing_per_request(self, many: _CountingStore) -> None:
        """``/api/sessions`` lists the store once and shows one page, whatever the store holds."""
        with board_server(many) as (url, _board), httpx.Client(base_url=url, timeout=60) as http:
            first = http.get("/api/sessions").json()
            assert many.listings == 1
            assert (first["total"], first["offset"], len(first["sessions"])) == (300, 0, 50)
            many.listings = 0
            last = http.get("/api/sessions", params={"offset": 280, "limit": 100}).json()
            assert many.listings == 1
            assert [s["id"] for s in last["sessions"]] == [f"s{n:03d}" for n in range(280, 300)]

    def test_pages_show_every_session_once(self, many: _CountingStore) -> None:
        """Walking the pages by ``offset`` gives every session once, in id order."""
        seen: list[str] = []
        with board_server(many) as (url, _board), httpx.Client(base_url=url, timeout=60) as http:
            for _ in range(10):
                page = http.get("/api/sessions", params={"offset": len(seen), "limit": 100}).json()
                if not page["sessions"]:
                    break
                seen += [s["id"] for s in page["sessions"]]
        assert seen == sorted(many.sessions())

    @pytest.mark.parametrize("query", ["offset=-1", "offset=x", "limit=0", "limit=101", "limit=y"])
    def test_a_bad_page_is_a_400(self, many: _CountingStore, query: str) -> None:
        """Offsets and limits are checked, naming the field."""
        with board_server(many) as (url, _board), httpx.Client(base_url=url, timeout=60) as http:
            response = http.get(f"/api/sessions?{query}")
            assert response.status_code == 400
            assert query.split("=")[0] in response.json()["message"]

    def test_the_feed_lists_once_a_poll(self, many: _CountingStore) -> None:
        """The sessions feed lists the store once a poll (every 0.2 s here) and sends a change."""
        events: list[dict[str, Any]] = []
        with (
            board_server(many, every=0.05) as (url, _board),
            httpx.Client(base_url=url, timeout=60) as http,
            http.stream("GET", "/api/stream") as feed,
        ):
            start = time.monotonic()
            for line in feed.iter_lines():
                if not line.startswith("data: "):
                    continue
                events.append(json.loads(line.removeprefix("data: ")))
                if len(events) == 1:
                    time.sleep(1.0)  # about five quiet polls
                    with phasetodo.Session.open("s001", many, resume="keep", clear_delay=-1) as session:
                        session.todo_write({"ops": [{"op": "done", "task": "a"}]})
                else:
                    break
            elapsed = time.monotonic() - start
        assert len(events[0]["sessions"]) == 50
        assert events[1]["sessions"][1]["completed"] == 1
        polls = elapsed / 0.2 + 2
        assert many.listings <= polls + 1, (many.listings, elapsed)


class TestSlowClients:
    """Item 11: slow clients are cut off; connections and live feeds are capped with a 503."""

    def test_slow_headers_are_dropped(self, store: phasetodo.JsonlStore) -> None:
        """Connections that send their headers a byte at a time get a 408 and are closed."""
        with board_server(store, limits=Limits(header_timeout=0.5)) as (url, _board):
            port = int(url.rsplit(":", 1)[1])
            request = b"GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"x" * 100
            socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(30)]
            closed: set[int] = set()
            try:
                for byte in request:  # 0.05 s a byte: ~5 s for all, ten times the deadline
                    for number, sock in enumerate(socks):
                        if number not in closed:
                            try:
                                sock.send(bytes([byte]))
                            except OSError:
                                closed.add(number)
                    if len(closed) == len(socks):
                        break
                    time.sleep(0.05)
                answers = []
                for sock in socks:
                    sock.settimeout(5)
                    try:
                        answers.append(sock.recv(4096).split(b"\r\n", 1)[0])
                    except TimeoutError:
                        answers.append(b"still open")
                    except OSError:
                        answers.append(b"reset")
            finally:
                for sock in socks:
                    sock.close()
        assert all(a in (b"HTTP/1.1 408 Request Timeout", b"", b"reset") for a in answers), answers
        assert answers.count(b"HTTP/1.1 408 Request Timeout") >= 1

    def test_a_slow_edit_body_is_dropped(self, store: phasetodo.JsonlStore) -> None:
        """An edit whose body trickles in gets a 408 at the body deadline and changes nothing."""
        with board_server(store, limits=Limits(body_timeout=0.5)) as (url, _board):
            port = int(url.rsplit(":", 1)[1])
            body = json.dumps(EDIT).encode()
            head = (
                f"POST /api/sessions/plan/edit HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Origin: {url}\r\nX-Phasetodo-Token: {TOKEN}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(head)
                start = time.monotonic()
                status = None
                for byte in body[:-1]:
                    try:
                        sock.send(bytes([byte]))
                    except OSError:
                        break
                    sock.settimeout(0.1)
                    try:
                        status = _status(sock)
                        break
                    except TimeoutError:
                        continue
                    except ConnectionError:
                        break
                waited = time.monotonic() - start
        assert status == 408
        assert waited < 5
        assert len(kinds(store, "plan")) == 2

    def test_connections_beyond_the_cap_get_a_503(self, store: phasetodo.JsonlStore) -> None:
        """Past the connection cap a request gets a 503 and a close; room comes back as others end."""
        limits = Limits(connections=20, streams=30, header_timeout=30)
        with board_server(store, limits=limits) as (url, _board):
            port = int(url.rsplit(":", 1)[1])
            idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(20)]
            try:
                time.sleep(0.2)  # let the server accept them all
                with socket.create_connection(("127.0.0.1", port), timeout=10) as extra:
                    extra.sendall(b"GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    reply = b""
                    while chunk := extra.recv(4096):
                        reply += chunk
                head, _, body = reply.partition(b"\r\n\r\n")
                assert head.startswith(b"HTTP/1.1 503")
                assert json.loads(body)["error"] == "busy"
            finally:
                for sock in idle:
                    sock.close()
            time.sleep(0.2)
            with httpx.Client(base_url=url, timeout=30) as http:
                assert http.get("/api/sessions").status_code == 200

    def test_live_feeds_beyond_the_cap_get_a_503(self, store: phasetodo.JsonlStore) -> None:
        """Past the stream cap a live feed is refused with a 503, while reads still answer."""
        with (
            board_server(store, limits=Limits(streams=5)) as (url, _board),
            httpx.Client(base_url=url, timeout=30) as http,
        ):
            with ExitStack() as feeds:
                opened = [
                    feeds.enter_context(http.stream("GET", "/api/sessions/plan/stream")) for _ in range(5)
                ]
                assert [f.status_code for f in opened] == [200] * 5
                with http.stream("GET", "/api/stream") as refused:
                    assert refused.status_code == 503
                    assert json.loads(refused.read())["error"] == "busy"
                assert (refused.headers["retry-after"], refused.headers["connection"]) == ("5", "close")
                assert http.get("/api/sessions/plan").status_code == 200
            for _ in range(100):  # a closed feed frees its place
                with http.stream("GET", "/api/stream") as again:
                    if again.status_code == 200:
                        break
                time.sleep(0.05)
            else:
                raise AssertionError("the closed feeds never freed their places")

    @pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/PID/limits")
    def test_the_file_limit_is_raised_at_start(self, store: phasetodo.JsonlStore, tmp_path: Path) -> None:
        """``phasetodo serve`` started with a soft limit of 256 open files raises it toward the hard one."""
        import resource

        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        if hard != resource.RLIM_INFINITY and hard <= 256:
            pytest.skip("the hard limit leaves nothing to raise")
        proc, lines = _serve(
            tmp_path, preexec=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        )
        try:
            _wait_up(_address(lines[0])[0])
            limits = Path(f"/proc/{proc.pid}/limits").read_text()
            soft = next(line for line in limits.splitlines() if line.startswith("Max open files")).split()[3]
            wanted = 65536 if hard == resource.RLIM_INFINITY else min(65536, hard)
            assert int(soft) == wanted
        finally:
            _stop(proc)

    @pytest.mark.skipif(sys.platform != "linux", reason="sets a low file limit for the server")
    def test_many_feeds_under_a_low_file_limit(self, store: phasetodo.JsonlStore, tmp_path: Path) -> None:
        """At 512 files, 900 live feeds each get a feed or a 503, reads answer, stderr stays quiet."""
        import resource

        proc, lines = _serve(tmp_path, preexec=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512)))
        socks: list[socket.socket] = []
        statuses: list[int] = []
        try:
            port, _ = _address(lines[0])
            _wait_up(port)
            request = f"GET /api/sessions/plan/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
            for _ in range(600):
                sock = socket.create_connection(("127.0.0.1", port), timeout=20)
                socks.append(sock)
                sock.sendall(request)
                statuses.append(_status(sock))
            burst = [socket.create_connection(("127.0.0.1", port), timeout=20) for _ in range(300)]
            socks += burst
            for sock in burst:
                sock.sendall(request)
            statuses += [_status(sock) for sock in burst]
            read = _get(port, "/api/sessions/plan", f"127.0.0.1:{port}")
            assert read.status_code == 200
        finally:
            for sock in socks:
                sock.close()
            err = _stop(proc)
        assert set(statuses) <= {200, 503}, sorted(set(statuses))
        assert 200 in statuses
        assert 503 in statuses
        assert "Traceback" not in err
        assert len(err.splitlines()) <= 5, err[:4000]  # at most a line about accept every 10 s
        assert os.path.exists(tmp_path / "store" / "plan.jsonl")


@pytest.mark.browser
class TestInTheBrowser:
    """The page itself: it reads a private board with its token and walks the pages of sessions."""

    def test_a_private_board_is_read_with_the_token(
        self, page: Any, store: phasetodo.JsonlStore, tmp_path: Path
    ) -> None:
        """Opened from the printed address, the page reads (fetch and live feed) with the token."""
        from playwright.sync_api import expect

        with board_server(store, access=Access(private=True)) as (url, _board):
            page.goto(f"{url}/?token={TOKEN}")
            row = page.locator("tr.session-row", has_text="plan")
            expect(row.locator(".open-count")).to_have_text("3")
            row.get_by_role("link", name="plan").click()
            expect(page.get_by_role("heading", name="Fix")).to_be_visible()
            write_from_another_process(
                tmp_path / "store", "plan", {"ops": [{"op": "done", "task": "Patch it"}]}
            )
            done = page.locator("li.task", has=page.locator("span.content", has_text="Patch it"))
            expect(done).to_have_attribute("data-status", "completed")

    def test_the_sessions_page_pages(self, page: Any) -> None:
        """120 sessions: 50 on a page, a count of all, and Next and Previous links."""
        from playwright.sync_api import expect

        store = phasetodo.MemoryStore()
        for number in range(120):
            with phasetodo.Session.open(f"s{number:03d}", store, resume="keep", clear_delay=-1) as session:
                session.todo_write(init({"P": ["a"]}))
        with board_server(store) as (url, _board):
            page.goto(f"{url}/")
            rows = page.locator("tr.session-row")
            expect(rows).to_have_count(50)
            expect(page.locator("p.sub")).to_contain_text("120 sessions · 1–50 shown")
            page.get_by_role("link", name="Next →").click()
            expect(rows.first).to_have_attribute("data-session", "s050")
            page.get_by_role("link", name="Next →").click()
            expect(rows).to_have_count(20)
            expect(page.get_by_role("link", name="Next →")).to_have_count(0)
            page.get_by_role("link", name="← Previous").click()
            expect(rows.first).to_have_attribute("data-session", "s050")
