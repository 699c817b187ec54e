# SPDX-License-Identifier: GPL-2.0-only
"""The guest's costs per datagram, interrupt and byte from measure.sh's lines.

    python testbed/vm_costs/fit.py RUNS.txt [--shift 5] [--wakeup 4300]

The guest's busy time (its clock's time less /proc/stat's idle, exact under NOHZ; the
ticks of user, system and softirq are samples and are not used) over each run is a sum:
datagrams x d + interrupts x i + the reader's wake-ups x w + payload bytes x b + the
guest's own share of the time x g. The wake-up's w is measured apart (wakeup_pingpong.c)
and fixed; d, i, b and g are solved by least squares, with 90 % bootstrap intervals.
Counts are guest instructions: seconds x 10^9 / 2^shift (QEMU -icount shift).
"""

import argparse

import numpy as np


def measured_runs(path: str) -> list[dict[str, str]]:
    """measure.sh's lines that are runs without the idle loop, as their name-value pairs."""
    out = []
    for line in open(path, encoding="utf-8"):
        words = line.split()
        d = dict(zip(words[0::2], words[1::2], strict=False))
        if "idle" in d and d.get("turns", "0") == "0":
            out.append(d)
    return out


def runs(path: str) -> np.ndarray:
    """measure.sh's lines -> rows of datagrams, interrupts, wake-ups, bytes, wall, busy (s)."""
    rows = []
    for d in measured_runs(path):
        wall = float(d["wall"])
        busy = wall - int(d["idle"]) / 100  # USER_HZ
        rows.append(
            [int(d["datagrams"]), int(d["irqs"]), int(d["nvcsw"]), int(d["bytes"]), wall, busy]
        )
    return np.array(rows, float)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs")
    ap.add_argument("--shift", type=int, default=5)
    ap.add_argument("--wakeup", type=float, default=4300.0, help="instructions per wake-up")
    args = ap.parse_args()
    rate = 1e9 / 2**args.shift  # instructions per second of the guest's clock
    r = runs(args.runs)
    a = np.column_stack([r[:, 0], r[:, 1], r[:, 3], r[:, 4] * rate])
    y = r[:, 5] * rate - args.wakeup * r[:, 2]
    sol, *_ = np.linalg.lstsq(a, y, rcond=None)
    rng = np.random.default_rng(1)
    boot = []
    for _ in range(2000):
        k = rng.integers(0, len(y), len(y))
        boot.append(np.linalg.lstsq(a[k], y[k], rcond=None)[0])
    lo, hi = np.percentile(np.array(boot), [5, 95], axis=0)
    names = ("per datagram", "per interrupt", "per byte", "guest's own share")
    print(f"{len(y)} runs, shift {args.shift}, wake-up {args.wakeup:g} instructions (fixed)")
    for n, v, a5, b95 in zip(names, sol, lo, hi, strict=True):
        print(f"{n:18s} {v:10.4g}   90 % interval {a5:.4g} .. {b95:.4g}")
    res = 100 * (y - a @ sol) / (r[:, 5] * rate)
    print("residuals, % of busy:", " ".join(f"{x:+.1f}" for x in res))


if __name__ == "__main__":
    main()
