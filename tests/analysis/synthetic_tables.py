# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for the analysis tests: parameters, and tables drawn from the model with binomial
noise (imported by the tests as a plain module: pytest puts this folder on sys.path)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lanloss import options
from lanloss.analysis import fit
from lanloss.analysis import loss_model as lm

# sk_rcvbuf = 212992 (rmem_default), the socket of host-model.rst's validation runs
VALIDATION_RCVBUF = 106496


def sim_params(**given) -> dict:
    """Resolved simulator parameters, host values from the preset (lanloss.options.resolve)."""
    return options.resolve({k: str(v) for k, v in given.items() if v is not None}, "sim")


def bed_params(**given) -> dict:
    return options.resolve({k: str(v) for k, v in given.items() if v is not None}, "bed")


def draw(
    configs: list[tuple[str, dict]],
    theta: dict[str, float],
    rng: np.random.Generator,
    seeds: int = 2,
    d0: float = 0.0,
    d1: float = 0.0,
) -> pd.DataFrame:
    """A table like `lanloss table` writes: each (source, params) run `seeds` times, losses
    drawn binomially from the model at theta (testbed rows shifted by d0 at the network's
    stages, d1 at the host's: lanloss.analysis.fit.probabilities)."""
    frames = []
    for i, (source, p) in enumerate(configs):
        for s in range(seeds):
            df = lm.rows_for(dict(p, seed=s + 1), source)
            df["run_file"] = f"{source}/run{i}-{s}.json"
            df["recv_cpu_enforced"] = 1.0
            frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    prep = lm.prepare(df)
    p = fit.probabilities(prep, theta, d0, d1)
    N = np.maximum(np.round(prep.lam * prep.T), 1).astype(int)
    df["sent"] = N
    df["lost"] = rng.binomial(N, p)
    df["received"] = df["sent"] - df["lost"]
    df["loss"] = df["lost"] / df["sent"]
    df["goodput_bps"] = lm.predict(prep, theta).goodput_bps
    df["study"] = "synthetic"
    return df
