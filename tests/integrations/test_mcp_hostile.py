"""Hostile lines to ``python -m phasetodo mcp`` over real pipes: each request is answered, it lives on."""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from phasetodo.integrations._mcp_lines import (
    INVALID_REQUEST,
    PARSE_ERROR,
    Refused,
    _shallow,
    check_line,
)

#: Seconds to wait for one answer: an unanswered request fails the test instead of hanging it.
WAIT = 30


class Server:
    """``python -m phasetodo mcp`` spoken to in raw lines, its answers read by a thread."""

    def __init__(self, store: Path, log: Path) -> None:
        self.log = log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "phasetodo", "mcp", "--store", str(store), "--session", "s"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
        )
        self.stdin: IO[bytes] = self.process.stdin  # type: ignore[assignment]
        self.answers: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.ids = itertools.count(1_000_000)

    def _read(self) -> None:
        stdout: IO[bytes] = self.process.stdout  # type: ignore[assignment]
        for line in stdout:
            self.answers.put(json.loads(line))
        self.answers.put(None)

    def send(self, line: str | bytes) -> None:
        self.stdin.write((line.encode() if isinstance(line, str) else line) + b"\n")
        self.stdin.flush()

    def request(self, method: str, params: object, ident: int) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})

    def until(self, ident: int) -> list[Any]:
        """Every answer up to and including the result for ``ident``."""
        got: list[Any] = []
        while True:
            answer = self.answers.get(timeout=WAIT)
            assert answer is not None, "the server closed its output"
            got.append(answer)
            if isinstance(answer, dict) and answer.get("id") == ident and "result" in answer:
                return got

    def hello(self) -> None:
        client = {"name": "t", "version": "0"}
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
        self.send(self.request("initialize", params, 0))
        assert self.until(0)[-1]["result"]["serverInfo"]["name"] == "phasetodo"
        self.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def after(self, line: str | bytes) -> list[Any]:
        """Send ``line`` and then a valid call; the answers before that call's result."""
        sentinel = next(self.ids)
        self.send(line)
        self.send(self.request("tools/call", {"name": "todo_read", "arguments": {}}, sentinel))
        return self.until(sentinel)[:-1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module; afterwards it must end cleanly at the end of its input."""
    where = tmp_path_factory.mktemp("hostile")
    started = Server(where / "store", where / "stderr.log")
    started.hello()
    yield started
    started.stdin.close()
    try:
        assert started.process.wait(timeout=60) == 0
    finally:
        if started.process.poll() is None:
            started.process.kill()
        started.log.close()


def _call(ident: object, name: object = "todo_read", arguments: object = None) -> str:
    params = {"name": name, "arguments": {} if arguments is None else arguments}
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params})


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


_WRITE_SURROGATE = (
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"todo_write","arguments":'
    '{"ops":[{"op":"init","list":[{"phase":"\\ud800","items":["a"]}]}]}}}'
)

#: (case, line, the id its error must carry, the error code).
HOSTILE: list[tuple[str, str | bytes, object, int]] = [
    ("surrogate in the name", _call(1).replace('"todo_read"', '"\\ud800"'), 1, INVALID_REQUEST),
    ("surrogate in the arguments", _WRITE_SURROGATE, 2, INVALID_REQUEST),
    ("low surrogate in the method", '{"jsonrpc":"2.0","id":3,"method":"\\udc00"}', 3, INVALID_REQUEST),
    ("arguments 201 deep", _call(4).replace("{}", _deep(201)), 4, INVALID_REQUEST),
    ("arguments 5,000 deep", _call(5).replace("{}", _deep(5_000)), 5, INVALID_REQUEST),
    (
        "params 100,000 deep, id last",
        '{"jsonrpc":"2.0","method":"tools/call","params":{"a":' + _deep(100_000) + '},"id":6}',
        6,
        INVALID_REQUEST,
    ),
    ("params a list", '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}', 7, INVALID_REQUEST),
    ("params a string", '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"x"}', 8, INVALID_REQUEST),
    ("params a number", '{"jsonrpc":"2.0","id":9,"method":"tools/list","params":1}', 9, INVALID_REQUEST),
    ("method a number", '{"jsonrpc":"2.0","id":10,"method":7}', 10, INVALID_REQUEST),
    ("method null", '{"jsonrpc":"2.0","id":11,"method":null}', 11, INVALID_REQUEST),
    ("no method", '{"jsonrpc":"2.0","id":12}', 12, INVALID_REQUEST),
    ("jsonrpc 1.0", '{"jsonrpc":"1.0","id":13,"method":"tools/list"}', 13, INVALID_REQUEST),
    ("jsonrpc a number", '{"jsonrpc":2.0,"id":14,"method":"tools/list"}', 14, INVALID_REQUEST),
    ("no jsonrpc", '{"id":15,"method":"tools/list"}', 15, INVALID_REQUEST),
    ("a float id", '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', 1.5, INVALID_REQUEST),
    ("a whole float id", '{"jsonrpc":"2.0","id":16.0,"method":"tools/list"}', 16.0, INVALID_REQUEST),
    ("a true id", '{"jsonrpc":"2.0","id":true,"method":"tools/list"}', True, INVALID_REQUEST),
    ("a false id", '{"jsonrpc":"2.0","id":false,"method":"tools/list"}', False, INVALID_REQUEST),
    ("a null id", '{"jsonrpc":"2.0","id":null,"method":"tools/list"}', None, INVALID_REQUEST),
    ("an object id", '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', None, INVALID_REQUEST),
    ("a surrogate id", '{"jsonrpc":"2.0","id":"\\udc00","method":"tools/list"}', None, INVALID_REQUEST),
    ("a batch of one", '[{"jsonrpc":"2.0","id":17,"method":"tools/list"}]', 17, INVALID_REQUEST),
    ("an empty batch", "[]", None, INVALID_REQUEST),
    ("a number", "5", None, INVALID_REQUEST),
    ("not JSON", "hello", None, PARSE_ERROR),
    ("cut short", '{"jsonrpc":"2.0","id":18,', None, PARSE_ERROR),
    ("unbalanced and deep", '{"jsonrpc":"2.0","id":19,"params":' + "[" * 5_000, None, PARSE_ERROR),
    ("invalid UTF-8 in the method", b'{"jsonrpc":"2.0","id":20,"method":"\xff"}', 20, -32601),
]


class TestEachRequestIsAnswered:
    @pytest.mark.parametrize(("line", "ident", "code"), [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
    def test_hostile_line(self, server: Server, line: str | bytes, ident: object, code: int) -> None:
        """The line gets one error carrying its id (null when unreadable); the next call is answered."""
        answers = server.after(line)
        assert [(a["id"], a["error"]["code"]) for a in answers] == [(ident, code)]
        assert type(answers[0]["id"]) is type(ident)
        assert answers[0]["error"]["message"]

    def test_a_batch_answers_each_request_in_it(self, server: Server) -> None:
        """A batch gets one error per request in it; its notifications and responses get none."""
        batch = [
            {"jsonrpc": "2.0", "id": 31, "method": "tools/list"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": "thirty-two", "method": "tools/call", "params": {}},
            {"jsonrpc": "2.0", "id": 99, "result": {}},
            5,
        ]
        answers = server.after(json.dumps(batch))
        assert [(a["id"], a["error"]["code"]) for a in answers] == [
            (31, INVALID_REQUEST), ("thirty-two", INVALID_REQUEST), (None, INVALID_REQUEST)
        ]

    def test_responses_and_blank_lines_get_no_answer(self, server: Server) -> None:
        """An invalid response of the client's is only logged; a blank line is skipped."""
        assert server.after('{"jsonrpc":"2.0","id":41,"result":5}') == []
        assert server.after("   ") == []

    def test_what_the_sdk_answers_itself(self, server: Server) -> None:
        """Valid envelopes still reach the SDK, which answers a bad method or bad params itself."""
        unknown = server.after('{"jsonrpc":"2.0","id":51,"method":"nope"}')
        bad = server.after('{"jsonrpc":"2.0","id":52,"method":"tools/call","params":{"name":5}}')
        assert [(a["id"], a["error"]["code"]) for a in unknown + bad] == [(51, -32601), (52, -32602)]


def _generated() -> list[tuple[str, list[object]]]:
    """Hostile requests with every kind of id and trigger: each line and the ids it carries."""
    numbers = itertools.count(10_000)
    out: list[tuple[str, list[object]]] = []

    def line(kind: str, **fields: object) -> tuple[str, object]:
        n = next(numbers)
        key = {"int": n, "str": f"r{n}", "float": n + 0.5, "true": True, "false": False}[kind]
        return json.dumps({"jsonrpc": "2.0", "id": key, "method": "tools/call", **fields}), key

    for _, kind in itertools.product(range(15), ("int", "str", "float", "true", "false")):
        cases = [
            line(kind, params={"name": "todo_read", "arguments": {"a": json.loads(_deep(250))}}),
            line(kind, params="x"),
            line(kind, params=[1, 2]),
            line(kind, params=7),
            line(kind, method=5),
            line(kind, method=["tools/call"]),
            line(kind, jsonrpc="2.1"),
            line(kind, jsonrpc=None),
        ]
        text, key = line(kind, params={"name": "todo_write", "arguments": {}})
        cases.append((text.replace("{}", '{"x": ' + _deep(3_000) + "}"), key))
        for surrogate in ("\\ud800", "\\udfff", "\\ud83d"):
            text, key = line(kind, params={"name": "NAME", "arguments": {}})
            cases.append((text.replace("NAME", surrogate), key))
            text, key = line(kind, params={"name": "todo_write", "arguments": {"ops": "ARG"}})
            cases.append((text.replace("ARG", "a" + surrogate), key))
        out += [(text, [key]) for text, key in cases]
        batch = [line(kind, params={}) for _ in range(3)]
        out.append(("[" + ",".join(text for text, _ in batch) + "]", [key for _, key in batch]))
    return out


class TestGeneratedRequests:
    def test_pipelined_hostile_requests_are_all_answered(self, server: Server) -> None:
        """1,350 pipelined hostile requests: each gets one -32600 error with its own id."""
        corpus = _generated()
        expected = Counter(json.dumps(key) for _, keys in corpus for key in keys)
        assert sum(expected.values()) >= 1_276  # as many as the review generated
        answers = server.after("\n".join(text for text, _ in corpus))
        assert Counter(json.dumps(a["id"]) for a in answers) == expected
        assert {a["error"]["code"] for a in answers} == {INVALID_REQUEST}


class TestStaysUsable:
    def test_a_write_after_the_hostile_lines(self, server: Server) -> None:
        """After every hostile line the server still applies a todo_write and reads the list back."""
        ident = next(server.ids)
        init = {"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Patch it"]}]}]}
        server.send(server.request("tools/call", {"name": "todo_write", "arguments": init}, ident))
        (written,) = server.until(ident)
        assert written["result"]["isError"] is False
        assert written["result"]["structuredContent"]["phases"][0]["tasks"][0]["content"] == "Patch it"


class TestLineFilter:
    def test_valid_messages_pass_unchanged(self) -> None:
        """A valid request, notification or response is passed on as the SDK reads it."""
        for line in (_call(1), '{"jsonrpc":"2.0","method":"notifications/initialized"}',
                     '{"jsonrpc":"2.0","id":"a","result":{}}'):
            assert not isinstance(check_line(line), Refused)
        assert check_line("") is None
        assert check_line(" \r") is None

    def test_the_shallow_copy_keeps_the_top_level(self) -> None:
        """Below the top level every container becomes null; strings with brackets are kept whole."""
        line = '{"a":[1,[2]],"b":"[{","c":{"d":{}},"id":7}'
        assert json.loads(_shallow(line) or "") == {"a": None, "b": "[{", "c": None, "id": 7}
        assert _shallow('{"a":[[1]}') is None
        assert _shallow('{"a":1}}') is None
