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
CPU and wall times move with the machine's load (other jobs); events do not. --reps N runs
every size N times, in rounds over the sizes, and takes the median time per datagram
(printed with the runs' spread): the event loop of a 128-host LAN lasts about 0.05 s, and
a neighbour's burst can move its time by half.

--misses counts what makes the time per datagram grow: the star at each size again, under
callgrind's cache simulation (exact, whatever the machine's load), with this machine's
level-2 cache (sysfs; the last cache a core has to itself) as the simulated last level and
only Simulator::Run() collected. Printed: cache-line misses per delivered datagram at each
size, and the functions with the most at the largest size beside their count at the
smallest (their own misses, not their callees').

    .venv/bin/python bench/scale.py [--sizes 8,64,256,1024] [--big] [--duration 0.2] [--reps 1]
    .venv/bin/python bench/scale.py --kinds star --sizes 64,512,1024,4096 --misses 0.02
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
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


def sim_command(kind: str, n: int, duration: float, tmp: Path, out: Path) -> list[str]:
    """lanloss-sim's command line for LAN `kind` at size n, its record to `out`."""
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
    return cmd


def run_point(kind: str, n: int, duration: float, tmp: Path) -> dict:
    out = tmp / f"{kind}-{n}.json"
    cmd = sim_command(kind, n, duration, tmp, out)
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


def median_run(runs: list[dict]) -> dict:
    """One size's runs as one row: the run of median time per datagram, with the spread of
    the runs' times (events, counts and memory are the same in every run)."""
    ordered = sorted(runs, key=lambda r: r["us_per_datagram"])
    row = dict(ordered[(len(ordered) - 1) // 2])
    row["us_range"] = (ordered[0]["us_per_datagram"], ordered[-1]["us_per_datagram"])
    return row


def exponent(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log(y) on log(x)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def spread(row: dict) -> str:
    lo, hi = row.get("us_range", (row["us_per_datagram"],) * 2)
    return f"{lo:.2f}-{hi:.2f}"


def report(kind: str, rows: list[dict]) -> None:
    unit = "copy" if kind == "multicast" else "datagram"
    print(f"\n{kind}: N = {'members' if kind == 'multicast' else 'senders = receivers'}")
    print(
        f"{'N':>6} {'hosts':>6} {'received':>9} {'lost':>6} {'events/' + unit:>16} "
        f"{'set-up s':>9} {'run s':>8} {'us/' + unit:>12} {'(min-max)':>13} {'CPU s':>7} "
        f"{'peak MB':>8} {'MB/host':>8}"
    )
    for r in rows:
        print(
            f"{r['n']:>6} {r['hosts']:>6} {r['received']:>9} {r['lost']:>6} "
            f"{r['events_per_datagram']:>16.2f} {r['setup_s']:>9.3f} {r['run_s']:>8.2f} "
            f"{r['us_per_datagram']:>12.2f} {spread(r):>13} {r['cpu_s']:>7.2f} "
            f"{r['peak_mb']:>8.1f} {r['peak_mb'] / r['hosts']:>8.3f}"
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
        f"{slower:.2f} (goal <= {GOAL_TIME_RATIO} from 128 to 8,192 hosts; wall time, medians "
        "of the runs, moves with the machine's load)"
    )


def level2_cache() -> tuple[int, int]:
    """This machine's level-2 cache as (bytes, ways), from sysfs; 1 MiB, 8 ways where it
    says nothing."""
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if (index / "level").read_text().strip() != "2":
                continue
            size = (index / "size").read_text().strip()
            ways = int((index / "ways_of_associativity").read_text())
        except (OSError, ValueError):
            continue
        scale = {"K": 1024, "M": 1024 * 1024}.get(size[-1:], 1)
        return int(size.rstrip("KM")) * scale, ways
    return 1024 * 1024, 8


# callgrind's events that are a miss in the simulated last level: data reads and writes,
# instruction fetches
LL_MISSES = ("DLmr", "DLmw", "ILmr")


def parse_annotate(text: str) -> tuple[int, dict[str, int]]:
    """callgrind_annotate's output shown as LL_MISSES: (the total, misses per function)."""
    totals, per_function = 0, {}
    for line in text.splitlines():
        # "1,234 (12.3%)  5 (0.1%)  .  file:function": counts ("." for none), with
        # percentages from valgrind 3.21 on
        words = re.sub(r"\([^)]*%\)", " ", line).split()
        if len(words) < len(LL_MISSES) + 1:
            continue
        try:
            counts = [0 if w == "." else int(w.replace(",", "")) for w in words[: len(LL_MISSES)]]
        except ValueError:
            continue
        name = " ".join(words[len(LL_MISSES) :])
        if name.startswith("PROGRAM TOTALS"):
            totals = sum(counts)
        else:
            fn = function_name(name)
            per_function[fn] = per_function.get(fn, 0) + sum(counts)
    return totals, per_function


def function_name(annotated: str) -> str:
    """'FILE:FUNCTION [/path/OBJECT]' (FILE ??? when unknown) -> 'FUNCTION [OBJECT]'."""
    m = re.match(r"^(?:\?\?\?|\S+\.(?:c|cc|cpp|cxx|h|hpp|S)):(.*)$", annotated)
    name = m.group(1) if m else annotated
    obj = re.search(r" \[([^\]]*)\]$", name)
    if obj:
        name = f"{name[: obj.start()]} [{Path(obj.group(1)).name}]"
    return name


def count_misses(n: int, duration: float, tmp: Path, ll: tuple[int, int]) -> dict:
    """Cache-line misses in the simulated last level `ll` during Simulator::Run() of the
    star of 2n hosts, per delivered datagram, in total and per function."""
    out, profile = tmp / f"misses-{n}.json", tmp / f"callgrind-{n}.out"
    valgrind = [
        "valgrind",
        "--tool=callgrind",
        "--cache-sim=yes",
        f"--LL={ll[0]},{ll[1]},64",
        "--collect-atstart=no",
        "--toggle-collect=ns3::Simulator::Run*",
        f"--callgrind-out-file={profile}",
    ]
    cmd = valgrind + sim_command("star", n, duration, tmp, out)
    cp = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if cp.returncode != 0:
        sys.exit(f"scale: {' '.join(cmd)} failed:\n{cp.stderr[-2000:]}")
    text = subprocess.run(
        ["callgrind_annotate", f"--show={','.join(LL_MISSES)}", "--threshold=100", str(profile)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    total, per_function = parse_annotate(text)
    received = sum(f["received"] for f in json.loads(out.read_text())["flows"])
    per = max(received, 1)
    return {
        "n": n,
        "hosts": 2 * n,
        "received": received,
        "misses_per_datagram": total / per,
        "functions": {fn: c / per for fn, c in per_function.items()},
    }


def report_misses(rows: list[dict], ll: tuple[int, int], top: int = 12) -> None:
    print(
        f"\nstar: last-level misses per delivered datagram in Simulator::Run() (callgrind, "
        f"a {ll[0] // 1024} KiB {ll[1]}-way last level: this machine's level 2)"
    )
    print(f"{'hosts':>6} {'received':>9} {'misses/datagram':>16}")
    for r in rows:
        print(f"{r['hosts']:>6} {r['received']:>9} {r['misses_per_datagram']:>16.1f}")
    small, large = rows[0], rows[-1]
    print(
        f"the {top} functions with the most misses of their own at {large['hosts']} hosts "
        f"(per datagram; at {small['hosts']} hosts beside):"
    )
    ranked = sorted(large["functions"].items(), key=lambda kv: -kv[1])[:top]
    for fn, c in ranked:
        print(f"  {c:>7.2f} {small['functions'].get(fn, 0.0):>7.2f}  {fn[:100]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8,64,256,1024", help="comma-separated N")
    ap.add_argument("--big", action="store_true", help="add N = 4096 (a few minutes)")
    ap.add_argument("--duration", type=float, default=0.2, help="simulated seconds of traffic")
    ap.add_argument("--kinds", default="star,two-tier,multicast")
    ap.add_argument(
        "--reps",
        type=int,
        default=1,
        help="runs of each size, in rounds over the sizes; times are their medians",
    )
    ap.add_argument(
        "--misses",
        type=float,
        metavar="SECONDS",
        help="also count the star's cache misses per datagram at each size under callgrind, "
        "over this many simulated seconds (0.02: about 2 minutes at 8,192 hosts)",
    )
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")] + ([4096] if a.big else [])
    if not (ROOT / "build" / "bin" / "lanloss-sim").exists():
        sys.exit("scale: build/bin/lanloss-sim missing: run `make setup` first")
    load = os.getloadavg()[0]
    print(f"scale: load average {load:.1f} on {os.cpu_count()} CPUs (times move with it)")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in a.kinds.split(","):
            runs = [
                [run_point(kind, n, a.duration, Path(tmp)) for n in sizes] for _ in range(a.reps)
            ]
            report(kind, [median_run(list(same)) for same in zip(*runs, strict=True)])
        if a.misses and shutil.which("valgrind") is None:
            print("\nmisses: not counted (valgrind is not installed)")
        elif a.misses:
            ll = level2_cache()
            report_misses([count_misses(n, a.misses, Path(tmp), ll) for n in sizes], ll)
    return 0


if __name__ == "__main__":
    sys.exit(main())
