# SPDX-License-Identifier: GPL-2.0-only
"""Runs the machine disturbed (lanloss.analysis.fit.disturbed) are left out of the fit and
the validation alike, counted and named: a late sender and a receiver kept off the CPU
longer than its socket buffer lasts."""

from __future__ import annotations

import numpy as np
from synthetic_tables import bed_params, draw

from lanloss.analysis import fit, validate
from lanloss.analysis import loss_model as lm

BED = dict(payload=1472, duration="1s", switch_buffer="128KiB")


def _table():
    configs = [("bed", bed_params(**BED, rate=f"{r}Mbps")) for r in (20, 30, 40)]
    return draw(configs, lm.default_theta(), np.random.default_rng(7), seeds=1)


def test_a_stalled_receiver_is_left_out_of_the_fit_and_named():
    df = _table()
    df["recv_stalled"] = [0.0, 1.0, np.nan]  # NaN: not measured (simulator, iperf3)
    data, excluded, notes = fit.usable(df)
    assert excluded == {fit.STALLED: 1}
    assert sorted(data["run_file"]) == ["bed/run0-0.json", "bed/run2-0.json"]
    assert notes == ["receiver not running: bed/run1-0.json"]
    kept, excluded, _ = fit.usable(df, include_unmet=True)
    assert len(kept) == 3 and excluded == {}


def test_the_validation_says_how_many_runs_it_left_out_and_which():
    df = _table()
    df["recv_stalled"] = [1.0, 0.0, 0.0]
    df["offered_met"] = [1.0, 1.0, 0.0]
    left = validate.left_out_runs(df)
    assert left == {fit.UNMET: ["bed/run2-0.json"], fit.STALLED: ["bed/run0-0.json"]}
    lines = validate._left_out_lines({"left_out": left, "bed_runs": 3})
    assert lines[0] == "left out as disturbed: 2 of 3 testbed runs (66.7%)"
    assert lines[2] == f"  {fit.STALLED}: 1: bed/run0-0.json"
    # one rule for both: what the fit leaves out is what the validation names
    _, excluded, _ = fit.usable(df)
    assert excluded == {fit.UNMET: 1, fit.STALLED: 1}
