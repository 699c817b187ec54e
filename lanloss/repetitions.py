# SPDX-License-Identifier: GPL-2.0-only
"""Repetitions until the answer is known: whether a testbed point runs once more.

A study's ``repetitions`` is a fixed count (``3``: seeds 1..3 on every source) or adaptive,

    repetitions: {min: 2, max: 8, until: 0.5, sim: 1}

where a testbed point runs seeds 1..min, then one seed more at a time while the 95 %
interval of its loss is ``until`` percentage points wide or more on either side, up to
``max`` runs; the simulator runs seeds 1..sim (default 1) and never adapts. The repetition
number of a run is its seed (the option ``seed``, ``params.seed`` in its record).

The interval is Student's t over the runs' loss fractions (each run's ``totals.loss``):

    half-width = t(0.975, n - 1) * s / sqrt(n)       s: the runs' sample standard deviation

It needs two runs (min is at least 2). The runs, not the datagrams, are the samples: a
testbed's datagrams are not independent trials (a descheduled receiver loses a burst), so a
binomial (Wilson) interval over the pooled counts would be far too narrow. Two runs that
agree exactly (two runs without loss) stop at once; a run that a disturbance moved widens
the interval and so asks for more runs.

The workflow decides in rounds (workflow/rules/runs.smk, checkpoint ``repetitions``): round
k reads seeds 1..k of every point still running and writes which points run seed k + 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lanloss.record import dump_json, load, write_atomic

LEVEL = 0.95  # the interval's confidence level
MIN_RUNS = 2  # the fewest runs that give an interval
# Every run above `min` is a round of the workflow (a checkpoint, then Snakemake updates its
# plan); at 50 runs the t interval is 0.28 standard deviations wide on each side, and a point
# still not known needs longer runs, not more of them.
MAX_ADAPTIVE = 50
MAX_FIXED = 1000  # seeds 1..N of the fixed form; more is a typo (and points to expand)


@dataclass(frozen=True)
class Repetitions:
    """How many runs a point gets: testbed seeds 1..min, then up to max while the interval
    is not narrower than `until` (None: the fixed form, min == max); simulator seeds 1..sim."""

    min: int
    max: int
    until: float | None  # percentage points (half-width of the 95 % interval)
    sim: int

    @classmethod
    def fixed(cls, n: int) -> Repetitions:
        return cls(n, n, None, n)

    @property
    def adaptive(self) -> bool:
        return self.until is not None and self.max > self.min

    def planned(self, source: str) -> int:
        """Runs per point known before any runs: seeds 1..planned."""
        return self.sim if source == "sim" else self.min

    def text(self) -> str:
        """The rule in one line (a workflow rerun trigger: a changed rule decides again)."""
        if self.until is None:
            return f"{self.min} runs"
        return f"min {self.min} max {self.max} until {self.until:g} pp, sim {self.sim}"


def half_width_pp(losses: Sequence[float]) -> float:
    """Half-width of the Student-t 95 % interval of the mean loss, in percentage points, over
    the runs' loss fractions; infinite below two runs."""
    n = len(losses)
    if n < MIN_RUNS:
        return math.inf
    from scipy.stats import t  # here: `lanloss` commands that never decide do not load SciPy

    mean = sum(losses) / n
    s = math.sqrt(sum((x - mean) ** 2 for x in losses) / (n - 1))
    return 100.0 * float(t.ppf(0.5 + LEVEL / 2, n - 1)) * s / math.sqrt(n)


@dataclass(frozen=True)
class Decision:
    repeat: bool
    n: int
    mean_pct: float
    half_width_pp: float
    why: str


def decide(losses: Sequence[float], rule: Repetitions) -> Decision:
    """Whether a testbed point with these runs' loss fractions (seeds 1..n) runs again."""
    n = len(losses)
    mean = 100.0 * sum(losses) / n if n else math.nan
    hw = half_width_pp(losses)
    if n < rule.min:
        return Decision(True, n, mean, hw, f"{n} of at least {rule.min} runs")
    if rule.until is not None and hw < rule.until:
        return Decision(False, n, mean, hw, f"half-width {hw:.3g} pp < {rule.until:g}")
    if n >= rule.max:
        return Decision(False, n, mean, hw, f"{rule.max} runs, the most asked for")
    return Decision(True, n, mean, hw, f"half-width {hw:.3g} pp >= {rule.until:g}")


def run_loss(path: str) -> tuple[int, float]:
    """(seed, loss fraction) of one run record."""
    rec = load(path)
    return int(rec.params["seed"]), float(rec.totals["loss"])


def decide_round(k: int, rule: Repetitions, runs: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """Round k's decisions: for each point (id without its seed -> its records, seeds 1..k)
    whether it runs seed k + 1. RecordError if a point's records are not seeds 1..k."""
    points: dict[str, Any] = {}
    for group, files in sorted(runs.items()):
        seeds_losses = sorted(run_loss(f) for f in files)
        seeds = [s for s, _ in seeds_losses]
        if seeds != list(range(1, k + 1)):
            raise ValueError(f"repetitions round {k}: point {group} has seeds {seeds}")
        d = decide([x for _, x in seeds_losses], rule)
        points[group] = {
            "seeds": seeds,
            "loss_pct": [round(100.0 * x, 6) for _, x in seeds_losses],
            "mean_pct": round(d.mean_pct, 6),
            "half_width_pp": None if math.isinf(d.half_width_pp) else round(d.half_width_pp, 6),
            "repeat": d.repeat,
            "why": d.why,
        }
    return {
        "round": k,
        "rule": {
            "min": rule.min,
            "max": rule.max,
            "until_pp": rule.until,
            "interval": "Student t, 95 %, over the runs' loss fractions",
        },
        "repeat": [g for g, p in points.items() if p["repeat"]],
        "points": points,
    }


def write_round(
    path: str, k: int, rule: Repetitions, runs: Mapping[str, Sequence[str]]
) -> list[str]:
    """Round k's decisions to `path` (whole or not at all); the points that run again."""
    doc = decide_round(k, rule, runs)
    write_atomic(path, dump_json(doc))
    return doc["repeat"]


def repeating(path: str) -> list[str]:
    """The points a round file says run once more."""
    from lanloss import inputs

    return list(inputs.load_json(path, "repetitions round")["repeat"])
