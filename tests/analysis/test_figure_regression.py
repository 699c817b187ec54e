# SPDX-License-Identifier: GPL-2.0-only
"""Figures that cannot move unnoticed: the simulator's side of every seed figure's error table,
and of the default study's summary, regenerated (same points, same seeds) and compared with
the references committed in analysis/reference/regression/ (`lanloss figures --regress`).

The slow tests regenerate them from real simulator runs (tests/analysis/regression_runs.py,
the workflow's points and commands with the testbed off) and then change one constant of a
host preset, in a copy of lanloss, to show that the check names the rows it moves. The fast
tests hold the comparison's rule to exact cases made from the committed references.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from regression_runs import REPO, regenerate

from lanloss.analysis import regression

REFDIR = REPO / "analysis" / "reference" / "regression"
SEEDS = ("seed000", "seed001", "seed002", "seed003", "seed004")
DEFAULT = "default"  # config/config.yaml's study: its summary's simulator rows
RUNS = Path(__file__).resolve().parent / "regression_runs.py"
# `lanloss figures --regress` on tables equal to the references: the rows each holds
AS_REFERENCES = [
    f"{DEFAULT}-summary: 51 rows as the reference",
    "seed000: 7 rows as the reference",
    "seed001: 35 rows as the reference",
    "seed002: 14 rows as the reference",
    "seed003: 10 rows as the reference",
    "seed004: 21 rows as the reference",
]


# -- the comparison's rule, on copies of the committed references (fast) --------------------


def _copy(tmp_path: Path, name: str) -> tuple[pd.DataFrame, Path]:
    """A reference as text cells, and where its altered copy goes (the same file name)."""
    frame = pd.read_csv(REFDIR / name, dtype=str, keep_default_na=False)
    fresh = tmp_path / "fresh"
    fresh.mkdir(exist_ok=True)
    return frame, fresh / name


def _row_of(frame: pd.DataFrame, column: str) -> int:
    """The first row with a value in `column`."""
    return int(frame.index[frame[column] != ""][0])


def test_the_references_compare_equal_to_themselves(run):
    files = sorted(REFDIR.glob("*.csv"))
    assert [f.name for f in files] == sorted(
        [f"{s}-errors.csv" for s in SEEDS] + [f"{DEFAULT}-summary.csv"]
    )
    code, out, err = run("figures", "--regress", REFDIR, *files)
    assert (code, err) == (0, "")
    assert sorted(out.splitlines()) == AS_REFERENCES


def test_noise_in_the_last_written_digit_is_no_change_and_more_is_named(tmp_path, run):
    frame, path = _copy(tmp_path, "seed004-errors.csv")
    i = _row_of(frame, "sim_value")
    value = float(frame.at[i, "sim_value"])
    frame.at[i, "sim_value"] = repr(value * (1 + 5e-10))  # within one part in 10^9
    frame.to_csv(path, index=False)
    code, out, _ = run("figures", "--regress", REFDIR, path)
    assert code == 0, out
    frame.at[i, "sim_value"] = repr(value * (1 + 5e-9))  # beyond it
    frame.to_csv(path, index=False)
    code, out, _ = run("figures", "--regress", REFDIR, path)
    assert code == 1
    point, quantity = frame.at[i, "point"], frame.at[i, "quantity"]
    old = pd.read_csv(REFDIR / "seed004-errors.csv", dtype=str).at[i, "sim_value"]
    assert out.splitlines() == [
        f"seed004 | {point} | {quantity} | sim_value: {old} -> {value * (1 + 5e-9)!r}",
        "seed004: 1 difference from the reference (21 rows)",
    ]


def test_missing_new_and_retyped_rows_are_named_and_bed_columns_are_not_compared(tmp_path, run):
    frame, path = _copy(tmp_path, "seed001-errors.csv")
    gone = frame.iloc[0]
    frame = frame.iloc[1:].copy()
    extra = frame.iloc[[0]].copy()
    extra["point"] = "a point no reference has"
    frame = pd.concat([frame, extra], ignore_index=True)
    j = _row_of(frame, "ideal_value")
    frame.at[j, "kind"] = "calibrated" if frame.at[j, "kind"] != "calibrated" else "host-bound"
    frame["bed_value"] = "1.5"  # the testbed's columns: never compared
    frame.to_csv(path, index=False)
    code, out, _ = run("figures", "--regress", REFDIR, path)
    assert code == 1
    old_kind = pd.read_csv(REFDIR / "seed001-errors.csv", dtype=str, keep_default_na=False)
    old_kind = old_kind.set_index(["point", "quantity"]).at[
        (frame.at[j, "point"], frame.at[j, "quantity"]), "kind"
    ]
    assert sorted(out.splitlines()) == sorted(
        [
            f"seed001 | {gone['point']} | {gone['quantity']}: in the reference, not in the table",
            f"seed001 | a point no reference has | {extra['quantity'].iloc[0]}: new, not in the "
            "reference",
            f"seed001 | {frame.at[j, 'point']} | {frame.at[j, 'quantity']} | kind: {old_kind} -> "
            f"{frame.at[j, 'kind']}",
            "seed001: 3 differences from the reference (35 rows)",
        ]
    )


def test_a_summary_compares_its_simulator_rows_and_its_counts_exactly(tmp_path, run):
    frame, path = _copy(tmp_path, f"{DEFAULT}-summary.csv")
    bed = frame.copy()
    bed["source"] = "bed"
    bed["lost"] = "12345"  # the testbed's rows: never compared
    i = int(frame.index[frame["lost"].astype(int) > 1000][0])
    lost = int(frame.at[i, "lost"])
    frame.at[i, "lost"] = str(lost + 1)  # one datagram, far below the 6 digits' 1e-5
    pd.concat([frame, bed], ignore_index=True).to_csv(path, index=False)
    code, out, _ = run("figures", "--regress", REFDIR, path)
    assert code == 1
    row = ", ".join(f"{k}={frame.at[i, k]}" for k in frame.columns[1 : list(frame).index("runs")])
    assert out.splitlines() == [
        f"{DEFAULT}-summary | {row} | lost: {lost} -> {lost + 1}",
        f"{DEFAULT}-summary: 1 difference from the reference (51 rows)",
    ]


def test_update_writes_the_fresh_table_as_the_reference(tmp_path, run):
    refs = tmp_path / "refs"
    shutil.copytree(REFDIR, refs)
    frame, path = _copy(tmp_path, "seed002-errors.csv")
    i = _row_of(frame, "model_value")
    frame.at[i, "model_value"] = "42"
    frame.to_csv(path, index=False)
    code, out, err = run("figures", "--regress", refs, path, "--update")
    assert code == 0
    assert err == f"lanloss figures: updated {refs / 'seed002-errors.csv'}\n"
    assert (refs / "seed002-errors.csv").read_text() == regression.load(str(path)).csv()
    assert run("figures", "--regress", refs, path)[:2] == (0, "seed002: 14 rows as the reference\n")


def test_a_reference_of_another_layout_is_a_difference_update_replaces(tmp_path, run):
    refs = tmp_path / "refs"
    shutil.copytree(REFDIR, refs)
    (refs / "seed003-errors.csv").write_text("figure,point\nseed003,x\n")
    code, out, _ = run("figures", "--regress", refs, REFDIR / "seed003-errors.csv")
    assert code == 1
    assert out.splitlines()[0] == (
        f"seed003: reference: {str(refs / 'seed003-errors.csv')!r} is not an error table: "
        "no 'quantity'"
    )
    assert run("figures", "--regress", refs, REFDIR / "seed003-errors.csv", "--update")[0] == 0
    assert (refs / "seed003-errors.csv").read_text() == (REFDIR / "seed003-errors.csv").read_text()


@pytest.mark.parametrize(
    "args,named",
    [
        (["--regress", "REFDIR"], "--regress: give the reference folder, then the fresh tables"),
        (["--regress", "REFDIR", "table.parquet"], "'table.parquet' is neither an error table"),
        (["--regress", "REFDIR", "nowhere/seed004-errors.csv"], "does not exist"),
        (["--regress", "no-such-folder", "REF:seed004-errors.csv"], "'no-such-folder' is not a"),
        (["--update"], "--update goes with --regress"),
        (["seed004", "--regress", "REFDIR", "REF:seed004-errors.csv"], "--regress takes"),
    ],
)
def test_bad_regress_arguments_are_one_line_exit_2(run, args, named):
    args = [str(REFDIR) if a == "REFDIR" else a for a in args]
    args = [str(REFDIR / a[4:]) if a.startswith("REF:") else a for a in args]
    code, out, err = run("figures", *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and named in err, err


def test_a_table_of_another_kind_is_refused_naming_the_column(tmp_path, run):
    path = tmp_path / "seed004-errors.csv"
    pd.read_csv(REFDIR / "seed004-errors.csv").drop(columns=["ideal_value"]).to_csv(path)
    code, _, err = run("figures", "--regress", REFDIR, path)
    assert code == 2
    assert (
        err == f"lanloss: error: --regress: {str(path)!r} is not an error table: no 'ideal_value'\n"
    )


# -- the simulator's side regenerated (slow) ----------------------------------------------


@pytest.fixture(scope="module")
def fresh(tmp_path_factory, built):
    """The five seed studies and the default study, simulator only: {study: [tables]}."""
    return regenerate(tmp_path_factory.mktemp("regression"), [*SEEDS, DEFAULT])


def _regressed(fresh: dict[str, list[Path]]) -> list[Path]:
    """The tables the references are of: the seed figures' error tables, the default
    study's summary (a seed study's summary is not referenced: its figure is)."""
    return [p for s, paths in fresh.items() for p in paths if s == DEFAULT or "-errors" in p.name]


@pytest.mark.slow
def test_every_seed_figure_and_the_default_summary_are_as_their_references(fresh, run):
    tables = _regressed(fresh)
    assert sorted(p.name for p in tables) == sorted(p.name for p in REFDIR.glob("*.csv"))
    code, out, err = run("figures", "--regress", REFDIR, *tables)
    assert code == 0, f"the simulator's numbers moved (rows named below):\n{out}"
    assert sorted(out.splitlines()) == AS_REFERENCES


X3440_PACKET_COST = re.compile(r'("x3440-2010": Preset\(.*?"packet_cost": )([0-9.e+-]+)', re.S)


def _lanloss_with_costlier_x3440(dest: Path) -> float:
    """A checkout at dest whose lanloss package is a copy with x3440-2010's (seed 004's
    host's) per-frame kernel cost 10 % higher, the rest of it links to this one (lanloss
    reads the C headers, the build and the studies beside its package); the new cost.
    With dest first on PYTHONPATH, `import lanloss` is the copy (the editable install's
    finder comes after the path's)."""
    shutil.copytree(
        REPO / "lanloss", dest / "lanloss", ignore=shutil.ignore_patterns("__pycache__")
    )
    for entry in REPO.iterdir():
        if entry.name != "lanloss" and not entry.name.startswith("."):
            (dest / entry.name).symlink_to(entry)
    presets = dest / "lanloss" / "host_presets.py"
    text = presets.read_text()
    m = X3440_PACKET_COST.search(text)
    assert m, "x3440-2010's packet_cost is no longer a number in lanloss/host_presets.py"
    cost = float(m.group(2)) * 1.1
    presets.write_text(text[: m.start(2)] + repr(cost) + text[m.end(2) :])
    return cost


HOST_DECIDED = ("host-bound", "calibrated")  # row kinds whose value the era host decides


@pytest.mark.slow
def test_a_preset_constant_changed_in_a_copy_moves_rows_the_check_names(tmp_path, run, built):
    cost = _lanloss_with_costlier_x3440(tmp_path / "src")
    results = tmp_path / "results"
    made = subprocess.run(
        [sys.executable, str(RUNS), str(results), "seed004"],
        capture_output=True, text=True, timeout=900, check=False,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "src")},
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    runs = [json.loads(p.read_text()) for p in (results / "runs" / "seed004" / "sim").iterdir()]
    costs = {r["params"]["host"]: r["params"]["packet_cost"] for r in runs}
    assert costs == {"x3440-2010": cost, "ideal": None}  # the copy's preset ran

    code, out, _ = run(
        "figures", "--regress", REFDIR, results / "figures/seed004/seed004-errors.csv"
    )
    assert code == 1
    *moved, last = out.splitlines()
    ref = pd.read_csv(REFDIR / "seed004-errors.csv", dtype=str, keep_default_na=False)
    simulated = {(r.point, r.quantity) for r in ref.itertuples() if r.sim_value != ""}
    host_decided = {(r.point, r.quantity) for r in ref.itertuples() if r.kind in HOST_DECIDED}
    cells = [line.split(" | ") for line in moved]
    assert all(c[0] == "seed004" and len(c) == 4 for c in cells), out
    # only the simulator's cells of rows it ran moved: no closed form, no ideal-host value
    assert {(c[1], c[2]) for c in cells} <= simulated, out
    assert {c[3].split(":")[0] for c in cells} <= {"sim_value", "sim_rel_error_pct", "sim_meets"}
    # and every row the era host decides moved
    assert host_decided <= {(c[1], c[2]) for c in cells if c[3].startswith("sim_value:")}, out
    assert last == f"seed004: {len(moved)} differences from the reference (21 rows)"
