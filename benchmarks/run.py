"""Run the shared benchmark workloads and print per-call figures beside the reference's.

Usage: ``python -m benchmarks.run [--rounds N] [--only NAME] [--scaling] [--team [--team-rounds N]]
[--sessions [--dsn DSN]] [--wall] [--import]``.

Each workload is measured end to end, as the reference was: validate the
params, apply them to a copy of ``before``, normalize, format the summary and
build ``details`` as JSON-ready data. Per workload it prints the median µs per
call of:

* ``dicts``: ``phasetodo.todo_write(params, before)`` with ``before`` as JSON
  dicts, what hosts pass (w4: ``markdown_to_phases(phases_to_markdown(before))``
  with ``before`` as dicts: w4 is the Markdown path and calls no ``todo_write``;
  w5: 200 calls, each on the previous result's ``details.phases``);
* ``values``: ``phasetodo.todo_write(params, values)`` with ``before`` held as
  ``Phase`` values (w4: the same Markdown round trip from values; w5: each call
  on the previous result's ``Phase`` values, through ``call``, the only way to chain values);
* ``typed``: ``phasetodo.tool.call(params, values).to_json()``, the typed result
  that ``Session`` and ``MemoryState`` build, turned into JSON (w1-w3);
* ``floor``: only building the output in CPython from the finished list held as
  plain columns (names, contents, statuses, notes): the summary string and the
  ``details.phases`` dicts (w4: the Markdown string and the parsed ``Phase``
  values); the faster of two builders (one loop per task, or comprehensions);

then ``dicts`` over ``floor`` and ``dicts`` over the reference's figures (from
:mod:`benchmarks.reference`, dated), and whether the floor (a fraction of the
reference's fastest figure, :data:`benchmarks.reference.GOAL`) is met. Times are the process's CPU time
(``--wall`` for wall-clock), the median of ``--rounds`` rounds. ``--scaling`` adds 100 vs 1,000 ``done``
ops on the 10,000-task list; ``--import`` the CPU time of ``import phasetodo`` in fresh
interpreters (goal: :data:`benchmarks.reference.IMPORT_GOAL_MS`, on the median); ``--team``
adds one agent's write (a note, ``done`` and ``start``) through ``Session.todo_write`` in
the team and the parity profile on the same list, on 10,000 and 100,000 tasks, on each store
(``memory:``, ``jsonl:``, ``sqlite:`` in a temporary folder; PostgreSQL only when ``$PHASETODO_BENCH_PG``
holds a DSN: no server is started), one row per store and size: wall-clock min and range of
each profile's writes (``--team-rounds``, default 15 on 10,000 tasks, a third of that on 100,000), with each
store's checkpoint cost spread over its writes, and team over parity on the minima, on
the medians and on the minimal CPU times (see :func:`benchmarks.sessions.team_vs_parity`);
``--sessions`` adds ``Session.todo_write`` of w2 on a 10,000-task list on each store
(PostgreSQL: ``--dsn``, else ``$PHASETODO_TEST_DSN``, else a throwaway cluster), beside
``todo_write`` on the same list.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import phasetodo
from phasetodo._core.model import Status, make_tasks
from phasetodo.tool import call

from .reference import GOAL, IMPORT_GOAL_MS, MEASURED, REFERENCE_US, SCALING_GOAL

WORKLOADS = Path(__file__).parent / "workloads"

#: The finished list as columns per phase: name, contents, wire statuses, notes (or None).
#: Tuples of strings, which the garbage collector stops tracking: holding the 200 lists
#: of w5 then costs the floor no collector time that the calls themselves do not pay.
Plain = list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[tuple[str, ...] | None, ...]]]


def load(name: str) -> dict[str, Any]:
    """One workload file."""
    with (WORKLOADS / f"{name}.json").open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


#: The clock: the process's CPU time, so that other load on a shared machine does not
#: count (``--wall`` switches to wall-clock time, as :mod:`benchmarks.sessions` uses).
CLOCK: list[Callable[[], float]] = [time.process_time]


def median_us(fn: Callable[[], object], rounds: int, budget_s: float = 1.0) -> float:
    """Median time of ``fn`` in µs over ``rounds`` rounds of repeated calls (see :data:`CLOCK`)."""
    clock = CLOCK[0]
    fn()
    start = clock()
    fn()
    once = max(clock() - start, 1e-7)
    loops = max(1, int(budget_s / rounds / once))
    samples = []
    for _ in range(rounds):
        start = clock()
        for _ in range(loops):
            fn()
        samples.append((clock() - start) / loops * 1e6)
    return statistics.median(samples)


# -- the floor: only the output, from the finished list as plain tuples ------------------

_SYMBOL = {"pending": "○", "in_progress": "→", "completed": "✓", "abandoned": "✗"}
_PREFIX = {status: f"    {symbol} " for status, symbol in _SYMBOL.items()}
_MARK = {"pending": " ", "in_progress": "/", "completed": "x", "abandoned": "-"}


def plain(phases: Sequence[dict[str, Any]]) -> Plain:
    """The finished list as plain columns: what the floor starts from."""
    return [
        (
            p["name"],
            tuple(t["content"] for t in p["tasks"]),
            tuple(t["status"] for t in p["tasks"]),
            tuple(tuple(t["notes"]) if t.get("notes") else None for t in p["tasks"]),
        )
        for p in phases
    ]


def floor_result(state: Plain, errors: Sequence[str]) -> dict[str, Any]:
    """The tool result built directly: summary text and ``details.phases``."""
    prefix = _PREFIX
    tree: list[str] = []
    remaining: list[str] = []
    dumped = []
    current = -1
    for number, (name, contents, statuses, notes) in enumerate(state):
        tree.append(f"  {name}:")
        lines = [f"{prefix[s]}{c}" for c, s in zip(contents, statuses, strict=True)]
        tasks = [{"content": c, "status": s} for c, s in zip(contents, statuses, strict=True)]
        if any(notes):
            spelled = []
            for index, texts in enumerate(notes):
                if texts:
                    size = len(texts)
                    lines[index] += f" (+{size} note{'' if size == 1 else 's'})"
                    tasks[index]["notes"] = list(texts)
                    if statuses[index] == "in_progress":
                        spelled.append(index)
            for index in reversed(spelled):
                below: list[str] = []
                for count, note in enumerate(notes[index] or ()):
                    if count:
                        below.append("        ---")
                    below.extend(f"        {line}" for line in note.split("\n"))
                lines[index + 1 : index + 1] = below
        tree += lines
        dumped.append({"name": name, "tasks": tasks})
        opened = [
            f"  - {c} [{s}] ({name})"
            for c, s in zip(contents, statuses, strict=True)
            if s == "pending" or s == "in_progress"
        ]
        if opened:
            remaining += opened
            if current < 0:
                current = number
    return _floor_json(state, errors, remaining, tree, current, dumped)


def _floor_json(
    state: Plain, errors: Sequence[str], remaining: list[str], tree: list[str], current: int,
    dumped: list[dict[str, Any]],
) -> dict[str, Any]:
    """The summary's head (errors, remaining items, current phase) on the tree, and the result dict."""
    head = [f"Errors: {'; '.join(errors)}"] if errors else []
    if not any(phase[1] for phase in state):
        text = head[0] if head else "Todo list cleared."
    else:
        if remaining:
            head.append(f"Remaining items ({len(remaining)}):")
            head += remaining
        else:
            head.append("Remaining items: none.")
        name, _, statuses, _ = state[current]
        closed = len(statuses) - statuses.count("pending") - statuses.count("in_progress")
        head.append(
            f'Phase {current % len(state) + 1}/{len(state)} "{name}"'
            f" — {closed}/{len(statuses)} tasks complete"
        )
        text = "\n".join(head + tree)
    return {"content": [{"type": "text", "text": text}], "details": {"phases": dumped, "storage": "memory"}}


def floor_result_loop(state: Plain, errors: Sequence[str]) -> dict[str, Any]:
    """:func:`floor_result` as one plain loop per task: faster on lists of small phases."""
    prefix = _PREFIX
    tree: list[str] = []
    remaining: list[str] = []
    dumped = []
    current = -1
    for number, (name, contents, statuses, notes) in enumerate(state):
        tree.append(f"  {name}:")
        tasks = []
        for content, status, texts in zip(contents, statuses, notes, strict=True):
            if status == "pending" or status == "in_progress":
                remaining.append(f"  - {content} [{status}] ({name})")
                if current < 0:
                    current = number
            if texts:
                size = len(texts)
                tree.append(f"{prefix[status]}{content} (+{size} note{'' if size == 1 else 's'})")
                if status == "in_progress":
                    for index, note in enumerate(texts):
                        if index:
                            tree.append("        ---")
                        tree.extend(f"        {line}" for line in note.split("\n"))
                tasks.append({"content": content, "status": status, "notes": list(texts)})
            else:
                tree.append(f"{prefix[status]}{content}")
                tasks.append({"content": content, "status": status})
        dumped.append({"name": name, "tasks": tasks})
    return _floor_json(state, errors, remaining, tree, current, dumped)


def floor_markdown(state: Plain) -> tuple[str, list[phasetodo.Phase]]:
    """The Markdown string and the parsed values, built directly."""
    out: list[str] = []
    mark = _MARK
    for name, contents, statuses, notes in state:
        if out:
            out.append("")
        out.append(f"# {name}")
        if not any(notes):
            out += [f"- [{mark[s]}] {c}" for c, s in zip(contents, statuses, strict=True)]
            continue
        for content, status, texts in zip(contents, statuses, notes, strict=True):
            out.append(f"- [{mark[status]}] {content}")
            for index, note in enumerate(texts or ()):
                if index:
                    out.append("  >")
                out.extend(f"  > {line}" if line else "  >" for line in note.split("\n"))
    text = "\n".join(out) + "\n"
    by_wire = {s.value: s for s in Status}
    values = [
        phasetodo.Phase(
            name,
            tuple(make_tasks(contents, [by_wire[s] for s in statuses], [n or () for n in notes])),
        )
        for name, contents, statuses, notes in state
    ]
    return text, values


# -- the cases -----------------------------------------------------------------------------


def cases() -> dict[str, dict[str, Callable[[], object]]]:
    """For each workload, the callables timed: ``dicts``, ``values`` and ``floor``."""
    out: dict[str, dict[str, Callable[[], object]]] = {}
    for name in ("w1_typical", "w2_scale", "w3_append"):
        work = load(name)
        before, params = work["before"], work["params"]
        values = phasetodo.load_phases(before)
        result = phasetodo.todo_write(params, before)
        state = plain(result["details"]["phases"])
        errors = _errors(params, values)
        if floor_result(state, errors) != result or floor_result_loop(state, errors) != result:
            raise AssertionError(f"{name}: the floor does not build the same result")
        out[name] = {
            "dicts": lambda b=before, p=params: phasetodo.todo_write(p, b),
            "values": lambda v=values, p=params: phasetodo.todo_write(p, v),
            "typed": lambda v=values, p=params: call(p, v).to_json(),
            "floor": lambda s=state, e=errors: floor_result(s, e),
            "floor, loop": lambda s=state, e=errors: floor_result_loop(s, e),
        }
    md_before = load("w4_markdown")["before"]
    md_values = phasetodo.load_phases(md_before)
    md_state = plain(md_before)
    text, parsed = floor_markdown(md_state)
    same = list(phasetodo.markdown_to_phases(text)[0]) == parsed
    if text != phasetodo.phases_to_markdown(md_before) or not same:
        raise AssertionError("w4_markdown: the floor does not build the same output")
    out["w4_markdown"] = {
        "dicts": lambda: phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(md_before)),
        "values": lambda: phasetodo.markdown_to_phases(phasetodo.phases_to_markdown(md_values)),
        "floor": lambda: floor_markdown(md_state),
    }
    calls = load("w5_trace")["calls"]
    finals = _trace_finals(calls)
    out["w5_trace"] = {
        "dicts": lambda: _trace_dicts(calls),
        "values": lambda: _trace_values(calls),
        "floor": lambda: [floor_result(s, e) for s, e in finals],
        "floor, loop": lambda: [floor_result_loop(s, e) for s, e in finals],
    }
    return out


def _errors(params: dict[str, Any], values: Sequence[phasetodo.Phase]) -> tuple[str, ...]:
    return phasetodo.apply(values, phasetodo.profiles.parse_params(params)).errors


def _trace_finals(calls: list[dict[str, Any]]) -> list[tuple[Plain, tuple[str, ...]]]:
    finals = []
    phases: list[dict[str, Any]] = []
    for params in calls:
        errors = _errors(params, phasetodo.load_phases(phases))
        phases = phasetodo.todo_write(params, phases)["details"]["phases"]
        finals.append((plain(phases), errors))
    return finals


def _trace_dicts(calls: list[dict[str, Any]]) -> None:
    phases: list[dict[str, Any]] = []
    for params in calls:
        phases = phasetodo.todo_write(params, phases)["details"]["phases"]


def _trace_values(calls: list[dict[str, Any]]) -> None:
    phases: tuple[phasetodo.Phase, ...] = ()
    for params in calls:
        result = call(params, phases)
        result.to_json()
        phases = result.phases


def scaling(rounds: int) -> tuple[float, float]:
    """µs for 100 and for 1,000 ``done`` ops on the 10,000-task list (dicts)."""
    before = load("w2_scale")["before"]
    contents = [t["content"] for p in before for t in p["tasks"]]
    step = len(contents) // 1000
    ops = [{"op": "done", "task": c} for c in contents[::step][:1000]]
    small, large = {"ops": ops[::10]}, {"ops": ops}
    return (
        median_us(lambda: phasetodo.todo_write(small, before), rounds),
        median_us(lambda: phasetodo.todo_write(large, before), rounds),
    )


#: Run in a fresh interpreter: the CPU time of ``import phasetodo`` alone, in ms.
_TIME_IMPORT = (
    "import time; start = time.process_time(); import phasetodo; "
    "print((time.process_time() - start) * 1e3)"
)


def import_ms(runs: int) -> list[float]:
    """CPU ms of ``import phasetodo`` in ``runs`` fresh interpreters, sorted.

    The interpreters read bytecode compiled once, by a first import, into a temporary
    cache, as an installed package's is: with ``PYTHONDONTWRITEBYTECODE`` set (as on
    the shared machine) every module edited since its last ``.pyc`` would otherwise be
    compiled again in each of them, which no user pays.
    """
    with tempfile.TemporaryDirectory() as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache

        def once() -> float:
            done = subprocess.run([sys.executable, "-c", _TIME_IMPORT], check=True, capture_output=True,
                                  text=True, env=env)
            return float(done.stdout)

        once()
        return sorted(once() for _ in range(runs))


def sessions(calls: int, dsn: str | None) -> dict[str, float]:
    """Wall-clock µs of w2's call on its 10,000-task list: ``todo_write``, then ``Session.todo_write``.

    One figure per store (PostgreSQL on ``dsn``); the session's list is reset to
    ``before`` (untimed, a ``user_edit``) before each timed call. Wall-clock, as
    the stores wait on disk or the server.
    """
    work = load("w2_scale")
    before, params = work["before"], work["params"]
    values = phasetodo.load_phases(before)
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        phasetodo.todo_write(params, before)
        samples.append((time.perf_counter() - start) * 1e6)
    out = {"todo_write, dicts": statistics.median(samples)}
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        stores: dict[str, Callable[[], phasetodo.Store]] = {
            "Session, memory": phasetodo.MemoryStore,
            "Session, jsonl": lambda: phasetodo.JsonlStore(where / "logs"),
            "Session, sqlite": lambda: phasetodo.SqliteStore(where / "s.db"),
        }
        if dsn is not None:
            stores["Session, postgres"] = lambda: phasetodo.stores.store_from_url(dsn)
        for label, make in stores.items():
            store = make()
            session = phasetodo.Session.open("bench", store, clear_delay=-1)
            samples = []
            for _ in range(calls):
                session.user_edit(values, source="bench")
                start = time.perf_counter()
                session.todo_write(params)
                samples.append((time.perf_counter() - start) * 1e6)
            out[label] = statistics.median(samples)
            session.close()
            store.close()
    return out


def main(argv: list[str] | None = None) -> None:
    """Print the table; see the module docstring for the columns."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="timing rounds per figure (median)")
    parser.add_argument("--only", help="run one workload, e.g. w2_scale")
    parser.add_argument("--scaling", action="store_true", help="also 100 vs 1,000 ops on 10k tasks")
    parser.add_argument("--sessions", action="store_true", help="also Session.todo_write per store")
    parser.add_argument(
        "--team", action="store_true",
        help="also a team write vs a parity write via Session.todo_write on 10k and 100k tasks, per store "
        "(memory, JSONL, SQLite; PostgreSQL when $PHASETODO_BENCH_PG is a DSN)",
    )
    parser.add_argument(
        "--team-rounds", type=int, default=15,
        help="--team: timed writes per profile on 10k tasks (100k: a third, at least 3)",
    )
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    parser.add_argument(
        "--import", dest="imports", action="store_true",
        help="also the CPU time of `import phasetodo` in fresh interpreters (one per round, at least 9)",
    )
    parser.add_argument("--dsn", help="--sessions: the PostgreSQL server (default: a throwaway one)")
    args = parser.parse_args(argv)
    CLOCK[0] = time.perf_counter if args.wall else time.process_time
    print(f"reference: {MEASURED}")
    print(f"phasetodo {phasetodo.__version__}, pure Python, Python {platform.python_version()}")
    print(f"median µs per call, {'wall-clock' if args.wall else 'CPU'} time, {args.rounds} rounds")
    print(
        f"{'workload':<13}{'dicts µs':>10}{'values µs':>11}{'typed µs':>10}{'floor µs':>10}"
        f"{'dicts/floor':>13}{'reference µs':>16}{'dicts/ref':>13}{'goal':>7}"
    )
    for name, fns in cases().items():
        if args.only and name != args.only:
            continue
        dicts = median_us(fns["dicts"], args.rounds)
        vals = median_us(fns["values"], args.rounds)
        typed = f"{median_us(fns['typed'], args.rounds):,.0f}" if "typed" in fns else "-"
        floor = min(median_us(fns[k], args.rounds) for k in fns if k.startswith("floor"))
        low, high = REFERENCE_US[name]
        verdict = "met" if dicts / low <= GOAL[name] else "MISSED"
        print(
            f"{name:<13}{dicts:>10,.0f}{vals:>11,.0f}{typed:>10}{floor:>10,.0f}{dicts / floor:>12.2f}x"
            f"{f'{low:,.0f}-{high:,.0f}':>16}{f'{dicts / high:.2f}-{dicts / low:.2f}x':>13}"
            f"{f'<={GOAL[name]}':>7} {verdict}"
        )
    if args.scaling:
        small, large = scaling(args.rounds)
        verdict = "met" if large / small <= SCALING_GOAL else "MISSED"
        print(
            f"scaling: 100 ops {small:,.0f} µs, 1,000 ops {large:,.0f} µs, ratio {large / small:.2f}"
            f" (<={SCALING_GOAL} {verdict})"
        )
    if args.imports:
        times = import_ms(max(9, args.rounds))
        verdict = "met" if statistics.median(times) <= IMPORT_GOAL_MS else "MISSED"
        print(
            f"import phasetodo: {times[0]:.0f}-{times[-1]:.0f} ms CPU, median {statistics.median(times):.0f}"
            f" over {len(times)} fresh interpreters (<={IMPORT_GOAL_MS} {verdict})"
        )
    if args.team:
        import os

        from .sessions import team_vs_parity  # it imports this module

        rounds = args.team_rounds
        big = max(3, rounds // 3)
        dsn = os.environ.get("PHASETODO_BENCH_PG") or None
        print(
            "one agent write (note, done, start) via Session.todo_write, parity vs team on the same list,"
            f" wall-clock µs: min and range over {rounds} writes ({big} on 100,000 tasks),"
            " plus each store's checkpoint share per write; team/parity on the minima, the medians"
            " and the minimal CPU times"
            + ("" if dsn else "; PostgreSQL: set PHASETODO_BENCH_PG to a DSN")
        )
        print(
            f"  {'store':<11}{'tasks':>9}{'parity':>10}{'range':>20}{'team':>10}{'range':>20}"
            f"{'ckpt share p/t':>16}{'team/parity':>13}{'(medians)':>11}{'(CPU)':>8}"
        )
        stores = ("memory", "jsonl", "sqlite") + (("postgresql",) if dsn else ())
        for row in team_vs_parity(rounds, stores=stores, dsn=dsn, big_rounds=big):
            parity, team = min(row.parity) + row.parity_share, min(row.team) + row.team_share
            spread = [
                f"{min(s) + share:,.0f}-{max(s) + share:,.0f}"
                for s, share in ((row.parity, row.parity_share), (row.team, row.team_share))
            ]
            print(
                f"  {row.store:<11}{row.tasks:>9,}{parity:>10,.0f}{spread[0]:>20}"
                f"{team:>10,.0f}{spread[1]:>20}"
                f"{f'{row.parity_share:,.0f}/{row.team_share:,.0f}':>16}{row.ratio:>12.2f}x"
                f"{row.median_ratio:>10.2f}x{row.cpu_ratio:>7.2f}x",
                flush=True,
            )
    if args.sessions:
        from .sessions import postgres_dsn  # it imports this module

        print("w2's call on a 10,000-task list, median µs:")
        with postgres_dsn(args.dsn) as dsn:
            for label, us in sessions(max(3, args.rounds), dsn).items():
                print(f"  {label:<20}{us:>10,.0f}")


if __name__ == "__main__":
    main()
