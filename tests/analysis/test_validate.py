# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss validate`: points, knees, the bar and the holdout split (the simulator part runs
in tests/analysis/test_figures_simbed.py, test_validate_end_to_end_and_the_figure_draws_it)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from lanloss.analysis import validate as va


def test_the_bar_is_absolute_below_and_relative_above():
    bar = va.Bar()
    assert bar.within(0.004, 0.0)  # 0.5 % absolute
    assert not bar.within(0.006, 0.0)
    assert bar.within(0.23, 0.20)  # 15 % of 20 % is 3 %
    assert not bar.within(0.235, 0.20)


def test_the_knee_is_interpolated_where_loss_crosses_1e_3():
    rates = np.array([90.0, 94.0, 97.0, 100.0])
    assert va.knee(rates, np.array([0, 0, 0.002, 0.04])) == pytest.approx(95.5)
    assert va.knee(rates, np.array([0.01, 0.02, 0.03, 0.04])) == 90.0  # already above
    assert math.isnan(va.knee(rates, np.zeros(4)))
    assert va.knee(rates[::-1], np.array([0.04, 0.002, 0, 0])) == pytest.approx(95.5)


def test_knees_agree_within_5_percent_or_both_absent():
    assert va.knee_ok(95.0, 97.0, 0.05)
    assert not va.knee_ok(90.0, 97.0, 0.05)
    assert va.knee_ok(math.nan, math.nan, 0.05)
    assert not va.knee_ok(math.nan, 97.0, 0.05)


def _points(rates_by_panel):
    rows = [
        {"panel": p, "rate_mbps": r, "bed_loss": 0.0, "sim_loss": 0.0, "model_loss": 0.0}
        for p, rates in rates_by_panel.items()
        for r in rates
    ]
    return pd.DataFrame(rows)


def test_every_third_rate_of_each_panel_is_held_out_keeping_the_ends():
    pts = _points({"a": [50, 20, 30, 40, 60, 80], "b": [1, 2]})
    held = va.held_out(pts)
    assert sorted(pts.loc[held & (pts["panel"] == "a"), "rate_mbps"]) == [30, 60]
    assert list(pts.loc[held & (pts["panel"] == "b"), "rate_mbps"]) == [2]
    assert held.sum() == 3


def test_judge_counts_only_judged_points_and_every_knee():
    pts = _points({"a": [90, 94, 97, 100]})
    pts["bed_loss"] = [0, 0, 0.01, 0.04]
    pts["sim_loss"] = [0, 0, 0.0105, 0.05]  # last point 25 % off
    pts["model_loss"] = [0, 0, 0.0105, 0.041]
    t, s = va.judge(pts, va.Bar(), pd.Series([True, True, True, False]))
    assert s["points"] == 3
    assert s["sim_within"] == 1.0 and s["model_within"] == 1.0
    assert list(t["sim_ok"]) == [True, True, True, False]
    (k,) = s["knees"]
    assert k["bed_mbps"] == pytest.approx(94.3) and k["sim_mbps"] == pytest.approx(
        94.2857, rel=1e-4
    )
    assert k["sim_ok"]
    assert s["sim_meets_bar"] and s["model_meets_bar"]
    t, s = va.judge(pts, va.Bar(), pd.Series([True] * 4))
    assert s["sim_within"] == 0.75 and not s["sim_meets_bar"]
    assert s["model_meets_bar"]
