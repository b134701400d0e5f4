"""The fuzz targets: what may come in from outside, and what may come out.

* ``markdown`` — any text (reference form or lossless) into
  ``markdown_to_phases``: it never raises, reports line-numbered errors, and what
  it returns exports and reads back as itself (normalized, in the reference form).
* ``params`` — any data as ``todo_write`` arguments: the only exception is
  ``InvalidParams``; otherwise the result matches the details schema.
* ``phases`` — any data as a stored list for ``load_phases``: the only
  exception is ``InvalidPhases``.

Each target is a Hypothesis test function taking one drawn input, so the same
function runs under Hypothesis's own generator or under atheris (through
``fuzz_one_input``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import fastjsonschema
from hypothesis import strategies as st

import phasetodo
from phasetodo import testing

__all__ = ["STRATEGIES", "TARGETS", "count"]

#: How many inputs each target has checked in this process.
count: dict[str, int] = {}

_check_details = fastjsonschema.compile(phasetodo.DETAILS_SCHEMA)

#: Characters the Markdown reader gives meaning to, and the JavaScript edge cases.
_MARKDOWN_BITS = st.sampled_from(
    [
        "#",
        "# ",
        "## ",
        "- ",
        "* ",
        "+ ",
        "[",
        "]",
        "[ ]",
        "[x]",
        "[X]",
        "[/]",
        "[>]",
        "[-]",
        "[~]",
        "[?]",
        "[]",
        ">",
        "  > ",
        " ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "\u2028",
        "\u2029",
        "\u00a0",
        "\ufeff",
        "\u3000",
        "\x1c",
        "\x85",
        "\U0001f600",
        "Todos",
        "a",
        "task",
        "\\",
    ]
)

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
#: Not JSON at all, but what a careless host might pass.
_ODD = st.one_of(
    st.binary(max_size=4),
    st.tuples(st.text(max_size=3)),
    st.frozensets(st.integers(), max_size=2),
    st.just(float("nan")),
    st.just(float("inf")),
    st.integers(min_value=2**64),
    st.builds(object),
)
_KEYS = st.sampled_from(["op", "list", "task", "phase", "items", "text", "ops", "x"])
_OP_NAMES = st.sampled_from([*phasetodo.ops.OPS, "Init", "", "pending"])
#: Objects shaped like ops, with any value under any schema key.
_OP_LIKE = st.dictionaries(
    _KEYS,
    st.one_of(_OP_NAMES, _JSON, _ODD, st.lists(st.text(max_size=3), max_size=3)),
    max_size=4,
)


def _insert(parts: tuple[str, int, str]) -> str:
    text, where, bit = parts
    return text[:where] + bit + text[where:]


def _markdown_inputs() -> st.SearchStrategy[str]:
    lossless = testing.phases(duplicates=True).map(
        lambda phases: phasetodo.phases_to_markdown(phases, lossless=True)
    )
    return st.one_of(
        st.text(),
        st.lists(_MARKDOWN_BITS, max_size=40).map("".join),
        testing.markdown_documents(broken=True),
        testing.markdown_documents(),
        st.tuples(testing.markdown_documents(), st.integers(0, 200), _MARKDOWN_BITS).map(_insert),
        lossless,
        st.tuples(lossless, st.integers(0, 200), _MARKDOWN_BITS).map(_insert),
    )


def _params_inputs() -> st.SearchStrategy[tuple[Any, Any]]:
    stored = testing.phases(duplicates=True, max_size=3, max_tasks=3)
    arguments = st.one_of(
        testing.params(valid=None, extras=True),
        st.fixed_dictionaries({"ops": st.lists(_OP_LIKE, max_size=4)}),
        st.fixed_dictionaries({"ops": st.one_of(_JSON, _ODD)}),
        _JSON,
        _ODD,
    )
    return st.tuples(stored.map(phasetodo.dump_phases), arguments)


def _phases_inputs() -> st.SearchStrategy[Any]:
    task = st.dictionaries(
        st.sampled_from(["content", "status", "notes"]),
        st.one_of(_JSON, st.sampled_from(["pending", "in_progress", "done"]), _ODD),
    )
    phase = st.dictionaries(
        st.sampled_from(["name", "tasks"]), st.one_of(_JSON, st.lists(task, max_size=3), _ODD)
    )
    return st.one_of(
        st.lists(phase, max_size=3),
        testing.phases().map(phasetodo.dump_phases),
        _JSON,
        _ODD,
    )


def _explained(error: phasetodo.InvalidParams | phasetodo.InvalidPhases) -> None:
    """A rejection names at least one problem, each a line with its place."""
    assert error.problems
    assert all(isinstance(p, str) and ": " in p for p in error.problems), error.problems


def markdown(text: str) -> None:
    """Parsing never raises; what it returns exports and reads back as itself.

    Without the lossless marker the result is also normalized, and the
    reference's own form reads it back unchanged.
    """
    count["markdown"] = count.get("markdown", 0) + 1
    parsed, errors = phasetodo.markdown_to_phases(text)
    assert all(isinstance(p, phasetodo.Phase) for p in parsed)
    assert all(e.startswith("Line ") for e in errors)
    exact = phasetodo.phases_to_markdown(parsed, lossless=True)
    assert phasetodo.markdown_to_phases(exact) == (parsed, [])
    if phasetodo.views.LOSSLESS_MARKER in text:
        return
    assert tuple(parsed) == phasetodo.profiles.normalize(parsed)
    if parsed:
        again, more = phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(parsed))
        assert (again, more) == (parsed, [])


def params(call: tuple[Any, Any]) -> None:
    """todo_write raises InvalidParams or returns a result the details schema accepts."""
    count["params"] = count.get("params", 0) + 1
    stored, arguments = call
    try:
        result = phasetodo.todo_write(arguments, stored)
    except phasetodo.InvalidParams as error:
        _explained(error)
        return
    _check_details(result["details"])
    assert isinstance(result["content"][0]["text"], str)


def phases(data: Any) -> None:
    """load_phases raises InvalidPhases or returns Phase values."""
    count["phases"] = count.get("phases", 0) + 1
    try:
        loaded = phasetodo.load_phases(data)
    except phasetodo.InvalidPhases as error:
        _explained(error)
        return
    assert all(isinstance(p, phasetodo.Phase) for p in loaded)


#: Target name -> (the check, the strategy that feeds it).
TARGETS: dict[str, Callable[[Any], None]] = {
    "markdown": markdown,
    "params": params,
    "phases": phases,
}
STRATEGIES: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "markdown": _markdown_inputs,
    "params": _params_inputs,
    "phases": _phases_inputs,
}
