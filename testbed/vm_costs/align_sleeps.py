# SPDX-License-Identifier: GPL-2.0-only
"""What a guest's vCPU thread slept over a point, from align_sleeps.sh's perf trace.

    python testbed/vm_costs/align_sleeps.py TRACE [TRACE...]

Under -icount align QEMU's vCPU thread sleeps in one clock_nanosleep whenever the guest's
clock leads real time by more than VM_CLOCK_ADVANCE (3 ms; the model's GuestClock
Advance); futex waits are its waits for QEMU's global lock and, when the guest halts, for
work. Prints per trace: the real seconds traced, the clock_nanosleep calls (each an align
sleep), per second, their total as a share of the traced time, their median, 10th and
90th percentile lengths, and the futex calls and their total. The model's count is
extra.hosts.<host>.clock_sleeps of a simulated run.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

# perf trace's line: " 1.202 ( 3.081 ms): clock_nanosleep(rqtp: ..., rmtp: ...) = 0"
CALL = re.compile(r"\(\s*(\d+(?:\.\d+)?) ms\): (?:\S+ )?(clock_nanosleep|futex|ppoll)\(")
TRACED = re.compile(r"^# traced (\d+(?:\.\d+)?) s$")


def read(text: str) -> tuple[float, dict[str, list[float]]]:
    """(the seconds traced, each call's milliseconds by system call)."""
    traced = None
    calls: dict[str, list[float]] = {"clock_nanosleep": [], "futex": [], "ppoll": []}
    for line in text.splitlines():
        m = TRACED.match(line)
        if m:
            traced = float(m.group(1))
            continue
        m = CALL.search(line)
        if m:
            calls[m.group(2)].append(float(m.group(1)))
    if traced is None or traced <= 0:
        raise ValueError("no '# traced S s' line (align_sleeps.sh writes it last)")
    return traced, calls


def summary(traced: float, calls: dict[str, list[float]]) -> dict[str, float | int | None]:
    sleeps = sorted(calls["clock_nanosleep"])
    n = len(sleeps)

    def pct(q: float) -> float | None:
        return sleeps[min(n - 1, int(q * n))] if n else None

    return {
        "traced_s": traced,
        "sleeps": n,
        "sleeps_per_s": n / traced,
        "sleep_share": sum(sleeps) / 1e3 / traced,
        "median_ms": statistics.median(sleeps) if n else None,
        "p10_ms": pct(0.1),
        "p90_ms": pct(0.9),
        "futex_calls": len(calls["futex"]),
        "futex_s": sum(calls["futex"]) / 1e3,
    }


def render(name: str, s: dict) -> str:
    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f}"

    return (
        f"{name}: {s['traced_s']:.3f} s traced; align sleeps {s['sleeps']} "
        f"({s['sleeps_per_s']:.0f}/s, {s['sleep_share']:.1%} of the time), median "
        f"{ms(s['median_ms'])} ms (p10 {ms(s['p10_ms'])}, p90 {ms(s['p90_ms'])}); "
        f"futex {s['futex_calls']} calls, {s['futex_s']:.3f} s"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="+", type=Path)
    a = ap.parse_args(argv)
    for path in a.traces:
        try:
            traced, calls = read(path.read_text())
        except (OSError, ValueError) as e:
            print(f"align_sleeps.py: {path}: {e}", file=sys.stderr)
            return 2
        print(render(path.name, summary(traced, calls)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
