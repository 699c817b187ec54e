# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss figures`: the reference data, the error table, and the command's contract
(--list, outputs, bad tables rejected with exit 2 before anything is written)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from figures_tables import real_table

from lanloss import cli as lanloss_cli
from lanloss.analysis import figures
from lanloss.analysis.figures import common


def main(capsys, *args: str) -> tuple[int, str, str]:
    """`lanloss ARGS` in this process (the real entry point): exit code, stdout, stderr."""
    code = lanloss_cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def udp_table(tmp_path_factory, built):
    """Two real simulator runs: 576-byte datagrams at 100 Mbit/s into the e1000-era host with a
    16 KiB socket buffer (setsockopt value), at 50 Mbit/s and as fast as the sender goes."""
    folder = tmp_path_factory.mktemp("records")
    fixed = {"payload": 576, "host": "e1000-2008", "rcvbuf": "16KiB", "duration": "0.05s"}
    pts = [{**fixed, "warmup": "0.01s", "rate": r} for r in ("50Mbps", "max")]
    return real_table(folder, pts, "cli")


# -- reference data ------------------------------------------------------------------------


def test_every_reference_csv_parses_and_cites_its_seed():
    names = common.reference_files()
    assert {
        "seed000_fig6_facts.csv",
        "seed001_netperf_100m.csv",
        "seed002_facts.csv",
        "seed004_model1.csv",
        "seed004_model2.csv",
        "seed004_payload_limits.csv",
    } <= set(names)
    for name in names:
        frame, citation = common.load_reference(name)
        assert len(frame) > 0, name
        assert citation.lower().startswith("seed 00"), (name, citation)


def test_reference_values_are_the_seeds():
    m1, _ = common.load_reference("seed004_model1.csv")
    m2, _ = common.load_reference("seed004_model2.csv")
    assert m1.set_index("processes")["packets_per_s"].to_dict() == {
        1: 791676.1,
        2: 1016197,
        4: 1395040,
        8: 1491744,
    }
    assert m2.set_index("processes")["nic_mbps"][2] == 855.542
    assert math.isnan(m2.set_index("processes")["cpu_percent"][4])  # not recorded
    limits, _ = common.load_reference("seed004_payload_limits.csv")
    assert sorted(limits["payload_bytes"]) == [548, 1472, 65507]
    facts, _ = common.load_reference("seed000_fig6_facts.csv")
    by = facts.set_index("fact")
    assert by.loc["best_itr", "value"] == 2500
    assert by.loc["tuned_loss", "relation"] == "max" and by.loc["tuned_loss", "value"] == 1e-4
    ll, _ = common.load_reference("seed001_netperf_100m.csv")
    assert len(ll) == 13 * 8  # 13 buffers x (TCP, UDP) x 4 message sizes


def test_a_reference_without_citation_is_refused(tmp_path, monkeypatch):
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    monkeypatch.setattr(common, "REFERENCE_DIR", tmp_path)
    with pytest.raises(common.FigureInputError, match="no citation"):
        common.load_reference("x.csv")


# -- the error table -----------------------------------------------------------------------


def test_error_table_numbers_for_a_hand_made_point():
    rows = [
        common.error_row(
            "udp 1472 B", "throughput", "Mbit/s", 95.9, sim=95.0, bed=96.4, evidence="predicted"
        ),
        common.error_row(
            "tuned", "loss", "", 1e-4, sim=2e-4, bed=0.0, relation="max", evidence="predicted"
        ),
        common.error_row(
            "slope", "slope", "", 0.0, sim=-1.2, relation="below", evidence="closed form"
        ),
    ]
    t = common.error_table("demo", rows)
    assert list(t.columns) == list(common.ERROR_COLUMNS)
    a, b, c = (t.iloc[i] for i in range(3))
    assert a["sim_rel_error_pct"] == pytest.approx(-0.93848, abs=1e-5)  # -0.94 %
    assert round(a["sim_rel_error_pct"], 2) == -0.94
    assert a["bed_rel_error_pct"] == pytest.approx(100 * 0.5 / 95.9)
    assert math.isnan(a["model_rel_error_pct"])
    assert pd.isna(a["sim_meets"])  # no bound
    assert b["sim_meets"] == False and b["bed_meets"] == True  # noqa: E712
    assert b["sim_rel_error_pct"] == pytest.approx(100.0)
    assert math.isnan(c["sim_rel_error_pct"])  # reference 0: no relative error
    assert c["sim_meets"] == True  # noqa: E712
    assert set(t["figure"]) == {"demo"}


def test_counts_hold_each_kind_to_its_bar_and_the_caption_groups_them():
    from lanloss.analysis.figures import evidence

    rows = [
        common.error_row("a", "q", "", 100.0, sim=104.9, evidence="predicted"),  # holds
        common.error_row("b", "q", "", 100.0, sim=94.9, evidence="predicted"),  # off by 5.1 %
        common.error_row("c", "q", "", 1e-4, sim=2e-4, relation="max", evidence="predicted"),
        common.error_row("d", "q", "", 2500, sim=2500, relation="equal", evidence="predicted"),
        common.error_row("e", "q", "", 100.0, evidence="predicted"),  # no simulated value
        common.error_row("f", "q", "", 100.0, sim=100.0, evidence="calibrated"),
        common.error_row("g", "q", "", 100.0, sim=100.0, evidence="closed form"),
    ]
    t = common.error_table("demo", rows)
    t["kind"] = ["host-bound"] * 5 + ["calibrated", "closed form"]
    c = evidence.counts(t)
    # b is off by 5.1 %: not within 5 %, within 10 %; c breaks its bound at any tolerance
    assert c["host-bound"] == {"rows": 5, "judged": 4, "held": 2, "within_loose": 3}
    assert c["calibrated"] == {"rows": 1, "judged": 1, "held": 1, "within_loose": 1}
    assert c["closed form"]["rows"] == 1 and c["wire-bound"]["rows"] == 0
    line = evidence.summary_line("demo", t)
    assert line.startswith("demo: host-bound predicted rows that hold: 2 of 4 (50 %) within 5 %")
    assert "3 of 4 (75 %) within 10 %" in line and "1 calibrated" in line
    text = evidence.caption("demo", t)
    assert "- b, q: 94.9 against 100 (-5.1 %) [OFF]" in text
    assert "- c, q: 0.0002, bound <= 0.0001 broken [OFF]" in text
    assert "- e, q: no simulated value" in text
    with pytest.raises(ValueError, match="evidence 'fitted'"):
        common.error_row("x", "q", "", 1.0, sim=1.0, evidence="fitted")


def test_runs_pool_flows_and_loss_counts():
    t = pd.DataFrame(
        {
            "run_file": ["a", "a", "b"],
            "source": ["sim"] * 3,
            "rate": [1e6] * 3,
            "sent": [100, 300, 50],
            "lost": [10, 30, 0],
            "received": [90, 270, 50],
            "goodput_bps": [1.0, 2.0, 4.0],
            "drop_switch_egress": [10, 30, 0],
        }
    )
    r = common.runs(t).set_index("run_file")
    assert r.loc["a", "sent"] == 400 and r.loc["a", "lost"] == 40
    assert r.loc["a", "loss"] == pytest.approx(0.1)
    assert r.loc["a", "goodput_bps"] == 3.0 and r.loc["a", "n_flows_summed"] == 2
    pooled = common.pooled_loss(r.reset_index(), ["rate"])
    assert pooled["loss"].iloc[0] == pytest.approx(40 / 450)  # counts pooled, not means
    assert pooled["lo"].iloc[0] == 0 and pooled["hi"].iloc[0] == pytest.approx(0.1)


# -- the command ---------------------------------------------------------------------------


def test_list_names_every_figure_and_its_study(capsys):
    code, stdout, stderr = main(capsys, "figures", "--list")
    assert code == 0, stderr
    lines = stdout.strip().splitlines()
    assert len(lines) == len(figures.FIGURES)
    for name, line in zip(figures.FIGURES, lines, strict=True):
        mod = figures.module(name)
        assert line.split()[0] == name and f"study {mod.STUDY}" in line and mod.SHOWS in line


def test_cli_writes_png_pdf_and_errors(cli, udp_table, tmp_path):
    path = tmp_path / "t.parquet"
    udp_table.to_parquet(path)
    out_dir = tmp_path / "figs"
    out = cli("figures", "seed001", "--table", str(path), "--out", f"{out_dir}/")
    assert out.returncode == 0, out.stderr
    png, pdf, csv = (out_dir / f for f in ("seed001.png", "seed001.pdf", "seed001-errors.csv"))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 5_000
    errors = pd.read_csv(csv)
    assert list(errors.columns) == list(common.ERROR_COLUMNS)
    row = errors[errors["point"] == "udp 576 B, buffer 16384 B"].iloc[0]
    assert row["reference_value"] == 89.59  # seed 001, LL, 16 KiB, 576 B
    measured = udp_table[udp_table["rate_max"]]["goodput_bps"].iloc[0] / 1e6
    assert row["sim_value"] == pytest.approx(measured, rel=1e-5)
    assert row["sim_rel_error_pct"] == pytest.approx(100 * (measured - 89.59) / 89.59, rel=1e-4)
    # the notes (no testbed rows, no TCP) go to stderr and into the figure
    assert "no testbed (netns) rows" in out.stderr and "no TCP runs" in out.stderr
    # the caption states the figure's own numbers, grouped by what they are evidence of
    caption = (out_dir / "seed001-caption.md").read_text()
    assert f"{measured:.4g} Mbit/s against 89.59" in caption and "Predicted" in caption
    assert "host-bound predicted rows that hold" in out.stderr
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "seed001-caption.md",
        "seed001-errors.csv",
        "seed001.pdf",
        "seed001.png",
    ]  # no temporary files left


def test_a_table_missing_columns_is_rejected_naming_them(capsys, udp_table, tmp_path):
    path = tmp_path / "t.parquet"
    udp_table.drop(columns=["goodput_bps", "rcvbuf"]).to_parquet(path)
    out_dir = tmp_path / "figs"
    code, _, stderr = main(
        capsys, "figures", "seed001", "--table", str(path), "--out", str(out_dir)
    )
    assert code == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "rcvbuf" in lines[0] and "goodput_bps" in lines[0], stderr
    assert not out_dir.exists()


@pytest.mark.parametrize(
    "args,needle",
    [
        (["nosuch", "--table", "T", "--out", "D"], "unknown figure 'nosuch'"),
        (["seed001", "--out", "D"], "--table and --out are required"),
        (["seed001", "--table", "/nonexistent.parquet", "--out", "D"], "does not exist"),
        ([], "name a figure"),
    ],
)
def test_bad_arguments_exit_2(capsys, args, needle):
    code, _, stderr = main(capsys, "figures", *args)
    assert code == 2 and needle in stderr, stderr


def test_a_file_that_is_not_parquet_or_a_fit_that_is_not_json_exits_2(capsys, udp_table, tmp_path):
    bad = tmp_path / "t.parquet"
    bad.write_text("not parquet\n")
    code, _, err = main(capsys, "figures", "seed003", "--table", str(bad), "--out", str(tmp_path))
    assert code == 2 and "not a readable Parquet table" in err
    good = tmp_path / "good.parquet"
    udp_table.to_parquet(good)
    fit = tmp_path / "fit.json"
    args = ("figures", "simbed", "--table", str(good), "--fit", str(fit), "--out", str(tmp_path))
    fit.write_text("{ nope")
    code, _, err = main(capsys, *args)
    assert code == 2 and "not a readable JSON fit" in err
    fit.write_text('{"schema": "other/1"}')
    code, _, err = main(capsys, *args)
    assert code == 2 and "lanloss.fit/1" in err
    fit.write_text('{"schema": "lanloss.fit/1"}')  # the right schema, nothing in it
    code, _, err = main(capsys, *args)
    assert code == 2 and "missing 'model'" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fit.json", "good.parquet", "t.parquet"]


def test_a_zero_reference_is_held_only_by_zero_and_the_bar_is_validates():
    from lanloss.analysis import validate
    from lanloss.analysis.figures import common, evidence

    zero = common.error_row("p", "loss", "", 0.0, sim=0.0, evidence="predicted")
    assert evidence.holds(zero) is True  # 0 against 0: no relative error, but agreement
    assert (
        evidence.holds(common.error_row("p", "loss", "", 0.0, sim=1e-4, evidence="predicted"))
        is False
    )
    bar = validate.Bar()
    for ref, sim in ((0.0, 0.004), (0.0, 0.006), (0.2, 0.229), (0.2, 0.231)):
        row = common.error_row("p", "loss", "", ref, sim=sim, relation="bar", evidence="predicted")
        assert evidence.holds(row) == bar.within(sim, ref)
