# SPDX-License-Identifier: GPL-2.0-only
"""The workflow on Slurm: a one-node cluster on this machine runs the tiny study through
`snakemake --profile profiles/slurm`, every simulation point as a Slurm job.

Needs root (it installs slurm-wlm and munge when missing and starts slurmctld, slurmd and
a private munged, all stopped again by PID). About 30 s, most of it Slurm's scheduling
and the executor's first status check (init-seconds 5).
"""

from __future__ import annotations

import re
import subprocess

import pytest
from slurm_cluster import SlurmSkip, one_node_slurm
from snakerun import REPO, STUDIES, is_root, records, snakemake

from lanloss import study
from lanloss.sweep import point_id

pytestmark = [pytest.mark.slurm, pytest.mark.slow]


@pytest.fixture
def slurm(tmp_path):
    if not is_root():
        pytest.skip("needs root: installs slurm-wlm and munge, starts slurmctld/slurmd/munged")
    try:
        with one_node_slurm(tmp_path / "slurm") as env:
            yield env
    except SlurmSkip as exc:
        pytest.skip(str(exc))


def test_tiny_study_runs_as_slurm_jobs(tmp_path, slurm):
    wd = tmp_path / "wf"
    wd.mkdir()
    proc = snakemake(
        wd,
        "runs",
        "--profile",
        str(REPO / "profiles" / "slurm"),
        config={"studies": ["tiny"]},
        env=slurm,
        timeout=300,  # the executor can wait forever on a status it cannot read (docs/slurm.md)
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]

    runs = wd / "results" / "runs" / "tiny" / "sim"
    recs = records(runs)
    assert set(recs) == {p.id for p in study.load(STUDIES / "tiny.yaml").points}
    job_ids = {}
    for stem, rec in recs.items():
        assert point_id(rec["params"]) == stem
        t = rec["totals"]
        assert t["sent"] == t["received"] + sum(rec["drops"].values())
        log = (wd / "results" / "logs" / "tiny" / "sim" / f"{stem}.log").read_text()
        m = re.search(r"slurm_job_id=(\d+)", log)
        assert m, f"{stem} did not run inside a Slurm job: {log[:300]}"
        job_ids[stem] = m.group(1)
    assert len(set(job_ids.values())) == 4  # one Slurm job per point

    # Slurm itself knows them as completed jobs (squeue keeps them for MinJobAge)
    q = subprocess.run(
        ["squeue", "--states=all", "--noheader", "--format=%i|%T"],
        capture_output=True,
        text=True,
        env=slurm,
        check=True,
    )
    states = dict(line.split("|") for line in q.stdout.split())
    assert all(states.get(j) == "COMPLETED" for j in job_ids.values()), (job_ids, states)
