# SPDX-License-Identifier: GPL-2.0-only
"""Joint fit of the loss model to simulator and testbed runs (docs/physics.md §6).

Likelihood: losses are counts, k lost of N sent per flow, about the model's loss
(``lanloss.analysis.loss_model``) under the noise model of ``lanloss.analysis.fit_noise``:
beta-binomial at each source's run-to-run spread, measured from its repetitions (binomial
where they do not reject it), and on the testbed a mixture with a small share of disturbed
runs, so that one run the model cannot produce weighs a bounded amount. Simulator and
testbed are fitted together,
Kennedy & O'Hagan (JRSS-B 63(3), 2001) style::

    sim:  L = eta(x; theta_sim)
    bed:  logit L = logit eta(x; theta_host) + d0 w_net + d1 w_host

with w_net and w_host the shares of the model's loss at the network's stages (wire, switch)
and at the host's (interrupts, cpu, socket buffer): a discrepancy per binding stage, so a
panel where the testbed and the model agree at one stage is not moved by a mismatch at
another, and a point where the model predicts no loss is not moved at all
(``stage_weights``).

theta_host (the testbed host's CPU costs, truesize, arrival variability) and theta_sim (how
far the simulator's effective costs are from its configured ones) are separate; the
discrepancy delta has a ridge penalty (d/tau)^2, tau = 2 logit units, so that delta does not
absorb the physics. The fit minimises the deviance plus the ridge, over log parameters
(Levenberg-Marquardt on deviance residuals, several starts at once). A discrepancy no
testbed row informs (the model puts no loss at its stages) is not estimated.

Identification: a parameter the data cannot pin down (its column of the Jacobian is ~0 or a
combination of other parameters' columns, its standard error is more than a factor e, or it
runs to a bound) is fixed at its prior and reported ``identified: false``, its note naming
the points that would pin it (``PINNED_BY``); the rest are refitted. Truesize is bounded
below by the physical least of the testbed's commonest frame
(``loss_model.least_truesize``). Confidence intervals: percentile parametric bootstrap:
every row's lost count is redrawn from the fitted loss on the same design (runs, rates,
lengths) under the noise model (beta-binomial at the source's repetition rho), and refitted
from the estimate by a Levenberg-Marquardt solver that fits all replicates at once
(``batch_fit``); an estimate outside its replicates' interval stretches it, and its note
says so. The testbed's free parameters are also refitted on each repetition's runs alone
(``per_repetition``; the discrepancy then with each repetition's parameters fixed), and the
interval reported is the random-effects interval of those refits (``repetitions_interval``,
``_discrepancy_interval``: the testbed's host varies between repetitions, minutes apart on a
shared machine, and the interval covers the study's mean of it; the bootstrap's stays in
``ci_bootstrap``). It is that one always, not only where a test of their spread rejects:
with two or three repetitions such a test has little power, and an interval chosen by it
undercovers (the Cochrane Handbook, 10.10.4.1, advises against choosing between fixed and
random effects by a test of heterogeneity). Spread farther than the bootstrap's interval
allows, the note says that interval is narrower than the run-to-run spread; a repetition
running to a bound, that the parameter is identified only sometimes (the bootstrap's
interval is reported then). Resampling whole runs instead (``bootstrap(parametric=False)``)
under-covers with the few runs of a study: 0.915 at nominal 0.95 on 30 runs, against 0.928
for this one (1000 synthetic data sets, tests/analysis/test_fit.py); bench/fit_coverage.py
measures the coverage of the host parameters and the band on 200 synthetic testbeds.

Output (``lanloss fit``, schema ``lanloss.fit/1``; ``fit_report.validate`` checks the shape)::

    schema, model {name, version}, table, created_by
    data        {runs {sim, bed}, rows {sim, bed}, excluded {reason: rows}, notes [...]}
    parameters  {name: {source, estimate, ci [lo, hi], ci_bootstrap [lo, hi], se_log,
                 identified, prior, lower, unit, meaning, per_repetition [...], note}}
    fit_quality {sim|bed: {rows, runs, deviance, dispersion (run to run, from the
                 repetitions), rho, repeated_points, pearson_dispersion (about the fit),
                 disturbed_runs [...], loss_max_abs_error, loss_rms_error,
                 goodput_max_rel_error, goodput_rms_rel_error}}
    describes_data {ok, reason}: false when the fit describes nothing (MAX_LOSS_RMS_ERROR,
                 ALL_LOST); `lanloss fit` then exits 1 and `lanloss plan` refuses the fit
    discrepancy {form, tau, stages {d0: [network stages], d1: [host stages]},
                 d0 {estimate, ci, ci_bootstrap, identified, per_repetition, note}, d1 {...},
                 aic_with, aic_without,
                 preferred, summary [plain-language lines], matched_points [...]}
    host_preset {name, base, cores, irq_cost, packet_cost, read_cost, truesize}
    host_preset_calibrated  true when the costs come from testbed runs
    bootstrap   {replicates, failed, seed, level, method, draws [{free parameter: value,
                 d0, d1} per replicate]}

``host_preset`` is a host file for ``lanloss sim run --host-file`` (lanloss/host_values.py): times
as plain numbers in seconds, sizes in bytes, ``truesize`` 0 = the driver's rule.
AIC here is deviance + 2 x (free parameters): it differs from -2 log L + 2k by a constant
that is the same with and without the discrepancy, so the difference is the AIC difference.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from lanloss import disturbance
from lanloss.analysis import fit_noise as noise
from lanloss.analysis import loss_model as lm
from lanloss.analysis import network
from lanloss.analysis.fit_report import (
    SCHEMA,
    TESTBED_BASE,
    host_preset,
    matched_points,
    summary,
)
from lanloss.analysis.wire import wire

EPS = 1e-9  # the model's "no loss": logit(EPS) is where the discrepancy starts
TAU = 2.0  # ridge scale of the discrepancy, logit units
SD_MAX = 1.0  # a log-parameter with a larger standard error is not identified
# A direction of the information matrix (scaled to unit diagonal) this much flatter than its
# steepest is flat: below the finite-difference Jacobian's precision, the data fix only a
# combination of the parameters that move along it.
FLAT = 1e-8
DELTA_BOUND = 25.0
PILOT = 40  # bootstrap replicates that first look for unidentified parameters


# ----------------------------------------------------------------------------------------
# Data


# The reasons a testbed run is left out as disturbed, and their labels (one rule for the
# harness, the fit, the validation and the tests: lanloss.disturbance).
UNMET, BURST, STALLED, SLOW_GUEST = (
    disturbance.UNMET,
    disturbance.BURST,
    disturbance.STALLED,
    disturbance.SLOW_GUEST,
)


def port_buffer_datagrams(df: pd.DataFrame) -> pd.Series:
    """Per row, how many of the run's datagrams a switch port holds
    (lanloss.disturbance.port_buffer_datagrams)."""
    out = [
        disturbance.port_buffer_datagrams(payload, mtu, buf)
        for payload, mtu, buf in zip(df["payload"], df["mtu"], df["switch_buffer"], strict=True)
    ]
    return pd.Series(out, index=df.index, dtype=float)


def disturbed(df: pd.DataFrame) -> dict[str, pd.Series]:
    """Per reason, the rows of runs the machine disturbed, so that they are not the run
    their options describe (lanloss.disturbance.reasons, row by row): a sender that did
    not reach its rate or caught up with a burst larger than a switch port holds (or of
    more than 0.1 % of its datagrams at a port that dropped: a full queue loses it), a
    receiver kept off the CPU for longer than its socket buffer lasts, an icount guest off
    its pace, more than 1 % of the CPUs taken by the hypervisor during the traffic. Only
    reasons some row has are keys."""
    found = [disturbance.reasons(row) for row in df.to_dict("records")]
    masks: dict[str, pd.Series] = {}
    for reason in disturbance.LABELS:
        bad = pd.Series([reason in why for why in found], index=df.index, dtype=bool)
        if bad.any():
            masks[reason] = bad
    return masks


def usable(
    df: pd.DataFrame, include_unmet: bool = False
) -> tuple[pd.DataFrame, dict[str, int], list[str]]:
    """The rows the UDP model describes, and why the others were left out.

    Disturbed runs (``disturbed``) are left out unless ``include_unmet``, counted per
    reason and named in the notes.
    """
    excluded: dict[str, int] = {}
    notes: list[str] = []
    keep = pd.Series(True, index=df.index)
    for reason, bad in ({} if include_unmet else disturbed(df)).items():
        bad = bad & keep
        if bad.any():
            excluded[reason] = int(bad.sum())
            for f in sorted(df.loc[bad, "run_file"].astype(str).unique())[:10]:
                notes.append(f"{disturbance.LABELS[reason]}: {f}")
        keep &= ~bad
    if "protocol" in df:
        tcp = df["protocol"].astype(str) == "tcp"
        if tcp.any():
            excluded["tcp (the model is for UDP)"] = int(tcp.sum())
        keep &= ~tcp
    empty = df["sent"].fillna(0) <= 0
    if (empty & keep).any():
        excluded["nothing sent"] = int((empty & keep).sum())
    keep &= ~empty
    out = df[keep].reset_index(drop=True)
    # only a topology file can fail to build (a table read where the file is not)
    bad_topology = {}
    for i, topo in out.drop_duplicates("topology")["topology"].items():
        try:
            network.build_lan(lm.row_params(out.loc[i]))
        except network.ModelError as exc:
            bad_topology[topo] = str(exc)
    if bad_topology:
        drop = out["topology"].isin(list(bad_topology))
        excluded["configuration the model cannot describe"] = int(drop.sum())
        notes += list(bad_topology.values())
        out = out[~drop].reset_index(drop=True)
    return out, excluded, sorted(set(notes))[:10]


def take(prep: lm.Prepared, idx: np.ndarray) -> lm.Prepared:
    """Rows idx of prep (repeats allowed): what a bootstrap replicate sees."""
    changes = {}
    for f in dataclasses.fields(prep):
        v = getattr(prep, f.name)
        if isinstance(v, np.ndarray) and v.shape[:1] == (prep.n,):
            changes[f.name] = v[idx]
        elif isinstance(v, list) and len(v) == prep.n:
            changes[f.name] = [v[i] for i in idx]
    return dataclasses.replace(prep, n=len(idx), **changes)


# ----------------------------------------------------------------------------------------
# Likelihood


@dataclasses.dataclass
class Spec:
    """What is fitted: the free parameters (log), the fixed values, and the discrepancy."""

    params: tuple[lm.Param, ...]
    free: list[str]
    fixed: dict[str, float]
    delta: bool

    @property
    def width(self) -> int:
        return len(self.free) + (2 if self.delta else 0)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        by = {p.name: p for p in self.params}
        lo = [math.log(by[n].lower) for n in self.free] + [-DELTA_BOUND] * (2 * self.delta)
        hi = [math.log(by[n].upper) for n in self.free] + [DELTA_BOUND] * (2 * self.delta)
        return np.array(lo), np.array(hi)

    def x0(self, theta: dict[str, float], d: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        x = [math.log(theta[n]) for n in self.free]
        return np.array(x + (list(d) if self.delta else []))

    def unpack(self, X: np.ndarray, rep: np.ndarray | None = None):
        """X (m,) or (R, m) -> theta (values or per-row arrays), d0, d1."""
        X2 = np.atleast_2d(X)
        pick = (lambda col: X2[rep, col]) if rep is not None else (lambda col: X2[0, col])
        theta = dict(self.fixed)
        for j, n in enumerate(self.free):
            theta[n] = np.exp(pick(j))
        if self.delta:
            return theta, pick(len(self.free)), pick(len(self.free) + 1)
        return theta, 0.0, 0.0


NETWORK_STAGES = ("wire", "switch")
HOST_STAGES = ("interrupts", "cpu", "socket_buffer")


def stage_weights(pred: lm.Prediction) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the shares of the predicted loss at the network's stages (wire, switch) and
    at the host's (interrupts, cpu, socket buffer): where d0 and d1 apply. Both are 0 where
    the model predicts no loss, so the discrepancy never makes loss out of nothing."""
    host = sum(np.clip(pred.stages[s], 0.0, 1.0) for s in HOST_STAGES)
    net = sum(np.clip(pred.stages[s], 0.0, 1.0) for s in NETWORK_STAGES)
    total = host + net
    some = total > EPS
    safe = np.where(some, total, 1.0)
    return np.where(some, net / safe, 0.0), np.where(some, host / safe, 0.0)


def probabilities(prep: lm.Prepared, theta, d0=0.0, d1=0.0) -> np.ndarray:
    """Per-row loss probability: eta, and for testbed rows eta shifted on logit by the
    discrepancy of the stages that lose: d0 for the network's (wire, switch), d1 for the
    host's (interrupts, cpu, socket buffer), weighted by their shares of the loss. So a
    panel where the testbed matches the model at one stage is not moved by another's."""
    pred = lm.predict(prep, theta)
    eta = np.clip(pred.loss, EPS, 1 - EPS)
    w_net, w_host = stage_weights(pred)
    shifted = expit(logit(eta) + d0 * w_net + d1 * w_host)
    return np.clip(np.where(prep.bed, shifted, eta), EPS, 1 - EPS)


def noise_of(prep: lm.Prepared) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the run-to-run over-dispersion rho, and the probability of a disturbed run
    (testbed rows only): the noise model of ``fit_noise``."""
    rho = prep.rho if prep.rho is not None else np.zeros(prep.n)
    return rho, np.where(prep.bed, noise.DISTURBED, 0.0)


def residuals(prep: lm.Prepared, p: np.ndarray) -> np.ndarray:
    """Deviance residuals under the noise model: their squares sum to the deviance."""
    rho, disturbed = noise_of(prep)
    dev = noise.deviance_terms(prep.lost, prep.sent, p, rho, disturbed)
    return np.sign(prep.lost - prep.sent * p) * np.sqrt(dev)


def pearson(prep: lm.Prepared, p: np.ndarray) -> np.ndarray:
    """Pearson's terms with the beta-binomial variance."""
    rho, _ = noise_of(prep)
    var = prep.sent * p * (1 - p) * noise.variance_factor(prep.sent, rho)
    return (prep.lost - prep.sent * p) ** 2 / var


def set_noise(prep: lm.Prepared) -> dict[str, dict[str, Any]]:
    """Estimate each source's run-to-run noise from its repetitions (``repetition_noise``)
    and give every row its source's rho; returns {source: the estimate}."""
    out = {}
    rho = np.zeros(prep.n)
    point = prep.point if prep.point is not None else np.arange(prep.n)
    for src, mask in (("sim", ~prep.bed), ("bed", prep.bed)):
        if mask.any():
            out[src] = noise.repetition_noise(prep.lost[mask], prep.sent[mask], point[mask])
            rho[mask] = out[src]["rho"]
    prep.rho = rho
    return out


# ----------------------------------------------------------------------------------------
# Fitting one data set (least squares on deviance residuals)


def fit_once(prep: lm.Prepared, spec: Spec, starts: list[np.ndarray]) -> dict[str, Any]:
    """Best of several starts (fitted together by ``batch_fit``) -> {x, theta, d0, d1, cost,
    jac (data rows, at x), ok}. cost = deviance + ridge."""
    lo, hi = spec.bounds()

    def data_residuals(x):
        theta, d0, d1 = spec.unpack(x)
        return residuals(prep, probabilities(prep, theta, d0, d1))

    ridge = np.zeros(spec.width)
    if spec.delta:
        ridge[-2:] = 1.0 / TAU**2
    if spec.width == 0:
        theta, _, _ = spec.unpack(np.zeros(0))
        r = data_residuals(np.zeros(0))
        return {"x": np.zeros(0), "theta": theta, "d0": 0.0, "d1": 0.0, "cost": float(r @ r),
                "jac": np.zeros((prep.n, 0)), "ok": True}  # fmt: skip
    X0 = np.clip(np.array(starts, dtype=float), lo, hi)
    S = len(X0)
    stack = take(prep, np.tile(np.arange(prep.n), S))
    rep = np.repeat(np.arange(S), prep.n)
    # every start a few steps, then the best one to convergence (the others only cost)
    X, ok = batch_fit(stack, rep, S, spec, X0, iterations=25)
    costs = []
    for k in range(S):
        r = data_residuals(X[k])
        costs.append(float(r @ r + (X[k] ** 2) @ ridge) if np.isfinite(r).all() else np.inf)
    best = int(np.argmin(costs))
    if not np.isfinite(costs[best]):
        raise RuntimeError("the fit failed from every start")
    Xp, okp = batch_fit(prep, np.zeros(prep.n, int), 1, spec, X[best], iterations=300)
    x = Xp[0]
    r = data_residuals(x)
    costs[best] = float(r @ r + (x**2) @ ridge)
    ok[best] = okp[0]
    r0 = data_residuals(x)
    jac = np.empty((prep.n, spec.width))
    h = 1e-6
    for j in range(spec.width):
        xh = x.copy()
        step = -h if xh[j] + h > hi[j] else h
        xh[j] += step
        jac[:, j] = (data_residuals(xh) - r0) / step
    theta, d0, d1 = spec.unpack(x)
    return {"x": x, "theta": theta, "d0": float(d0), "d1": float(d1), "cost": costs[best],
            "jac": jac, "ok": bool(ok[best])}  # fmt: skip


def _starts(spec: Spec, theta: dict[str, float], extra: int = 8) -> list[np.ndarray]:
    """The given values, every cost x0.1 and x10, and `extra` seeded random points within a
    factor e^2 of the given values (the likelihood has local optima where one mechanism
    mimics another)."""
    x = spec.x0(theta)
    k = len(spec.free)
    out = [x]
    for f in (math.log(0.1), math.log(10.0)):
        y = x.copy()
        y[:k] += f
        out.append(y)
    rng = np.random.default_rng(12345)
    for _ in range(extra):
        y = x.copy()
        y[:k] += rng.uniform(-2.0, 2.0, size=k)
        out.append(y)
    return out


def _weak_in_bootstrap(spec: Spec, Xb: np.ndarray) -> tuple[str, str] | None:
    """The free parameter the bootstrap shows unidentified (most spread), with why; or None."""
    if len(Xb) < 10:
        return None
    lo, hi = spec.bounds()
    by = {p.name: p for p in spec.params}
    worst, score = None, 0.0
    for j, name in enumerate(spec.free):
        x = Xb[:, j]
        # replicates at a physical limit are estimates there, not a search that ran away
        edge = ((x <= lo[j] + 1e-3) | (x >= hi[j] - 1e-3)) & (not by[name].physical_bounds)
        at_bound = np.mean(edge)
        width = float(np.quantile(x, 0.975) - np.quantile(x, 0.025))
        if at_bound > 0.025:
            why = f"{100 * at_bound:.0f}% of bootstrap replicates run to a bound"
            s = 1e3 + at_bound
        elif width > math.log(100):
            why = f"its bootstrap interval spans a factor {math.exp(width):.3g}"
            s = width
        else:
            continue
        if s > score:
            worst, score = (name, why), s
    return worst


def _moment_start(prep: lm.Prepared, prior: dict[str, float]) -> dict[str, float]:
    """Start values from the data: testbed runs that lost > 1 % more than their network
    does delivered what their readers could read, so c_a ~ CPU share / delivered rate -
    recv_work (docs/physics.md §2). A run whose loss the network explains (a switch port
    past its line rate) says nothing of the readers and would start the search elsewhere."""
    start = dict(prior)
    obs = np.where(prep.sent > 0, prep.lost / np.maximum(prep.sent, 1), 0.0)
    host_loss = 1 - (1 - obs) / np.maximum(prep.net_keep, 1e-12)
    lossy = prep.bed & (host_loss > 0.01) & prep.host_on
    if lossy.any():
        delivered = prep.lam[lossy] * prep.host_mult[lossy] * (1 - obs[lossy])
        share = np.minimum(
            prep.readers[lossy], np.where(np.isfinite(prep.share[lossy]), prep.share[lossy], np.inf)
        )
        c_a = share / np.maximum(delivered, 1e-9) - prep.work[lossy]
        c_a = c_a[c_a > 0]
        if len(c_a):
            start["read_cost"] = float(np.median(c_a))
    return start


def flat_loadings(F: np.ndarray) -> np.ndarray:
    """How far each log-parameter moves along the information matrix F's flat directions
    (unit vectors, largest component per parameter; 0 where there are none).

    A flat direction is one the data do not see: a parameter whose column of the Jacobian
    is a combination of others' can trade against them at no cost. pinv(F) drops such a
    direction and reports every parameter in it with a small standard error, so flatness is
    looked for on F scaled to unit diagonal, where FLAT is a precision, not a unit."""
    d = np.sqrt(np.maximum(np.diag(F), 0.0))
    k = len(d)
    if k < 2 or not (d > 0).all():
        return np.zeros(k)
    w, U = np.linalg.eigh(F / np.outer(d, d))
    flat = U[:, w <= FLAT * w.max()] / d[:, None]  # back to log-parameter directions
    if flat.shape[1] == 0:
        return np.zeros(k)
    flat /= np.linalg.norm(flat, axis=0)
    return np.abs(flat).max(axis=1)


def _flat_combination(spec: Spec, loading: np.ndarray, norms: np.ndarray) -> dict[str, str]:
    """{name: why} for the parameter to fix when the data fix only a combination: of those a
    flat direction moves, the last in the model's table (``loss_model.parameters`` lists
    them from the least to the most certain prior)."""
    moved = [n for j, n in enumerate(spec.free) if loading[j] > 1e-3 and norms[j] >= 1e-6]
    if len(moved) < 2:
        return {}
    order = [p.name for p in spec.params]
    last = max(moved, key=order.index)
    others = ", ".join(n for n in moved if n != last)
    return {last: f"the data fix only its combination with {others}"}


def identify(prep: lm.Prepared, spec: Spec, prior: dict[str, float]) -> tuple[Spec, dict, dict]:
    """Fit, fix what the data cannot identify at its prior, refit, until all free ones are.

    The data not depending on a parameter at the optimum drops it at once; the data fixing
    only its combination with others (a flat direction) drops the one with the most certain
    prior; otherwise the least identified one (at a bound, or the largest standard error)
    goes, one at a time, and the rest is refitted from where it was. Returns (final spec,
    final fit, {name: reason}) for the parameters fixed at their priors.
    """
    dropped: dict[str, str] = {}
    fit = fit_once(prep, spec, _starts(spec, prior))
    while spec.free:
        J = fit["jac"]
        lo, hi = spec.bounds()
        k = len(spec.free)
        x = fit["x"][:k]
        norms = np.sqrt((J[:, :k] ** 2).sum(axis=0))
        F = J.T @ J
        if spec.delta:  # the ridge is prior information on d0, d1
            F[k:, k:] += np.eye(2) / TAU**2
        sd = np.sqrt(np.maximum(np.diag(np.linalg.pinv(F)), 0.0))[:k]
        out: dict[str, str] = {}
        for j, name in enumerate(spec.free):
            if norms[j] < 1e-6:
                out[name] = "the data do not depend on it"
        if not out:
            out = _flat_combination(spec, flat_loadings(F)[:k], norms)
        if not out:
            score = -1.0
            for j, name in enumerate(spec.free):
                why, sc = "", 0.0
                if x[j] <= lo[j] + 1e-3 or x[j] >= hi[j] - 1e-3:
                    why, sc = "the data push it to a bound (they only bound it)", 1e6
                elif sd[j] > SD_MAX:
                    why, sc = f"standard error of its log is {sd[j]:.2g} (> {SD_MAX})", sd[j]
                if why and sc > score:
                    score, out = sc, {name: why}
        if not out:
            break
        dropped.update(out)
        keep = [j for j, n in enumerate(spec.free) if n not in out]
        x_prev = np.concatenate([fit["x"][keep], fit["x"][k:]])
        spec = Spec(spec.params, [spec.free[j] for j in keep], spec.fixed, spec.delta)
        starts = [x_prev]
        for f in (-0.5, 0.5):
            y = x_prev.copy()
            y[: len(keep)] += f
            starts.append(y)
        fit = fit_once(prep, spec, starts)
    return spec, fit, dropped


# ----------------------------------------------------------------------------------------
# Many data sets at once: bootstrap replicates (and simulation studies of the CIs)


def batch_fit(
    prep: lm.Prepared,
    rep: np.ndarray,
    n_rep: int,
    spec: Spec,
    X0: np.ndarray,
    iterations: int = 60,
) -> tuple[np.ndarray, np.ndarray]:
    """Fit n_rep independent data sets stacked in prep (row i belongs to data set rep[i]).

    Levenberg-Marquardt on the deviance residuals, vectorised over data sets: forward
    differences in the log parameters, one batched m x m solve per iteration, steps clipped
    to the bounds. Returns (X (n_rep, m), converged (n_rep,)).
    """
    m = spec.width
    X = np.array(np.broadcast_to(X0, (n_rep, m)), dtype=float)
    if m == 0:
        return X, np.ones(n_rep, bool)
    lo, hi = spec.bounds()
    X = np.clip(X, lo, hi)
    ridge = np.zeros(m)
    if spec.delta:
        ridge[-2:] = 1.0 / TAU**2

    def resid(Xc, sub, sub_rep):
        theta, d0, d1 = spec.unpack(Xc, sub_rep)
        return residuals(sub, probabilities(sub, theta, d0, d1))

    def cost(Xc, r, sub_rep):
        return np.bincount(sub_rep, weights=r * r, minlength=n_rep) + (Xc * Xc) @ ridge

    sub, sub_rep, n_active = prep, rep, n_rep
    r = resid(X, sub, sub_rep)
    c = cost(X, r, sub_rep)
    mu = np.full(n_rep, 1e-3)
    done = np.zeros(n_rep, bool)
    h = 1e-6
    for _ in range(iterations):
        if (~done).sum() < 0.7 * n_active:  # evaluate only the data sets still moving
            keep = ~done[sub_rep]
            sub, sub_rep, r = take(sub, np.flatnonzero(keep)), sub_rep[keep], r[keep]
            n_active = int((~done).sum())
        J = np.empty((len(r), m))
        for j in range(m):
            Xh = X.copy()
            step = np.where(Xh[:, j] + h > hi[j], -h, h)
            Xh[:, j] += step
            J[:, j] = (resid(Xh, sub, sub_rep) - r) / step[sub_rep]
        A = np.empty((n_rep, m, m))
        g = np.empty((n_rep, m))
        for a in range(m):
            g[:, a] = np.bincount(sub_rep, weights=J[:, a] * r, minlength=n_rep)
            g[:, a] += ridge[a] * X[:, a]
            for b in range(a, m):
                v = np.bincount(sub_rep, weights=J[:, a] * J[:, b], minlength=n_rep)
                A[:, a, b] = A[:, b, a] = v
        A += np.eye(m) * ridge
        diag = np.einsum("rii->ri", A)
        damp = A + (mu[:, None] * np.maximum(diag, 1e-9))[:, :, None] * np.eye(m)
        damp += np.eye(m) * 1e-12
        try:
            dx = -np.linalg.solve(damp, g[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            dx = -g / np.maximum(np.einsum("rii->ri", damp), 1e-12)
        dx = np.where(done[:, None], 0.0, np.nan_to_num(dx))
        Xn = np.clip(X + dx, lo, hi)
        rn = resid(Xn, sub, sub_rep)
        cn = cost(Xn, rn, sub_rep)
        better = np.isfinite(cn) & (cn <= c) & ~done
        X = np.where(better[:, None], Xn, X)
        r = np.where(better[sub_rep], rn, r)
        gain = c - cn
        step_max = np.abs(dx).max(axis=1)
        # converged: the deviance no longer moves, or the step is far below any sd
        newly = better & ((gain <= 1e-8 * (1 + c)) | (step_max < 1e-5))
        c = np.where(better, cn, c)
        mu = np.where(better, mu / 3, np.where(done, mu, mu * 8))
        done |= newly | (mu > 1e10)
        if done.all():
            break
    return X, done


def bootstrap(
    prep: lm.Prepared,
    spec: Spec,
    x_hat: np.ndarray,
    B: int,
    rng: np.random.Generator,
    group: np.ndarray | None = None,
    iterations: int = 60,
    parametric: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap replicates resampling whole runs within each source, refitted from x_hat.

    group: which data set each row belongs to (several independent data sets at once, e.g.
    a study of the intervals' coverage); x_hat then has one row per data set.
    Returns (X (G, B, m), ok (G, B)).
    """
    groups = np.zeros(prep.n, int) if group is None else np.asarray(group)
    G = int(groups.max()) + 1 if prep.n else 0
    x_hat = np.atleast_2d(x_hat)
    if B <= 0 or spec.width == 0 or G == 0:
        return np.zeros((G, 0, spec.width)), np.zeros((G, 0), bool)
    # Simulator parameters see only simulator rows, testbed ones and delta only testbed
    # rows, and runs are resampled within each source: the two blocks are independent
    # problems, fitted apart (the same replicates, far fewer evaluations).
    by = {p.name: p.source for p in spec.params}
    sim_cols = [j for j, n in enumerate(spec.free) if by[n] == "sim"]
    bed_cols = [j for j in range(spec.width) if j not in sim_cols]
    if sim_cols and bed_cols and (~prep.bed).any() and prep.bed.any():
        X = np.empty((G, B, spec.width))
        ok = np.ones((G, B), bool)
        for cols, rows, delta in ((sim_cols, ~prep.bed, False), (bed_cols, prep.bed, spec.delta)):
            names = [spec.free[j] for j in cols if j < len(spec.free)]
            sub_spec = Spec(spec.params, names, spec.fixed, delta)
            idx = np.flatnonzero(rows)
            Xs, oks = bootstrap(take(prep, idx), sub_spec, x_hat[:, cols], B, rng,
                                groups[idx] if group is not None else None, iterations,
                                parametric)  # fmt: skip
            X[:, :, cols] = Xs
            ok &= oks
        return X, ok
    if parametric:
        return _parametric(prep, spec, x_hat, B, rng, groups, G, iterations)
    # strata: (data set, source); units: runs
    runs = np.asarray(prep.run)
    strata: dict[tuple[int, bool], dict[int, list[int]]] = {}
    for i in range(prep.n):
        strata.setdefault((int(groups[i]), bool(prep.bed[i])), {}).setdefault(
            int(runs[i]), []
        ).append(i)
    idx, rep = [], []
    for (g, _), units in strata.items():
        rows_of = [np.array(v) for v in units.values()]
        sizes = np.array([len(r) for r in rows_of])
        picks = rng.integers(0, len(rows_of), size=(B, len(rows_of)))
        for b in range(B):
            chosen = picks[b]
            idx.append(np.concatenate([rows_of[u] for u in chosen]))
            rep.append(np.full(int(sizes[chosen].sum()), g * B + b))
    idx_a = np.concatenate(idx)
    rep_a = np.concatenate(rep)
    big = take(prep, idx_a)
    X0 = np.repeat(x_hat, B, axis=0)
    X, ok = batch_fit(big, rep_a, G * B, spec, X0, iterations=iterations)
    ok &= np.isfinite(X).all(axis=1)
    return X.reshape(G, B, spec.width), ok.reshape(G, B)


def _parametric(prep, spec, x_hat, B, rng, groups, G, iterations):
    """Replicates drawn from the fitted model on the same design: each row's lost count
    beta-binomial at its fitted loss and its source's run-to-run rho (``set_noise``;
    binomial where rho is 0), refitted under the same noise model."""
    X0 = np.asarray(x_hat)
    theta_rows, d0, d1 = spec.unpack(X0, groups)
    p = probabilities(prep, theta_rows, d0, d1)
    big = take(prep, np.tile(np.arange(prep.n), B))
    rep = (np.tile(groups, B) * B + np.repeat(np.arange(B), prep.n)).astype(int)
    rho, _ = noise_of(big)
    big.lost = noise.draw(rng, big.sent, np.tile(p, B), rho)
    X, ok = batch_fit(big, rep, G * B, spec, np.repeat(X0, B, axis=0), iterations=iterations)
    ok &= np.isfinite(X).all(axis=1)
    return X.reshape(G, B, spec.width), ok.reshape(G, B)


# ----------------------------------------------------------------------------------------
# The whole fit


def _quality(
    prep: lm.Prepared,
    p: np.ndarray,
    goodput: np.ndarray,
    mask: np.ndarray,
    k_free: int,
    run_names: np.ndarray,
    spread: dict[str, Any],
) -> dict:
    """Fit quality of one source's rows: deviance, the run-to-run dispersion of its
    repetitions (``spread``, fit_noise.repetition_noise), Pearson's dispersion about the fit
    under that noise, the runs the fit treats as disturbed, loss and goodput errors."""
    if not mask.any():
        return {}
    sub = take(prep, np.flatnonzero(mask))
    pp = p[mask]
    gp = goodput[mask]
    rho, disturbed = noise_of(sub)
    dev = float(noise.deviance_terms(sub.lost, sub.sent, pp, rho, disturbed).sum())
    dof = max(int(mask.sum()) - k_free, 1)
    outlying = noise.disturbed_posterior(sub.lost, sub.sent, pp, rho, disturbed) > 0.5
    obs = sub.lost / sub.sent
    err = obs - pp
    out = {
        "rows": int(mask.sum()),
        "runs": int(len(np.unique(sub.run))),
        "deviance": dev,
        "dispersion": float(spread["dispersion"]),
        "rho": float(spread["rho"]),
        "repeated_points": int(spread["points"]),
        "pearson_dispersion": float(pearson(sub, pp).sum() / dof),
        "disturbed_runs": sorted({str(f) for f in run_names[mask][outlying]}),
        "loss_max_abs_error": float(np.abs(err).max()),
        "loss_rms_error": float(np.sqrt((err**2).mean())),
    }
    if sub.goodput is not None:
        pred = gp
        ok = np.isfinite(sub.goodput) & (pred > 0)
        if ok.any():
            rel = (sub.goodput[ok] - pred[ok]) / pred[ok]
            out["goodput_max_rel_error"] = float(np.abs(rel).max())
            out["goodput_rms_rel_error"] = float(np.sqrt((rel**2).mean()))
    return out


def _host_base(df: pd.DataFrame) -> str:
    """The simulator preset the testbed is compared with: the sim runs' commonest non-ideal
    host, else 'modern'."""
    known = lm.presets()
    if "host" in df:
        hosts = df.loc[df["source"].astype(str) == "sim", "host"].astype(str)
        hosts = hosts[hosts.isin(list(known))]
        if len(hosts):
            return str(hosts.mode().iloc[0])
    return "modern" if "modern" in known else next(iter(known))


@dataclasses.dataclass(frozen=True)
class _Settings:
    """How the fit is bootstrapped and its intervals reported."""

    bootstrap_n: int  # replicates asked for
    seed: int
    level: float  # of the confidence intervals


@dataclasses.dataclass
class _Fitted:
    """What the fit found: its parameters' estimates, their bootstrap replicates and the
    discrepancy (``fit`` empty and ``spec`` None when nothing was fitted)."""

    params: tuple[lm.Param, ...]
    prior: dict[str, float]
    fit: dict[str, Any] = dataclasses.field(default_factory=dict)  # fit_once's result
    dropped: dict[str, str] = dataclasses.field(default_factory=dict)  # not fitted: why
    spec: Spec | None = None
    # bootstrap replicates: a row each, the free parameters' logs (then d0, d1)
    draws: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0)))
    failed: int = 0  # replicates that did not converge
    se: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))  # of x
    aic: dict[str, float] = dataclasses.field(default_factory=dict)  # with / without delta
    quality: dict[str, Any] = dataclasses.field(default_factory=dict)
    # d0, d1: whether any testbed row informs it (a loss the model puts at its stages)
    d_informed: tuple[bool, bool] = (True, True)
    # the testbed's free parameters refitted on each repetition's runs alone: name -> values
    per_repetition: dict[str, list[float]] = dataclasses.field(default_factory=dict)


def _priors(data: pd.DataFrame) -> tuple[tuple[lm.Param, ...], dict[str, float]]:
    """The model's parameters and priors. The truesize per frame is that of the testbed's
    commonest datagram: its prior the driver rule's value, its bounds physical: the least
    (``loss_model.least_truesize``: the frame, the driver's headroom, the sk_buff) and the
    most (``loss_model.largest_truesize``: a page-sized head and the sk_buff)."""
    params = lm.parameters(lm.presets()[TESTBED_BASE])
    prior = lm.default_theta(params)
    bed_rows = (data["source"].astype(str) == "bed").to_numpy() if len(data) else np.zeros(0, bool)
    if bed_rows.any():
        sizes = data.loc[bed_rows, ["payload", "mtu"]].astype(int).value_counts().idxmax()
        P, mtu = int(sizes[0]), int(sizes[1])
        least, most = lm.least_truesize(P, mtu), lm.largest_truesize()
        prior["truesize"] = max(lm.datagram_truesize(P, mtu) / wire(P, mtu).fragments, least)
        params = tuple(
            dataclasses.replace(
                p, prior=prior["truesize"], lower=least, upper=most, physical_bounds=True
            )
            if p.name == "truesize"
            else p
            for p in params
        )
    return params, prior


def _document(
    data: pd.DataFrame, excluded: dict[str, int], notes: list[str], study: str | None
) -> dict[str, Any]:
    """The fit document's head: schema, model, study and the data it was fitted to."""
    source = data["source"].astype(str)
    return {
        "schema": SCHEMA,
        "model": {"name": lm.MODEL, "version": lm.MODEL_VERSION},
        "study": study,
        "data": {
            "runs": {s: int(data.loc[source == s, "run_file"].nunique()) for s in ("sim", "bed")},
            "rows": {s: int((source == s).sum()) for s in ("sim", "bed")},
            "excluded": excluded,
            "notes": list(notes),
        },
    }


def _relevant(prep: lm.Prepared, params: tuple[lm.Param, ...]) -> tuple[list[str], dict]:
    """(the parameters the rows can inform, {the others: why not})."""
    host_sim = prep.host_on & ~prep.bed
    has = {"bed": bool(prep.bed.any()), "sim": bool(host_sim.any())}
    relevant = [p.name for p in params if has.get(p.source, False)]
    irrelevant = {
        p.name: "no runs of its source with a host model" for p in params if p.name not in relevant
    }
    return relevant, irrelevant


def _calibrate(
    prep: lm.Prepared,
    params: tuple[lm.Param, ...],
    prior: dict[str, float],
    how: _Settings,
    rng: np.random.Generator,
    say: Callable[[str], None],
) -> _Fitted:
    """Theta alone: identified and bootstrapped without the discrepancy, so that the
    calibrated host reproduces the testbed as far as the physics can (a discrepancy fitted
    jointly trades off against the host's costs and leaves them unidentified)."""
    relevant, irrelevant = _relevant(prep, params)
    start = _moment_start(prep, prior)
    say(f"fit: identifying parameters ({prep.n} rows)")
    spec, fit, dropped = identify(prep, Spec(params, relevant, dict(prior), False), start)
    dropped = {**irrelevant, **dropped}
    while True:
        # The optimum's curvature can miss a long flat ridge (two mechanisms trading off):
        # replicates that run to a bound, or spread over more than x100, mean the data do
        # not identify the parameter after all. A short pilot bootstrap looks for that; the
        # worst such parameter is fixed at its prior and the fit redone.
        pilot = min(how.bootstrap_n, PILOT)
        weak = None
        Xb, failed = np.zeros((0, spec.width)), 0
        if pilot >= 10:
            say(f"fit: pilot bootstrap, {pilot} replicates ({len(spec.free)} free parameters)")
            Xg, okg = bootstrap(prep, spec, fit["x"], pilot, rng, iterations=25, parametric=True)
            weak = _weak_in_bootstrap(spec, Xg[0][okg[0]])
        if not weak:
            say(f"fit: bootstrap, {how.bootstrap_n} replicates")
            Xg, okg = bootstrap(prep, spec, fit["x"], how.bootstrap_n, rng, parametric=True)
            Xb, failed = Xg[0][okg[0]], int((~okg[0]).sum())
            weak = _weak_in_bootstrap(spec, Xb)
        if not weak:
            break
        name, why = weak
        dropped[name] = why
        keep = [j for j, n in enumerate(spec.free) if n != name]
        spec = Spec(params, [spec.free[j] for j in keep], dict(prior), False)
        fit = fit_once(prep, spec, [fit["x"][keep], *_starts(spec, start)])
    J = fit["jac"]
    se = np.sqrt(np.maximum(np.diag(np.linalg.pinv(J.T @ J)), 0.0)) if J.size else np.zeros(0)
    return _Fitted(params, prior, fit, dropped, spec, Xb, failed, se)


def discrepancy_starts() -> list[np.ndarray]:
    """Where the discrepancy's fit starts: none, and both ways at once."""
    return [np.zeros(2), np.ones(2), -np.ones(2)]


def _add_discrepancy(
    prep: lm.Prepared,
    f: _Fitted,
    how: _Settings,
    rng: np.random.Generator,
    say: Callable[[str], None],
) -> None:
    """The discrepancy d0, d1, fitted with the calibrated theta fixed: it holds only what
    the physics cannot explain, and cannot move theta (Kennedy & O'Hagan)."""
    assert f.spec is not None
    theta0 = {k: float(np.asarray(v)) for k, v in f.fit["theta"].items()}
    spec_d = Spec(f.params, [], {**f.prior, **theta0}, True)
    fit_d = fit_once(prep, spec_d, discrepancy_starts())
    # a discrepancy no row depends on is not estimated: 0 (the ridge's), without interval
    informed = np.sqrt((fit_d["jac"] ** 2).sum(axis=0)) > 1e-6
    f.d_informed = (bool(informed[0]), bool(informed[1]))
    fit_d["x"] = np.where(informed, fit_d["x"], 0.0)
    width = f.spec.width
    f.aic = {
        "with": fit_d["cost"] - (fit_d["x"] ** 2).sum() / TAU**2 + 2 * (width + 2),
        "without": f.fit["cost"] + 2 * width,
    }
    Xd = np.zeros((0, 2))
    if how.bootstrap_n > 0:
        say(f"fit: the discrepancy, {how.bootstrap_n} replicates")
        Xgd, okd = bootstrap(prep, spec_d, fit_d["x"], how.bootstrap_n, rng, parametric=True)
        Xd = np.where(informed, Xgd[0][okd[0]], 0.0)
    n = min(len(f.draws), len(Xd))
    f.draws = np.hstack([f.draws[:n], Xd[:n]]) if n else np.zeros((0, width + 2))
    f.spec = Spec(f.params, list(f.spec.free), dict(f.prior), True)
    f.fit = {
        **f.fit,
        "x": np.concatenate([f.fit["x"], fit_d["x"]]),
        "d0": float(fit_d["x"][0]),
        "d1": float(fit_d["x"][1]),
    }
    Jd = fit_d["jac"]
    f.se = np.concatenate([f.se, np.sqrt(np.maximum(np.diag(np.linalg.pinv(Jd.T @ Jd)), 0.0))])


def repetition_index(point: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """Per row: which repetition of its point it is (0, 1, ...: its seed's rank there)."""
    frame = pd.DataFrame({"point": point, "seed": seed})
    return frame.groupby("point")["seed"].rank(method="dense").to_numpy().astype(int) - 1


def _repetition_groups(prep: lm.Prepared, seed: np.ndarray) -> list[np.ndarray]:
    """The testbed's rows of each repetition (its seed's rank at each point), for the
    repetitions that cover at least half of the first one's runs (adaptive repetitions
    repeat only some points: a later repetition of a few of them is no design of its own)."""
    assert prep.point is not None
    bed = np.flatnonzero(prep.bed)
    if not len(bed):
        return []
    rank = repetition_index(prep.point[bed], seed[bed])
    full = int((rank == 0).sum())
    reps = [r for r in range(int(rank.max()) + 1) if (rank == r).sum() >= max(full / 2, 2)]
    return [bed[rank == r] for r in reps]


def _per_repetition(prep: lm.Prepared, f: _Fitted, seed: np.ndarray) -> dict[str, list[float]]:
    """The whole fit's testbed side repeated on each repetition's testbed runs alone: its
    free parameters refitted (from the estimate, the simulator's fixed), then the
    discrepancy d0, d1 with that repetition's theta fixed, as the whole fit does it.
    {name: [value per repetition]}; empty below two repetitions."""
    assert f.spec is not None
    groups = _repetition_groups(prep, seed)
    if len(groups) < 2:
        return {}
    by = {p.name: p.source for p in f.params}
    names = [n for n in f.spec.free if by[n] == "bed"]
    theta = {k: float(np.asarray(v)) for k, v in f.fit["theta"].items()}
    thetas = [dict(theta) for _ in groups]
    out: dict[str, list[float]] = {}
    if names:
        spec = Spec(f.params, names, {**f.prior, **theta}, False)
        idx = np.concatenate(groups)
        group = np.concatenate([np.full(len(g), i) for i, g in enumerate(groups)])
        X0 = np.repeat(spec.x0(theta)[None, :], len(groups), axis=0)
        X, _ = batch_fit(take(prep, idx), group, len(groups), spec, X0, iterations=100)
        for j, n in enumerate(names):
            out[n] = [float(v) for v in np.exp(X[:, j])]
            for i, v in enumerate(out[n]):
                thetas[i][n] = v
    if f.spec.delta:
        d = []
        for rows, th in zip(groups, thetas, strict=True):
            spec_d = Spec(f.params, [], {**f.prior, **th}, True)
            d.append(fit_once(take(prep, rows), spec_d, discrepancy_starts())["x"])
        for i, name in enumerate(("d0", "d1")):
            if f.d_informed[i]:
                out[name] = [float(x[i]) for x in d]
    return out


def _fit_quality(
    prep: lm.Prepared, f: _Fitted, run_names: np.ndarray, spread: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Per source: how well the fitted curve describes its rows (_quality)."""
    assert f.spec is not None
    p_hat = probabilities(prep, f.fit["theta"], f.fit["d0"], f.fit["d1"])
    pred = lm.predict(prep, f.fit["theta"])
    # the model's goodput, with the testbed's discrepancy applied to its loss
    g_hat = pred.goodput_bps * (1 - p_hat) / np.maximum(1 - pred.loss, 1e-12)
    k_sim = sum(1 for n in f.spec.free if n.startswith("sim"))
    quality = {
        src: _quality(prep, p_hat, g_hat, mask, k, run_names, spread.get(src, {}))
        for src, mask, k in (("sim", ~prep.bed, k_sim), ("bed", prep.bed, f.spec.width - k_sim))
    }
    return {k: v for k, v in quality.items() if v}


def fit_table(
    df: pd.DataFrame,
    bootstrap_n: int = 200,
    seed: int = 1,
    level: float = 0.95,
    study: str | None = None,
    include_unmet: bool = False,
    say: Callable[[str], None] = lambda text: None,
) -> dict[str, Any]:
    """The whole fit of a table -> the ``lanloss.fit/1`` document; ``say`` hears each
    phase (the CLI's progress line).

    Physics first (Kennedy & O'Hagan): theta is identified and calibrated without the
    discrepancy, then the discrepancy is added with theta fixed, so that it holds only what
    the physics cannot explain."""
    data, excluded, notes = usable(df, include_unmet)
    base = _host_base(data)  # what the testbed is compared with
    params, prior = _priors(data)
    doc = _document(data, excluded, notes, study)
    how = _Settings(bootstrap_n, seed, level)
    if len(data) == 0:
        doc["data"]["notes"].append("no usable rows: nothing was fitted")
        return _finish(doc, _Fitted(params, prior), data, base, _Settings(0, seed, level))
    prep = lm.prepare(data)
    spread = set_noise(prep)
    rng = np.random.default_rng(seed)
    fitted = _calibrate(prep, params, prior, how, rng, say)
    if prep.bed.any():
        _add_discrepancy(prep, fitted, how, rng, say)
    run_names = data["run_file"].astype(str).to_numpy()
    fitted.quality = _fit_quality(prep, fitted, run_names, spread)
    if "seed" in data and fitted.spec is not None:
        seeds = pd.to_numeric(data["seed"], errors="coerce").fillna(0).to_numpy()
        fitted.per_repetition = _per_repetition(prep, fitted, seeds)
    return _finish(doc, fitted, data, base, how)


def _ci(values: np.ndarray, level: float) -> list[float] | None:
    values = values[np.isfinite(values)]
    if len(values) < 2:
        return None
    a = (1 - level) / 2
    return [float(np.quantile(values, a)), float(np.quantile(values, 1 - a))]


def _interval(values: np.ndarray, estimate: float, level: float) -> tuple[list | None, str]:
    """The percentile interval of the replicates, and a note. An estimate outside it means
    the replicates did not refit around it (a second basin, a bound): the interval is then
    stretched to the estimate, and the note says so, with where the replicates sat."""
    ci = _ci(values, level)
    if ci is None or ci[0] <= estimate <= ci[1]:
        return ci, ""
    note = (
        f"the replicates' {level:.0%} interval [{ci[0]:.4g}, {ci[1]:.4g}] misses the "
        f"estimate {estimate:.4g}: stretched to it (the refits did not return to its basin)"
    )
    return [min(ci[0], estimate), max(ci[1], estimate)], note


def _parameters_section(f: _Fitted, data: pd.DataFrame, level: float) -> dict[str, Any]:
    """Per parameter: estimate, interval over the replicates, whether it was identified."""
    estimates = dict(f.prior)
    if f.fit:
        estimates.update({k: float(np.asarray(v)) for k, v in f.fit["theta"].items()})
    lossy_runs = {"sim": 0, "bed": 0}
    if len(data):
        g = data[data["lost"] > 0].groupby(data["source"].astype(str))["run_file"].nunique()
        lossy_runs.update({str(k): int(v) for k, v in g.items()})
    out = {}
    for p in f.params:
        free = f.spec is not None and p.name in f.spec.free
        j = f.spec.free.index(p.name) if free else None  # type: ignore[union-attr]
        est = float(estimates[p.name])
        ci, note = (None, "")
        if free and len(f.draws):
            ci, note = _interval(np.exp(f.draws[:, j]), est, level)
        notes = [note] if note else []
        if not free:
            notes.append(f.dropped.get(p.name, "not fitted") + "; fixed at its prior")
        k_lossy = lossy_runs["bed" if p.source == "bed" else "sim"]
        if free and k_lossy < 5:
            notes.append(
                f"only {k_lossy} run(s) of its source lost anything: the interval over runs"
                " is not reliable"
            )
        reps = f.per_repetition.get(p.name, [])
        ci_bootstrap = ci
        if free and ci is not None and reps:
            ci, rep_notes = checked_against_repetitions(p, est, ci, reps, level)
            notes += rep_notes
        if p.source == "bed" and p.name in PINNED_BY and (not free or _sometimes(notes)):
            if lossy_runs["bed"] or not free:
                notes.append(f"points that would pin it: {PINNED_BY[p.name]}")
        out[p.name] = {
            "source": p.source,
            "estimate": est,
            "ci": ci,
            "ci_bootstrap": ci_bootstrap,
            "se_log": float(f.se[j]) if free and j < len(f.se) else None,
            "identified": bool(free),
            "prior": float(f.prior[p.name]),
            "lower": p.lower,
            "unit": p.unit,
            "meaning": p.help,
            "per_repetition": reps,
            "note": "; ".join(notes),
        }
    return out


# What a testbed grid needs to pin each host parameter (docs/physics.md §2): named in the
# note of one the data leave free, or identify on some repetitions but not others.
PINNED_BY = {
    "read_cost": "testbed runs above the receiving application's knee (loss over 1 %), where "
    "the delivered rate is what the readers take",
    "truesize": "rates just below the slow receiver's knee at two or more socket buffers "
    "(rcvbuf): the queueing loss there scales with rcvbuf / truesize, the knee does not",
    "arrival_scv": "Poisson and CBR runs just below one knee at the same socket buffer",
    "irq_cost": "none on a netns testbed (veth raises no interrupts)",
    "packet_cost": "runs where the receiving kernel saturates: many small datagrams with "
    "the readers on another core",
}
SOMETIMES = "identified only sometimes"
NARROWER = "its interval is narrower than the run-to-run spread"
OVER_REPETITIONS = "its interval is the random-effects one over its repetitions"
# Per-repetition refits farther apart than the bootstrap's interval allows, at this level (it
# decides the note only: the reported interval is the repetitions' random-effects one either
# way): a test of heterogeneity between two or three repetitions has little power,
# so it is judged at 0.10, not 0.05 or 0.01, as meta-analyses judge Cochran's Q over few
# studies (Cochrane Handbook for Systematic Reviews of Interventions, section 10.10.2).
SPREAD_TEST = 0.10


def _sometimes(notes: list[str]) -> bool:
    return any(SOMETIMES in n for n in notes)


def _repetition_notes(
    p: lm.Param, est: float, ci: list[float], reps: list[float], level: float
) -> list[str]:
    """Compare the parameter refitted on each repetition alone with its interval.

    On its share 1/R of the runs, a repetition's estimate has R times the variance of the
    whole fit's (log scale, the interval's half-width over z): sum (x_r - log est)^2 /
    (R sd^2) is then about chi^2 with R degrees of freedom. Taken about the whole fit's
    estimate, two repetitions that agree with each other but not with it fail too. Rejected
    at SPREAD_TEST: the interval is narrower than the run-to-run spread. A repetition whose
    refit runs to a search bound (not a physical limit): identified only sometimes."""
    from scipy.stats import chi2, norm

    out = []
    x = np.log(np.asarray(reps, dtype=float))
    edge = (x <= math.log(p.lower) + 1e-3) | (x >= math.log(p.upper) - 1e-3)
    at_bound = edge & (not p.physical_bounds)
    shown = ", ".join(f"{v:.3g}" for v in reps)
    if at_bound.any():
        out.append(
            f"{SOMETIMES}: refitted on each repetition alone it gives {shown} {p.unit}, "
            f"{int(at_bound.sum())} of {len(reps)} at a bound"
        )
        return out
    R = len(x)
    sd = (math.log(ci[1]) - math.log(ci[0])) / (2 * float(norm.ppf(0.5 + level / 2)))
    if R >= 2 and sd > 0:
        # about the whole fit's estimate: a repetition off it counts as much as two apart
        stat = float(((x - math.log(est)) ** 2).sum() / (R * sd**2))
        if chi2.sf(stat, R) < SPREAD_TEST:
            out.append(
                f"{NARROWER}: refitted on each repetition alone it gives {shown} {p.unit}; "
                f"its interval is the random-effects one over them (t with {R - 1} degrees "
                "of freedom)"
            )
    elif R >= 2 and np.ptp(x) > 1e-6:
        out.append(f"an interval of zero width; the repetitions alone give {shown} {p.unit}")
    return out


def checked_against_repetitions(
    p: lm.Param, est: float, ci: list[float], reps: list[float], level: float
) -> tuple[list[float], list[str]]:
    """The interval a parameter is reported with, given the bootstrap's and its refits on
    each repetition alone, and the notes on them (_repetition_notes): the repetitions'
    random-effects interval (repetitions_interval) where two or more refits are spread;
    the bootstrap's where there are fewer, where they coincide, or where a refit ran to a
    search bound (then the repetitions say nothing about the parameter's value)."""
    notes = _repetition_notes(p, est, ci, reps, level)
    x = np.log(np.asarray(reps, dtype=float))
    if len(reps) < 2 or _sometimes(notes) or np.ptp(x) <= 1e-9:
        return ci, notes
    if not any(n.startswith(NARROWER) for n in notes):
        shown = ", ".join(f"{v:.3g}" for v in reps)
        notes.append(f"{OVER_REPETITIONS}: refitted alone they give {shown} {p.unit}")
    return repetitions_interval(p, est, reps, level), notes


def repetitions_interval(p: lm.Param, est: float, reps: list[float], level: float) -> list[float]:
    """The interval of a testbed parameter over its repetitions' refits.

    The testbed's host is not one fixed value: between repetitions (minutes apart) the
    machine's other work changes what a datagram costs. Treating each repetition's refit as
    one draw of that varying value (a random-effects mean, Hartung-Knapp), the interval of
    the study's value is est x exp(+-t_{R-1} s / sqrt(R)), s the root mean square of the
    log refits' deviations from the estimate (R - 1 in the denominator), cut to the
    parameter's physical bounds where it has them. With a fixed host it covers at the
    nominal level too (bench/fit_coverage.py); it is wide with two repetitions (t = 12.7 at
    95 %), as two draws say little about a spread."""
    half = random_effects_half_width(np.log(np.asarray(reps, dtype=float)), math.log(est), level)
    lo, hi = est * math.exp(-half), est * math.exp(half)
    if p.physical_bounds:
        lo, hi = max(lo, p.lower), min(hi, p.upper)
    return [lo, hi]


def random_effects_half_width(x: np.ndarray, center: float, level: float) -> float:
    """Hartung-Knapp: t_{R-1} s / sqrt(R) for R repetitions' values x about the whole fit's
    center, s the root mean square of their deviations from it (R - 1 in the denominator)."""
    from scipy.stats import t

    R = len(x)
    s = math.sqrt(float(((x - center) ** 2).sum()) / (R - 1))
    return float(t.ppf(0.5 + level / 2, R - 1)) * s / math.sqrt(R)


def _discrepancy_interval(
    est: float, ci: list[float] | None, reps: list[float], level: float
) -> tuple[list[float] | None, str]:
    """A discrepancy's interval: like a testbed parameter's, the random-effects one over its
    repetitions' refits (on its own, linear scale) where two or more of them spread, else
    the bootstrap's; and the note saying which."""
    x = np.asarray(reps, dtype=float)
    if len(x) < 2 or np.ptp(x) <= 1e-12:
        return ci, ""
    half = random_effects_half_width(x, est, level)
    shown = ", ".join(f"{v:+.3g}" for v in reps)
    return [est - half, est + half], f"{OVER_REPETITIONS}: refitted alone they give {shown}"


def _discrepancy_section(f: _Fitted, level: float) -> dict[str, Any]:
    """The discrepancy's form and, when fitted, d0 and d1 with the AIC comparison."""
    disc: dict[str, Any] = {
        "form": "logit L_bed = logit eta(x; theta_host) + d0 w_net + d1 w_host (the shares "
        "of the predicted loss at network and host stages)",
        "stages": {"d0": list(NETWORK_STAGES), "d1": list(HOST_STAGES)},
        "tau": TAU,
        "d0": None,
        "d1": None,
        "aic_with": None,
        "aic_without": None,
        "preferred": None,
        "summary": [],
        "matched_points": [],
    }
    if f.spec is not None and f.spec.delta and f.fit:
        k = len(f.spec.free)
        for i, name in enumerate(("d0", "d1")):
            est = float(f.fit["x"][k + i])
            if not f.d_informed[i]:
                disc[name] = {"estimate": est, "ci": None, "identified": False,
                              "note": "no testbed run loses where the model puts loss at "
                              "these stages: nothing to estimate"}  # fmt: skip
                continue
            ci, note = _interval(f.draws[:, k + i], est, level) if len(f.draws) else (None, "")
            reps = f.per_repetition.get(name, [])
            ci_reps, rep_note = _discrepancy_interval(est, ci, reps, level)
            notes = [n for n in (note, rep_note) if n]
            disc[name] = {"estimate": est, "ci": ci_reps, "ci_bootstrap": ci, "identified": True,
                          "per_repetition": reps, "note": "; ".join(notes)}  # fmt: skip
        disc["aic_with"], disc["aic_without"] = float(f.aic["with"]), float(f.aic["without"])
        disc["preferred"] = "with" if f.aic["with"] < f.aic["without"] else "without"
    return disc


def _bootstrap_section(f: _Fitted, how: _Settings) -> dict[str, Any]:
    """The replicates themselves, so a curve's band keeps the parameters' correlations."""
    draws = []
    if f.spec is not None and len(f.draws):
        k = len(f.spec.free)
        for row in f.draws:
            d = {name: float(np.exp(row[j])) for j, name in enumerate(f.spec.free)}
            if f.spec.delta:
                d["d0"], d["d1"] = float(row[k]), float(row[k + 1])
            draws.append(d)
    return {
        "draws": draws,
        "replicates": int(len(f.draws)) if len(f.draws) else 0,
        "requested": int(how.bootstrap_n),
        "failed": int(f.failed),
        "seed": int(how.seed),
        "level": float(how.level),
        "method": "parametric percentile bootstrap: counts redrawn from the fit on the same "
        "design, beta-binomial at each source's dispersion",
    }


def _finish(
    doc: dict[str, Any], f: _Fitted, data: pd.DataFrame, base: str, how: _Settings
) -> dict[str, Any]:
    """The document's results: parameters, quality, discrepancy, host preset, replicates."""
    out_params = _parameters_section(f, data, how.level)
    doc["parameters"] = out_params
    doc["fit_quality"] = f.quality
    disc = _discrepancy_section(f, how.level)
    disc["matched_points"] = matched_points(data) if len(data) else []
    disc["summary"] = summary(doc, disc, out_params, base, data)
    doc["discrepancy"] = disc
    preset, calibrated = host_preset(out_params, base, data, doc.get("study"))
    doc["host_preset"] = preset
    doc["host_preset_calibrated"] = calibrated
    doc["bootstrap"] = _bootstrap_section(f, how)
    doc["describes_data"] = describes_data(doc, data)
    return doc


# When a fit describes nothing (`lanloss fit` exits 1, `lanloss plan` refuses the fit): its
# curve is off by more than this root-mean-square loss (a quarter of all datagrams) on one
# source's runs, or every run lost (nearly) everything, which shows no rate the LAN carries.
MAX_LOSS_RMS_ERROR = 0.25
ALL_LOST = 0.999


def describes_data(doc: dict[str, Any], data: pd.DataFrame) -> dict[str, Any]:
    """{"ok": bool, "reason": text}: whether the fit's own quality says its curve describes
    the runs it was fitted to (the rule above)."""
    if len(data) == 0:
        return {"ok": False, "reason": "it was fitted to no runs"}
    sent = data["sent"].astype(float)
    lost = data["lost"].astype(float)
    if bool((lost >= ALL_LOST * sent).all()):
        return {
            "ok": False,
            "reason": f"every run lost at least {ALL_LOST:.1%} of what it sent: the runs show "
            "no rate the LAN carries (rerun at lower rates)",
        }
    return quality_verdict(doc.get("fit_quality") or {})


def quality_verdict(fit_quality: dict[str, Any]) -> dict[str, Any]:
    """{"ok", "reason"} of a fit's per-source quality: the root-mean-square loss error rule."""
    for source, q in sorted(fit_quality.items()):
        rms = q.get("loss_rms_error")
        if rms is not None and not rms <= MAX_LOSS_RMS_ERROR:
            return {
                "ok": False,
                "reason": f"its curve misses the {source} runs' loss by {rms:.3g} "
                f"(root mean square; at most {MAX_LOSS_RMS_ERROR} describes them)",
            }
    return {"ok": True, "reason": ""}
