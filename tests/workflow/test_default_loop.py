# SPDX-License-Identifier: GPL-2.0-only
"""The default study's loop, closed, on points the fit did not see (issue 8): two of its
panels (1472-byte CBR into a 16 KiB switch port, and the slow receiver: 20 % of a CPU and
50 us of work per datagram) run through the real workflow in both sources, fitted on two
thirds of each panel's rates; on the held-out third the calibrated simulator and the
fitted testbed curve must meet the bar: loss within max(0.5 %, 15 %) at >= 90 % of the
points, and every knee within 5 %.

The panels are taken from config/config.yaml, so the test follows the default study, with
its two repetitions of 1 s (a CPU quota's loss spreads by a few points from run to run on a
shared machine; the bar is judged on the pooled runs, as `make run` judges it): about a
minute and a half. The testbed's numbers are
timing-bound: when the hypervisor took more than 1 % of the CPUs meanwhile (steal), the
result says nothing about lanloss and the test is skipped, saying so."""

from __future__ import annotations

import json

import pytest
import yaml
from snakerun import REPO, is_root, snakemake

pytestmark = [pytest.mark.slow, pytest.mark.netns]

STEAL_MAX = 0.01


def _steal() -> tuple[int, int]:
    with open("/proc/stat", encoding="ascii") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    return fields[7], sum(fields[:8])


def _panels() -> dict:
    """The default study, two of its panels, one short repetition."""
    cfg = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    switch = next(g for g in cfg["grids"] if "switch_buffer" in g)
    slow = next(g for g in cfg["grids"] if "recv_cpu" in g)
    return {
        "name": "loop",
        "description": "two panels of the default study",
        "source": ["sim", "bed"],
        "repetitions": 2,
        "fixed": cfg["fixed"],
        "grids": [{**switch, "pattern": ["cbr"], "switch_buffer": ["16KiB"]}, slow],
        "figures": [],
        "fit": True,
    }


@pytest.mark.skipif(not is_root(), reason="needs root (network namespaces)")
def test_the_calibration_predicts_the_held_out_testbed_points(tmp_path):
    study_file = tmp_path / "loop.yaml"
    study_file.write_text(yaml.safe_dump(_panels()))
    s0, t0 = _steal()
    proc = snakemake(
        tmp_path,
        "--cores",
        "2",
        "results/fits/loop-holdout.json",
        config={"studies": [str(study_file)], "bed_args": "--prefix llloop-"},
        timeout=900,
    )
    s1, t1 = _steal()
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    doc = json.loads((tmp_path / "results" / "fits" / "loop-holdout.json").read_text())
    verdict = {k: doc[k] for k in ("sim_within", "sim_knees_ok", "model_within", "model_knees_ok")}
    stolen = (s1 - s0) / max(t1 - t0, 1)
    if not (doc["sim_meets_bar"] and doc["model_meets_bar"]) and stolen > STEAL_MAX:
        pytest.skip(f"the hypervisor took {stolen:.1%} of the CPUs during the runs: {verdict}")
    assert doc["holdout"] and doc["points"], doc
    assert doc["sim_meets_bar"] and doc["model_meets_bar"], verdict
