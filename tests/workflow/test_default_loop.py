# SPDX-License-Identifier: GPL-2.0-only
"""The default study's loop, closed, on points the fit did not see (issue 8): two of its
panels (1472-byte CBR into a 16 KiB switch port, and the slow receiver: 20 % of a CPU and
50 us of work per datagram) run through the real workflow in both sources, fitted on two
thirds of each panel's rates; on the held-out third the calibrated simulator and the
fitted testbed curve must meet the bar: loss within max(0.5 %, 15 %) at >= 90 % of the
points, and every knee within 5 %.

The panels are taken from config/config.yaml, so the test follows the default study, with
its adaptive repetitions of 1 s (2 to 6 testbed runs per point, more where the loss
spreads: a CPU quota's loss moves by a few points from run to run on a shared machine; the
bar is judged on the pooled runs, as `make run` judges it): about two and a half minutes.
The testbed's numbers are timing-bound. The validation leaves out the runs the machine
disturbed (a late sender, a receiver kept off the CPU past its socket buffer:
lanloss.analysis.fit.disturbed) and says which; a verdict off the bar is the code's unless
the machine disturbed more than 5 % of the testbed runs, or the hypervisor took more than
1 % of the CPUs (steal), or the testbed's own runs at every point off the bar differ from
each other by more than the bar (the validation's `bed_runs_agree`: the machine's noise
there is as large as the bar), when the test is skipped, saying so and showing the table
(tests/testbed/load_rules.py: the same rules as every timing-bound test). One attempt: the
loop takes minutes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from snakerun import REPO, is_root, snakemake

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "testbed"))
from load_rules import STEAL_MAX, cpu_jiffies  # noqa: E402 (tests/testbed, not a package)

pytestmark = [pytest.mark.slow, pytest.mark.netns]

DISTURBED_MAX = 0.05  # of the testbed runs the validation may leave out before it says little


def _panels() -> dict:
    """The default study, two of its panels, one short repetition."""
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    switch = next(g for g in cfg["grids"] if "switch_buffer" in g)
    slow = next(g for g in cfg["grids"] if "recv_cpu" in g)
    return {
        "name": "loop",
        "description": "two panels of the default study",
        "source": ["sim", "bed"],
        "repetitions": cfg["repetitions"],
        "fixed": cfg["fixed"],
        "grids": [{**switch, "pattern": ["cbr"], "switch_buffer": ["16KiB"]}, slow],
        "figures": [],
        "fit": True,
    }


def _off_points_the_testbed_disagrees_on(csv_file: Path) -> str:
    """The judged points where a source is off the bar, named, when at every one of them
    the testbed's repetitions differ from each other by more than the bar (the validation's
    `bed_runs_agree`); "" when any off point's runs agree (that miss is the model's)."""
    t = pd.read_csv(csv_file)
    off = t[t["judged"] & ~(t["sim_ok"] & t["model_ok"])]
    if off.empty or off["bed_runs_agree"].any():
        return ""
    return "; ".join(
        f"{r.panel} at {r.rate_mbps:g} Mbit/s: "
        f"{r.bed_runs} runs {100 * r.bed_spread:.2f} points apart"
        for r in off.itertuples()
    )


@pytest.mark.skipif(not is_root(), reason="needs root (network namespaces)")
def test_the_calibration_predicts_the_held_out_testbed_points(tmp_path):
    study_file = tmp_path / "loop.yaml"
    study_file.write_text(yaml.safe_dump(_panels()))
    s0, t0 = cpu_jiffies()
    proc = snakemake(
        tmp_path,
        "--cores",
        "2",
        "results/fits/loop-holdout.json",
        config={"studies": [str(study_file)], "bed_args": "--prefix llloop-"},
        timeout=900,
    )
    s1, t1 = cpu_jiffies()
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    doc = json.loads((tmp_path / "results" / "fits" / "loop-holdout.json").read_text())
    verdict = {k: doc[k] for k in ("sim_within", "sim_knees_ok", "model_within", "model_knees_ok")}
    stolen = (s1 - s0) / max(t1 - t0, 1)
    left = {f for runs in doc["left_out"].values() for f in runs}
    disturbed = len(left) / max(doc["bed_runs"], 1)
    table = (tmp_path / "results" / "fits" / "loop-holdout.txt").read_text()
    if not (doc["sim_meets_bar"] and doc["model_meets_bar"]):
        noisy = _off_points_the_testbed_disagrees_on(
            tmp_path / "results" / "fits" / "loop-holdout.csv"
        )
        if noisy:
            pytest.skip(
                f"the testbed's own runs at every point off the bar differ by more than the "
                f"bar ({noisy}): the machine's noise, not the model: {verdict}\n{table}"
            )
        if stolen > STEAL_MAX:
            pytest.skip(f"the hypervisor took {stolen:.1%} of the CPUs during the runs: {verdict}")
        if disturbed > DISTURBED_MAX:
            pytest.skip(
                f"the machine disturbed {len(left)} of {doc['bed_runs']} testbed runs "
                f"({doc['left_out']}): {verdict}"
            )
    assert doc["holdout"] and doc["points"], doc
    assert doc["sim_meets_bar"] and doc["model_meets_bar"], f"{verdict}\n{table}"
