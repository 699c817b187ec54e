# SPDX-License-Identifier: GPL-2.0-only
"""Coverage of the fit's 95 % intervals and band on synthetic testbeds with a known host.

The data sets are drawn from the analysis' own loss model (``lanloss.analysis.loss_model``)
at known testbed host parameters, not from the simulator: the model is what the fit
inverts, so a miss here is the estimator's and the bootstrap's, not the model's. The
design is a slow receiver like the default study's (20 % of a CPU, 50 us of work per
datagram, 1472-byte Poisson datagrams) at rates around its knee, at the default socket
buffer and a small one (which separates read cost from truesize), each point repeated
three times; every run's lost count is beta-binomial at the run-to-run spread of a real
testbed (rho below). Each data set is fitted (``fit.batch_fit``, from the starts the fit tries) and
bootstrapped as ``lanloss fit`` does (``fit.bootstrap``, parametric, the noise estimated
from the data set's own repetitions), all data sets at once.

Printed: per host parameter, the share of data sets whose interval holds the true value;
for the band, the share of (data set, point) pairs where the band holds the true loss
(points where the true loss is above 1e-4). Nominal 0.95; accepted within 0.91-0.99 (200
data sets: the coverage's own sd is 0.015), which tests/analysis/test_fit_coverage.py
(marked slow) asserts; this script only prints.

    .venv/bin/python bench/fit_coverage.py [--datasets 200] [--replicates 200]
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
import pandas as pd

from lanloss import options
from lanloss.analysis import fit
from lanloss.analysis import fit_noise as noise
from lanloss.analysis import loss_model as lm
from lanloss.analysis.figures import fitted

LEVEL = 0.95
ACCEPT = (0.91, 0.99)
RHO = 2e-5  # run-to-run spread: a run's loss varies by sd sqrt(rho p (1-p)), 0.2 pp at 20 %
TRUTH = {"read_cost": 6e-6, "truesize": 2600.0}
RATES_MBPS = (30, 40, 44, 48, 52, 56, 60, 70)
RCVBUFS = (None, 16384)  # the default socket (sk_rcvbuf 212992) and a small one (32768)
REPETITIONS = 3
BAND_FLOOR = 1e-4  # band coverage is counted where the true loss is above this


def design() -> pd.DataFrame:
    """One data set's runs (nothing measured yet): every point REPETITIONS times."""
    frames = []
    for rcvbuf in RCVBUFS:
        for rate in RATES_MBPS:
            given = dict(payload=1472, edge_rate="1Gbps", duration="1s", warmup="0.1s",
                         recv_cpu=20, recv_work="50us", pattern="poisson",
                         rate=f"{rate}Mbps")  # fmt: skip
            if rcvbuf:
                given["rcvbuf"] = rcvbuf
            for rep in range(REPETITIONS):
                p = options.resolve({k: str(v) for k, v in given.items()}, "bed")
                df = lm.rows_for(dict(p, seed=rep + 1), "bed")
                df["run_file"] = f"bed/{rate}-{rcvbuf}-{rep}.json"
                df["recv_cpu_enforced"] = 1.0
                frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    prep = lm.prepare(df)
    df["sent"] = np.maximum(np.round(prep.lam * prep.T), 1).astype(int)
    return df


def best_of_starts(stack, group, datasets, spec, prior):
    """Every data set fitted from the starts ``lanloss fit`` tries (``fit._starts``), the
    best deviance kept: (x_hat (datasets, m), converged)."""
    best = np.full(datasets, np.inf)
    x_hat = np.zeros((datasets, spec.width))
    ok = np.zeros(datasets, bool)
    for start in fit._starts(spec, prior):
        X, conv = fit.batch_fit(stack, group, datasets, spec, start, iterations=200)
        r = np.empty(stack.n)
        for g in range(datasets):
            m = group == g
            theta, _, _ = spec.unpack(X[g])
            sub = fit.take(stack, np.flatnonzero(m))
            r[m] = fit.residuals(sub, fit.probabilities(sub, theta))
        cost = np.bincount(group, weights=r * r, minlength=datasets)
        better = cost < best
        best = np.where(better, cost, best)
        x_hat[better], ok[better] = X[better], conv[better]
    return x_hat, ok


def per_repetition(stack, group, datasets, spec, x_hat, rep) -> np.ndarray:
    """Every data set's free parameters refitted on each repetition's runs alone, from its
    estimate, as ``lanloss fit`` does (``fit._per_repetition``): (datasets, REPETITIONS, m),
    log values."""
    sub_group = group * REPETITIONS + rep
    X0 = np.repeat(x_hat, REPETITIONS, axis=0)
    X, _ = fit.batch_fit(stack, sub_group, datasets * REPETITIONS, spec, X0, iterations=100)
    return X.reshape(datasets, REPETITIONS, spec.width)


def coverage(datasets: int, replicates: int, seed: int = 1) -> dict[str, float]:
    """{parameter or "band": coverage} over ``datasets`` synthetic data sets; per parameter
    also "<name> reported": the coverage of the interval ``lanloss fit`` reports, the
    random-effects interval over the refits on each repetition where they spread
    (``fit.checked_against_repetitions``), and "<name> over repetitions": how often that was
    the one reported."""
    rng = np.random.default_rng(seed)
    rows = design()
    params, prior = fit._priors(rows)
    truth = {**prior, **TRUTH}
    prep = lm.prepare(rows)
    prep.sent = rows["sent"].to_numpy(dtype=float)
    n = prep.n
    p_true = fit.probabilities(prep, truth)
    stack = fit.take(prep, np.tile(np.arange(n), datasets))
    group = np.repeat(np.arange(datasets), n)
    stack.lost = noise.draw(rng, stack.sent, np.tile(p_true, datasets), np.full(stack.n, RHO))
    stack.point = group * n + np.tile(np.asarray(prep.point), datasets)
    stack.run = group * n + np.tile(np.asarray(prep.run), datasets)
    rho = np.zeros(stack.n)
    for g in range(datasets):  # each data set's noise from its own repetitions
        m = group == g
        rho[m] = noise.repetition_noise(stack.lost[m], stack.sent[m], stack.point[m])["rho"]
    stack.rho = rho
    spec = fit.Spec(params, list(TRUTH), dict(prior), False)
    x_hat, ok = best_of_starts(stack, group, datasets, spec, prior)
    Xb, okb = fit.bootstrap(stack, spec, x_hat, replicates, rng, group=group, parametric=True)
    rep = np.tile(fit.repetition_index(np.asarray(prep.point), rows["seed"].to_numpy()), datasets)
    X_rep = per_repetition(stack, group, datasets, spec, x_hat, rep)
    by_name = {p.name: p for p in params}
    a = (1 - LEVEL) / 2
    out: dict[str, float] = {"converged": float(ok.mean()), "replicates_ok": float(okb.mean())}
    stretch = np.ones((datasets, spec.width))  # the band's, as figures.fitted draws it
    for j, name in enumerate(spec.free):
        hits = reported = over_reps = 0
        for g in range(datasets):
            ci, _ = fit._interval(np.exp(Xb[g][okb[g], j]), math.exp(x_hat[g, j]), LEVEL)
            if ci is None:
                continue
            hits += ci[0] <= truth[name] <= ci[1]
            est, reps = math.exp(x_hat[g, j]), list(np.exp(X_rep[g, :, j]))
            wide, _ = fit.checked_against_repetitions(by_name[name], est, ci, reps, LEVEL)
            reported += wide[0] <= truth[name] <= wide[1]
            over_reps += wide != ci
            stretch[g, j] = fitted.stretch_factor(wide, ci, log=True)
        out[name] = hits / datasets
        out[f"{name} reported"] = reported / datasets
        out[f"{name} over repetitions"] = over_reps / datasets
    judged = p_true > BAND_FLOOR
    hits = total = 0
    for g in range(datasets):
        curves = []
        for x in Xb[g][okb[g]]:
            theta, _, _ = spec.unpack(x_hat[g] + stretch[g] * (x - x_hat[g]))  # log scale
            curves.append(fit.probabilities(prep, theta)[judged])
        lo, hi = np.quantile(np.array(curves), [a, 1 - a], axis=0)
        theta_hat, _, _ = spec.unpack(x_hat[g])
        est = fit.probabilities(prep, theta_hat)[judged]
        lo, hi = np.minimum(lo, est), np.maximum(hi, est)  # as figures.fitted draws it
        hits += int(((lo <= p_true[judged]) & (p_true[judged] <= hi)).sum())
        total += int(judged.sum())
    out["band"] = hits / max(total, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=200)
    ap.add_argument("--replicates", type=int, default=200)  # lanloss fit's default
    args = ap.parse_args(argv)
    if args.datasets < 20 or args.replicates < 20:
        print("fit_coverage: --datasets and --replicates must be at least 20", file=sys.stderr)
        return 2
    result = coverage(args.datasets, args.replicates)
    print(f"fit coverage at nominal {LEVEL}: {args.datasets} data sets from the loss model, "
          f"{args.replicates} parametric replicates each")  # fmt: skip
    print(f"  fits converged {result['converged']:.3f}, replicates {result['replicates_ok']:.3f}")
    for name in (*TRUTH, *(f"{n} reported" for n in TRUTH), "band"):
        ok = ACCEPT[0] <= result[name] <= ACCEPT[1]
        print(f"  {name:19s} {result[name]:.3f}  {'within' if ok else 'OUTSIDE'} {ACCEPT}")
    for name in TRUTH:
        share = result[f"{name} over repetitions"]
        print(f"  {name} reported over its repetitions (random effects) in {share:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
