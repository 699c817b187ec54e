# SPDX-License-Identifier: GPL-2.0-only
"""Coverage of the fit's intervals and band on 200 synthetic testbeds with a known host
(bench/fit_coverage.py: data sets from the analysis' own loss model, beta-binomial runs,
fitted and bootstrapped as `lanloss fit` does). A few minutes on 2 cores: marked `coverage`,
run by `make coverage`, not by `make test`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.coverage]

BENCH = Path(__file__).resolve().parents[2] / "bench" / "fit_coverage.py"


def _bench():
    spec = importlib.util.spec_from_file_location("fit_coverage", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_intervals_and_band_cover_at_their_nominal_rate():
    bench = _bench()
    result = bench.coverage(datasets=200, replicates=200, seed=1)
    assert result["converged"] == 1.0 and result["replicates_ok"] > 0.97, result
    lo, hi = bench.ACCEPT  # nominal 0.95: 200 data sets give the coverage an sd of 0.015
    # the bootstrap's intervals, the ones `lanloss fit` reports (the random-effects interval
    # over the repetitions' refits), and the band
    for name in (*bench.TRUTH, *(f"{n} reported" for n in bench.TRUTH), "band"):
        assert lo <= result[name] <= hi, (name, result)
