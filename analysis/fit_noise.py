# SPDX-License-Identifier: GPL-2.0-only
"""The fit's noise model: how a run's lost count varies about the model's loss.

A run of N datagrams at loss p loses k. The simulator's runs and a quiet testbed's are
binomial; a real testbed's vary more from run to run (other jobs, a receiver descheduled for
a moment), so k is **beta-binomial**: the run's own loss q is Beta with mean p and
intra-run correlation rho, k ~ Binomial(N, q), Var k = N p (1-p) (1 + (N-1) rho). rho is
estimated per source from the repetitions alone (``repetition_noise``), not from the fit, so
a model that misses a point cannot inflate it.

A run disturbed beyond that (a receiver off its core for longer than its socket buffer
lasts) is an outlier no smooth noise explains. Testbed runs are therefore a mixture: with
probability ``DISTURBED`` a run's count is uniform on 0..N, whatever the model says. That
bounds what one run can weigh in the fit: at most 2 log((N+1)/DISTURBED) of deviance,
where the binomial lets a single run that lost 0.2 % at a modelled 1e-9 weigh thousands.
``disturbed_posterior`` finds the runs the fit treats so (``fit_quality.bed.disturbed_runs``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import betaln, gammaln, xlog1py, xlogy
from scipy.stats import chi2

# Prior probability that a testbed run is disturbed beyond its source's run-to-run spread
# (a study is trusted with up to 5 % of its runs disturbed); at 1 %, a run the model fits
# within a few standard deviations keeps its full weight.
DISTURBED = 0.01
RHO_BINOMIAL = 1e-9  # below this the beta-binomial is the binomial (to rounding)
RHO_MAX = 0.5
P_MIN = 1e-9  # a saturated loss of exactly 0 or 1 is this far inside
FEW_POINTS = 10  # repeated points below which the median alone does not set rho
BINOMIAL_TEST = 0.01  # ... and the repetitions' X^2 must reject the binomial at this level


def repetition_noise(k: np.ndarray, N: np.ndarray, point: np.ndarray) -> dict[str, Any]:
    """Run-to-run variation from repetitions: {dispersion, rho, points}.

    At each point with two or more runs, Pearson's X^2 of the runs' counts about the
    point's pooled loss, over its n - 1 degrees of freedom, is the dispersion phi_j
    (1 for binomial runs). Points whose runs all lost the same count (the simulator's CBR:
    deterministic) or nothing are exempt: they show no variance to measure. The source's
    dispersion is the median of phi_j, each divided by the median of chi^2_(n-1)/(n-1)
    (what a binomial point gives), so that one disturbed point cannot set it; rho is the
    median of (phi_j - 1)/(N_j - 1), N_j the point's mean run length, likewise scaled.
    With fewer than ``FEW_POINTS`` points that median is too noisy to act on alone: rho is
    then 0 unless the points' pooled X^2 rejects the binomial at ``BINOMIAL_TEST``. No
    repeated point: binomial (dispersion 1, rho 0, points 0).
    """
    k, N, point = (np.asarray(a) for a in (k, N, point))
    phis, rhos = [], []
    pooled, dof = 0.0, 0
    for j in np.unique(point):
        m = point == j
        if m.sum() < 2 or np.all(k[m] == k[m][0]):
            continue
        p = k[m].sum() / N[m].sum()
        if not 0 < p < 1:
            continue
        d = int(m.sum()) - 1
        x2 = float(((k[m] - N[m] * p) ** 2 / (N[m] * p * (1 - p))).sum())
        pooled, dof = pooled + x2, dof + d
        phi = x2 / float(chi2.median(d))  # a binomial point's median is 1
        phis.append(phi)
        rhos.append((phi - 1.0) / max(float(N[m].mean()) - 1.0, 1.0))
    if not phis:
        return {"dispersion": 1.0, "rho": 0.0, "points": 0}
    rho = float(np.clip(np.median(rhos), 0.0, RHO_MAX))
    if len(phis) < FEW_POINTS and chi2.sf(pooled, dof) > BINOMIAL_TEST:
        rho = 0.0
    return {"dispersion": float(np.median(phis)), "rho": rho, "points": len(phis)}


def _beta_binomial(k, N, p, rho):
    """log P(k | N, p, rho) without the binomial coefficient; the binomial where rho ~ 0."""
    binom = xlogy(k, p) + xlog1py(N - k, -p)
    r = np.clip(rho, RHO_BINOMIAL, RHO_MAX)
    conc = (1 - r) / r
    a, b = p * conc, (1 - p) * conc
    with np.errstate(invalid="ignore", divide="ignore"):
        bb = betaln(k + a, N - k + b) - betaln(a, b)
    return np.where(rho > RHO_BINOMIAL, bb, binom)


def log_likelihood(k, N, p, rho, disturbed) -> np.ndarray:
    """Per run: log P(k | N, p) under the mixture: beta-binomial at rho with weight
    1 - disturbed, uniform on 0..N with weight ``disturbed`` (0 for the simulator)."""
    log_choose = gammaln(N + 1) - gammaln(k + 1) - gammaln(N - k + 1)
    ll = log_choose + _beta_binomial(k, N, p, rho)
    with np.errstate(divide="ignore"):
        mixed = np.logaddexp(np.log1p(-disturbed) + ll, np.log(disturbed) - np.log(N + 1))
    return np.where(disturbed > 0, mixed, ll)


def deviance_terms(k, N, p, rho=0.0, disturbed=0.0) -> np.ndarray:
    """Per run: 2 (log P at the run's own loss k/N - log P at p), >= 0. Binomial (rho and
    disturbed 0): the binomial deviance."""
    k, N, p, rho, disturbed = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (k, N, p, rho, disturbed))
    )
    own = np.where(rho > RHO_BINOMIAL, np.clip(k / np.maximum(N, 1), P_MIN, 1 - P_MIN), k / N)
    saturated = log_likelihood(k, N, own, rho, disturbed)
    return np.maximum(2 * (saturated - log_likelihood(k, N, p, rho, disturbed)), 0.0)


def disturbed_posterior(k, N, p, rho, disturbed) -> np.ndarray:
    """Per run: the probability that the mixture's uniform part produced it (a run the fit
    treats as disturbed where it is above 1/2)."""
    log_choose = gammaln(N + 1) - gammaln(k + 1) - gammaln(N - k + 1)
    ll = log_choose + _beta_binomial(k, N, p, rho)
    with np.errstate(divide="ignore"):
        out_ = np.log(disturbed) - np.log(N + 1)
        return np.where(
            disturbed > 0, np.exp(out_ - np.logaddexp(np.log1p(-disturbed) + ll, out_)), 0.0
        )


def variance_factor(N, rho) -> np.ndarray:
    """Var k / (N p (1-p)) under the beta-binomial: 1 + (N - 1) rho."""
    return 1.0 + (np.asarray(N, dtype=float) - 1.0) * np.asarray(rho, dtype=float)


def draw(rng: np.random.Generator, N: np.ndarray, p: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """Lost counts from the beta-binomial (the binomial where rho ~ 0); no disturbed runs:
    what the fit's noise model says a run of the fitted process gives."""
    N = np.asarray(N).astype(np.int64)
    r = np.clip(rho, RHO_BINOMIAL, RHO_MAX)
    conc = (1 - r) / r
    q = rng.beta(np.maximum(p * conc, 1e-300), np.maximum((1 - p) * conc, 1e-300))
    q = np.where(rho > RHO_BINOMIAL, q, p)
    return rng.binomial(N, np.clip(q, 0.0, 1.0)).astype(float)


def weight_bound(N: float, disturbed: float = DISTURBED) -> float:
    """The most deviance one run can add under the mixture: 2 log((N+1)/disturbed)."""
    return 2 * math.log((N + 1) / disturbed)
