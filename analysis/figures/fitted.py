# SPDX-License-Identifier: GPL-2.0-only
"""A fit (``lanloss fit``, schema lanloss.fit/1) as curves for a figure: the fitted loss at
table-like rows, with a band.

The estimate is the model at the fitted parameters, the testbed's rows shifted by the fitted
discrepancy (``lanloss.analysis.fit.probabilities``). The band is the pointwise 2.5 and 97.5
percentiles of the loss over the fit's bootstrap replicates (``bootstrap.draws``: each
replicate's parameters together, so their correlations are kept), each replicate's distance
from the estimate stretched, per parameter, by how much wider its reported interval is than
its bootstrap's (``stretch_factors``: a testbed parameter's interval is the random-effects
one over its repetitions, which holds the host's drift between them that the bootstrap over
one run's counts does not). A fit document without
them (written before they were kept) falls back to drawing each parameter on its own from a
split normal (log scale; d0 and d1 on their own) whose 2.5 and 97.5 percentiles are its
interval's ends, which ignores the correlations.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from lanloss.analysis.figures.common import FigureInputError

SCHEMA = "lanloss.fit/1"
Z95 = 1.959964  # a 95 % interval is +-1.96 sd on its (log) scale
DRAWS = 200


def check(doc: dict[str, Any]) -> None:
    """A fit document this figure can read (``fit_report.validate``), else one line naming
    the first problem."""
    from lanloss.analysis import fit_report

    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        schema = doc.get("schema") if isinstance(doc, dict) else None
        raise FigureInputError(f"--fit: schema {schema!r} is not {SCHEMA}")
    problems = fit_report.validate(doc)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise FigureInputError(f"--fit: {problems[0]}{more}")


def _estimate(doc: dict[str, Any]) -> tuple[dict[str, float], float, float]:
    theta = {n: float(p["estimate"]) for n, p in doc["parameters"].items()}
    disc = doc.get("discrepancy") or {}
    d = [float((disc.get(k) or {}).get("estimate") or 0.0) for k in ("d0", "d1")]
    return theta, d[0], d[1]


def _halves(est: float, ci: Any, log: bool) -> tuple[float, float]:
    """sd below and above the estimate such that a split normal (on the log scale for a
    positive parameter) puts the interval's ends at its 2.5 and 97.5 percentiles."""
    if not ci or len(ci) != 2 or any(v is None for v in ci):
        return 0.0, 0.0
    lo, hi, mid = float(ci[0]), float(ci[1]), float(est)
    if log:
        if min(lo, hi, mid) <= 0:
            return 0.0, 0.0
        lo, hi, mid = math.log(lo), math.log(hi), math.log(mid)
    return max(mid - lo, 0.0) / Z95, max(hi - mid, 0.0) / Z95


def _split(rng: np.random.Generator, halves: tuple[float, float]) -> float:
    u = rng.normal()
    return u * (halves[0] if u < 0 else halves[1])


def _width(ci: Any, log: bool) -> float | None:
    if not ci or len(ci) != 2 or any(v is None for v in ci):
        return None
    lo, hi = float(ci[0]), float(ci[1])
    if log:
        if min(lo, hi) <= 0:
            return None
        lo, hi = math.log(lo), math.log(hi)
    return hi - lo if hi > lo else None


def stretch_factor(ci: Any, ci_bootstrap: Any, log: bool) -> float:
    """The reported interval's width over the bootstrap's (of the logs for a parameter);
    1 where either is missing."""
    wide, boot = _width(ci, log), _width(ci_bootstrap, log)
    return wide / boot if wide and boot else 1.0


def stretch_factors(doc: dict[str, Any]) -> dict[str, float]:
    """Per parameter, d0 and d1: its ``ci`` over its ``ci_bootstrap`` (stretch_factor)."""
    disc = doc.get("discrepancy") or {}
    entries = [(k, p, True) for k, p in doc["parameters"].items()]
    entries += [(k, disc.get(k) or {}, False) for k in ("d0", "d1")]
    return {k: stretch_factor(e.get("ci"), e.get("ci_bootstrap"), log) for k, e, log in entries}


def stretched(est: float, value: float, factor: float, log: bool) -> float:
    """A replicate's value moved ``factor`` times as far from the estimate (on the log
    scale for a positive parameter)."""
    if log and est > 0 and value > 0:
        return est * math.exp(factor * math.log(value / est))
    return est + factor * (value - est)


def draws(doc: dict[str, Any], n: int, rng: np.random.Generator):
    """Parameter sets around the estimate: the fit's bootstrap replicates, stretched to the
    reported intervals (stretch_factors), else n sets with each parameter drawn from its own
    interval."""
    theta, d0, d1 = _estimate(doc)
    kept = (doc.get("bootstrap") or {}).get("draws") or []
    if kept:
        f = stretch_factors(doc)
        for rep in kept:
            t = {k: stretched(v, float(rep.get(k, v)), f[k], True) for k, v in theta.items()}
            a = stretched(d0, float(rep.get("d0", d0)), f["d0"], False)
            yield t, a, stretched(d1, float(rep.get("d1", d1)), f["d1"], False)
        return
    disc = doc.get("discrepancy") or {}
    sd = {
        k: _halves(theta[k], p.get("ci"), log=True) if p.get("identified", True) else (0.0, 0.0)
        for k, p in doc["parameters"].items()
    }
    sd_d = [
        _halves(d, (disc.get(k) or {}).get("ci"), log=False) for k, d in (("d0", d0), ("d1", d1))
    ]
    for _ in range(n):
        t = {k: v * math.exp(_split(rng, sd[k])) if v > 0 else v for k, v in theta.items()}
        yield t, d0 + _split(rng, sd_d[0]), d1 + _split(rng, sd_d[1])


def curves(doc: dict[str, Any], rows: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    """Fitted loss at each row: columns est, lo, hi (2.5 and 97.5 percentiles), row order kept.

    Raises network.ModelError (from the model) for a row it cannot describe.
    """
    from lanloss.analysis import fit as fitmod
    from lanloss.analysis import loss_model as lm

    check(doc)
    prep = lm.prepare(rows.reset_index(drop=True))
    theta, d0, d1 = _estimate(doc)
    est = fitmod.probabilities(prep, theta, d0, d1)
    rng = np.random.default_rng(seed)
    sample = np.array([fitmod.probabilities(prep, t, a, b) for t, a, b in draws(doc, DRAWS, rng)])
    lo, hi = np.percentile(sample, [2.5, 97.5], axis=0)
    return pd.DataFrame({"est": est, "lo": np.minimum(lo, est), "hi": np.maximum(hi, est)})
