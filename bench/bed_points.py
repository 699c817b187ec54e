# SPDX-License-Identifier: GPL-2.0-only
"""Testbed overhead per point: a fresh LAN per point against one LAN kept standing.

Side by side in one run (root, netns backend): the same N points (the default study's
shape, 1472-byte datagrams into a 100 Mbit/s port at several rates, 0.5 s each) as
consecutive `lanloss bed run` processes, once building and tearing down the LAN every
point (as before --keep-lan) and once with `--keep-lan` (the first point builds it, the
others reuse it, `bed restore` takes it down), the two series interleaved by rep. Per
point it prints the process's wall time (what a workflow job costs, start-up included),
the record's phases (set-up, settings, restore) and the overhead = wall - traffic - drain,
then the ratio of the means. The wrapper's start-up alone is `lanloss bed check` of one
point (parse, validate, no host touched).

    .venv/bin/python bench/bed_points.py            # 6 points x 2 reps, ~1 min
    .venv/bin/python bench/bed_points.py --points 10 --reps 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANLOSS = [sys.executable, "-m", "lanloss.cli"]
PREFIX = "lanloss-bench-"
POINT = ["--payload", "1472", "--duration", "0.5s", "--warmup", "0.1s"]


def bed(state: str, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    env = {**os.environ, "LANLOSS_STATE_DIR": state}
    t0 = time.perf_counter()
    cp = subprocess.run([*LANLOSS, "bed", *args], capture_output=True, text=True, env=env)
    return time.perf_counter() - t0, cp


def series(state: str, rates: list[str], keep: bool, out: str) -> list[dict[str, float]]:
    rows = []
    for k, rate in enumerate(rates):
        path = os.path.join(out, f"{'keep' if keep else 'fresh'}-{k}.json")
        extra = ["--keep-lan"] if keep else []
        wall, cp = bed(state, "run", "--prefix", PREFIX, *POINT, "--rate", rate, *extra,
                       "--out", path)  # fmt: skip
        if cp.returncode != 0:
            raise SystemExit(f"bed run failed: {cp.stderr.strip()}")
        t = json.loads(Path(path).read_text())["timing"]
        rows.append(
            {
                "wall": wall,
                "setup": t.get("setup_s", 0.0),
                "apply": t.get("apply_s", 0.0),
                "restore": t.get("restore_s", 0.0),
                "overhead": wall - t.get("traffic_s", 0.0) - t.get("drain_s", 0.0),
            }
        )
    if keep:
        _, cp = bed(state, "restore", "--prefix", PREFIX)
        if cp.returncode != 0:
            raise SystemExit(f"bed restore failed: {cp.stderr.strip()}")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=6)
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("bed_points: needs root (network namespaces); skipped")
        return 0
    rates = [f"{r}Mbps" for r in (20, 50, 80, 95, 100, 110, 130, 150, 60, 40)][: args.points]
    fresh: list[dict[str, float]] = []
    kept: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        state = os.path.join(tmp, "state")
        for _ in range(args.reps):
            fresh += series(state, rates, False, tmp)
            kept += series(state, rates, True, tmp)
        startup = [bed(state, "check", "--prefix", PREFIX, *POINT)[0] for _ in range(3)]

    def mean(rows: list[dict[str, float]], key: str) -> float:
        return statistics.fmean(r[key] for r in rows)

    print(f"{len(rates)} points x {args.reps} reps, 0.5 s of traffic each (seconds per point)")
    print(f"{'':24}{'fresh LAN':>12}{'--keep-lan':>12}{'ratio':>8}")
    for key in ("wall", "overhead", "setup", "apply", "restore"):
        a, b = mean(fresh, key), mean(kept, key)
        print(f"{key:24}{a:12.3f}{b:12.3f}{b / a if a else float('nan'):8.2f}")
    print(f"{'wrapper start-up':24}{statistics.median(startup):12.3f}")
    print(
        json.dumps(
            {
                "bench": "bed_points",
                "points": len(rates),
                "reps": args.reps,
                "fresh": {k: mean(fresh, k) for k in fresh[0]},
                "keep_lan": {k: mean(kept, k) for k in kept[0]},
                "startup_s": statistics.median(startup),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
