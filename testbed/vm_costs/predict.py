# SPDX-License-Identifier: GPL-2.0-only
"""The simulator's interrupts and reader wake-ups per datagram at measure.sh's runs.

    python testbed/vm_costs/predict.py RUNS.txt [--itr 2500] [--rx-ring 256] [--rcvbuf 256KiB]

For each size and rate measure.sh ran, the simulator runs the `qemu-e1000` preset (its
interrupt, byte and wake-up counts are the guest's, measured) with guest_recv's frame and
read (--packet-cost, --read-cost: instructions; they sum to fit.py's cost per datagram,
its recv() call and all: no cost per call apart, where lanloss-recv has one),
and prints the guest's interrupts per frame and its reader's wake-ups per datagram (range
over its runs) beside the simulator's. Neither count is fitted to anything: fit.py takes
them as given to solve for the costs from the guest's busy time.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from lanloss import host_presets as hp

sys.path.insert(0, str(Path(__file__).resolve().parent))  # fit.py, beside this script
from fit import measured_runs  # noqa: E402


def guest_runs(path: str) -> dict[tuple[int, int], list[tuple[float, float, float]]]:
    """measure.sh's lines (idle-loop runs left out) -> (size, pps): [(irq/frame,
    wakes/datagram, loss)]; a run sent 10 x pps datagrams after the first."""
    out: dict[tuple[int, int], list[tuple[float, float, float]]] = {}
    for d in measured_runs(path):
        n = int(d["datagrams"])
        key = (int(d["size"]), int(d["pps"]))
        loss = 1 - n / (10 * key[1])
        out.setdefault(key, []).append((int(d["irqs"]) / n, int(d["nvcsw"]) / n, loss))
    return out


def simulate(
    size: int, pps: int, args: argparse.Namespace, work: Path
) -> tuple[float, float, float]:
    """One simulator run at the guest's settings -> (interrupts per frame, wake-ups per
    frame, loss)."""
    ns = 2**hp.QEMU_E1000_SHIFT  # nanoseconds per guest instruction
    out = work / f"{size}-{pps}.json"
    argv = [sys.executable, "-m", "lanloss.cli", "sim", "run", "--host", "qemu-e1000"]
    argv += ["--edge-rate", "1Gbps", "--payload", str(size), "--rate", f"{size * 8 * pps}bps"]
    argv += ["--itr", str(args.itr), "--rx-ring", str(args.rx_ring), "--rcvbuf", args.rcvbuf]
    argv += ["--duration", "3s", "--warmup", "0.5s", "--out", str(out)]
    argv += [
        "--packet-cost",
        f"{args.packet_cost * ns}ns",
        "--read-cost",
        f"{args.read_cost * ns}ns",
        # guest_recv makes a recv() per datagram, whose cost is in its read's
        "--read-call-cost",
        "0s",
        "--irq-cost",
        f"{args.irq_cost * ns}ns",
        "--wakeup-cost",
        f"{args.wakeup_cost * ns}ns",
    ]
    subprocess.run(argv, check=True, capture_output=True)
    record = json.loads(out.read_text())
    host = record["extra"]["hosts"]["r1"]
    frames = host["frames_received"]
    wakes = sum(r["wakeups"] for r in host["readers"])
    return host["interrupts"] / frames, wakes / frames, record["totals"]["loss"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs")
    ap.add_argument("--itr", type=int, default=2500)
    ap.add_argument("--rx-ring", type=int, default=256)
    ap.add_argument("--rcvbuf", default="256KiB")
    # guest_recv's datagram, 4,639 instructions (fit.py), split by its reader's CPU time per
    # read at 500/s (5,838 instructions) less its wake-ups (0.955 x 4,300) and its copy
    ap.add_argument("--packet-cost", type=float, default=2915.0, help="instructions per frame")
    ap.add_argument("--read-cost", type=float, default=1724.0, help="instructions per read")
    # The interrupt and wake-up that split is made of (fit.py's, docs/testbed-vm.md §16), not
    # the preset's since §20 (1,980 and 6,848, measured with a stopped reader): the datagram
    # above was solved with these two.
    ap.add_argument("--irq-cost", type=float, default=2750.0, help="instructions per interrupt")
    ap.add_argument("--wakeup-cost", type=float, default=4300.0, help="instructions per wake-up")
    args = ap.parse_args()
    print("size  per s | guest irq/frame  sim | guest wake-ups/datagram  sim | loss %: guest  sim")
    with tempfile.TemporaryDirectory() as tmp:
        for (size, pps), got in sorted(guest_runs(args.runs).items()):
            irq, wake, loss = simulate(size, pps, args, Path(tmp))
            gi, gw, gl = ([g[k] for g in got] for k in range(3))
            print(
                f"{size:5d} {pps:6d} | {min(gi):.3f}-{max(gi):.3f}  {irq:.3f} | "
                f"{min(gw):.3f}-{max(gw):.3f}  {wake:.3f} | {100 * max(gl):.2f}  {100 * loss:.2f}"
            )


if __name__ == "__main__":
    main()
