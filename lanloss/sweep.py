# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss sweep`: a grid of points (cross product of option lists), one record per point.

    lanloss sweep --source sim --set payload=64,576,1472 --set rate=20Mbps,max \\
                  --fixed duration=0.2s --out results/runs/demo

Each point's record is written atomically to OUT/<readable prefix>-<hash>.json,
named from the canonical parameters, so an interrupted sweep resumes where it
stopped (finished points are skipped) and a point's file always names its
parameters. The Snakemake workflow builds on the same naming.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from lanloss import options as vocab
from lanloss import outputs, units
from lanloss.record import RunRecord, dump_json, load, write_atomic

# Options worth showing in a file name, in this order (when not at their default); the
# hash tells the rest apart.
_PREFIX_KEYS = (
    "protocol",
    "cast",
    "host",
    "payload",
    "rate",
    "pattern",
    "pause",
    "edge_rate",
    "sender_rate",
    "receivers",
    "rcvbuf",
    "seed",
)


def point_id(params: dict[str, Any]) -> str:
    """Readable prefix + stable hash of the canonical parameters."""
    canonical = json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:10]
    from lanloss import host_values

    implied = dict(host_values.PRESETS.get(params.get("host"), {}))  # what the preset fills in
    implied["sender_rate"] = params.get("edge_rate")
    parts = []
    for key in _PREFIX_KEYS:
        value = params.get(key)
        if value is None or value == vocab.BY_NAME[key].default or value == implied.get(key):
            continue
        if vocab.BY_NAME[key].kind in ("rate", "rate_or_max") and isinstance(value, int):
            value = units.format_rate(value)
        parts.append(f"{key}{value}".replace(":", ""))  # burst:4 -> patternburst4
    prefix = "_".join(parts) or "default"
    return f"{prefix}-{digest}"


def parse_assignments(items: list[str], flag: str = "--set") -> dict[str, list[str]]:
    """['payload=64,1472', 'rate=max'] -> {'payload': ['64', '1472'], 'rate': ['max']}.

    A name given twice is an error (which one would win is a guess)."""
    grid: dict[str, list[str]] = {}
    for item in items:
        if "=" not in item:
            raise vocab.OptionError(f"{flag}: {item!r} is not NAME=VALUE[,VALUE...]")
        name, values = item.split("=", 1)
        name = name.strip().replace("-", "_")
        if name not in vocab.BY_NAME:
            raise vocab.OptionError(f"unknown option {name!r} in {item!r}")
        if name in grid:
            raise vocab.OptionError(f"{flag}: {name} given twice ({item!r}); list its values once")
        grid[name] = [v.strip() for v in values.split(",") if v.strip()]
        if not grid[name]:
            raise vocab.OptionError(f"{name}: no values in {item!r}")
    return grid


def points(grid: dict[str, list[str]], fixed: dict[str, str], source: str) -> list[dict[str, Any]]:
    """Every point of the grid, validated (all of them, before anything runs)."""
    names = sorted(grid)
    out = []
    for combo in itertools.product(*(grid[n] for n in names)):
        given = {**fixed, **dict(zip(names, combo, strict=True))}
        out.append(vocab.resolve(given, source))
    return out


def run_sweep(
    params_list: list[dict[str, Any]],
    out_dir: str,
    runner: Callable[[dict[str, Any]], RunRecord],
    progress: Callable[[str], None] = print,
) -> list[tuple[str, RunRecord]]:
    """Run the missing points; returns (path, record) for every point.

    The folder is held by one sweep at a time (``folder_lock``): a second sweep into it
    waits, then runs only the points the first left without a record."""
    os.makedirs(out_dir, exist_ok=True)
    with folder_lock(out_dir):
        return _run_points(params_list, out_dir, runner, progress)


LOCK_FILE = ".lanloss-sweep.lock"  # in the output folder; `lanloss table DIR` reads *.json


@contextlib.contextmanager
def folder_lock(out_dir: str, say: Callable[[str], None] | None = None) -> Iterator[None]:
    """An exclusive flock on OUT/.lanloss-sweep.lock for the block. Held by another sweep:
    say so once (stderr) and wait for it. The kernel drops the lock when its holder exits,
    however it ends, so a crashed sweep leaves no stale lock (the file stays, empty)."""
    say = say or (lambda text: print(f"lanloss sweep: {text}", file=sys.stderr, flush=True))
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW  # a planted symlink: refused
    try:
        fd = os.open(os.path.join(out_dir, LOCK_FILE), flags, 0o666)
    except OSError as exc:
        raise vocab.OptionError(
            f"--out: cannot open the lock {os.path.join(out_dir, LOCK_FILE)}: {exc.strerror}"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"{out_dir} is in use by another sweep; waiting for it to finish")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _run_points(
    params_list: list[dict[str, Any]],
    out_dir: str,
    runner: Callable[[dict[str, Any]], RunRecord],
    progress: Callable[[str], None],
) -> list[tuple[str, RunRecord]]:
    results = []
    for i, params in enumerate(params_list, 1):
        path = os.path.join(out_dir, point_id(params) + ".json")
        if os.path.exists(path):
            progress(f"[{i}/{len(params_list)}] done already: {path}")
            results.append((path, load(path)))
            continue
        progress(f"[{i}/{len(params_list)}] running {os.path.basename(path)}")
        record = runner(params)
        write_atomic(path, dump_json(record.to_dict()))
        results.append((path, record))
    return results


def summary_table(results: list[tuple[str, RunRecord]]) -> str:
    from lanloss.units import format_rate

    rows = ["point | offered | goodput | loss | where lost", "---|---|---|---|---"]
    for path, rec in results:
        where = ", ".join(f"{k} {v}" for k, v in rec.drops.items() if v) or "-"
        rows.append(
            f"{os.path.basename(path)} | {format_rate(rec.totals['offered_bps'])} | "
            f"{format_rate(rec.totals['goodput_bps'])} | {rec.totals['loss']:.4%} | {where}"
        )
    return "\n".join(rows)


def _cmd_sweep(args: argparse.Namespace) -> int:
    grid = parse_assignments(args.set or [], "--set")
    fixed_lists = parse_assignments(args.fixed or [], "--fixed")
    for name, values in fixed_lists.items():
        if name in grid:
            raise vocab.OptionError(f"--fixed: {name} is also given to --set; give it to one")
        if len(values) > 1:
            raise vocab.OptionError(
                f"--fixed: {name}={','.join(values)} has several values; use --set for a list"
            )
    fixed = {k: v[0] for k, v in fixed_lists.items()}
    params_list = points(grid, fixed, args.source)
    outputs.check_dir(args.out, "--out")
    if args.source == "sim":
        from lanloss import sim

        for params in params_list:
            sim.check_point(params)
        runner = sim.run_point
    else:
        from lanloss.testbed import cli as bed_cli

        runner = bed_cli.sweep_runner(params_list, set(grid) | set(fixed))
    results = run_sweep(params_list, args.out, runner)
    print(summary_table(results))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="run a grid of points, one record per point (resumable)")
    p.add_argument("--source", choices=("sim", "bed"), default="sim")
    p.add_argument(
        "--set",
        action="append",
        metavar="NAME=V1,V2",
        help="an option and its values (repeat: cross product)",
    )
    p.add_argument(
        "--fixed",
        action="append",
        metavar="NAME=VALUE",
        help="an option held fixed for every point",
    )
    p.add_argument("--out", required=True, help="folder for the run records")
    p.set_defaults(func=_cmd_sweep)
