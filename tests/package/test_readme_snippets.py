"""The integration snippets (docs/agents.md, once the README's section): every one runs as written."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import phasetodo

ROOT = Path(__file__).parents[2]
# The README is the front door; its integration section moved to the agents guide.
PAGES = (ROOT / "README.md", ROOT / "docs" / "agents.md")


def _section(name: str) -> str:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        match = re.search(rf"<!-- section:{name} -->\n(.*?)<!-- /section:{name} -->", text, re.DOTALL)
        if match:
            return match.group(1)
    raise AssertionError(f"neither README.md nor docs/agents.md has a {name} section")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", _section("integrations"), re.DOTALL)


PYTHON = _blocks("python")


@pytest.fixture
def beside_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in a scratch directory with the installed ``phasetodo`` command on PATH."""
    monkeypatch.chdir(tmp_path)
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))
    return tmp_path


class TestSnippets:
    def test_there_is_one_per_integration(self) -> None:
        """The section shows the tool, the specs, MCP, the three frameworks and the whole-list tools."""
        joined = "\n".join(PYTHON)
        for name in (
            "TodoWriteTool",
            "to_openai",
            "to_anthropic",
            "stdio_client",
            "openai_agents",
            "integrations.langchain",
            "integrations.pydantic_ai",
            "wholelist",
        ):
            assert name in joined, name

    @pytest.mark.parametrize("code", PYTHON, ids=[f"snippet-{i}" for i in range(len(PYTHON))])
    def test_python_snippet_runs(self, code: str, beside_the_command: Path) -> None:
        """The snippet runs as written, in a fresh interpreter, and prints something."""
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=beside_the_command,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() or "assert" in code

    def test_client_configs_parse(self) -> None:
        """The JSON, TOML and Claude Code configs parse and give one command line: phasetodo mcp."""
        (config,) = _blocks("json")
        server = json.loads(config)["mcpServers"]["phasetodo"]
        (codex,) = _blocks("toml")
        codex_server = tomllib.loads(codex)["mcp_servers"]["phasetodo"]
        assert server == codex_server
        assert server["command"] == CLONE + "/.venv/bin/phasetodo"
        assert server["args"][0] == "mcp"
        (claude,) = _blocks("sh")
        words = shlex.split(claude)
        assert words[:4] == ["claude", "mcp", "add", "phasetodo"]
        assert words[words.index("--") + 1 :] == [server["command"], *server["args"]]

    def test_configured_command_parses(self) -> None:
        """The command line the configs give is one the phasetodo parser accepts, with an absolute store."""
        from phasetodo.cli import _parser

        (config,) = _blocks("json")
        args = _parser().parse_args(json.loads(config)["mcpServers"]["phasetodo"]["args"])
        assert (args.verb, args.store, args.session) == ("mcp", PROJECT + "/.phasetodo", "default")
        assert Path(args.store).is_absolute()

    @pytest.mark.parametrize("form", ["script", "interpreter"])
    def test_absolute_config_serves_from_anywhere(self, form: str, tmp_path: Path) -> None:
        """The config, its paths put where this test's are, serves one store from any folder on a
        bare PATH: the command's absolute path needs no PATH, the absolute store no working folder."""
        (config,) = _blocks("json")
        server = json.loads(config)["mcpServers"]["phasetodo"]
        project, bin_dir = tmp_path / "project", Path(sys.executable).parent
        args = [arg.replace(PROJECT, str(project)) for arg in server["args"]]
        command = server["command"].replace(CLONE + "/.venv/bin", str(bin_dir))
        if form == "interpreter":  # the environment's python with -m phasetodo, as the guide says
            command, args = sys.executable, ["-m", "phasetodo", *args]
        texts = []
        for folder in ("a", "b"):  # two starts from two folders: one list
            (tmp_path / folder).mkdir()
            texts.append(_serve_once(command, args, tmp_path / folder))
        assert "Patch it" in texts[1]
        assert not any((tmp_path / folder / ".phasetodo").exists() for folder in ("a", "b"))
        store = phasetodo.JsonlStore(project / ".phasetodo")
        with phasetodo.Session.open("default", store=store) as session:
            assert [t.content for p in session.phases for t in p.tasks] == ["Patch it"]
        store.close()


#: Where the configs of docs/agents.md and the README put the clone and the agent's project.
CLONE = "/home/me/src/phasetodo"
PROJECT = "/home/me/project"


def _serve_once(command: str, args: list[str], cwd: Path) -> str:
    """Start the configured server in ``cwd`` with PATH=/usr/bin:/bin, init (or read) the list."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def run() -> str:
        server = StdioServerParameters(command=command, args=args, cwd=cwd, env={"PATH": "/usr/bin:/bin"})
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            listed = await client.call_tool("todo_read", {})
            text = "".join(part.text for part in listed.content if part.type == "text")
            if "Patch it" not in text:
                await client.call_tool(
                    "todo_write", {"ops": [{"op": "init", "list": [{"phase": "Fix", "items": ["Patch it"]}]}]}
                )
            return text

    result: str = anyio.run(run)
    return result
