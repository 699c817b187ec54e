# SPDX-License-Identifier: GPL-2.0-only
"""`snakemake -n` on every shipped study plans exactly the study's runs; a bad study
stops the workflow before any job, naming the bad value."""

from __future__ import annotations

import pytest
from snakerun import REPO, STUDIES, is_root, job_counts, snakemake

from lanloss import study

SHIPPED = ["default", *sorted(p.stem for p in STUDIES.glob("*.yaml"))]


def _study(name):
    return study.load(
        REPO / "config" / "config.yaml" if name == "default" else STUDIES / f"{name}.yaml"
    )


@pytest.mark.parametrize("name", SHIPPED)
def test_dry_run_plans_every_point(tmp_path, name):
    proc = snakemake(tmp_path, "-n", "--cores", "2", config={"studies": [name]})
    assert proc.returncode == 0, proc.stderr[-3000:]
    st = _study(name)
    counts = job_counts(proc.stdout + proc.stderr)
    assert counts.get("sim_point", 0) == len(st.points_for("sim"))
    bed = len(st.points_for("bed")) if is_root() else 0
    assert counts.get("bed_point", 0) == bed
    assert counts["table"] == counts["summary"] == 1
    assert counts.get("fit", 0) == int(st.fit)
    assert counts.get("figure", 0) == len(st.figures)


def test_bed_off_leaves_the_testbed_out_and_says_so(tmp_path):
    proc = snakemake(tmp_path, "-n", "--cores", "2", config={"studies": ["smoke"], "bed": "off"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert "skipping the 2 testbed runs of study smoke" in out
    counts = job_counts(out)
    assert counts["sim_point"] == 2 and "bed_point" not in counts


BAD = [
    ("name: bad\ngrid: {rate: [20Mbps], colour: [red]}\n", "unknown option 'colour'"),
    ("name: bad\ngrid: {pause: [maybe]}\n", "'maybe'"),
    ("name: bad\ngrid: {rate: [fastMbps]}\n", "fastMbps"),
    ("name: bad\nsource: [sim, cloud]\n", "'cloud'"),
]


@pytest.mark.parametrize(
    "text,named", BAD, ids=["unknown option", "bad choice", "bad rate", "bad source"]
)
def test_bad_study_stops_the_workflow_naming_it(tmp_path, text, named):
    (tmp_path / "bad.yaml").write_text(text)
    proc = snakemake(tmp_path, "-n", "--cores", "2", config={"studies": ["bad.yaml"]})
    out = proc.stdout + proc.stderr  # Snakemake prints a parse error on stdout
    assert proc.returncode != 0
    assert named in out and "bad.yaml" in out, out[-3000:]
    assert not (tmp_path / "results").exists()


def test_unknown_study_name_is_named(tmp_path):
    proc = snakemake(tmp_path, "-n", "--cores", "2", config={"studies": ["nosuch"]})
    assert proc.returncode != 0
    assert "no study 'nosuch'" in proc.stdout + proc.stderr
