# SPDX-License-Identifier: GPL-2.0-only
"""Growth of the simulator's cost with the number of hosts, at a fixed load per host.

Three LANs, each at N = 8, 64, 256, 1024 (and 4096 with --big):

    star       N senders -> N receivers on one switch (2N hosts; the README's table)
    two-tier   the same 2N hosts, 32 per edge switch (16 senders + 16 receivers),
               1 Gbit/s trunks to a core; sender i sends to a receiver on the next
               edge switch, so every datagram crosses edge, core and edge
    multicast  one 1 Gbit/s sender, N members on 100 Mbit/s links, 32 per edge switch

Every flow carries 1472-byte datagrams at 20 Mbit/s for 0.2 s (1,700 datagrams/s), so
the traffic grows as N and a linear simulator's total cost grows as N^1.

For each point: events per delivered datagram (from the run record: counted, so
independent of the machine's load), set-up wall time (building the LAN and the
applications), the event loop's wall time per delivered datagram, CPU seconds of the
whole process and its peak resident memory (wait4). The fitted exponent b of cost ~ N^b
(least squares on log-log) is printed for total events, CPU seconds, set-up time and
memory (the goal is b <= 1.1 for total cost), and for time per datagram over the LANs of
1,024 hosts and more, with the ratio of the largest LAN's time per datagram to the
smallest's (goal <= 1.5 from 128 to 8,192 hosts: --sizes 64,512,1024,2048 --big).
CPU and wall times move with the machine's load (other jobs); events do not.

    .venv/bin/python bench/scale.py [--sizes 8,64,256,1024] [--big] [--duration 0.2]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOSTS_PER_EDGE = 32
GOAL_EXPONENT = 1.1
LARGE_HOSTS = 1024  # the time-per-datagram exponent is fitted from this LAN size up
GOAL_TIME_RATIO = 1.5  # time per datagram at 8,192 hosts over 128 hosts


def two_tier_spec(senders: int, receivers: int, multicast: bool) -> str:
    """The line format of LanSpec::FromFile: 32 hosts per edge switch under one core."""
    hosts = senders + receivers
    edges = max(2, math.ceil(hosts / HOSTS_PER_EDGE))
    lines = ["switch core"]
    for e in range(edges):
        lines += [f"switch e{e}", f"link e{e} core 1Gbps 1us"]
    if multicast:
        # the sender on the first edge switch, members spread over all of them
        lines += ["host s0 sender", "link s0 e0 1Gbps 1us"]
        for j in range(receivers):
            lines += [f"host r{j} receiver", f"link r{j} e{(j + 1) % edges} 100Mbps 1us"]
        return "\n".join(lines) + "\n"
    per_edge = math.ceil(senders / edges)
    for i in range(senders):
        e = i // per_edge
        lines += [f"host s{i} sender", f"link s{i} e{e} 100Mbps 1us"]
        lines += [f"host r{i} receiver", f"link r{i} e{(e + 1) % edges} 100Mbps 1us"]
        lines.append(f"flow s{i} r{i}")
    return "\n".join(lines) + "\n"


def star_spec(n: int) -> str:
    """The star as a topology file: lanloss-sim's --senders stops at 1024."""
    lines = ["switch sw1"]
    for i in range(n):
        lines += [f"host s{i} sender", f"link s{i} sw1 100Mbps 1us"]
        lines += [f"host r{i} receiver", f"link r{i} sw1 100Mbps 1us", f"flow s{i} r{i}"]
    return "\n".join(lines) + "\n"


def run_point(kind: str, n: int, duration: float, tmp: Path) -> dict:
    out = tmp / f"{kind}-{n}.json"
    cmd = [
        str(ROOT / "build" / "bin" / "lanloss-sim"),
        "--payload=1472",
        "--rate=20Mbps",
        f"--duration={duration}s",
        f"--warmup={duration / 10}s",
        f"--out={out}",
    ]
    if kind == "star" and n <= 1024:
        cmd += ["--topology=star", f"--senders={n}", f"--receivers={n}", "--edge_rate=100Mbps"]
    elif kind == "star":
        spec = tmp / f"star-{n}.lan"
        spec.write_text(star_spec(n))
        cmd += [f"--topology={spec}", "--edge_rate=100Mbps"]
    else:
        multicast = kind == "multicast"
        spec = tmp / f"{kind}-{n}.lan"
        spec.write_text(two_tier_spec(1 if multicast else n, n, multicast))
        cmd += [f"--topology={spec}", "--edge_rate=100Mbps"]
        if multicast:
            cmd.append("--cast=multicast")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    err = proc.stderr.read()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"scale: {' '.join(cmd)} failed:\n{err}")
    rec = json.loads(out.read_text())
    timing = rec["timing"]
    received = sum(f["received"] for f in rec["flows"])
    sent = sum(f["sent"] for f in rec["flows"])
    return {
        "kind": kind,
        "n": n,
        "hosts": n + (1 if kind == "multicast" else n),
        "events": timing["events"],
        "received": received,
        "lost": sent - received,
        "events_per_datagram": timing["events"] / max(received, 1),
        "setup_s": timing.get("setup_wall_s", float("nan")),
        "run_s": timing["sim_wall_s"],
        # the event loop's wall time per delivered datagram (set-up apart): what a large LAN
        # costs once its hot state no longer fits the caches, which events do not show
        "us_per_datagram": timing["sim_wall_s"] / max(received, 1) * 1e6,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "wall_s": wall,
        "peak_mb": usage.ru_maxrss / 1024,
    }


def exponent(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log(y) on log(x)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def report(kind: str, rows: list[dict]) -> None:
    unit = "copy" if kind == "multicast" else "datagram"
    print(f"\n{kind}: N = {'members' if kind == 'multicast' else 'senders = receivers'}")
    print(
        f"{'N':>6} {'hosts':>6} {'received':>9} {'lost':>6} {'events/' + unit:>16} "
        f"{'set-up s':>9} {'run s':>8} {'us/' + unit:>12} {'CPU s':>7} {'peak MB':>8} "
        f"{'MB/host':>8}"
    )
    for r in rows:
        print(
            f"{r['n']:>6} {r['hosts']:>6} {r['received']:>9} {r['lost']:>6} "
            f"{r['events_per_datagram']:>16.2f} {r['setup_s']:>9.3f} {r['run_s']:>8.2f} "
            f"{r['us_per_datagram']:>12.2f} {r['cpu_s']:>7.2f} {r['peak_mb']:>8.1f} "
            f"{r['peak_mb'] / r['hosts']:>8.3f}"
        )
    ns = [r["hosts"] for r in rows]
    fits = {
        "events": exponent(ns, [r["events"] for r in rows]),
        "CPU": exponent(ns, [r["cpu_s"] for r in rows]),
        "set-up": exponent(ns, [r["setup_s"] for r in rows]),
        # memory above the smallest LAN's: the process's fixed ~20 MB would flatten the fit
        "memory": exponent(ns[1:], [r["peak_mb"] - rows[0]["peak_mb"] for r in rows[1:]]),
    }
    # time per datagram over the large LANs alone: small ones are all in cache
    large = [r for r in rows if r["hosts"] >= LARGE_HOSTS]
    fits[f"time/{unit} (>= {LARGE_HOSTS} hosts)"] = exponent(
        [r["hosts"] for r in large], [r["us_per_datagram"] for r in large]
    )
    ratio = rows[-1]["events_per_datagram"] / rows[0]["events_per_datagram"]
    slower = rows[-1]["us_per_datagram"] / rows[0]["us_per_datagram"]
    if not math.isfinite(fits["events"]):
        verdict = "one size: no exponent"
    else:
        meets = "meets" if fits["events"] <= GOAL_EXPONENT else "MISSES"
        verdict = f"{meets} the goal b <= {GOAL_EXPONENT} for total events"
    print(
        "growth exponent b (cost ~ hosts^b): "
        + ", ".join(f"{k} {v:.2f}" for k, v in fits.items())
        + f"; events per {unit} at N={rows[-1]['n']} / N={rows[0]['n']}: {ratio:.2f}"
        + f" ({verdict})"
    )
    print(
        f"time per {unit} at {rows[-1]['hosts']} hosts / {rows[0]['hosts']} hosts: "
        f"{slower:.2f} (goal <= {GOAL_TIME_RATIO} from 128 to 8,192 hosts; wall time, moves "
        "with the machine's load)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8,64,256,1024", help="comma-separated N")
    ap.add_argument("--big", action="store_true", help="add N = 4096 (a few minutes)")
    ap.add_argument("--duration", type=float, default=0.2, help="simulated seconds of traffic")
    ap.add_argument("--kinds", default="star,two-tier,multicast")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")] + ([4096] if a.big else [])
    if not (ROOT / "build" / "bin" / "lanloss-sim").exists():
        sys.exit("scale: build/bin/lanloss-sim missing: run `make setup` first")
    load = os.getloadavg()[0]
    print(f"scale: load average {load:.1f} on {os.cpu_count()} CPUs (times move with it)")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in a.kinds.split(","):
            rows = [run_point(kind, n, a.duration, Path(tmp)) for n in sizes]
            report(kind, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
