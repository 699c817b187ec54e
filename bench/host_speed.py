# SPDX-License-Identifier: GPL-2.0-only
"""What the receiving-host model costs: the same traffic with `--host ideal` and a host preset.

Each case runs lanloss-sim twice per repetition, interleaved (ideal, host, ideal, host, ...)
so that a change in machine load hits both alike, with identical traffic that neither
receiver loses (so both carry the same datagrams; the script warns otherwise). The flags
come from `lanloss.options.resolve` and `lanloss.sim.scenario_flags`, exactly as
`lanloss sim run` would pass them.

Speed is simulated datagrams received per wall-second of Simulator::Run() as the program
measures it (timing.sim_wall_s, start-up excluded). The cost factor is ideal / host of the
medians: how many times slower the host model makes the run (goal: at most 1.5). On a busy
machine also look at the fastest runs (`cost best`) and at process CPU time (`cost cpu`).

    .venv/bin/python bench/host_speed.py [--duration 0.5] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import speed

from lanloss import options, sim

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1.5

# name -> vocabulary options; each runs with host=ideal and with the options' host
CASES: dict[str, dict[str, str]] = {
    # seed 000's PC with interrupt moderation, 64-byte datagrams below its knee
    "e1000-2008 itr 2500, 100M, 64 B at 30 Mbit/s": {
        "host": "e1000-2008",
        "itr": "2500",
        "edge_rate": "100Mbps",
        "payload": "64",
        "rate": "30Mbps",
    },
    # full-size frames near the 100M line rate
    "e1000-2008 itr 2500, 100M, 1472 B at 90 Mbit/s": {
        "host": "e1000-2008",
        "itr": "2500",
        "edge_rate": "100Mbps",
        "payload": "1472",
        "rate": "90Mbps",
    },
    # a modern host at 390 kpps on 1G: NAPI batches, the reader on its own core
    "modern, 1G, 64 B at 200 Mbit/s": {
        "host": "modern",
        "edge_rate": "1Gbps",
        "payload": "64",
        "rate": "200Mbps",
    },
}


def run_once(program: Path, given: dict[str, str]) -> dict:
    params = options.resolve(given, "sim")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        _, cpu = speed.run(
            [str(program), *sim.scenario_flags(params), f"--out={out}"], "host_speed"
        )
        return speed.record_speed(json.loads(out.read_text()), cpu)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=0.5, help="simulated traffic, seconds")
    p.add_argument("--reps", type=int, default=3, help="runs per model and case (>= 3)")
    p.add_argument("--bin", type=Path, default=ROOT / "build" / "bin", help="built programs")
    a = p.parse_args()
    if a.reps < 3:
        p.error("--reps must be at least 3")
    program = a.bin / "lanloss-sim"
    if not os.access(program, os.X_OK):
        p.error(f"{program} not built (make build)")

    common = {"duration": f"{a.duration}s", "warmup": f"{a.duration / 10}s"}
    results = []
    for name, case in CASES.items():
        host_given = {**case, **common}
        ideal_given = {k: v for k, v in host_given.items() if k not in ("host", "itr")}
        runs: dict[str, list[dict]] = {"ideal": [], "host": []}
        for rep in range(a.reps):
            for model, given in (("ideal", ideal_given), ("host", host_given)):
                r = run_once(program, given)
                runs[model].append(r)
                print(
                    f"  {name}: rep {rep + 1} {model:5s} {r['pps_wall']:10.0f} pps "
                    f"({r['packets']} pkts, run {r['wall_s']:.2f} s)",
                    file=sys.stderr,
                )
        ideal, host = speed.summarize(runs["ideal"]), speed.summarize(runs["host"])
        if ideal["packets"] != host["packets"]:
            print(
                f"host_speed: warning: {name}: ideal received {ideal['packets']}, "
                f"host {host['packets']} datagrams",
                file=sys.stderr,
            )
        results.append(
            {
                "case": name,
                **speed.ratios("cost", ideal, host),
                "ideal": ideal,
                "host": host,
            }
        )

    print(
        f"\n{a.duration:g} s simulated, {a.reps} interleaved runs each; pps = datagrams "
        "received / wall s of Run(); cost = ideal pps / host pps (goal <= 1.5)"
    )
    case = ("case", "<48", "", lambda r: r["case"])
    columns = speed.comparison_columns(case, "cost", ("ideal", "ideal"), ("host", "host"))
    speed.print_table(columns, results, " ")
    summary = {
        "benchmark": "host_speed",
        "duration_s": a.duration,
        "reps": a.reps,
        "goal": GOAL,
        "meets_goal": all(r["cost"] <= GOAL for r in results),
        "results": results,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
