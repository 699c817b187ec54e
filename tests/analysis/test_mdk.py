# SPDX-License-Identifier: GPL-2.0-only
"""Finite queues: M/D/1/K (docs/physics.md §4), M/M/1/K closed form, fluid limit, finite runs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import null_space

from lanloss.analysis import mdk


def mm1k_by_ctmc(rho: float, K: int) -> float:
    """M/M/1/K blocking from its birth-death generator, solved numerically."""
    Q = np.zeros((K + 1, K + 1))
    for n in range(K):
        Q[n, n + 1] = rho  # arrivals (service rate 1)
        Q[n + 1, n] = 1.0
    Q -= np.diag(Q.sum(axis=1))
    pi = null_space(Q.T)[:, 0]
    pi /= pi.sum()
    return float(pi[K])  # PASTA: an arrival sees the full system with pi_K


def test_science_values():
    # docs/physics.md §4
    assert mdk.md1k_exact(0.9, 20) == pytest.approx(1.85e-3, rel=3e-3)
    assert mdk.md1k_exact(1.2, 20) == pytest.approx(0.167, rel=3e-3)
    assert mdk.mm1k_loss(0.9, 20) == pytest.approx(1.37e-2, rel=5e-3)
    assert mdk.mm1k_loss(1.2, 20) == pytest.approx(0.170, rel=5e-3)
    # the fast table gives the same
    assert mdk.md1k_loss(0.9, 20) == pytest.approx(mdk.md1k_exact(0.9, 20), rel=1e-6)
    assert mdk.md1k_loss(1.2, 20) == pytest.approx(mdk.md1k_exact(1.2, 20), rel=1e-6)


@pytest.mark.parametrize("rho", [0.3, 0.9, 1.0, 1.2, 3.0])
@pytest.mark.parametrize("K", [1, 5, 20])
def test_mm1k_closed_form_against_its_generator(rho, K):
    assert mdk.mm1k_loss(rho, K) == pytest.approx(mm1k_by_ctmc(rho, K), rel=1e-9)


def test_md1k_with_one_place_is_erlang_loss():
    # M/G/1/1: an arrival is lost iff the server is busy: rho / (1 + rho), any service law
    for rho in (0.1, 1.0, 4.0):
        assert mdk.md1k_exact(rho, 1) == pytest.approx(rho / (1 + rho), rel=1e-12)
        assert mdk.md1k_loss(rho, 1) == pytest.approx(rho / (1 + rho), rel=1e-6)


def test_deterministic_service_loses_less_than_exponential_below_the_knee():
    for K in (5, 20, 50):
        assert mdk.md1k_exact(0.8, K) < mdk.mm1k_loss(0.8, K)


def test_fast_table_matches_the_chain():
    rng = np.random.default_rng(3)
    rho = np.exp(rng.uniform(math.log(0.05), math.log(20), 30))
    K = rng.integers(1, 300, 30)
    fast = mdk.md1k_loss(rho, K)
    for r, k, f in zip(rho, K, fast, strict=True):
        e = mdk.md1k_exact(float(r), int(k))
        if e > 1e-10:  # below that the direct solve has no digits left
            assert f == pytest.approx(e, rel=2e-4), (r, k)


@pytest.mark.parametrize("rho", [0.99, 1.0, 1.01])
def test_beyond_the_table_the_tail_is_right(rho):
    for K in (400, 700):
        assert mdk.md1k_loss(rho, K) == pytest.approx(mdk.md1k_exact(rho, K), rel=5e-3)


def test_fluid_limit():
    for rho in (1.1, 1.5, 3.0):
        assert mdk.md1k_loss(rho, 5000) == pytest.approx(1 - 1 / rho, rel=1e-6)
        assert mdk.md1k_loss(rho, math.inf) == pytest.approx(1 - 1 / rho)
    assert mdk.md1k_loss(0.95, 5000) < 1e-40
    assert mdk.md1k_loss(1.0, 1e6) == pytest.approx(1 / (2e6 + 1), rel=1e-2)  # heavy traffic
    assert float(mdk.fluid_loss(0.7)) == 0.0


def test_finite_run_fills_the_buffer_first():
    # 1.5 x capacity, K = 100, 1000 offered: lost = (1 - 1/1.5) * 1000 - 100
    total, fluid = mdk.run_loss(1.5, 100, 1000)
    assert float(fluid) == pytest.approx((1000 / 3 - 100) / 1000)
    assert float(total) == float(fluid)  # CBR: nothing below capacity
    total, _ = mdk.run_loss(1.5, 100, 200)  # the buffer takes all the excess
    assert float(total) == 0.0
    total, fluid = mdk.run_loss(0.9, 20, math.inf, 20)  # Poisson, below the knee
    assert float(fluid) == 0.0
    assert float(total) == pytest.approx(1.85e-3, rel=3e-3)
