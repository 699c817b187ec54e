# SPDX-License-Identifier: GPL-2.0-only
"""Adaptive repetitions (lanloss.repetitions): the rule that says whether a testbed point runs
again, with exact cases of its Student-t interval; a study's `repetitions` in both forms and
the runs it plans; and bad values refused in one line naming them (exit 2)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from cli_checks import assert_refused

from lanloss import options, study
from lanloss.repetitions import Repetitions, decide, decide_round, half_width_pp
from lanloss.sweep import point_id

T975 = {1: 12.706204736174705, 2: 4.302652729749464, 3: 3.182446305284263}  # t(0.975, df)
ADAPTIVE = Repetitions(min=2, max=4, until=0.5, sim=1)


# -- the rule ---------------------------------------------------------------------------------


def test_half_width_is_the_student_t_interval_of_the_runs_losses():
    # two runs: s = |x1 - x2| / sqrt(2), so t(0.975, 1) * s / sqrt(2) = t * |x1 - x2| / 2
    assert half_width_pp([0.01, 0.02]) == pytest.approx(T975[1] * 0.005 * 100, rel=1e-12)
    # three runs 10, 11, 12 %: s = 1 pp
    assert half_width_pp([0.10, 0.11, 0.12]) == pytest.approx(T975[2] / math.sqrt(3), rel=1e-12)
    # four runs 0, 0, 0, 1 %: mean 0.25 %, s = 0.5 pp
    assert half_width_pp([0, 0, 0, 0.01]) == pytest.approx(T975[3] * 0.5 / 2, rel=1e-12)
    assert half_width_pp([0.3, 0.3]) == 0.0
    assert half_width_pp([0.3]) == math.inf  # one run has no interval


@pytest.mark.parametrize(
    "losses,repeat,why",
    [
        ([0.0, 0.0], False, "half-width 0 pp < 0.5"),  # two runs that agree: known
        ([0.2, 0.2], False, "half-width 0 pp < 0.5"),
        ([0.01, 0.02], True, "half-width 6.35 pp >= 0.5"),  # 1 and 2 %: not known
        ([0.0, 0.0018], True, "half-width 1.14 pp >= 0.5"),  # one disturbed run of 0.18 %
        ([0.0, 0.0007], False, "half-width 0.445 pp < 0.5"),  # 0.07 % apart: t1 * 0.035
        ([0.10, 0.11, 0.12], True, "half-width 2.48 pp >= 0.5"),
        ([0.10, 0.11, 0.12, 0.11], False, "4 runs, the most asked for"),  # max reached
        ([0.05], True, "1 of at least 2 runs"),  # below min
        ([], True, "0 of at least 2 runs"),
    ],
)
def test_decide(losses, repeat, why):
    d = decide(losses, ADAPTIVE)
    assert (d.repeat, d.why, d.n) == (repeat, why, len(losses))


def test_a_half_width_equal_to_until_repeats_below_it_stops():
    losses = [0.031, 0.034, 0.030]
    hw = half_width_pp(losses)
    assert decide(losses, Repetitions(2, 8, hw, 1)).repeat
    assert not decide(losses, Repetitions(2, 8, math.nextafter(hw, math.inf), 1)).repeat


def test_the_fixed_form_runs_its_count_whatever_the_losses():
    rule = Repetitions.fixed(3)
    assert not rule.adaptive and rule.planned("bed") == rule.planned("sim") == 3
    assert decide([0.0, 0.0], rule).repeat  # no interval can stop it early
    assert not decide([0.1, 0.9, 0.5], rule).repeat


def _record(path: Path, seed: int, sent: int, received: int) -> str:
    doc = {
        "schema": "lanloss.run/1",
        "source": "bed",
        "params": {"rate": 20_000_000, "seed": seed},
        "totals": {"sent": sent, "received": received, "loss": 1 - received / sent},
    }
    path.write_text(json.dumps(doc))
    return str(path)


def test_a_round_decides_each_point_from_its_records(tmp_path):
    agree = [_record(tmp_path / f"a{s}.json", s, 1000, 1000) for s in (2, 1)]  # any order
    apart = [_record(tmp_path / f"b{s}.json", s, 1000, 1000 - 10 * s) for s in (1, 2)]
    doc = decide_round(2, ADAPTIVE, {"a": agree, "b": apart})
    assert doc["repeat"] == ["b"]
    assert doc["points"]["a"]["seeds"] == [1, 2] and doc["points"]["a"]["half_width_pp"] == 0
    b = doc["points"]["b"]
    assert b["loss_pct"] == [1.0, 2.0] and b["mean_pct"] == 1.5
    assert b["half_width_pp"] == pytest.approx(T975[1] * 0.5, rel=1e-6)
    with pytest.raises(ValueError, match=r"point a has seeds \[1, 2\]"):
        decide_round(3, ADAPTIVE, {"a": agree})  # round 3 needs seeds 1..3


# -- studies ----------------------------------------------------------------------------------


def _study(reps, grid=None):
    return study.from_mapping(
        {
            "name": "r",
            "source": ["sim", "bed"],
            "repetitions": reps,
            "fixed": {"duration": "0.2s"},
            "grid": grid or {"rate": ["20Mbps", "40Mbps"]},
        }
    )


def test_an_adaptive_study_plans_min_runs_and_keeps_the_rest_for_later():
    st = _study({"min": 2, "max": 5, "until": 0.5})
    assert st.repetitions == Repetitions(2, 5, 0.5, 1) and st.repetitions.adaptive
    seeds = lambda pts: sorted((p.given["rate"], int(p.given["seed"])) for p in pts)  # noqa: E731
    rates = ("20Mbps", "40Mbps")
    assert seeds(st.points_for("bed")) == [(r, s) for r in rates for s in (1, 2)]
    assert seeds(st.points_for("sim")) == [(r, 1) for r in rates]  # the simulator: once
    assert seeds(st.later) == [(r, s) for r in rates for s in (3, 4, 5)]
    assert {p.source for p in st.later} == {"bed"}
    for group, runs in st.repetitions_of("bed").items():
        assert [int(p.params["seed"]) for p in runs] == [1, 2, 3, 4, 5]
        base = {n: v for n, v in runs[0].params.items() if n != "seed"}
        assert group == point_id(base)
        for p in runs:  # every run resolved for its source, named by its parameters
            assert p.params == options.resolve(p.given, "bed") and p.id == point_id(p.params)
            assert st.point("bed", p.id) is p
    # its first runs are the fixed form's: a study made adaptive keeps the records it has
    fixed = _study(2)
    assert {p.id for p in fixed.points_for("bed")} == {p.id for p in st.points_for("bed")}


def test_the_simulator_repeats_when_asked():
    st = _study({"max": 3, "until": 1, "sim": 2})
    assert st.repetitions == Repetitions(2, 3, 1.0, 2)
    assert sorted(int(p.given["seed"]) for p in st.points_for("sim")) == [1, 1, 2, 2]


def test_the_fixed_form_is_unchanged():
    st = _study(3)
    assert st.repetitions == Repetitions.fixed(3) and st.later == []
    for src in ("sim", "bed"):
        assert sorted(int(p.given["seed"]) for p in st.points_for(src)) == [1, 1, 2, 2, 3, 3]


# -- bad values: one line naming the value, exit 2 --------------------------------------------

STUDY = "name: x\nsource: [sim, bed]\nrepetitions: {}\nfixed: {{duration: 0.2s}}\n{}"
GRID = "grid: {rate: [20Mbps]}\n"
BAD = {
    "min-above-max": ("{min: 5, max: 3, until: 0.5}", "min 5 is more than max 3"),
    "until-zero": ("{max: 4, until: 0}", "until: 0 is not"),
    "until-negative": ("{max: 4, until: -0.5}", "until: -0.5 is not"),
    "until-text": ("{max: 4, until: 0.5pp}", "until: '0.5pp' is not"),
    "until-nan": ("{max: 4, until: .nan}", "until: nan is not"),
    "until-bool": ("{max: 4, until: true}", "until: True is not"),
    "max-over-limit": ("{max: 51, until: 0.5}", "max: 51 is not from 2 to 50"),
    "min-one": ("{min: 1, max: 4, until: 0.5}", "min: 1 is not from 2 to 50"),
    "min-fraction": ("{min: 2.5, max: 4, until: 0.5}", "min: 2.5 is not a whole number"),
    "max-float": ("{max: 4.0, until: 0.5}", "max: 4.0 is not a whole number"),
    "sim-zero": ("{max: 4, until: 0.5, sim: 0}", "sim: 0 is not from 1 to 1000"),
    "unknown-key": ("{max: 4, until: 0.5, maximum: 8}", "unknown key 'maximum'"),
    "no-until": ("{min: 2, max: 4}", "until missing"),
    "count-fraction": ("2.5", "repetitions: 2.5 is not a whole number"),
    "count-zero": ("0", "repetitions: 0 is not from 1 to 1000"),
    "count-over-limit": ("1001", "repetitions: 1001 is not from 1 to 1000"),
    "count-list": ("[2, 8]", "repetitions: [2, 8] is not"),
    "seed-and-adaptive": ("{max: 4, until: 0.5}", "seed is set in grid"),
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("repetitions")
    for name, (value, _) in BAD.items():
        grid = "grid: {rate: [20Mbps], seed: [1, 2]}\n" if name.startswith("seed") else GRID
        (d / f"{name}.yaml").write_text(STUDY.format(value, grid))
    return d


@pytest.mark.parametrize("name", list(BAD))
def test_bad_repetitions_are_named(name, workdir, tmp_path):
    file = f"{name}.yaml"
    named = (file, BAD[name][1]) + (("repetitions",) if "seed" not in name else ())
    assert_refused(["study", "check", file], named, workdir, tmp_path, "lltb-rep-")
