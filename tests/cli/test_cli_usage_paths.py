"""The command's usage refusals, run in this process through ``phasetodo.cli.main``: bad
options of ``mcp``, ``verify`` and ``export``, and a bad command line under ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ._inprocess import run_main as _run

INIT = json.dumps({"ops": [{"op": "init", "list": [{"phase": "A", "items": ["a"]}]}]})


@pytest.fixture
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A JSONL store whose default session holds phase A (version 1)."""
    store = str(tmp_path / "store")
    assert _run(capsys, "--store", store, "apply", INIT)[0] == 0
    return store


class TestTheCommandLine:
    def test_no_arguments_print_the_help(self, capsys: pytest.CaptureFixture[str]) -> None:
        """``phasetodo`` alone prints its usage to stdout and exits 0."""
        status, out, err = _run(capsys)
        assert (status, err) == (0, "")
        assert out.startswith("usage: phasetodo ")

    def test_a_bad_command_line_under_json_is_a_json_error(self, capsys: pytest.CaptureFixture[str]) -> None:
        """With ``--json`` argparse's refusal comes back as the JSON error object, status 2."""
        status, out, err = _run(capsys, "--json", "show", "--nope")
        assert (status, err) == (2, "")
        message = "phasetodo: error: unrecognized arguments: --nope"
        assert json.loads(out) == {"error": {"status": 2, "message": message, "problems": []}}


class TestMcpOptions:
    def test_the_todo_tool_runs_only_the_todo_profile(
        self, capsys: pytest.CaptureFixture[str], store: str
    ) -> None:
        """``mcp --tool todo --profile strict`` is refused before anything is served."""
        assert _run(capsys, "--store", store, "mcp", "--tool", "todo", "--profile", "strict") == (
            2, "", "phasetodo: mcp: --tool todo runs the todo profile, not --profile strict\n",
        )

    def test_the_todo_profile_needs_the_todo_tool(
        self, capsys: pytest.CaptureFixture[str], store: str
    ) -> None:
        """``mcp --tool todo_write --profile todo`` says to give ``--tool todo``."""
        assert _run(capsys, "--store", store, "mcp", "--tool", "todo_write", "--profile", "todo") == (
            2, "", "phasetodo: mcp: --profile todo serves the todo tool: give --tool todo\n",
        )


class TestVerifyAndExport:
    @pytest.mark.parametrize(
        ("session", "why"),
        [("../x", "contains '/', which could leave the store"), ("", "is not a usable name")],
    )
    def test_verify_names_a_bad_session_id(
        self, capsys: pytest.CaptureFixture[str], store: str, session: str, why: str
    ) -> None:
        """``verify`` refuses a session id that is no name, before reading anything."""
        status, _, err = _run(capsys, "--store", store, "--session", session, "verify")
        assert (status, err) == (2, f"phasetodo: --session {session!r}: session_id: {session!r} {why}\n")

    def test_export_to_a_missing_folder_is_named(
        self, capsys: pytest.CaptureFixture[str], store: str, tmp_path: Path
    ) -> None:
        """``export PATH`` where the folder is missing names the path and the cause."""
        target = tmp_path / "missing" / "plan.md"
        status, _, err = _run(capsys, "--store", store, "export", str(target))
        assert (status, err) == (2, f"phasetodo: export: cannot write {target}: No such file or directory\n")

    def test_export_with_json_reports_the_file(
        self, capsys: pytest.CaptureFixture[str], store: str, tmp_path: Path
    ) -> None:
        """``--json export PATH`` writes the Markdown and reports its path and size in bytes."""
        target = tmp_path / "plan.md"
        status, out, _ = _run(capsys, "--store", store, "--json", "export", str(target))
        assert status == 0
        assert json.loads(out) == {"path": str(target), "bytes": len(target.read_bytes())}


class TestLeaseAndShapes:
    @pytest.mark.parametrize(
        ("lease", "why"),
        [("abc", "'abc' is not a number of seconds"), ("-5", "'-5': must be a positive number")],
    )
    def test_a_lease_that_is_no_positive_number_is_named(
        self, capsys: pytest.CaptureFixture[str], store: str, lease: str, why: str
    ) -> None:
        """``mcp --lease`` takes a positive number of seconds; anything else exits 2 naming it."""
        status, _, err = _run(capsys, "--store", store, "mcp", "--lease", lease)
        assert status == 2
        assert f"error: argument --lease: {why}" in err

    @pytest.mark.parametrize(
        ("params", "problems"),
        [
            ({"ops": "x"}, ["ops: must be an array, not a string"]),
            (
                {"ops": ["x", {"op": "fly", "zz": 1}]},
                [
                    "ops[0]: must be an object, not a string",
                    "ops[1].op: must be one of init, start, done, drop, rm, append, note",
                ],
            ),
        ],
        ids=["ops-not-a-list", "entries"],
    )
    def test_the_schema_names_a_bad_shape_before_the_key_guard(
        self, capsys: pytest.CaptureFixture[str], store: str, params: object, problems: list[str]
    ) -> None:
        """Ops of the wrong shape (or of no known op) are the schema's to name, not the key guard's."""
        status, _, err = _run(capsys, "--store", store, "apply", json.dumps(params))
        assert status == 2
        assert err.splitlines()[1:] == [*(f"  {p}" for p in problems), "nothing was applied"]
