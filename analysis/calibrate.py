# SPDX-License-Identifier: GPL-2.0-only
"""Host presets calibrated to a named subset of their paper's numbers: ``lanloss calibrate``.

A per-seed preset (lanloss/host_presets.py) has a few CPU costs no datasheet gives. They are
set here, by running the simulator at the paper's own points and solving for the costs that
reproduce a *named* subset of its numbers (at most a third of those the comparison has); the
rest of the paper's numbers are then predictions, and the seed figures' error tables mark
each row ``calibrated`` or ``predicted`` from the same definition (``CALIBRATIONS``). A number
a parameter was fitted to is no evidence for it.

    lanloss calibrate x3440-2010            fit the free values, print them and the residuals
    lanloss calibrate x3440-2010 --check    the preset as it stands, at its targets

The fit is a least-squares solve on the logarithms (a relative error per target) over the
simulator itself, not over a formula: the knees it finds are the simulator's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

# seed 004: the seed's sender reached 514.361 Mb/s of 60-byte frames (no FCS) with one
# process, 1,071,585 datagrams/s: the rate it offered, as 1-byte payload bits
SEED004_ONE_PROCESS_RATE = round(514.361e6 / (60 * 8)) * 8


@dataclass(frozen=True)
class Target:
    """One number of the paper a preset is calibrated to, and the run that reproduces it."""

    label: str  # the paper's number in words
    key: tuple  # how the seed figure names the row (its own convention)
    given: dict[str, Any]  # the run's options (the preset's host is added)
    value: float  # the paper's number
    metric: str = "datagrams_per_s"  # what the run is judged by (METRICS)


@dataclass(frozen=True)
class Calibration:
    preset: str
    seed: str  # the paper ("004")
    free: tuple[str, ...]  # the host values fitted (the rest are the preset's sources)
    targets: tuple[Target, ...]
    numbers: int  # how many numbers of the paper the comparison has (targets <= a third)
    fixed: dict[str, Any] = field(default_factory=dict)  # options of every target run


def _datagrams_per_s(rec) -> float:
    return float(rec.totals["goodput_bps"]) / (8.0 * float(rec.params["payload"]))


def _loss(rec) -> float:
    return float(rec.totals["loss"])


def _goodput_mbps(rec) -> float:
    return float(rec.totals["goodput_bps"]) / 1e6


METRICS: dict[str, Callable[[Any], float]] = {
    "datagrams_per_s": _datagrams_per_s,
    "loss": _loss,
    "goodput_mbps": _goodput_mbps,
}

_GIG = dict(edge_rate="1Gbps", tx_queue="64KiB", duration="0.1s", warmup="0.02s")

CALIBRATIONS: dict[str, Calibration] = {
    # Seed 004's Model 1 (1-byte payload, one process per port: reuseport on), Model 2 (100
    # bytes) and Model 3 (threads on one descriptor: reuseport off): 9 receive rates. Three set
    # the kernel's cost per frame, the read cost and the copy per byte; 1 and 2 processes fix
    # how the interrupt's core is shared (the first reader runs there); the 100-byte rate the
    # copy. Predicted: 4 and 8 processes, Model 2 from 2 processes, Model 3.
    # Seed 000 states one number of its receivers: losses from about 20 Mbit/s (section 5);
    # the rest is behaviour (ITR 2500 best, livelock, a socket-buffer stage, < 1e-4 tuned).
    # The e1000-era PC's interrupt and kernel costs are kept; the monitoring client's cost per
    # datagram read (its own processing included) is set so that 64-byte datagrams with an
    # interrupt per packet start to lose (0.1 %) at 20 Mbit/s.
    "w7x-client-2008": Calibration(
        preset="w7x-client-2008",
        seed="000",
        free=("read_cost",),
        numbers=5,
        fixed=dict(edge_rate="100Mbps", cast="multicast", duration="0.5s", warmup="0.1s"),
        targets=(
            Target(
                "losses from about 20 Mbit/s (64 B, an interrupt per packet): 0.1 % lost",
                ("loss_onset_rate",),
                dict(payload=64, itr=0, rate="20Mbps"),
                1e-3,
                metric="loss",
            ),
        ),
    ),
    # Seed 001's Linux-Linux netperf table on 100 Mbit/s: 24 of its numbers are studied
    # (UDP and TCP, 64/576/1500/64512 bytes, 16/32/64 KiB buffers). One sets the lab PC's
    # cost per datagram read: 64-byte UDP at 16 KiB, 48.51 Mbit/s, just under the wire's
    # 49.23 (the receiver, not the wire, binds).
    "athlon-2003": Calibration(
        preset="athlon-2003",
        seed="001",
        free=("read_cost",),
        numbers=24,
        fixed=dict(edge_rate="100Mbps", rate="max", duration="0.5s", warmup="0.1s"),
        targets=(
            Target(
                "UDP, 64 B, 16 KiB buffers: 48.51 Mbit/s",
                ("udp", 64, 16),
                dict(protocol="udp", payload=64, rcvbuf="16KiB"),
                48.51,
                metric="goodput_mbps",
            ),
        ),
    ),
    "x3440-2010": Calibration(
        preset="x3440-2010",
        seed="004",
        free=("packet_cost", "read_cost", "read_byte_cost"),
        numbers=9,
        fixed=dict(_GIG, reuseport="on"),
        targets=(
            Target(
                "Model 1, 1 process: 791,676/s",
                (1, 1, "pps"),
                dict(payload=1, readers=1, rate=SEED004_ONE_PROCESS_RATE),
                791676.1,
            ),
            Target(
                "Model 1, 2 processes: 1,016,197/s",
                (1, 2, "pps"),
                dict(payload=1, readers=2, rate="max"),
                1016197.0,
            ),
            Target(
                "Model 2, 1 process: 571,433/s",
                (100, 1, "pps"),
                dict(payload=100, readers=1, rate="max"),
                571433.4,
            ),
        ),
    ),
}


def _params(cal: Calibration, target: Target, values: dict[str, Any]) -> dict[str, Any]:
    from lanloss import options

    given = {**cal.fixed, **target.given, "host": cal.preset}
    given.update({k: repr(float(v)) if isinstance(v, float) else v for k, v in values.items()})
    return options.resolve({k: str(v) for k, v in given.items()}, "sim")


def measure(cal: Calibration, values: dict[str, Any], jobs: int = 2) -> list[float]:
    """The simulator's value at every target with the preset's host values plus `values`."""
    from lanloss import sim

    def one(t: Target) -> float:
        return METRICS[t.metric](sim.run_point(_params(cal, t, values)))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, cal.targets))


def check(cal: Calibration, jobs: int = 2) -> list[tuple[Target, float]]:
    """The preset as it stands at its targets: (target, simulated value)."""
    return list(zip(cal.targets, measure(cal, {}, jobs), strict=True))


def fit(
    cal: Calibration, jobs: int = 2, report: Callable[[str], None] = lambda s: None
) -> dict[str, float]:
    """Solve for the free host values (log space, relative residuals) from the preset's."""
    import numpy as np
    from scipy.optimize import least_squares

    from lanloss.host_presets import TABLE

    start = np.array([float(TABLE[cal.preset].values[n]) for n in cal.free])

    def residuals(x):  # x: log(value / the preset's), so a step of 0.02 is 2 %
        values = dict(zip(cal.free, start * np.exp(x), strict=True))
        got = measure(cal, values, jobs)
        r = np.log(np.maximum(got, 1e-12) / np.array([t.value for t in cal.targets]))
        shown = ", ".join(f"{n}={v:.4g}" for n, v in values.items())
        report(f"{shown}: " + ", ".join(f"{100 * math.expm1(e):+.2f} %" for e in r))
        return r

    if len(start) == 1 and len(cal.targets) == 1:
        return {cal.free[0]: float(start[0] * np.exp(_bisect(residuals)))}
    sol = least_squares(
        residuals, np.zeros(len(start)), diff_step=0.02, xtol=1e-4, ftol=1e-6, max_nfev=40
    )
    return dict(zip(cal.free, (float(v) for v in start * np.exp(sol.x)), strict=True))


def _bisect(residual: Callable, span: float = 3.0, steps: int = 24) -> float:
    """The root of a monotone one-parameter residual in [-span, span] (log of the factor).

    A loss target is flat at zero below its knee, so a gradient method cannot start there."""
    lo, hi = -span, span
    r_lo, r_hi = float(residual([lo])[0]), float(residual([hi])[0])
    if (r_lo > 0) == (r_hi > 0):
        raise ValueError("calibrate: the target is not bracketed by the preset's value x/ e^3")
    for _ in range(steps):
        mid = (lo + hi) / 2
        r_mid = float(residual([mid])[0])
        if (r_mid > 0) == (r_lo > 0):
            lo, r_lo = mid, r_mid
        else:
            hi = mid
    return (lo + hi) / 2


def calibrated_rows(seed: str) -> set[tuple]:
    """The rows of a seed's error table a preset was calibrated to (their figure keys)."""
    return {t.key for c in CALIBRATIONS.values() if c.seed == seed for t in c.targets}


MAX_JOBS = 256  # simulations at once: each is a process; more is a typo, not a machine


def add_parser(sub) -> None:
    p = sub.add_parser(
        "calibrate",
        help="fit a per-seed host preset's free costs to its named targets (or --check it)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("preset", help=f"one of: {', '.join(CALIBRATIONS)}")
    p.add_argument("--check", action="store_true", help="only run the preset at its targets")
    p.add_argument("--jobs", type=int, default=2, help="simulations at once (2)")
    p.set_defaults(func=_cmd)


def _cmd(args) -> int:
    import sys

    from lanloss.options import OptionError

    cal = CALIBRATIONS.get(args.preset)
    if cal is None:
        raise OptionError(
            f"calibrate: preset {args.preset!r} has no calibration (known: "
            f"{', '.join(CALIBRATIONS)})"
        )
    if not 1 <= args.jobs <= MAX_JOBS:
        raise OptionError(f"--jobs: {args.jobs} is not between 1 and {MAX_JOBS}")
    if len(cal.targets) * 3 > cal.numbers:
        raise OptionError(f"calibrate: {cal.preset}: more than a third of the numbers are targets")
    if not args.check:
        values = fit(cal, args.jobs, lambda s: print(s, file=sys.stderr))
        print(f"{cal.preset}: fitted to {len(cal.targets)} of seed {cal.seed}'s {cal.numbers}")
        for name, v in values.items():
            print(f"  {name}: {v:.4g}")
        got = measure(cal, values, args.jobs)
    else:
        got = measure(cal, {}, args.jobs)
    for t, g in zip(cal.targets, got, strict=True):
        print(f"  {t.label}: simulated {g:,.6g} ({100 * (g / t.value - 1):+.2f} %)")
    return 0
