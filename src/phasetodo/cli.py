"""The ``phasetodo`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from .codec import dump_phases
from .errors import InvalidParams
from .markdown import phases_to_markdown
from .model import Phase
from .tool import execute, result_of

__all__ = ["DEMO_CALLS", "main"]

#: The scripted agent session ``phasetodo demo`` plays.
DEMO_CALLS: tuple[dict[str, Any], ...] = (
    {
        "ops": [
            {
                "op": "init",
                "list": [
                    {"phase": "Explore", "items": ["Read the failing test", "Find the parser bug"]},
                    {"phase": "Fix", "items": ["Patch the tokenizer", "Run the test suite"]},
                ],
            }
        ]
    },
    {"ops": [{"op": "start", "task": "Read the failing test"}]},
    {"ops": [{"op": "note", "task": "Read the failing test", "text": "Fails on tabs only."}]},
    {"ops": [{"op": "done", "task": "Read the failing test"}]},
    {"ops": [{"op": "append", "phase": "Fix", "items": ["Add a regression test"]}]},
    {"ops": [{"op": "done", "task": "Find the parser bug"}, {"op": "drop", "phase": "Explore"}]},
    {"ops": [{"op": "done", "task": "Patch the lexer"}]},
    {"ops": [{"op": "pending"}]},
)


def _demo(out: Any) -> int:
    phases: tuple[Phase, ...] = ()
    for number, params in enumerate(DEMO_CALLS, start=1):
        out.write(f"── call {number}: todo_write {json.dumps(params)}\n")
        try:
            outcome = execute(params, phases)
        except InvalidParams as error:
            out.write(f"rejected, nothing applied:\n{error}\n\n")
            continue
        phases = outcome.phases
        out.write(result_of(outcome)["content"][0]["text"] + "\n\n")
    out.write("── Markdown export\n" + phases_to_markdown(phases))
    out.write("── details.phases\n" + json.dumps(dump_phases(phases), indent=2) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = argparse.ArgumentParser(prog="phasetodo", description="A phased todo list for agents.")
    verbs = parser.add_subparsers(dest="verb", required=True)
    verbs.add_parser("demo", help="play a short scripted agent session")
    args = parser.parse_args(argv)
    if args.verb == "demo":
        return _demo(sys.stdout)
    parser.error(f"unknown verb {args.verb}")  # pragma: no cover - argparse rejects first
    return 2


if __name__ == "__main__":
    sys.exit(main())
