# SPDX-License-Identifier: GPL-2.0-only
"""The `lanloss` command's start-up: what each point's process pays before it works.

Side by side in one run, interleaved by rep, each a fresh process parsing `--help` (it
imports what the command needs and exits before any work):

- the interpreter alone (`python -c pass`): the floor;
- every subcommand's module imported (what each command cost when the parser was built
  whole): the baseline;
- `sim run`, `bed run`, `table`: only the module of the command (lanloss.cli);
- each of those again without lanloss's own bytecode (its __pycache__ folders moved aside
  for the case and put back, PYTHONDONTWRITEBYTECODE set): what every process pays where
  that variable is set and `make setup` has not compiled lanloss.

Prints the median wall time per case and its ratio to the baseline.

    .venv/bin/python bench/cli_startup.py              # 9 reps, ~20 s
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("lanloss", "analysis", "testbed")  # lanloss, lanloss.analysis, lanloss.testbed
FULL_PARSER = "from lanloss import cli; cli.build_parser()"
COMMANDS = {"sim run": ["sim", "run"], "bed run": ["bed", "run"], "table": ["table"]}


def _wall(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, capture_output=True, env=env, check=True, cwd=tempfile.gettempdir())
    return time.perf_counter() - t0


@contextlib.contextmanager
def bytecode_aside(store: Path) -> Iterator[None]:
    """lanloss's __pycache__ folders moved into @store for the block, then put back."""
    moved = []
    try:
        for pkg in PACKAGES:
            for cache in sorted((ROOT / pkg).rglob("__pycache__")):
                dest = store / str(len(moved))
                cache.rename(dest)
                moved.append((dest, cache))
        yield
    finally:
        for dest, cache in moved:
            dest.rename(cache)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    py = sys.executable
    env = dict(os.environ)
    no_write = {**env, "PYTHONDONTWRITEBYTECODE": "1"}
    cases: dict[str, list[str]] = {
        "interpreter alone": [py, "-c", "pass"],
        "every subcommand (baseline)": [py, "-c", FULL_PARSER],
    }
    for name, words in COMMANDS.items():
        cases[name] = [py, "-m", "lanloss.cli", *words, "--help"]
    times: dict[str, list[float]] = {name: [] for name in cases}
    times["every subcommand, no bytecode"] = []
    times.update({f"{name}, no bytecode": [] for name in COMMANDS})
    for _ in range(args.reps):
        for name, argv in cases.items():
            times[name].append(_wall(argv, env))
        with tempfile.TemporaryDirectory(dir=ROOT / "build") as store, bytecode_aside(Path(store)):
            times["every subcommand, no bytecode"].append(_wall([py, "-c", FULL_PARSER], no_write))
            for name, words in COMMANDS.items():
                argv = [py, "-m", "lanloss.cli", *words, "--help"]
                times[f"{name}, no bytecode"].append(_wall(argv, no_write))
    base = statistics.median(times["every subcommand (baseline)"])
    print(f"{'case':34} {'median s':>9} {'min s':>7} {'/ baseline':>11}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:34} {med:9.3f} {min(ts):7.3f} {med / base:11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
