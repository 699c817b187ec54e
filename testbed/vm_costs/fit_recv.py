# SPDX-License-Identifier: GPL-2.0-only
"""lanloss-recv's cost per receive call and per datagram, from measure_recv.sh's lines.

    python testbed/vm_costs/fit_recv.py RUNS.txt [--shift 5] [--irq 2750] [--byte 0.46]
                                                 [--wakeup 4300] [--byte-read 0.124]

The guest's busy time over a run (its clock's time less /proc/stat's idle, exact under
NOHZ) is a sum: datagrams x d + calls x c + interrupts x irq + payload bytes x byte +
the reader's wake-ups x wakeup + k. d is the stack's work on a frame and the reader's on a
datagram, c a receive call's (recvmmsg's entry and exit, the reader's clock reads around
it), k a run's own (the reader's start and end, the tick over a run of fixed length).

Over the runs that read, two fits, each by least squares with 90 % bootstrap intervals:
with irq, byte and wakeup fixed at what was measured apart (fit.py on a bare receiver,
wakeup_pingpong.c), and with irq and wakeup solved too (byte stays fixed: the runs may all
be of one size). Then the pairs of runs that differ only in their calls (the same SIZE, PPS
and PATTERN, --batch 1 and another that made at most half its calls, the same interrupts
and wake-ups within 1 %) give c directly: the busy difference over the calls' difference.
The runs must vary calls apart from datagrams, or c and d cannot be told apart: the fit
says so and exits 2.

Where some runs had their reader stopped (measure_recv.sh's BATCH stop: their frames go to
a full socket and are dropped there, unread, and nothing wakes), d splits into a frame's f
(the driver, GRO, IP and UDP up to the socket) and a read's r, in two steps whose unknowns
the runs separate by design: the stopped runs alone give busy = frames x f + interrupts x
irq + frame payload bytes x (byte - byte_read) + k (their interrupts per frame vary with
rate and bursts); the reading runs, less those, give datagrams read x r + calls x c +
wake-ups x wakeup + read bytes x byte_read (byte_read the reader's copy). A stopped reader
still reads a few datagrams and wakes to its timeouts before it is stopped and after: the
first step subtracts those at the second's costs, and the two are repeated until they
agree. Counts are guest instructions: seconds x 10^9 / 2^shift (QEMU -icount shift).
"""

import argparse
import sys

import numpy as np

FIXED_NAMES = ("per datagram", "per call", "per run")
FREE_NAMES = (*FIXED_NAMES, "per interrupt", "per wake-up")
STOPPED_NAMES = ("per frame", "per interrupt", "per run")  # the stopped readers' runs
READING_NAMES = ("per read", "per call", "per wake-up")  # the others, less those
ITERATIONS = 8  # of the two steps: the stopped runs' reads move the first by about 1 %
SAME = 0.01  # a pair's interrupts and wake-ups agree within this share
FEWER = 0.5  # and the batched run made at most this share of the other's calls: a run's
# own noise (about 2 % of its busy time) would swamp a smaller difference


def parse_runs(path: str) -> list[dict[str, str]]:
    """measure_recv.sh's lines (name-value pairs): the runs whose reader lost nothing at its
    socket, and the runs whose reader was stopped (their loss at the socket is the point)."""
    out = []
    for line in open(path, encoding="utf-8"):
        words = line.split()
        d = dict(zip(words[0::2], words[1::2], strict=False))
        if "calls" not in d or "idle" not in d:
            continue
        lossless = d.get("socket_drops") == "0" and d.get("rcvbuf_errors", "0") == "0"
        if lossless or d.get("batch") == "stop":
            out.append(d)
    return out


def frames(d: dict[str, str]) -> int:
    """The frames the guest took in a run (lines from before frames were counted: one per
    datagram read, as in a run that lost nothing)."""
    return int(d.get("frames", d["datagrams"]))


def payload_bytes(d: dict[str, str]) -> int:
    """The payload bytes of a run's frames: those read, and those dropped unread."""
    return int(d["bytes"]) + (frames(d) - int(d["datagrams"])) * int(d["size"])


def busy(d: dict[str, str], rate: float) -> float:
    """A run's busy guest instructions: its clock's time less /proc/stat's idle ticks."""
    return (float(d["wall"]) - int(d["idle"]) / 100) * rate  # USER_HZ


def system(
    runs: list[dict[str, str]], rate: float, fixed: dict[str, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, y, busy): A's columns datagrams, calls, 1 (and interrupts, wake-ups where
    `fixed` has no value for them); y the busy instructions less the fixed costs."""
    a, y, b = [], [], []
    for d in runs:
        row = [int(d["datagrams"]), int(d["calls"]), 1.0]
        rest = busy(d, rate) - payload_bytes(d) * fixed["byte"]
        for key, count in (("irq", int(d["irqs"])), ("wakeup", int(d["nvcsw"]))):
            if key in fixed:
                rest -= count * fixed[key]
            else:
                row.append(count)
        a.append(row)
        y.append(rest)
        b.append(busy(d, rate))
    return np.array(a, float), np.array(y), np.array(b)


def solve(a: np.ndarray, y: np.ndarray, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Least squares and 90 % bootstrap intervals (2 x columns: low, high)."""
    sol, *_ = np.linalg.lstsq(a, y, rcond=None)
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(2000):
        k = rng.integers(0, len(y), len(y))
        if np.linalg.matrix_rank(a[k]) == a.shape[1]:
            boot.append(np.linalg.lstsq(a[k], y[k], rcond=None)[0])
    return sol, np.percentile(np.array(boot), [5, 95], axis=0)


def split_frame_and_read(
    runs: list[dict[str, str]], rate: float, byte: float, byte_read: float
) -> tuple[tuple, tuple] | None:
    """The two steps above: ((solution, low, high, residuals %) of the stopped runs for
    STOPPED_NAMES, the same of the reading runs for READING_NAMES); None where either set
    cannot separate its three unknowns."""
    stopped = [d for d in runs if d["batch"] == "stop"]
    reading = [d for d in runs if d["batch"] != "stop"]
    a1 = np.array([[frames(d), int(d["irqs"]), 1.0] for d in stopped])
    b1 = np.array([busy(d, rate) for d in stopped])
    y1 = b1 - np.array([payload_bytes(d) for d in stopped]) * (byte - byte_read)
    a2 = np.array([[int(d["datagrams"]), int(d["calls"]), int(d["nvcsw"])] for d in reading])
    if (
        min(len(stopped), len(reading)) < 4
        or min(np.linalg.matrix_rank(a1), np.linalg.matrix_rank(a2)) < 3
    ):
        return None
    # the stopped runs' own reads, calls and wake-ups, and their copies
    s1 = np.array([[int(d["datagrams"]), int(d["calls"]), int(d["nvcsw"])] for d in stopped])
    y1 -= np.array([int(d["bytes"]) for d in stopped]) * byte_read
    b2 = np.array([busy(d, rate) for d in reading])
    sol2 = np.zeros(3)
    for _ in range(ITERATIONS):
        sol1, (lo1, hi1) = solve(a1, y1 - s1 @ sol2)
        f, irq, k = sol1
        y2 = b2 - np.array(
            [
                frames(d) * f
                + int(d["irqs"]) * irq
                + k
                + payload_bytes(d) * (byte - byte_read)
                + int(d["bytes"]) * byte_read
                for d in reading
            ]
        )
        sol2, (lo2, hi2) = solve(a2, y2)
    y1 = y1 - s1 @ sol2
    return (
        (sol1, lo1, hi1, 100 * (y1 - a1 @ sol1) / b1),
        (sol2, lo2, hi2, 100 * (y2 - a2 @ sol2) / b2),
    )


def pairs(runs: list[dict[str, str]], rate: float) -> list[tuple[str, float]]:
    """(name, instructions per call) of each --batch 1 run and each other run of the same
    traffic whose interrupts and wake-ups agree within SAME and whose calls were at most
    FEWER of its own; runs are named by their place among the runs read (1 = the first)."""
    out = []
    for n1, one in enumerate(runs, 1):
        if one["batch"] != "1":
            continue
        for n2, other in enumerate(runs, 1):
            same = all(other[k] == one[k] for k in ("size", "pps", "pattern", "datagrams"))
            if not same or other["batch"] == "1" or int(other["calls"]) > FEWER * int(one["calls"]):
                continue
            if all(
                abs(int(other[k]) - int(one[k])) <= SAME * int(one[k]) for k in ("irqs", "nvcsw")
            ):
                per_call = (busy(one, rate) - busy(other, rate)) / (
                    int(one["calls"]) - int(other["calls"])
                )
                name = (
                    f"runs {n1} and {n2} ({one['size']} B {one['pps']}/s {one['pattern']}, "
                    f"batch 1 and {other['batch']})"
                )
                out.append((name, per_call))
    return out


def report(title: str, names, sol, lo, hi, res) -> None:
    print(title)
    for n, v, a5, b95 in zip(names, sol, lo, hi, strict=True):
        print(f"  {n:13s} {v:10.4g}   90 % interval {a5:.4g} .. {b95:.4g}")
    print("  residuals, % of busy:", " ".join(f"{x:+.1f}" for x in res))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs")
    ap.add_argument("--shift", type=int, default=5)
    ap.add_argument("--irq", type=float, default=2750.0, help="instructions per interrupt")
    ap.add_argument("--byte", type=float, default=0.46, help="instructions per payload byte")
    ap.add_argument("--wakeup", type=float, default=4300.0, help="instructions per wake-up")
    ap.add_argument(
        "--byte-read", type=float, default=0.124, help="of --byte, the reader's copy's share"
    )
    args = ap.parse_args()
    try:
        runs = parse_runs(args.runs)
    except (OSError, KeyError, ValueError) as e:
        print(f"fit_recv.py: cannot read runs from {args.runs}: {e}", file=sys.stderr)
        sys.exit(2)
    rate = 1e9 / 2**args.shift  # instructions per second of the guest's clock
    stopped = [d for d in runs if d["batch"] == "stop"]
    reading = [d for d in runs if d["batch"] != "stop"]
    fixed = {"irq": args.irq, "byte": args.byte, "wakeup": args.wakeup}
    a, y, b = system(reading, rate, fixed)
    if len(y) < 6 or np.linalg.matrix_rank(a) < 3:
        print(
            f"fit_recv.py: {len(y)} runs without socket drops in {args.runs} do not vary "
            "calls apart from datagrams (need 6 or more, --batch 1 and bursts among them)",
            file=sys.stderr,
        )
        sys.exit(2)
    print(
        f"{len(y)} runs that read, {len(stopped)} with the reader stopped; shift {args.shift}, "
        f"byte {args.byte:g} instructions (fixed)"
    )
    sol, (lo, hi) = solve(a, y)
    report(
        f"interrupt {args.irq:g} and wake-up {args.wakeup:g} fixed:",
        FIXED_NAMES,
        sol,
        lo,
        hi,
        100 * (y - a @ sol) / b,
    )
    a, y, b = system(reading, rate, {"byte": args.byte})
    if np.linalg.matrix_rank(a) == a.shape[1]:
        sol, (lo, hi) = solve(a, y)
        report(
            "interrupt and wake-up solved too:", FREE_NAMES, sol, lo, hi, 100 * (y - a @ sol) / b
        )
    split = split_frame_and_read(runs, rate, args.byte, args.byte_read) if stopped else None
    if split:
        report(
            f"the stopped readers' runs (payload byte {args.byte - args.byte_read:g} fixed):",
            STOPPED_NAMES,
            *split[0],
        )
        report(
            f"the reading runs less those (the copy's byte {args.byte_read:g} fixed):",
            READING_NAMES,
            *split[1],
        )
    elif stopped:
        print("  (too few stopped or reading runs to split the datagram: 4 of each needed)")
    for name, per_call in pairs(runs, rate):
        print(f"pair {name}: {per_call:.4g} instructions per call")


if __name__ == "__main__":
    main()
