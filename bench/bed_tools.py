# SPDX-License-Identifier: GPL-2.0-only
"""Testbed traffic tools: lanloss-send against iperf3 on one veth pair, as ratios.

One run, two namespaces made here (lltools-bench-<pid>-a/-b, 10.201.0.1 -> .2 over a
veth pair), the sender pinned to CPU0 and the receiver to CPU1 with `taskset`, both
receivers with the same large socket buffer (4 MiB asked: 8 MiB after Linux doubles
it; iperf3 via -w). Runs are interleaved (iperf3, lanloss variants, iperf3, ...) so a
change in machine load hits every tool alike; tables show medians.

1. Max packets/s sent for 64- and 1472-byte payloads: `lanloss-send --rate max`
   (sendmmsg batch 1, 32 or 256, with and without --gso) against
   `iperf3 -u -b 0 -l N --udp-counters-64bit`. Ratio = best lanloss / iperf3 (goal
   >= 1.5). On veth the receive softirq runs in the sender's context (docs/testbed.md
   §3), so "sent" pays for delivery too, and a receiver that overflows makes
   the sender faster (a dropped skb is cheap): the received rate is shown as well.
2. Achieved-rate error of paced lanloss-send at 10 %, 50 % and 90 % of its own best
   max from (1) (same flags): |achieved_bps / rate - 1| from its report (goal < 1 %),
   plus the send lateness it reports.
3. Inter-arrival spread at 100k packets/s: lanloss-send (cbr) against iperf3 (`-b` set
   to the same 100k pps; its default 1 ms pacing timer) and iperf3 --pacing-timer 1.
   Arrivals are captured for both tools the same way: `tcpdump -i <veth> -w` in the
   receiver's namespace with nanosecond timestamps (the AF_PACKET tap on the veth's
   receive path), so neither tool's own receiver is trusted. Spread = stddev and
   p99 - p1 of the gaps between consecutive arrivals; a perfect 100k pps is 10 us, 0.

    .venv/bin/python bench/bed_tools.py [--seconds 2] [--reps 3]

Needs root, iperf3 and tcpdump (apt-get install -y iperf3 tcpdump). Prints a table
per part and, last, one JSON line with every number. Every namespace and process it
starts is removed at the end, also on Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lanloss import header_constants
from lanloss.testbed.nspair import B_ADDR, NamespacePair

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "testbed" / "tools"
PORT, IPERF_PORT = header_constants.PORT, 5201
RCVBUF = 4 << 20  # asked; Linux doubles it (8 MiB), the same for both receivers
PAYLOADS = (64, 1472)
# lanloss-send variants for the max rate: name -> extra flags
VARIANTS = {
    "lanloss b1": ["--batch", "1"],
    "lanloss b32": [],
    "lanloss b256": ["--batch", "256"],
    "lanloss gso b32": ["--gso"],
    "lanloss gso b256": ["--gso", "--batch", "256"],
}
GOAL_RATIO, GOAL_ERR = 1.5, 0.01
SPREAD_PPS = 100_000
# Senders for the spread part: name -> extra flags (iperf3 paces with a 1 ms timer by default)
SPREAD_SENDERS = {
    "lanloss-send cbr": [],
    "iperf3 (1 ms timer)": [],
    "iperf3 --pacing-timer 1": ["--pacing-timer", "1"],
}


class Bed(NamespacePair):
    """Two namespaces joined by a veth pair, and every process started in them."""

    def __init__(self, work: Path, nice: int = 0) -> None:
        super().__init__("lltools-bench", "lb")
        self.nice = nice
        self.work = work

    def start(self, ns: str, cpu: int, argv: list, **kw) -> subprocess.Popen:
        cmd = ["taskset", "-c", str(cpu), "nice", "-n", str(self.nice), "ip", "netns", "exec", ns]
        cmd += map(str, argv)
        return self.started(subprocess.Popen(cmd, text=True, **kw))

    def finish(self, p: subprocess.Popen, timeout: float = 60) -> str:
        out, err = p.communicate(timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError(f"{p.args} exited {p.returncode}: {err or out}")
        return out or ""


def wait_file(path: Path, proc: subprocess.Popen, timeout: float = 5) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None or time.monotonic() > end:
            raise RuntimeError(f"{proc.args} did not get ready")
        time.sleep(0.01)


def wait_listening(bed: Bed, port: int, timeout: float = 5) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r = subprocess.run(
            ["ip", "netns", "exec", bed.b, "ss", "-Hltn", f"sport = :{port}"],
            capture_output=True,
            text=True,
        )
        if r.stdout.strip():
            return
        time.sleep(0.02)
    raise RuntimeError("iperf3 server not listening")


def run_lanloss(bed: Bed, send_args: list, recv_args: list | None = None) -> tuple[dict, dict]:
    """lanloss-recv on CPU1, lanloss-send on CPU0; both reports."""
    ready, out = bed.work / "recv.ready", bed.work / "recv.json"
    ready.unlink(missing_ok=True)
    recv = bed.start(
        bed.b,
        1,
        [
            TOOLS / "lanloss-recv",
            "--port",
            PORT,
            "--rcvbuf",
            RCVBUF,
            "--idle-timeout",
            "0.3",
            "--ready-file",
            ready,
            "--json",
            out,
            *(recv_args or []),
        ],
        stderr=subprocess.PIPE,
    )
    wait_file(ready, recv)
    send = bed.start(
        bed.a,
        0,
        [TOOLS / "lanloss-send", "--dst", B_ADDR, "--port", PORT, *send_args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    s = json.loads(bed.finish(send))
    bed.finish(recv)
    return s, json.loads(out.read_text())


def run_iperf(bed: Bed, payload: int, seconds: float, rate: str, extra: list) -> dict:
    """iperf3 -s on CPU1, the client on CPU0; the client's JSON (it has both ends)."""
    srv = bed.start(
        bed.b,
        1,
        ["iperf3", "-s", "-1", "-p", IPERF_PORT],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    wait_listening(bed, IPERF_PORT)
    cli = bed.start(
        bed.a,
        0,
        [
            "iperf3",
            "-c",
            B_ADDR,
            "-p",
            IPERF_PORT,
            "-u",
            "-b",
            rate,
            "-l",
            payload,
            "--udp-counters-64bit",
            "-t",
            f"{seconds:g}",
            "-w",
            RCVBUF,
            "-J",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out = json.loads(bed.finish(cli))
    bed.finish(srv)
    return out


def iperf_pps(out: dict) -> tuple[float, float]:
    """Sent and received packets/s from an iperf3 UDP client's JSON."""
    sent, rcvd = out["end"]["sum_sent"], out["end"]["sum_received"]
    # The receiver's "packets" is its highest sequence number: lost ones included.
    return sent["packets"] / sent["seconds"], (rcvd["packets"] - rcvd["lost_packets"]) / rcvd[
        "seconds"
    ]


def part_max(bed: Bed, a: argparse.Namespace) -> dict:
    res: dict = {}
    for payload in PAYLOADS:
        runs: dict[str, list] = {"iperf3": [], **{v: [] for v in VARIANTS}}
        for rep in range(a.reps):
            out = run_iperf(bed, payload, a.seconds, "0", [])
            runs["iperf3"].append(iperf_pps(out))
            for name, flags in VARIANTS.items():
                s, r = run_lanloss(
                    bed, ["--rate", "max", "--payload", payload, "--duration", a.seconds, *flags]
                )
                runs[name].append((s["achieved_pps"], r["received"] / a.seconds, s["gso"]))
            print(f"  max rate, {payload} B: round {rep + 1}/{a.reps} done", file=sys.stderr)
        med = {
            k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
            for k, v in runs.items()
        }
        best = max(VARIANTS, key=lambda k: med[k][0])
        res[payload] = {
            "median_sent_pps": {k: round(v[0]) for k, v in med.items()},
            "median_recv_pps": {k: round(v[1]) for k, v in med.items()},
            "runs": runs,
            "best": best,
            "gso_used": {k: all(x[2] for x in runs[k]) for k in VARIANTS},
            "ratio_best": med[best][0] / med["iperf3"][0],
            "ratio_best_received": med[best][1] / med["iperf3"][1],
            "ratio_default": med["lanloss b32"][0] / med["iperf3"][0],
        }
    print(f"\n1. max packets/s, median of {a.reps} runs of {a.seconds:g} s: sent (received)")
    head = "".join(f"{f'{p} B sent (recv)':>24} {'/iperf3':>8}" for p in res)
    print(f"{'sender':<18}{head}")
    for n in ["iperf3", *VARIANTS]:
        row = ""
        for r in res.values():
            sent, recv = r["median_sent_pps"][n], r["median_recv_pps"][n]
            cell = f"{sent / 1e3:.0f}k ({recv / 1e3:.0f}k)"
            row += f"{cell:>24} {sent / r['median_sent_pps']['iperf3']:>7.2f}x"
        print(f"{n:<18}{row}")
    best = ", ".join(f"{p} B: {r['best']}" for p, r in res.items())
    default = ", ".join(f"{r['ratio_default']:.2f}x" for r in res.values())
    recv = ", ".join(f"{r['ratio_best_received']:.2f}x" for r in res.values())
    print(f"   best = {best}; goal >= {GOAL_RATIO}")
    print(f"   default (b32, no GSO) / iperf3 = {default}; best / iperf3 received = {recv}")
    return res


def rate_point(bed: Bed, a: argparse.Namespace, payload: int, pps: float, flags: list) -> dict:
    """Paced runs at pps; median error |achieved_bps / rate - 1| and what goes with it."""
    rate = round(pps * payload * 8)
    runs = []
    for _ in range(a.reps):
        argv = ["--rate", rate, "--payload", payload, "--duration", a.seconds, *flags]
        s, r = run_lanloss(bed, argv)
        runs.append((abs(s["achieved_bps"] / rate - 1), s, r["received"] / max(s["sent"], 1)))
    runs.sort(key=lambda x: x[0])
    err, s, rs = runs[len(runs) // 2]
    return {
        "target_pps": pps,
        "achieved_pps": s["achieved_pps"],
        "error": err,
        "errors": [x[0] for x in runs],
        "pacing": s["pacing"],
        "recv_over_sent": rs,
        "flags": flags,
    }


def part_rate(bed: Bed, a: argparse.Namespace, maxes: dict) -> dict:
    """Paced at 10/50/90 % of a variant's own max: the best one, and the default."""
    res: dict = {}
    print("\n2. paced rate error at a fraction of lanloss-send's max (same flags), median run")
    print(
        f"{'payload':>8} {'variant':>17} {'frac':>5} {'target pps':>11} {'achieved':>9} "
        f"{'error':>7} {'recv/sent':>9} {'late mean/p99/max us':>24}"
    )
    for payload in PAYLOADS:
        best = maxes[payload]["best"]
        for variant in dict.fromkeys([best, "lanloss b32"]):
            top = maxes[payload]["median_sent_pps"][variant]
            for frac in (0.1, 0.5, 0.9):
                p = rate_point(bed, a, payload, top * frac, VARIANTS[variant])
                res[f"{payload}B {variant} @{frac:g}"] = p
                late = p["pacing"]
                print(
                    f"{payload:>7}B {variant:>17} {frac:>5.0%} {p['target_pps']:>11.0f} "
                    f"{p['achieved_pps']:>9.0f} {p['error']:>7.3%} {p['recv_over_sent']:>9.4f} "
                    f"{late['mean_late_us']:>7.1f}/{late['p99_late_us']:>6.1f}/"
                    f"{late['max_late_us']:>8.1f}"
                )
    worst = max(v["error"] for v in res.values())
    print(f"   worst median error {worst:.3%}; goal < {GOAL_ERR:.0%}")
    return res


def pcap_times(path: Path) -> list[int]:
    """Packet timestamps (ns) from a nanosecond pcap file."""
    data = path.read_bytes()
    magic = struct.unpack_from("<I", data)[0]
    if magic != 0xA1B23C4D:
        raise RuntimeError(f"{path}: not a nanosecond pcap (magic {magic:#x})")
    times, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, off)
        times.append(sec * 1_000_000_000 + frac)
        off += 16 + incl
    return times


def spread(times: list[int]) -> dict:
    """Gaps between consecutive arrivals. stddev sees rare long gaps (a burst-paced
    sender's pauses, a preempted one's stalls); p99 - p1 sees the common jitter."""
    gaps = sorted(b - a for a, b in zip(times, times[1:], strict=False))
    n = len(gaps)

    def q(p: float) -> float:
        return gaps[min(n - 1, int(p * n))] / 1e3

    return {
        "packets": len(times),
        "mean_us": statistics.fmean(gaps) / 1e3,
        "stddev_us": statistics.pstdev(gaps) / 1e3,
        "p1_us": q(0.01),
        "p50_us": q(0.5),
        "p99_us": q(0.99),
        "p99_minus_p1_us": q(0.99) - q(0.01),
        "max_us": gaps[-1] / 1e3,
    }


@contextlib.contextmanager
def capture(bed: Bed, port: int):
    """tcpdump in B for the with-block; fills in arrival times (ns) and kernel drops."""
    pcap, got = bed.work / "cap.pcap", {}
    td = bed.start(
        bed.b, 1,
        ["tcpdump", "-i", bed.vb, "-w", pcap, "-s", "96", "-B", "65536", "-n",
         "--time-stamp-precision", "nano", "udp", "dst", "port", port],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    err = ""
    while "listening on" not in err:  # tcpdump says so once its socket is bound
        line = td.stderr.readline()
        if not line:
            raise RuntimeError("tcpdump did not start")
        err += line
    yield got
    time.sleep(0.2)
    td.send_signal(signal.SIGINT)
    _, tail = td.communicate(timeout=10)
    got["drops"] = sum(int(x.split()[0]) for x in tail.splitlines() if "dropped by kernel" in x)
    got["times"] = pcap_times(pcap)


def spread_send(bed: Bed, a: argparse.Namespace, name: str, flags: list, rate: int) -> None:
    payload = rate // (SPREAD_PPS * 8)
    if name.startswith("lanloss"):
        run_lanloss(bed, ["--rate", rate, "--payload", payload, "--duration", a.seconds, *flags])
    else:
        run_iperf(bed, payload, a.seconds, str(rate), flags)


def part_spread(bed: Bed, a: argparse.Namespace) -> dict:
    res: dict = {}
    print(
        f"\n3. inter-arrival spread at {SPREAD_PPS // 1000}k pps (tcpdump on the receiving "
        "veth), median of",
        a.reps,
        "runs",
    )
    print(
        f"{'payload':>8} {'sender':>24} {'packets':>8} {'mean us':>8} {'stddev us':>10} "
        f"{'p1 us':>7} {'p50 us':>7} {'p99 us':>7} {'p99-p1 us':>10} {'max us':>8} "
        f"{'tcpdump drops':>13}"
    )
    for payload in PAYLOADS:
        rate = SPREAD_PPS * payload * 8
        for name, flags in SPREAD_SENDERS.items():
            runs = []
            for _ in range(a.reps):
                port = PORT if name.startswith("lanloss") else IPERF_PORT
                with capture(bed, port) as cap:
                    spread_send(bed, a, name, flags, rate)
                runs.append({**spread(cap["times"]), "tcpdump_drops": cap["drops"]})
            m = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            res[f"{payload}B {name}"] = {"median": m, "runs": runs}
            print(
                f"{payload:>7}B {name:>24} {m['packets']:>8.0f} {m['mean_us']:>8.2f} "
                f"{m['stddev_us']:>10.2f} {m['p1_us']:>7.2f} {m['p50_us']:>7.2f} "
                f"{m['p99_us']:>7.2f} {m['p99_minus_p1_us']:>10.2f} {m['max_us']:>8.0f} "
                f"{m['tcpdump_drops']:>13.0f}"
            )
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=2, help="length of each run, s (2; iperf3 -t)")
    ap.add_argument("--reps", type=int, default=3, help="runs per configuration (3)")
    ap.add_argument(
        "--nice", type=int, default=0, help="nice value for every tool, iperf3 alike (0)"
    )
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("bed_tools: skipped: needs root (network namespaces)")
        return 0
    missing = [t for t in ("iperf3", "tcpdump", "taskset", "ip") if not shutil.which(t)]
    if missing:
        print(f"bed_tools: missing {missing}: apt-get install -y iperf3 tcpdump", file=sys.stderr)
        return 1
    if (os.cpu_count() or 1) < 2:
        print("bed_tools: needs 2 CPUs (sender on CPU0, receiver on CPU1)", file=sys.stderr)
        return 1
    subprocess.run(["make", "-s", "-C", str(TOOLS)], check=True)

    with tempfile.TemporaryDirectory(prefix="lltools-bench-") as tmp:
        bed = Bed(Path(tmp), a.nice)
        try:
            bed.up()
            load0 = os.getloadavg()
            t0 = time.monotonic()
            maxes = part_max(bed, a)
            rates = part_rate(bed, a, maxes)
            spreads = part_spread(bed, a)
            load1 = os.getloadavg()
        finally:
            bed.down()
    summary = {
        "bench": "bed_tools",
        "seconds": a.seconds,
        "reps": a.reps,
        "nice": a.nice,
        "wall_s": round(time.monotonic() - t0, 1),
        "loadavg_before_after": [load0[0], load1[0]],
        "max_pps": {
            str(k): {kk: vv for kk, vv in v.items() if kk != "runs"} for k, v in maxes.items()
        },
        "rate_error": rates,
        "spread": {k: v["median"] for k, v in spreads.items()},
        "goals": {
            "ratio_ge_1.5": {str(p): maxes[p]["ratio_best"] >= GOAL_RATIO for p in maxes},
            "rate_error_lt_1pct": all(v["error"] < GOAL_ERR for v in rates.values()),
        },
    }
    print(
        f"\nload average {load0[0]:.2f} before, {load1[0]:.2f} after (2 CPUs; other users "
        "inflate every number's spread)"
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
