# SPDX-License-Identifier: GPL-2.0-only
"""The default study's slow receiver on the netns testbed, period by period.

Runs `lanloss bed run` at each RATE with the slow-receiver panel of config/config.yaml, read
from it (today 1472 bytes into a 100 Mbit/s edge, a CPU quota of 20 % of one CPU per 100 ms
period, 50 us of work per datagram), keeps the receiver's per-datagram log that the harness
reads and otherwise drops (it wraps lanloss.testbed.traffic.read_log), and prints per rate:

- the loss, and the quota periods the reader's cgroup was throttled in (its cpu.stat);
- receive calls per datagram (a call that finds the socket empty sleeps and is woken);
- the longest gap between two datagrams read, beside the time the socket buffer holds
  arrivals for at the offered rate (the record's totals.recv_buffer_s): a throttle that
  outlasts the buffer loses;
- the reader's intake per quota period: the datagrams read between two gaps of GAP_S or
  more (a throttle), their mean, standard deviation and variance over mean (1 for Poisson
  counts), over the complete periods (the first and last are cut by the run);

and, over the periods of all the rates, what a datagram and a receive call cost: each
period between two throttles used its whole quota (RECV_CPU % of PERIOD_US), so least
squares of quota = datagrams x per-datagram + calls x per-call, a call being the datagrams
that share one rx_ns (lanloss-recv stamps a call's datagrams with its return, by default).
A period twice the median's length or more spans an unthrottled period and is left out.
The two costs are given with their standard errors where the periods separate them; where
calls per datagram vary too little between periods they do not (a cost within two standard
errors of 0, or below it), and the line says so and gives what the periods do measure: a
datagram's cost with its calls' share.

    .venv/bin/python testbed/quota_periods.py OUTDIR RATE... [--duration 3s] [--prefix qp-]

Each point's record goes to OUTDIR/rate<bit/s>.json. Root (netns); bad input is refused in
one line with exit 2 before any host is touched.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import yaml

from lanloss import units
from lanloss.cli import main as lanloss_main
from lanloss.testbed import traffic
from lanloss.testbed.cpulimit import PERIOD_US
from lanloss.testbed.runfolder import prefix_problem

GAP_S = 5e-3  # a pause in the reading this long is a throttle (arrivals come every ~0.3 ms)
CONFIG = Path(__file__).resolve().parents[1] / "config" / "config.yaml"


def slow_panel(config: Path = CONFIG) -> dict[str, str]:
    """The default study's slow-receiver panel (its grid with recv_cpu) as bed run options:
    the study's fixed edge rate and warm-up, the grid's payload, CPU share and work."""
    cfg = yaml.safe_load(config.read_text())
    grid = next(g for g in cfg["grids"] if "recv_cpu" in g)
    return {
        "edge_rate": str(cfg["fixed"]["edge_rate"]),
        "warmup": str(cfg["fixed"]["warmup"]),
        **{k: str(grid[k][0]) for k in ("payload", "recv_cpu", "recv_work")},
    }


PANEL = slow_panel()
RECV_CPU = float(PANEL["recv_cpu"])  # percent of one CPU per period
QUOTA_S = RECV_CPU / 100 * PERIOD_US / 1e6


def periods(rx_ns: np.ndarray, gap_s: float = GAP_S) -> list[np.ndarray]:
    """The stamps read between consecutive gaps of gap_s or more, the first and last runs
    (cut by the traffic's start and end) left out."""
    if len(rx_ns) < 2:
        return []
    cuts = np.flatnonzero(np.diff(rx_ns) >= gap_s * 1e9) + 1
    return np.split(rx_ns, cuts)[1:-1]


def intake_per_period(rx_ns: np.ndarray, gap_s: float = GAP_S) -> np.ndarray:
    """Datagrams read in each of periods(rx_ns)."""
    return np.array([len(p) for p in periods(rx_ns, gap_s)], dtype=int)


def datagrams_and_calls(rx_ns: np.ndarray) -> np.ndarray:
    """Per period that used one quota: [datagrams, calls] (rows); periods twice the median
    length or more (an unthrottled period inside) left out."""
    rows = np.array([[len(p), len(np.unique(p))] for p in periods(rx_ns)], dtype=float)
    if not len(rows):
        return np.zeros((0, 2))
    return rows[rows[:, 0] < 2 * np.median(rows[:, 0])]


def costs(rows: np.ndarray, quota_s: float = QUOTA_S) -> tuple[float, float]:
    """(per datagram, per call) in seconds: least squares of quota_s = rows @ costs."""
    x, *_ = np.linalg.lstsq(rows, np.full(len(rows), quota_s), rcond=None)
    return float(x[0]), float(x[1])


def standard_errors(rows: np.ndarray, quota_s: float = QUOTA_S) -> tuple[float, float]:
    """The standard errors of costs(rows): s^2 (X'X)^-1 with s^2 the residuals' mean square
    over n - 2 degrees of freedom (inf with fewer than three periods)."""
    if len(rows) < 3:
        return math.inf, math.inf
    x = np.array(costs(rows, quota_s))
    resid = quota_s - rows @ x
    s2 = float(resid @ resid) / (len(rows) - 2)
    cov = s2 * np.linalg.pinv(rows.T @ rows)
    return float(math.sqrt(max(cov[0, 0], 0.0))), float(math.sqrt(max(cov[1, 1], 0.0)))


def cost_line(rows: np.ndarray, quota_s: float = QUOTA_S) -> str:
    """The pooled periods' costs: a datagram's and a call's where the periods separate
    them (both estimates more than two standard errors above 0); else the least squares
    named as not separated, and a datagram's cost with its calls' share (quota over the
    mean intake), which the periods do measure."""
    head = f"over {len(rows)} periods of {1e3 * quota_s:g} ms of CPU: "
    (a, b), (se_a, se_b) = costs(rows, quota_s), standard_errors(rows, quota_s)
    if a > 2 * se_a and b > 2 * se_b:
        return (
            f"{head}{1e6 * a:.2f} +- {1e6 * se_a:.2f} us per datagram, "
            f"{1e6 * b:.2f} +- {1e6 * se_b:.2f} us per call"
        )
    per_call = rows[:, 1] / rows[:, 0]
    return (
        f"{head}least squares {1e6 * a:.2f} +- {1e6 * se_a:.2f} us per datagram and "
        f"{1e6 * b:.2f} +- {1e6 * se_b:.2f} us per call, not separated (calls per datagram "
        f"{per_call.min():.2f}-{per_call.max():.2f}: a cost within two standard errors of 0 "
        f"or below); a datagram with its calls' share "
        f"{1e6 * quota_s / rows[:, 0].mean():.2f} us"
    )


def quota_stat(record: dict) -> dict:
    """The receiver's cgroup cpu.stat; empty where no quota was enforced (SCHED_IDLE)."""
    return record["extra"].get("cpu_stat", {}).get("r1") or {}


def describe(record: dict, rx_ns: np.ndarray) -> str:
    """One point's lines (see the module docstring)."""
    reader = record["extra"]["tool_reports"]["receivers"]["r1"]
    received, calls = reader["readers"][0]["received"], reader["scheduling"]["calls"]
    cpu = quota_stat(record)
    if "nr_throttled" not in cpu:
        limit = record["env"]["hosts"]["r1"].get("cpu_limit", {})
        return (
            f"{record['params']['rate'] / 1e6:g} Mbit/s: no CPU quota was enforced here "
            f"(method {limit.get('method')}): no periods to count"
        )
    gap = float(np.diff(rx_ns).max()) / 1e6 if len(rx_ns) > 1 else float("nan")
    n = intake_per_period(rx_ns)
    lines = [
        f"{record['params']['rate'] / 1e6:g} Mbit/s: loss {100 * record['totals']['loss']:.2f} %, "
        f"throttled in {cpu['nr_throttled']} of {cpu['nr_periods']} periods "
        f"({cpu['throttled_time'] / 1e9:.3f} s), {calls / max(received, 1):.2f} calls per "
        f"datagram; longest gap {gap:.1f} ms, the socket buffer holds "
        f"{1e3 * record['totals']['recv_buffer_s']:.1f} ms; {len(rx_ns)} datagrams in the log"
    ]
    if len(n) >= 2:
        lines.append(
            f"  intake per period ({len(n)} periods): mean {n.mean():.1f}, sd {n.std(ddof=1):.1f}, "
            f"variance / mean {n.var(ddof=1) / n.mean():.3f}"
        )
    return "\n".join(lines)


def run_point(out: Path, rate: str, duration: str, prefix: str) -> tuple[dict, np.ndarray]:
    """One `lanloss bed run` whose receiver's log is kept: (its record, rx_ns sorted)."""
    kept: list[np.ndarray] = []
    read_log = traffic.read_log

    def keep(host, path):
        flows = read_log(host, path)
        kept.append(np.sort([a.rx_ns for arrivals in flows.values() for a in arrivals]))
        return flows

    traffic.read_log = keep
    try:
        panel = [a for k, v in PANEL.items() for a in (f"--{k.replace('_', '-')}", v)]
        argv = ["bed", "run", "--prefix", prefix, *panel, "--no-progress", "--rate", rate,
                "--duration", duration, "--out", str(out)]  # fmt: skip
        code = lanloss_main(argv)
    finally:
        traffic.read_log = read_log
    if code != 0:
        raise SystemExit(code)
    return json.loads(out.read_text()), kept[-1] if kept else np.zeros(0, dtype=np.int64)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("rates", nargs="+", metavar="RATE")
    ap.add_argument("--duration", default="3s")
    ap.add_argument("--prefix", default="qp-")
    a = ap.parse_args(argv)
    try:
        bps = [units.parse_rate(rate) for rate in a.rates]
        if units.parse_time(a.duration) <= 0:
            raise ValueError(f"duration {a.duration!r} must be positive")
        if why := prefix_problem(a.prefix):
            raise ValueError(f"--prefix {a.prefix!r} {why}")
    except ValueError as exc:
        print(f"quota_periods: {exc}", file=sys.stderr)
        return 2
    if a.outdir.exists() and not a.outdir.is_dir():
        print(f"quota_periods: OUTDIR {str(a.outdir)!r} is not a folder", file=sys.stderr)
        return 2
    a.outdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for rate in bps:
        record, rx = run_point(a.outdir / f"rate{rate}.json", str(rate), a.duration, a.prefix)
        print(describe(record, rx), flush=True)
        if "nr_throttled" in quota_stat(record):
            rows.append(datagrams_and_calls(rx))
    pooled = np.vstack(rows) if rows else np.zeros((0, 2))
    if len(pooled) >= 4 and len(np.unique(np.round(pooled[:, 1] / pooled[:, 0], 2))) > 1:
        print(cost_line(pooled))
    return 0


if __name__ == "__main__":
    sys.exit(main())
