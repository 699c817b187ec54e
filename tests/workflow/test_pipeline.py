# SPDX-License-Identifier: GPL-2.0-only
"""The whole workflow on the smoke study: simulator and testbed (as root) runs of the same
two points, the table, the summary and the report, with the physics checked end to end:
below the 100 Mbit/s knee nothing is lost, above it the receiver gets exactly what the
wire carries plus what the switch buffer held, in both sources."""

from __future__ import annotations

import zipfile

import pandas as pd
import pytest
from snakerun import STUDIES, is_root, job_counts, records, snakemake

from lanloss import study
from lanloss.analysis.wire import saturation_goodput_bps
from lanloss.units import format_rate

pytestmark = pytest.mark.slow

PAYLOAD = 1472
FRAME_BYTES = PAYLOAD + 28 + 14 + 4  # IP + UDP headers, MAC header, FCS: what a port buffers


def expected_received(rate_bps: float, duration: float, buffer_bytes: int) -> float:
    """Datagrams through a 100 Mbit/s port offered rate_bps for duration: all of them
    below the knee; above it the port's closed-form rate plus one full buffer."""
    offered = rate_bps * duration / (PAYLOAD * 8)
    through = saturation_goodput_bps(PAYLOAD, 100e6) * duration / (PAYLOAD * 8)
    return offered if offered <= through else through + buffer_bytes / FRAME_BYTES


def test_smoke_study_end_to_end(tmp_path):
    cfg = {"studies": ["smoke"], "bed_args": "--prefix llwf-"}
    proc = snakemake(tmp_path, "--cores", "2", config=cfg, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    sources = ["sim", "bed"] if is_root() else ["sim"]
    counts = job_counts(out)
    assert counts["sim_point"] == 2 and counts.get("bed_point", 0) == 2 * is_root()

    st = study.load(STUDIES / "smoke.yaml")
    results = tmp_path / "results"
    recs = {src: records(results / "runs" / "smoke" / src) for src in sources}
    for src in sources:
        assert set(recs[src]) == {p.id for p in st.points_for(src)}
        for rec in recs[src].values():
            t, p = rec["totals"], rec["params"]
            assert rec["source"] == src
            assert t["sent"] == t["received"] + sum(rec["drops"].values())
            want = expected_received(p["rate"], p["duration"], p["switch_buffer"])
            if src == "sim":  # to a few datagrams
                assert t["received"] == pytest.approx(want, rel=0.005), (p["rate"], t)
            else:  # never above the wire's rate; below it when the shaper, softirq work,
                # waits for a CPU on this shared 2-core machine (seen: -2.3 % .. +0.3 %,
                # and once more than -5 % under load)
                assert 0.9 * want <= t["received"] <= 1.02 * want, (p["rate"], want, t)
            if t["received"] < t["sent"]:
                assert rec["drops"]["switch_egress"] == t["sent"] - t["received"]

    table = pd.read_parquet(results / "tables" / "smoke.parquet")
    assert sorted(table["source"].unique()) == sorted(sources)
    assert len(table) == sum(len(r) for r in recs.values())  # one flow per run
    for row in table.itertuples():
        rec = recs[row.source][row.point]
        assert (row.sent, row.received) == (rec["totals"]["sent"], rec["totals"]["received"])

    summary = pd.read_csv(results / "tables" / "smoke-summary.csv")
    assert len(summary) == len(table)  # one run per point and source here
    for row in summary.itertuples():
        rec = next(
            r for r in recs[row.source].values() if format_rate(r["params"]["rate"]) == row.rate
        )
        assert row.runs == 1
        t = rec["totals"]
        assert (row.sent, row.lost) == (t["sent"], t["sent"] - t["received"])
        assert row.loss == pytest.approx(rec["totals"]["loss"], rel=1e-5)  # 6 digits in the CSV
        assert row.where_lost == ("-" if row.loss == 0 else "switch_egress 100%")

    report = snakemake(tmp_path, "--report", "results/report.zip", config=cfg)
    assert report.returncode == 0, (report.stdout + report.stderr)[-3000:]
    with zipfile.ZipFile(results / "report.zip") as z:
        assert any(n.endswith("smoke-summary.csv") for n in z.namelist())

    again = snakemake(tmp_path, "--cores", "2", config=cfg)
    assert "Nothing to be done" in again.stdout + again.stderr
