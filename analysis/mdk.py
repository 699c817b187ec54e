# SPDX-License-Identifier: GPL-2.0-only
"""Finite-buffer queues: M/D/1/K (exact and fast), M/M/1/K (closed form), fluid limit.

K counts the datagrams the system holds, the one in service included (docs/physics.md §4).

M/D/1/K has no closed form (Brun & Garcia, J. Appl. Prob. 37(4), 2000). It is solved on its
embedded departure chain: a_k = e^-rho rho^k / k! arrivals per service, states 0..K-1 left
behind by a departure, and P_loss = 1 - 1/(pi_0 + rho). ``md1k_exact`` builds that chain and
solves it (the method of docs/physics.md §4, kept as the reference). ``md1k_loss`` is the vectorised
version the fit calls thousands of times: the chain's stationary vector is, up to
normalisation, the same for every K (M/G/1/K truncation property, Takagi 1993 vol. 2), so one
forward recursion per rho gives every K at once:

    pi_0 = 1,  pi_(n+1) = (pi_n - pi_0 a_n - sum_(i=1..n) pi_i a_(n-i+1)) / a_0
    S_K = sum_(j<K) pi_j,   P_loss(rho, K) = 1 - S_K / (1 + rho S_K)

It is tabulated once on a fine rho grid for K <= K_TABLE and interpolated (log P, linear in
log rho and in K). Past the table, and where P falls below what doubles resolve, the tail is
extended with the M/M/1/K form f(K) = (1-rho) tau^K / (1 - rho tau^K), whose tau = 1/z is the
M/D/1 decay rate (z: the root other than 1 of z = exp(rho (z - 1)), a Lambert-W value), scaled
to meet the table: exact asymptotics in K for rho != 1, and 1/(2K+1) at rho = 1.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.special import gammaln, lambertw

K_TABLE = 256
RHO_MIN, RHO_MAX = 1e-3, 50.0
_N_RHO = 2001
_RELIABLE = 1e-11  # below this, 1 - S/(1 + rho S) has lost its digits to cancellation


def fluid_loss(rho):
    """Long-run loss of any queue offered rho times its service rate: max(0, 1 - 1/rho)."""
    rho = np.asarray(rho, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(rho > 1.0, 1.0 - 1.0 / np.maximum(rho, 1e-300), 0.0)


def mm1k_loss(rho, K):
    """M/M/1/K blocking probability (1-rho) rho^K / (1 - rho^(K+1)); 1/(K+1) at rho = 1."""
    rho = np.asarray(rho, dtype=float)
    K = np.asarray(K, dtype=float)
    lr = np.log(np.maximum(rho, 1e-300))
    near = np.abs(lr) < 1e-9
    lr_safe = np.where(near, 1e-9, lr)
    # (1-rho) rho^K / (1 - rho^(K+1)) = expm1(lr) e^(K lr) / expm1((K+1) lr), overflow-safe
    big = (K + 1) * lr_safe > 700
    num = np.where(big, 0.0, np.expm1(lr_safe) * np.exp(np.minimum(K * lr_safe, 700)))
    den = np.where(big, 1.0, np.expm1(np.minimum((K + 1) * lr_safe, 700)))
    val = np.where(big, -np.expm1(-lr_safe), num / den)
    return np.where(near, 1.0 / (K + 1), val)


def md1k_exact(rho: float, K: int) -> float:
    """M/D/1/K loss from the embedded departure chain, solved directly (the reference)."""
    if K < 1 or rho <= 0:
        raise ValueError(f"need K >= 1 and rho > 0, got K={K}, rho={rho}")
    k = np.arange(K + 1)
    a = np.exp(-rho + k * math.log(rho) - gammaln(k + 1))
    P = np.zeros((K, K))
    P[0, : K - 1] = a[: K - 1]
    for i in range(1, K):
        P[i, i - 1 : K - 1] = a[: K - i]
    P[:, K - 1] = 1.0 - P[:, : K - 1].sum(axis=1)
    A = P.T - np.eye(K)
    A[-1, :] = 1.0
    b = np.zeros(K)
    b[-1] = 1.0
    pi = np.linalg.solve(A, b)
    return float(1.0 - 1.0 / (pi[0] + rho))


def decay_tau(rho):
    """tau = 1/z, z the root != 1 of z = exp(rho (z-1)): the M/D/1 queue's geometric rate."""
    rho = np.asarray(rho, dtype=float)
    arg = -rho * np.exp(-rho)
    # the trivial root z = 1 is W = -rho: branch 0 for rho < 1, branch -1 for rho > 1
    w = np.where(rho < 1.0, lambertw(arg, -1).real, lambertw(arg, 0).real)
    z = -w / rho
    # near rho = 1 Lambert W loses digits at its branch point: z = 1 + u with
    # ln(1 + u) = rho u, so u = -2 eps + (8/3) eps^2 + O(eps^3), eps = rho - 1
    eps = rho - 1.0
    z_series = 1.0 - 2.0 * eps + (8.0 / 3.0) * eps**2
    return np.where(np.abs(eps) < 1e-4, 1.0 / z_series, 1.0 / z)


def _log_f(rho, tau, K):
    """log of the M/M/1/K-form tail f(K) = (1-rho) tau^K / (1 - rho tau^K) (see module doc)."""
    at_one = np.abs(rho - 1.0) < 1e-9  # the limit rho -> 1: f = 1/(2K + 1)
    rho = np.where(at_one, 1.5, rho)
    tau = np.where(at_one, decay_tau(1.5), tau)
    lt, lr = np.log(tau), np.log(rho)
    x = np.clip(K * lt, -745.0, 700.0)
    # (1-rho)/(1 - rho tau^K) = expm1(lr) / expm1(lr + K lt), both of one sign
    with np.errstate(divide="ignore", invalid="ignore"):
        val = x + np.log(np.expm1(lr) / np.expm1(lr + x))
    return np.where(at_one, -np.log1p(2.0 * K), val)


@lru_cache(maxsize=1)
def _table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log rho grid, log P[rho, K-1] for K = 1..K_TABLE, last reliable K per rho)."""
    lrho = np.linspace(math.log(RHO_MIN), math.log(RHO_MAX), _N_RHO)
    # dense around rho = 1, where P changes fastest with rho
    lrho = np.union1d(lrho, np.log(np.linspace(0.7, 1.4, 1401)))
    rho = np.exp(lrho)[:, None]
    n = np.arange(K_TABLE + 1)[None, :]
    a = np.exp(-rho + n * np.log(rho) - gammaln(n + 1))  # a_0..a_K
    pi = np.zeros((rho.shape[0], K_TABLE))
    pi[:, 0] = 1.0
    S = np.ones(rho.shape[0])  # S_K as stored
    log_scale = np.zeros(rho.shape[0])  # stored = true * exp(-log_scale)
    P = np.empty((rho.shape[0], K_TABLE))
    r = rho[:, 0]
    P[:, 0] = 1.0 - S / (1.0 + r * S)
    for m in range(K_TABLE - 1):
        s = pi[:, 0] * a[:, m] + np.einsum("ij,ij->i", pi[:, 1 : m + 1], a[:, m:0:-1])
        nxt = (pi[:, m] - s) / a[:, 0]
        pi[:, m + 1] = nxt
        S = S + nxt
        big = np.abs(nxt) > 1e100  # rho > 1 grows like tau^n: rescale, keep the log
        if big.any():
            f = np.abs(nxt[big])
            pi[big] /= f[:, None]
            S[big] /= f
            log_scale[big] += np.log(f)
        P[:, m + 1] = 1.0 - S / (np.exp(-log_scale) + r * S)
    P = np.clip(P, 0.0, 1.0)
    ok = P >= _RELIABLE
    # last K whose value is trustworthy (P decreases with K; cancellation below _RELIABLE)
    last = np.where(ok.all(axis=1), K_TABLE, np.argmin(ok, axis=1))
    last = np.maximum(last, 1)
    K = np.arange(1, K_TABLE + 1)[None, :]
    rows = np.arange(P.shape[0])
    anchor = np.log(np.maximum(P[rows, last - 1], 1e-300))
    tau = decay_tau(rho[:, 0])
    tail = anchor[:, None] + _log_f(rho, tau[:, None], K) - _log_f(rho, tau[:, None], last[:, None])
    logP = np.where(K <= last[:, None], np.log(np.maximum(P, 1e-300)), tail)
    # stored: log of the excess over the fluid limit, so that interpolating in rho keeps
    # the fluid part exact (far above the knee the excess is all but zero)
    excess = np.exp(logP) - fluid_loss(rho)
    logE = np.where(rho <= 1.0, logP, np.log(np.maximum(excess, 1e-300)))
    return lrho, logE, last


def md1k_loss(rho, K):
    """M/D/1/K loss for arrays of rho > 0 and K >= 1 (K may be fractional or inf)."""
    rho_in = np.asarray(rho, dtype=float)
    K_in = np.asarray(K, dtype=float)
    rho_b, K_b = np.broadcast_arrays(rho_in, K_in)
    rho_f = rho_b.ravel()
    K_f = np.maximum(K_b.ravel(), 1.0)
    out = np.empty_like(rho_f)
    lrho, logP, last = _table()

    inf = ~np.isfinite(K_f)
    out[inf] = fluid_loss(rho_f[inf])
    hi = (rho_f > RHO_MAX) & ~inf  # K=1: rho/(1+rho); K >= 2 differs from fluid by < e^-rho
    out[hi] = np.where(K_f[hi] < 2, rho_f[hi] / (1 + rho_f[hi]), fluid_loss(rho_f[hi]))
    zero = rho_f <= 0
    out[zero] = 0.0
    lo = (rho_f < RHO_MIN) & ~inf & ~zero  # M/D/1/K ~ M/M/1/K when arrivals are this rare
    out[lo] = mm1k_loss(rho_f[lo], K_f[lo])
    mid = ~(inf | hi | zero | lo)
    if mid.any():
        out[mid] = _interpolate(rho_f[mid], K_f[mid], lrho, logP)
    return out.reshape(rho_b.shape) if rho_b.shape else float(out[0])


def _interpolate(rho, K, lrho, logP):
    x = np.log(rho)
    i = np.clip(np.searchsorted(lrho, x) - 1, 0, len(lrho) - 2)
    w = (x - lrho[i]) / (lrho[i + 1] - lrho[i])
    inside = K <= K_TABLE
    Kc = np.where(inside, K, K_TABLE)
    k0 = np.floor(Kc).astype(int)
    k1 = np.minimum(k0 + 1, K_TABLE)
    v = Kc - k0

    def at(row, k):
        return logP[row, k - 1]

    def in_k(row):
        return (1 - v) * at(row, k0) + v * at(row, k1)

    val = (1 - w) * in_k(i) + w * in_k(i + 1)
    out = np.exp(val) + fluid_loss(rho)
    if (~inside).any():
        # beyond the table: the exact-asymptotic tail, scaled to meet the table at K_TABLE
        r, kk = rho[~inside], K[~inside]
        tau = decay_tau(r)
        ratio = np.exp(_log_f(r, tau, kk) - _log_f(r, tau, np.full_like(kk, K_TABLE)))
        out[~inside] = np.maximum(out[~inside] * ratio, fluid_loss(r))
    return np.clip(out, 0.0, 1.0)


def run_loss(rho, K, offered, K_queue=None):
    """Loss over a finite run that starts empty: (total, fluid part), arrays.

    rho: offered / service rate; K: buffer in datagrams; offered: datagrams offered over the
    run (inf = long run). Past capacity the buffer first fills, in t_f = K / (lambda - mu),
    and only then overflows: fluid loss (1 - 1/rho) (1 - t_f/T) (this reproduces the
    simulator's validated livelock losses, host-model.rst). K_queue: the buffer as a
    Poisson (M/D/1/K) queue sees it, for losses below capacity; None = deterministic (CBR)
    arrivals, which lose nothing below capacity.
    """
    rho = np.asarray(rho, dtype=float)
    K = np.asarray(K, dtype=float)
    offered = np.asarray(offered, dtype=float)
    over = np.maximum(1.0 - 1.0 / np.maximum(rho, 1e-300), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        fill = np.where(over > 0, K / (offered * over), 0.0)
    factor = np.clip(1.0 - np.nan_to_num(fill, nan=0.0), 0.0, 1.0)
    fluid = over * factor
    if K_queue is None:
        return fluid, fluid
    Kq = np.asarray(K_queue, dtype=float)
    below = md1k_loss(np.minimum(rho, 1.0), Kq)
    above = md1k_loss(rho, Kq) * factor
    total = np.maximum(np.maximum(below, above), fluid)
    return total, fluid
