# SPDX-License-Identifier: GPL-2.0-only
"""Simulator speed: lanloss's Ethernet model against ns-3's CSMA + bridge, as a ratio.

Both programs simulate the same star LAN and traffic: `senders` hosts on 100 Mbit/s
links send paced UDP (cbr, UdpFlowSource) through one switch to one receiver on a
1 Gbit/s link, each at `load` x the 100 Mbit/s closed-form goodput
(lanloss.analysis.wire), so nothing is lost and both carry the same datagrams.

    lanloss:     build/bin/lanloss-sim --topology=star ...   (EthernetNetDevice + switch)
    csma-bridge: build/bin/csma-bridge-star ...              (CsmaNetDevice + BridgeNetDevice)

Runs are interleaved (A, B, A, B, ...) so that a machine whose load drifts hurts both
alike. Speed is simulated datagrams received per wall-second of Simulator::Run() as
each program measures it itself (lanloss-sim: timing.sim_wall_s), so process start-up
and topology building are excluded on both sides. The ratio lanloss / csma-bridge of
the medians is the number that matters; on a busy machine also look at the ratio of the
fastest runs and at the CPU-time ratio. The goals: >= 3 in instructions per datagram
(callgrind, exact; counted by default when valgrind is installed) and >= 2.5 in CPU time.

    .venv/bin/python bench/sim_speed.py [--duration 2] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import speed

from lanloss.analysis.wire import saturation_goodput_bps

ROOT = Path(__file__).resolve().parent.parent
SENDER_LINK_BPS = 100e6
GOAL_INSTRUCTIONS = 3.0  # csma-bridge / lanloss, instructions per datagram in Run()
GOAL_CPU = 2.5  # the same ratio of whole-process CPU time


def run_lanloss(
    bin_dir: Path, a: argparse.Namespace, payload: int, rate_bps: int, wrap=None
) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        cmd = [
            str(bin_dir / "lanloss-sim"),
            "--topology=star",
            f"--senders={a.senders}",
            "--receivers=1",
            "--sender_rate=100Mbps",
            "--edge_rate=1Gbps",
            f"--rate={rate_bps}bps",
            f"--payload={payload}",
            f"--duration={a.duration}s",
            # lanloss-sim insists on warmup < duration; the window only shapes goodput
            f"--warmup={min(0.1, a.duration / 10)}s",
            f"--out={out}",
        ]
        _, cpu = speed.run(cmd, "sim_speed", wrap)
        return speed.record_speed(json.loads(out.read_text()), cpu)


def run_csma(bin_dir: Path, a: argparse.Namespace, payload: int, rate_bps: int, wrap=None) -> dict:
    cmd = [
        str(bin_dir / "csma-bridge-star"),
        f"--senders={a.senders}",
        f"--payload={payload}",
        f"--rate={rate_bps}bps",
        f"--duration={a.duration}s",
    ]
    stdout, cpu = speed.run(cmd, "sim_speed", wrap)
    line = [s for s in stdout.splitlines() if s.startswith("{")][-1]
    rec = json.loads(line)
    keys = ("sent", "packets", "events", "sim_s", "wall_s", "pps_wall")
    return {**{k: rec[k] for k in keys}, "cpu_s": cpu, "pps_cpu": rec["packets"] / cpu}


def run_instructions(fn, bin_dir: Path, a: argparse.Namespace, payload: int, rate_bps: int):
    """Instructions of Simulator::Run() per datagram, counted by callgrind: the same
    number on a busy machine as on an idle one (it does not count time)."""
    short = argparse.Namespace(**{**vars(a), "duration": a.instructions})
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        r = fn(
            bin_dir,
            short,
            payload,
            rate_bps,
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"],
        )
        text = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", str(out)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    line = next(ln for ln in text.splitlines() if "ns3::Simulator::Run()" in ln)
    return int(line.split()[0].replace(",", "")) / max(r["packets"], 1)


def _args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=2.0, help="simulated traffic, seconds")
    p.add_argument("--reps", type=int, default=3, help="runs per program and payload (>= 3)")
    p.add_argument("--payloads", default="64,1472", help="UDP payload sizes, comma-separated")
    p.add_argument("--senders", type=int, default=8)
    p.add_argument("--load", type=float, default=0.9, help="fraction of 100M goodput per sender")
    p.add_argument("--bin", type=Path, default=ROOT / "build" / "bin", help="built programs")
    p.add_argument(
        "--instructions",
        type=float,
        default=0.05,
        metavar="SECONDS",
        help="also count instructions per datagram under callgrind for this many simulated "
        "seconds (noise-free, about a minute per run; 0: not counted, as without valgrind)",
    )
    a = p.parse_args()
    if a.instructions > 0 and not shutil.which("valgrind"):
        print("valgrind is not installed: instructions not counted", file=sys.stderr)
        a.instructions = 0.0
    if a.reps < 3:
        p.error("--reps must be at least 3")
    for prog in ("lanloss-sim", "csma-bridge-star"):
        if not os.access(a.bin / prog, os.X_OK):
            p.error(f"{a.bin / prog} not built (cmake -S . -B build && cmake --build build)")
    return a


PROGRAMS = (("lanloss", run_lanloss), ("csma-bridge", run_csma))


def _warn_if_lossy(payload: int, lan: dict, csma: dict) -> None:
    """Both programs must carry (nearly) every datagram, and the same ones."""
    for name, s in (("lanloss", lan), ("csma-bridge", csma)):
        if s["packets"] < 0.999 * s["sent"]:
            print(
                f"sim_speed: warning: {name} payload {payload}: received "
                f"{s['packets']} of {s['sent']} datagrams",
                file=sys.stderr,
            )
    if lan["packets"] != csma["packets"]:
        print(
            f"sim_speed: warning: payload {payload}: lanloss carried {lan['packets']}, "
            f"csma-bridge {csma['packets']} datagrams",
            file=sys.stderr,
        )


def measure(a: argparse.Namespace, payload: int) -> dict:
    """One payload: both programs, interleaved, and their ratios."""
    rate_bps = int(a.load * saturation_goodput_bps(payload, SENDER_LINK_BPS))
    runs: dict[str, list[dict]] = {"lanloss": [], "csma-bridge": []}
    for rep in range(a.reps):
        for name, fn in PROGRAMS:
            t0 = time.monotonic()
            r = fn(a.bin, a, payload, rate_bps)
            runs[name].append(r)
            print(
                f"  payload {payload:5d} rep {rep + 1} {name:11s} "
                f"{r['pps_wall']:10.0f} pps  ({r['packets']} pkts, "
                f"run {r['wall_s']:.2f} s, process {time.monotonic() - t0:.2f} s)",
                file=sys.stderr,
            )
    lan, csma = speed.summarize(runs["lanloss"]), speed.summarize(runs["csma-bridge"])
    _warn_if_lossy(payload, lan, csma)
    instr = {}
    if a.instructions > 0:
        for name, fn in PROGRAMS:
            instr[name] = run_instructions(fn, a.bin, a, payload, rate_bps)
    return {
        "payload": payload,
        "instructions_per_packet": instr,
        "ratio_instructions": (instr["csma-bridge"] / instr["lanloss"] if instr else None),
        "rate_per_sender_bps": rate_bps,
        **speed.ratios("ratio", lan, csma),
        "lanloss": lan,
        "csma_bridge": csma,
    }


def report(a: argparse.Namespace, results: list[dict]) -> None:
    """The table, and callgrind's instruction counts if measured."""
    print(
        f"\n{a.senders} senders x 100M -> switch -> 1G receiver, {a.duration:g} s simulated, "
        f"{a.reps} interleaved runs each; pps = datagrams received / wall s of Run()"
    )
    payload = ("payload", ">7", "", lambda r: r["payload"])
    columns = speed.comparison_columns(
        payload, "ratio", ("lanloss", "lanloss"), ("csma", "csma_bridge")
    )
    speed.print_table(columns, results, "  ")
    for r in results:
        if r["ratio_instructions"]:
            i = r["instructions_per_packet"]
            print(
                f"payload {r['payload']}: instructions per datagram in Run(): lanloss "
                f"{i['lanloss']:.0f}, csma-bridge {i['csma-bridge']:.0f}, "
                f"ratio {r['ratio_instructions']:.2f} (callgrind, {a.instructions:g} s)"
            )


def _meets(r: dict) -> bool:
    """The goals, where measured: instructions (if counted) and CPU time."""
    counted = r["ratio_instructions"]
    return r["ratio_cpu"] >= GOAL_CPU and (counted is None or counted >= GOAL_INSTRUCTIONS)


def main() -> int:
    a = _args()
    results = [measure(a, int(x)) for x in a.payloads.split(",")]
    report(a, results)
    summary = {
        "benchmark": "sim_speed",
        "senders": a.senders,
        "duration_s": a.duration,
        "reps": a.reps,
        "goal": {"instructions": GOAL_INSTRUCTIONS, "cpu": GOAL_CPU},
        "meets_goal": all(_meets(r) for r in results),
        "results": results,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
