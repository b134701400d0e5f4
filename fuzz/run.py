"""Run the fuzz targets: ``python -m fuzz.run --examples N [--target NAME] [--engine E]``.

``--engine hypothesis`` (the default) runs N generated inputs per target and
shrinks any failure to a small example. ``--engine atheris`` hands one target
to libFuzzer for N runs, coverage-guided, through Hypothesis's
``fuzz_one_input`` (``pip install 'phasetodo[fuzz]'``). Run it under
``nice -n 19`` on a shared machine. Exit status 1 means a target failed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

NAMES = ("markdown", "params", "phases")


def _settings(examples: int, seed: int | None) -> Any:
    from hypothesis import HealthCheck, settings

    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=seed is None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


def _hypothesis(names: Sequence[str], examples: int, seed: int | None) -> int:
    from hypothesis import given
    from hypothesis import seed as with_seed

    from . import targets

    failed = 0
    for name in names:
        test = given(targets.STRATEGIES[name]())(targets.TARGETS[name])
        test = _settings(examples, seed)(test)
        if seed is not None:
            test = with_seed(seed)(test)
        began = time.perf_counter()
        try:
            test()
            verdict = "ok"
        except Exception as error:  # a target failed: report it, run the others
            failed += 1
            verdict = f"FAILED: {type(error).__name__}: {error}"
        took = time.perf_counter() - began
        ran = targets.count.get(name, 0)
        print(f"{name}: {ran} inputs in {took:.1f} s — {verdict}", flush=True)
    return 1 if failed else 0


def _atheris(name: str, examples: int, extra: Sequence[str]) -> int:  # pragma: no cover
    import atheris  # type: ignore[import-untyped]

    # Hypothesis loads phasetodo through its entry point: instrument that import too.
    with atheris.instrument_imports(include=["phasetodo"]):
        from hypothesis import given

        from . import targets

    check = targets.TARGETS[name]
    began = time.perf_counter()

    def counted(value: Any) -> None:
        check(value)
        ran = targets.count.get(name, 0)
        if ran % 1000 == 0 or ran == examples:
            took = time.perf_counter() - began
            print(f"{name}: {ran} inputs in {took:.1f} s (atheris)", flush=True)

    test = _settings(examples, None)(given(targets.STRATEGIES[name]())(counted))
    flags = [f"-runs={examples}", *extra]
    if not any(flag.startswith("-max_len=") for flag in extra):
        flags.append("-max_len=4096")  # Hypothesis draws from the bytes: give it room
    if not any(flag.startswith("-len_control=") for flag in extra):
        flags.append("-len_control=0")
    atheris.Setup([sys.argv[0], *flags], test.hypothesis.fuzz_one_input)
    atheris.Fuzz()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run the chosen targets; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m fuzz.run", description=__doc__)
    parser.add_argument("--examples", type=int, default=2000, help="inputs per target")
    parser.add_argument("--target", choices=[*NAMES, "all"], default="all")
    parser.add_argument("--engine", choices=["hypothesis", "atheris"], default="hypothesis")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: fixed)")
    args, extra = parser.parse_known_args(argv)
    if args.examples < 1:
        parser.error("--examples: must be at least 1")
    names = NAMES if args.target == "all" else (args.target,)
    if args.engine == "atheris":
        if len(names) != 1:
            parser.error("--engine atheris: choose one --target")
        return _atheris(names[0], args.examples, extra)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return _hypothesis(names, args.examples, args.seed)


if __name__ == "__main__":
    sys.exit(main())
