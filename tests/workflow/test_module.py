# SPDX-License-Identifier: GPL-2.0-only
"""The workflow as a Snakemake module of another workflow (`module lanloss: snakefile: ...
config: {...}` and `use rule * from lanloss as lanloss_*`): a simulation-only study run to
its table with every file under the outer workflow's folder, the physics of its records
checked; and `snakemake --lint` finds nothing but what this project cannot do here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from snakerun import REPO, SNAKEFILE, job_counts, records
from test_pipeline import expected_received

from lanloss import provenance
from lanloss.sim import SCENARIO

# Two points either side of the 100 Mbit/s knee, in the simulator only.
STUDY = """\
name: outer-mini
description: two simulator points of a workflow that uses lanloss as a module
source: [sim]
repetitions: 1
fixed:
  sender_rate: 1Gbps
  duration: 0.3s
  warmup: 0.05s
grid:
  rate: [50Mbps, 150Mbps]
"""


def outer_workflow(folder: Path, config: dict) -> Path:
    """An outer workflow in folder that uses lanloss as a module with config."""
    snakefile = folder / "Snakefile"
    snakefile.write_text(
        "module lanloss:\n"
        f"    snakefile: {str(SNAKEFILE)!r}\n"
        f"    config: {config!r}\n"
        "\n"
        "use rule * from lanloss as lanloss_*\n"
        "\n"
        "onsuccess:\n"  # a module's own handlers are not run: the outer one calls them
        "    lanloss.take_down_standing_lan()\n"
    )
    return snakefile


def run_outer(folder: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(folder / "Snakefile"), "-d", str(folder)]
    return subprocess.run(
        [*cmd, *args], capture_output=True, text=True, timeout=timeout, cwd=folder
    )


@pytest.mark.slow
def test_a_study_runs_to_its_table_as_a_module(tmp_path):
    (tmp_path / "mini.yaml").write_text(STUDY)
    cfg = {"studies": [str(tmp_path / "mini.yaml")], "results": "lanloss-results", "bed": "off"}
    outer_workflow(tmp_path, cfg)
    proc = run_outer(tmp_path, "--cores", "2")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    counts = job_counts(out)
    assert counts["lanloss_sim_point"] == 2
    assert counts["lanloss_table"] == counts["lanloss_summary"] == counts["lanloss_versions"] == 1
    assert "lanloss_bed_point" not in counts

    results = tmp_path / "lanloss-results"
    recs = records(results / "runs" / "outer-mini" / "sim")
    assert len(recs) == 2
    for rec in recs.values():
        t, p = rec["totals"], rec["params"]
        assert t["sent"] == t["received"] + sum(rec["drops"].values())
        want = expected_received(p["rate"], p["duration"], p["switch_buffer"])
        assert t["received"] == pytest.approx(want, rel=0.005), (p["rate"], t)
    assert (results / "tables" / "outer-mini.parquet").stat().st_size > 0
    assert (results / "tables" / "outer-mini-summary.csv").read_text().count("\n") == 3

    # versions.txt: this environment's versions, as each record's env has them
    program = REPO / "build" / "bin" / SCENARIO
    expected = provenance.versions(program)
    assert (results / "versions.txt").read_text() == provenance.versions_text(expected)
    for rec in recs.values():
        assert rec["env"]["versions"] == json.loads(json.dumps(expected))

    # nothing escaped into the checkout or the working folder's other places
    made = {p.relative_to(tmp_path).parts[0] for p in tmp_path.iterdir()}
    assert made == {"Snakefile", "mini.yaml", "lanloss-results", ".snakemake"}

    again = run_outer(tmp_path, "--cores", "2")
    assert "Nothing to be done" in again.stdout + again.stderr, again.stderr[-3000:]
    report = run_outer(tmp_path, "--report", "lanloss-results/report.zip")
    assert report.returncode == 0, (report.stdout + report.stderr)[-3000:]
    assert (results / "report.zip").stat().st_size > 0


def test_a_shipped_study_is_found_in_the_modules_checkout(tmp_path):
    """A study named by NAME is config/studies/NAME.yaml of the lanloss checkout, not of
    the outer workflow's folder; its figure captions come from there too."""
    outer_workflow(tmp_path, {"studies": ["smoke", "tiny"], "bed": "off"})
    proc = run_outer(tmp_path, "-n", "--cores", "2")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    counts = job_counts(out)
    assert counts["lanloss_table"] == 2
    assert counts["lanloss_sim_point"] > 2


# The one lint left: rules name no conda environment or container, since this project's
# software comes from requirements.lock (make setup) and neither conda channels nor
# container registries are reached where it is built and tested.
SOFTWARE_LINT = "Specify a conda environment or container for each rule."


def lints(output: str) -> dict[str, list[str]]:
    """`snakemake --lint` text -> {what was linted: [titles]}."""
    found: dict[str, list[str]] = {}
    where = None
    for line in output.splitlines():
        m = re.match(r"Lints for (.+?)(?: \(line \d+, .*\))?:$", line)
        if m:
            where = m.group(1)
            found[where] = []
        elif where and (m := re.match(r"    \* (.+):$", line)):
            found[where].append(m.group(1))
    return found


def test_lint_finds_nothing_but_the_missing_conda_environments(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--lint", "-s", str(SNAKEFILE), "-d", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    found = lints(proc.stdout + proc.stderr)
    assert found, (proc.stdout + proc.stderr)[-3000:]  # the output was read
    others = {where: t for where, t in found.items() if t != [SOFTWARE_LINT]}
    assert others == {}
    assert all(where.startswith("rule ") for where in found)
