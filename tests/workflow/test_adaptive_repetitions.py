# SPDX-License-Identifier: GPL-2.0-only
"""Adaptive repetitions through the real workflow on the netns testbed: two points run seeds
1..min, then one seed more at a time while their loss's interval is too wide, up to max;
every round's file holds the decisions the rule makes on the records it names, and a
workflow interrupted after a repetition resumes without redoing it.

The verdicts are the rule's, recomputed from the records: how many runs a point needs
depends on what the machine did, so no count is assumed (a Poisson stream at 150 Mbit/s into
a 100 Mbit/s port loses a different share on every seed and almost always runs to max; CBR
at 20 Mbit/s loses nothing and stops at min unless a run was disturbed)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from snakerun import SNAKEFILE, config_args, interrupted, is_root, mtimes, snakemake

from lanloss import study
from lanloss.repetitions import decide

pytestmark = [
    pytest.mark.skipif(not is_root(), reason="needs root (network namespaces)"),
    pytest.mark.netns,
    pytest.mark.slow,
]

MIN, MAX = 2, 4
STUDY = f"""
name: adapt
description: two testbed points, repeated until their loss is known to 0.001 pp
source: [bed]
repetitions: {{min: {MIN}, max: {MAX}, until: 0.001}}
fixed: {{sender_rate: 1Gbps, duration: 0.2s, warmup: 0.02s}}
grids:
  - {{rate: [20Mbps], pattern: [cbr]}}
  - {{rate: [150Mbps], pattern: [poisson]}}
"""


def _after_a_repetition() -> Callable[[str], bool]:
    """Whether an output line is the end of a testbed run made after the first round."""
    decided = False

    def stop(line: str) -> bool:
        nonlocal decided
        decided = decided or "(Rule: repetitions)" in line
        return decided and line.startswith("Finished jobid") and "(Rule: bed_point)" in line

    return stop


def _check_rounds(st: study.Study, runs: Path, rounds: Path) -> dict[str, int]:
    """Every point's seeds are 1..n with min <= n <= max, and each round file holds the rule's
    decisions on seeds 1..k of the points it names: a point runs seed k + 1 exactly when its
    round k said so. Returns {point: n}."""
    rule = st.repetitions
    losses: dict[str, dict[int, float]] = {}
    for f in runs.glob("*.json"):
        rec = json.loads(f.read_text())
        point = st.point("bed", f.stem)
        assert rec["params"]["seed"] == int(point.given["seed"])  # the record's repetition
        losses.setdefault(point.group, {})[rec["params"]["seed"]] = rec["totals"]["loss"]
    n = {g: len(seeds) for g, seeds in losses.items()}
    assert set(n) == set(st.repetitions_of("bed"))
    for g, seeds in losses.items():
        assert sorted(seeds) == list(range(1, n[g] + 1)) and MIN <= n[g] <= MAX, seeds
    for k in range(MIN, MAX + 1):  # round k decides on the points that ran seed k
        running = {g for g in n if n[g] >= k}
        path = rounds / f"round-{k}.json"
        assert path.exists() == bool(running), (k, n)
        if not running:
            continue
        doc = json.loads(path.read_text())
        assert set(doc["points"]) == running, (k, n)
        for g, p in doc["points"].items():
            d = decide([losses[g][s] for s in range(1, k + 1)], rule)
            assert p["repeat"] == d.repeat == (n[g] > k), (k, g, p)
            assert p["seeds"] == list(range(1, k + 1)) and p["why"] == d.why
        assert sorted(doc["repeat"]) == sorted(g for g in running if n[g] > k)
    return n


def test_repetitions_stop_by_the_rule_and_resume_without_redoing_any(tmp_path):
    (tmp_path / "adapt.yaml").write_text(STUDY)
    cfg = {
        "studies": ["adapt.yaml"],
        "bed_args": f"--prefix lltb-ad- --state-dir {tmp_path / 'state'}",
    }
    runs = tmp_path / "results" / "runs" / "adapt" / "bed"
    rounds = tmp_path / "results" / "repetitions" / "adapt"
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "-d", str(tmp_path)]
    cmd += ["runs", "--cores", "2", *config_args(cfg)]
    _, first = interrupted(cmd, tmp_path, _after_a_repetition())
    made, decided = mtimes(runs), mtimes(rounds)
    assert len(made) >= 2 * MIN and "round-2.json" in decided, first[-3000:]
    assert not list(runs.glob(".tmp-*")), "a partial record was left behind"

    resumed = snakemake(tmp_path, "tables", "--cores", "2", "--rerun-incomplete", config=cfg)
    assert resumed.returncode == 0, (resumed.stdout + resumed.stderr)[-3000:]
    after = mtimes(runs)
    # the jobs it ran (its first job table lists only those known before the rounds)
    out = resumed.stdout + resumed.stderr
    ran = re.findall(r"^Finished jobid: \d+ \(Rule: bed_point\)", out, re.M)
    assert len(ran) == len(after) - len(made)
    assert {f: after[f] for f in made} == made  # no finished repetition was redone
    assert {f: t for f, t in mtimes(rounds).items() if f in decided} == decided

    st = study.load(tmp_path / "adapt.yaml")
    n = _check_rounds(st, runs, rounds)
    table = pd.read_parquet(tmp_path / "results" / "tables" / "adapt.parquet")
    assert len(table) == sum(n.values())  # one row per run (one receiver): every repetition
