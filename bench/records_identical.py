# SPDX-License-Identifier: GPL-2.0-only
"""The simulator's run records at fixed seeds, for a refactoring that must not change them.

Runs each of a broad set of option combinations as `lanloss sim run` does (every topology,
UDP and TCP, PAUSE in both styles, every host preset, readers, stalls, multicast, frame
loss, jumbo frames, every traffic pattern) and writes each record, without the fields that depend on
the machine or the moment (env, wall-clock timings), to DIR/<config>.json. Run it before a
change and after it, then compare the two folders:

    .venv/bin/python bench/records_identical.py run /tmp/records-before
    ... change, rebuild ...
    .venv/bin/python bench/records_identical.py run /tmp/records-after
    .venv/bin/python bench/records_identical.py compare /tmp/records-before /tmp/records-after

`compare` prints the configs that differ and exits 1 if any does (0: all identical).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Fields a record carries that are not the simulation's outcome.
VOLATILE_TIMING = ("wall_s", "sim_wall_s", "setup_wall_s")

SHORT = {"duration": "0.03s", "warmup": "0.005s"}
HOST_FIFO = {
    "host": "e1000-2008",
    "itr": "2500",
    "packet_cost": "20us",
    "rx_ring": "80",
    "payload": "64",
    "rate": "40960000bps",
}
# Settings several configs share.
TIMED_PAUSE = {"pause": "on", "pause_style": "timed", "pause_quanta": "1664"}
E1000_ON_1G = {"host": "e1000-2008", "edge_rate": "1Gbps"}
MODERN_ON_10G = {"host": "modern", "edge_rate": "10Gbps", "sender_rate": "10Gbps"}
RPS_ON_4_CORES = {"rps": "on", "cores": "4"}
PRESETS = (
    "e1000-2008",
    "modern",
    "netns",
    "w7x-client-2008",
    "athlon-2003",
    "xeon-2002",
    "java-2015",
    "x3440-2010",
)


def configs() -> dict[str, dict[str, str]]:
    """Name -> the options of one run (short runs: the records, not the physics, matter)."""
    c: dict[str, dict[str, str]] = {
        "udp-default": {},
        "udp-2senders-20M": {"senders": "2", "rate": "20Mbps"},
        "udp-overload": {"senders": "3", "receivers": "2", "switch_buffer": "16KiB"},
        "pause-xon": {"senders": "3", "pause": "on", "switch_buffer": "64KiB"},
        "pause-timed": {**TIMED_PAUSE, "senders": "3", "switch_buffer": "64KiB"},
        "pause-host": {**E1000_ON_1G, "senders": "2", "pause": "on"},
        "switch-pool": {"senders": "4", "switch_pool": "96KiB", "switch_buffer": "64KiB"},
        "tcp": {"protocol": "tcp", "payload": "8192"},
        "tcp-window": {"protocol": "tcp", "tcp_window": "16KiB", "senders": "2"},
        "tcp-host": {"protocol": "tcp", "host": "modern", "edge_rate": "1Gbps"},
        "tcp-costs": {"protocol": "tcp", "send_cost": "5us", "send_packet_cost": "2us"},
        "sender-costs": {"send_cost": "5us", "send_byte_cost": "1ns", "rate": "50Mbps"},
        "blocking": {"blocking": "on", "rate": "200Mbps", "tx_queue": "16KiB"},
        "readers-shared": {**E1000_ON_1G, "readers": "3"},
        "readers-reuseport": {**MODERN_ON_10G, "readers": "4", "reuseport": "on"},
        "stalls": {**E1000_ON_1G, "stall_period": "5ms", "stall_length": "2ms"},
        "rps": {**RPS_ON_4_CORES, "host": "modern", "edge_rate": "1Gbps"},
        "recv-cpu": {"host": "netns", "recv_cpu": "20", "recv_work": "2us"},
        "small-rcvbuf": {**E1000_ON_1G, "rcvbuf": "4096"},
        "truesize": {"host": "e1000-2008", "truesize": "4096", "itr": "0"},
        "multicast": {"cast": "multicast", "receivers": "3", "rate": "50Mbps"},
        "multicast-host": {"cast": "multicast", "receivers": "2", "host": "athlon-2003"},
        "two-tier": {"topology": "two-tier", "senders": "3", "receivers": "3"},
        "two-tier-4": {"topology": "two-tier", "edge_switches": "4", "senders": "4"},
        "two-site": {"topology": "two-site", "senders": "2", "receivers": "2"},
        "two-site-wan": {"topology": "two-site", "wan_delay": "5ms", "backbone_rate": "100Mbps"},
        "frame-loss": {"frame_loss": "0.01", "seed": "3"},
        "frame-loss-host": {"frame_loss": "0.001", "host": "modern", "edge_rate": "1Gbps"},
        "mtu9000": {"mtu": "9000", "payload": "8972", "edge_rate": "1Gbps"},
        "mtu9000-frag": {"mtu": "9000", "payload": "30000", "host": "modern"},
        "fragments": {"payload": "8000", "host": "e1000-2008"},
        "udp-max": {"payload": "65507", "rate": "50Mbps"},
        "poisson": {"pattern": "poisson", "rate": "60Mbps", "seed": "7"},
        "poisson-host": {"pattern": "poisson", "rate": "300Mbps", "host": "xeon-2002"},
        "burst": {"pattern": "burst:32", "rate": "40Mbps"},
        "burst-host": {"pattern": "burst:200", "rate": "200Mbps", "host": "java-2015"},
        "link-delay": {"link_delay": "50us", "senders": "2"},
        # a switch that pauses a fast sender into a slow link
        "pause-fast-into-slow": {"pause": "on", "sender_rate": "1Gbps", "rate": "300Mbps"},
        "pause-timed-fast-into-slow": {**TIMED_PAUSE, "sender_rate": "1Gbps", "rate": "300Mbps"},
        # a slow kernel: NIC FIFO overflow, or the host's own PAUSE from its FIFO
        "nic-fifo": dict(HOST_FIFO),
        "nic-fifo-pause": {**HOST_FIFO, "pause": "on"},
        "nic-fifo-pause-timed": {**HOST_FIFO, "pause": "on", "pause_style": "timed"},
        # small frames at 10 Gbit/s: ring drops (a driver that drops for want of a
        # descriptor) and backlog drops behind RPS
        "ring-and-backlog": {
            **MODERN_ON_10G,
            **RPS_ON_4_CORES,
            "backlog": "2",
            "senders": "2",
            "payload": "64",
            "duration": "0.01s",
            "warmup": "0.002s",
        },
        "reassembly-loss": {"payload": "8000", "host": "modern", "frame_loss": "0.01"},
    }
    for preset in PRESETS:
        for rate in ("max", "300Mbps", "900Mbps"):
            c[f"host-{preset}-{rate}"] = {"host": preset, "edge_rate": "1Gbps", "rate": rate}
    return c


def record_of(opts: dict[str, str]) -> dict:
    """One config's record as `lanloss sim run` makes it (options resolved, checked, run),
    without the fields that are not the simulation's outcome."""
    from lanloss import options, sim

    params = options.resolve({**SHORT, **opts}, "sim")
    sim.check_point(params)
    record = sim.run_point(params).to_dict()
    record.pop("env", None)
    for key in VOLATILE_TIMING:
        record.get("timing", {}).pop(key, None)
    return record


def _run_one(name: str, out_dir: Path) -> str | None:
    """One config in its own process (a run installs signal handlers: main thread only)."""
    proc = subprocess.run(
        [sys.executable, __file__, "one", name, str(out_dir)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        return f"{name}: exit {proc.returncode}: {proc.stderr.strip()}"
    return None


def one(name: str, out_dir: Path) -> int:
    record = record_of(configs()[name])
    (out_dir / f"{name}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return 0


def run(out_dir: Path, jobs: int) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    todo = configs()
    with ThreadPoolExecutor(jobs) as pool:
        errors = [e for e in pool.map(lambda name: _run_one(name, out_dir), todo) if e]
    for e in errors:
        print(e, file=sys.stderr)
    print(f"{len(todo) - len(errors)} of {len(todo)} configs written to {out_dir}")
    return 1 if errors else 0


def compare(before: Path, after: Path) -> int:
    names = sorted(p.name for p in before.glob("*.json"))
    missing = [n for n in names if not (after / n).exists()]
    differ = [
        n for n in names if n not in missing and (before / n).read_text() != (after / n).read_text()
    ]
    for n in missing:
        print(f"missing in {after}: {n}")
    for n in differ:
        print(f"differs: {n}")
    print(f"{len(names) - len(missing) - len(differ)} of {len(names)} records identical")
    return 1 if missing or differ or not names else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="write the records of every config to DIR")
    p_run.add_argument("dir", type=Path)
    p_run.add_argument("--jobs", type=int, default=2)
    p_cmp = sub.add_parser("compare", help="compare two folders that `run` wrote")
    p_cmp.add_argument("before", type=Path)
    p_cmp.add_argument("after", type=Path)
    p_one = sub.add_parser("one", help="write one config's record to DIR/NAME.json")
    p_one.add_argument("name", choices=sorted(configs()))
    p_one.add_argument("dir", type=Path)
    args = parser.parse_args(argv)
    if args.command == "run":
        return run(args.dir, args.jobs)
    if args.command == "one":
        return one(args.name, args.dir)
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
