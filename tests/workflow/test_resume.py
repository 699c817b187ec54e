# SPDX-License-Identifier: GPL-2.0-only
"""Resume: a finished workflow re-run recomputes nothing; deleting one run record
recomputes only that point; an interrupted workflow finishes without redoing the points
that have a record."""

from __future__ import annotations

import os
import sys

import pytest
from snakerun import (
    SNAKEFILE,
    STUDIES,
    config_args,
    finished_outputs,
    interrupted,
    job_counts,
    mtimes,
    records,
    snakemake,
)

from lanloss import study
from lanloss.sweep import point_id

pytestmark = pytest.mark.slow  # each runs the workflow three times (~2 s of start-up each)


def test_rerun_does_nothing_and_a_deleted_record_is_the_only_job(tmp_path):
    cfg = {"studies": ["tiny"]}
    runs = tmp_path / "results" / "runs" / "tiny" / "sim"
    first = snakemake(tmp_path, "runs", "--cores", "2", config=cfg)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert job_counts(first.stdout + first.stderr)["sim_point"] == 4

    recs = records(runs)
    assert set(recs) == {p.id for p in study.load(STUDIES / "tiny.yaml").points}
    for stem, rec in recs.items():
        assert rec["source"] == "sim"
        assert point_id(rec["params"]) == stem  # the file name names the record's parameters
        t = rec["totals"]
        assert t["sent"] == t["received"] + sum(rec["drops"].values())
        log = (tmp_path / "results" / "logs" / "tiny" / "sim" / f"{stem}.log").read_text()
        assert log.startswith("host=") and "slurm_job_id=none" in log
        # the physics of the four points: 150 Mbit/s into a 95.71 Mbit/s link loses in the
        # switch unless PAUSE holds the excess in the sender's 1 MiB queue (50 ms: 223 kB)
        p = rec["params"]
        lossy = p["rate"] == 150_000_000 and p["pause"] == "off"
        assert (rec["drops"]["switch_egress"] > 0) is lossy
        assert (t["received"] < t["sent"]) is lossy

    before = mtimes(runs)
    again = snakemake(tmp_path, "runs", "--cores", "2", config=cfg)
    assert again.returncode == 0
    assert "Nothing to be done" in again.stdout + again.stderr
    assert job_counts(again.stdout + again.stderr) == {}
    assert mtimes(runs) == before

    victim = sorted(before)[1]
    (runs / victim).unlink()
    third = snakemake(tmp_path, "runs", "--cores", "2", config=cfg)
    assert third.returncode == 0
    out = third.stdout + third.stderr
    assert job_counts(out) == {"sim_point": 1, "runs": 1, "total": 2}
    assert f"point={victim.removesuffix('.json')}" in out
    after = mtimes(runs)
    assert set(after) == set(before)
    assert {n for n in after if after[n] != before[n]} == {victim}
    assert records(runs)[victim.removesuffix(".json")]["params"] == recs[victim[:-5]]["params"]


SLOWER = """
name: slower
description: six points that each take a few tenths of a second
source: [sim]
fixed: {sender_rate: 1Gbps, duration: 0.5s, warmup: 0.05s}
grid:
  rate: [50Mbps, 80Mbps, 120Mbps]
  pause: [off, on]
"""


def test_interrupted_workflow_resumes_with_the_unfinished_points(tmp_path):
    (tmp_path / "slower.yaml").write_text(SLOWER)
    cfg = {"studies": ["slower.yaml"]}
    runs = tmp_path / "results" / "runs" / "slower" / "sim"
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "-d", str(tmp_path)]
    cmd += ["runs", "--cores", "1", *config_args(cfg)]
    # Ctrl-C once Snakemake has finished a point
    code, first = interrupted(cmd, tmp_path, lambda line: line.startswith("Finished jobid"))
    assert code != 0, first[-3000:]
    finished = {os.path.basename(f) for f in finished_outputs(first)}
    assert 1 <= len(finished) < 6, first[-3000:]
    done = mtimes(runs)
    assert finished <= set(done)
    assert not list(runs.glob(".tmp-*")), "a partial record was left behind"

    resumed = snakemake(tmp_path, "runs", "--cores", "2", "--rerun-incomplete", config=cfg)
    assert resumed.returncode == 0, resumed.stdout[-3000:]
    assert job_counts(resumed.stdout + resumed.stderr)["sim_point"] == 6 - len(finished)
    after = mtimes(runs)
    assert len(after) == 6
    assert all(after[n] == done[n] for n in finished)  # finished points were not redone
