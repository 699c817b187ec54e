# SPDX-License-Identifier: GPL-2.0-only
"""Does the calibration reproduce its own testbed? ``lanloss validate``.

At every testbed point of a table (a configuration and rate, repetitions pooled) it puts
three numbers side by side: the testbed's loss (the reference), the loss of the simulator
run with the calibrated host file (``lanloss fit --host-out``) at the same options and
seeds, and the fitted testbed curve's loss (the model with the testbed's parameters and
discrepancy). Each is within the bar when |x - testbed| <= max(0.005, 0.15 x testbed).
Per panel (the configuration without the rate) it compares the knee: the lowest rate with
loss above 1e-3, interpolated linearly between the two rates that straddle it; within 5 %
of the testbed's.

``--holdout``: every third rate of each panel (sorted; the middle ones of each triple, so
each panel keeps its ends) is held out, the fit is made on the rest, and only the held-out
points are judged: a check on points the calibration did not see.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import yaml

from lanloss import options as vocab

BAR_ABS = 0.005
BAR_REL = 0.15
KNEE_LOSS = 1e-3
KNEE_TOL = 0.05
BAR_FRACTION = 0.9
HOLDOUT_EVERY = 3


@dataclass(frozen=True)
class Bar:
    """The agreement a validation asks for."""

    abs: float = BAR_ABS
    rel: float = BAR_REL
    knee_loss: float = KNEE_LOSS
    knee_tol: float = KNEE_TOL
    fraction: float = BAR_FRACTION

    def within(self, x: float, ref: float) -> bool:
        return abs(x - ref) <= max(self.abs, self.rel * ref)


def shared_options() -> list[str]:
    """Options both sources implement: what defines a point on both."""
    return [o.name for o in vocab.OPTIONS if o.sim and o.bed]


def points(bed: pd.DataFrame, data: pd.DataFrame | None = None) -> pd.DataFrame:
    """Testbed rows -> one row per point: panel, rate, loss (pooled), the runs' files and seeds.

    Panels are the simbed figure's, from the options that vary across ``data`` (the whole
    table: both sources), so that the figure can draw these points in its panels.
    """
    from lanloss.analysis.figures import simbed

    keys = simbed.panel_keys(bed if data is None else data)
    frame = bed.assign(panel=simbed._key(bed, keys), rate_key=bed["rate"].astype(float))
    out = []
    for (panel, rate), g in frame.groupby(["panel", "rate_key"], sort=True):
        sent, lost = float(g["sent"].sum()), float(g["lost"].sum())
        out.append(
            {
                "panel": panel,
                "rate_mbps": rate / 1e6,
                "bed_loss": lost / sent if sent > 0 else math.nan,
                "runs": sorted(g["run_file"].astype(str).unique()),
                "seeds": sorted({int(s) for s in g["seed"]}),
                "template": g.iloc[0],
            }
        )
    return pd.DataFrame(out)


def held_out(pts: pd.DataFrame) -> pd.Series:
    """Every third rate of each panel (the middle of each triple): the holdout set."""
    flag = pd.Series(False, index=pts.index)
    for _, g in pts.groupby("panel"):
        order = g.sort_values("rate_mbps").index
        for i, idx in enumerate(order):
            flag[idx] = i % HOLDOUT_EVERY == 1
    return flag


def sim_given(template: pd.Series, seed: int) -> dict[str, Any]:
    """A testbed row's point as simulator options (the shared ones), at one seed."""
    from lanloss.analysis import loss_model as lm

    p = lm.row_params(template)
    given = {}
    for name in shared_options():
        value = p.get(name)
        if value is None or name == "seed":
            continue
        if isinstance(value, np.generic):  # a table cell: back to a plain Python value
            value = value.item()
        if vocab.BY_NAME[name].kind == "int":
            value = int(value)
        given[name] = value
    given["seed"] = seed
    return given


def simulate(
    pts: pd.DataFrame, host_file: str, jobs: int, progress: Callable[[int, int], None] | None
) -> list[float]:
    """The calibrated simulator's loss at each point (its seeds pooled)."""
    from lanloss import sim

    tasks = []
    for i, row in pts.iterrows():
        for seed in row["seeds"]:
            params = vocab.resolve(sim_given(row["template"], seed), "sim", host_file)
            tasks.append((i, params))
    sent = dict.fromkeys(pts.index, 0.0)
    lost = dict.fromkeys(pts.index, 0.0)
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:  # each run is a subprocess
        futures = [(i, pool.submit(sim.run_point, params, None, host_file)) for i, params in tasks]
        for i, fut in futures:
            rec = fut.result()
            sent[i] += float(rec.totals["sent"])
            lost[i] += float(rec.totals["sent"]) - float(rec.totals["received"])
            done += 1
            if progress:
                progress(done, len(tasks))
    return [lost[i] / sent[i] if sent[i] > 0 else math.nan for i in pts.index]


def model_loss(pts: pd.DataFrame, bed: pd.DataFrame, doc: dict[str, Any]) -> list[float]:
    """The fitted testbed curve at each point: its per-row loss pooled as the data are."""
    from lanloss.analysis.figures import fitted

    out = []
    for _, row in pts.iterrows():
        rows = bed[bed["run_file"].astype(str).isin(row["runs"])].reset_index(drop=True)
        est = fitted.curves(doc, rows)["est"].to_numpy()
        w = rows["sent"].astype(float).to_numpy()
        out.append(float(np.sum(est * w) / np.sum(w)) if w.sum() > 0 else math.nan)
    return out


def knee(rates: np.ndarray, loss: np.ndarray, level: float = KNEE_LOSS) -> float:
    """Lowest rate with loss above ``level``, interpolated; NaN if none; the first rate if
    loss is above it already there."""
    order = np.argsort(rates)
    r, y = np.asarray(rates, float)[order], np.asarray(loss, float)[order]
    above = np.nonzero(y > level)[0]
    if len(above) == 0:
        return math.nan
    i = int(above[0])
    if i == 0:
        return float(r[0])
    t = (level - y[i - 1]) / (y[i] - y[i - 1])
    return float(r[i - 1] + t * (r[i] - r[i - 1]))


def knee_ok(k: float, ref: float, tol: float) -> bool:
    if math.isnan(ref) or math.isnan(k):
        return math.isnan(ref) and math.isnan(k)
    return abs(k - ref) <= tol * ref


def judge(pts: pd.DataFrame, bar: Bar, judged: pd.Series) -> tuple[pd.DataFrame, dict]:
    """Errors, verdicts and knees; the summary over the judged points."""
    t = pts.copy()
    for src in ("sim", "model"):
        t[f"{src}_error"] = t[f"{src}_loss"] - t["bed_loss"]
        t[f"{src}_ok"] = [
            bar.within(x, ref) for x, ref in zip(t[f"{src}_loss"], t["bed_loss"], strict=True)
        ]
    t["judged"] = judged.to_numpy()
    summary: dict[str, Any] = {
        "bar": {
            "loss": f"|x - bed| <= max({bar.abs}, {bar.rel} bed)",
            "fraction": bar.fraction,
            "knee": f"lowest rate with loss > {bar.knee_loss:g}, within {bar.knee_tol:.0%}",
        },
        "points": int(t["judged"].sum()),
    }
    j = t[t["judged"]]
    knees = []
    for panel, g in t.groupby("panel", sort=False):
        rates = g["rate_mbps"].to_numpy()
        k = {
            src: knee(rates, g[f"{src}_loss"].to_numpy(), bar.knee_loss)
            for src in ("bed", "sim", "model")
        }
        knees.append(
            {
                "panel": panel,
                "bed_mbps": k["bed"],
                "sim_mbps": k["sim"],
                "model_mbps": k["model"],
                "sim_ok": knee_ok(k["sim"], k["bed"], bar.knee_tol),
                "model_ok": knee_ok(k["model"], k["bed"], bar.knee_tol),
            }
        )
    summary["knees"] = knees
    for src in ("sim", "model"):
        frac = float(j[f"{src}_ok"].mean()) if len(j) else math.nan
        summary[f"{src}_within"] = frac
        summary[f"{src}_knees_ok"] = all(k[f"{src}_ok"] for k in knees)
        summary[f"{src}_meets_bar"] = bool(
            len(j) and frac >= bar.fraction and summary[f"{src}_knees_ok"]
        )
    return t, summary


def host_file_of(doc: dict[str, Any], folder: str) -> str:
    """The fit's calibrated host preset as a host file in ``folder``."""
    path = os.path.join(folder, "host.yaml")
    with open(path, "w", encoding="utf-8") as fh:
        yaml.safe_dump(doc["host_preset"], fh, sort_keys=False)
    return path


def validate(
    table: pd.DataFrame,
    doc: dict[str, Any] | None = None,
    host_file: str | None = None,
    holdout: bool = False,
    jobs: int = 2,
    bar: Bar | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The validation table and its summary (see the module docstring)."""
    from lanloss.analysis import fit

    bar = bar or Bar()
    data, _, _ = fit.usable(table)
    bed = data[data["source"].astype(str) == "bed"].reset_index(drop=True)
    if bed.empty:
        raise vocab.OptionError("the table has no usable testbed runs to validate against")
    pts = points(bed, data)
    judged = held_out(pts) if holdout else pd.Series(True, index=pts.index)
    if holdout or doc is None:
        keep_runs = {f for runs in pts.loc[~judged, "runs"] for f in runs} if holdout else None
        train = (
            table
            if keep_runs is None
            else table[
                (table["source"].astype(str) != "bed")
                | table["run_file"].astype(str).isin(keep_runs)
            ]
        )
        doc = fit.fit_table(train.reset_index(drop=True), bootstrap_n=0)
        host_file = None  # the host of this fit, not of another
    with tempfile.TemporaryDirectory(prefix="lanloss-validate-") as tmp:
        hf = host_file or host_file_of(doc, tmp)
        pts["sim_loss"] = simulate(pts, hf, jobs, progress)
    pts["model_loss"] = model_loss(pts, bed, doc)
    t, summary = judge(pts, bar, judged)
    summary["holdout"] = holdout
    cols = [
        "panel",
        "rate_mbps",
        "bed_loss",
        "sim_loss",
        "model_loss",
        "sim_error",
        "model_error",
        "sim_ok",
        "model_ok",
        "judged",
    ]
    return t[cols], summary


def _pct(x: float) -> str:
    return "  n/a " if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:6.2f}"


def render(t: pd.DataFrame, summary: dict[str, Any]) -> list[str]:
    """The table and summary as text lines (loss in %), a block per panel."""
    lines = []
    for panel, g in t[t["judged"]].groupby("panel", sort=False):
        lines.append(panel)
        lines.append(f"  {'Mbit/s':>8} {'bed %':>7} {'sim %':>7} {'model %':>7}  sim, model")
        for _, r in g.sort_values("rate_mbps").iterrows():
            verdict = f"{'ok' if r['sim_ok'] else 'OFF'}, {'ok' if r['model_ok'] else 'OFF'}"
            lines.append(
                f"  {r['rate_mbps']:>8g} {_pct(r['bed_loss']):>7} {_pct(r['sim_loss']):>7} "
                f"{_pct(r['model_loss']):>7}  {verdict}"
            )
    lines.append("")
    for k in summary["knees"]:

        def f(x: float) -> str:
            return "none" if math.isnan(x) else f"{x:.1f}"

        lines.append(
            f"knee {k['panel']}: bed {f(k['bed_mbps'])}, sim {f(k['sim_mbps'])} "
            f"({'ok' if k['sim_ok'] else 'OFF'}), model {f(k['model_mbps'])} "
            f"({'ok' if k['model_ok'] else 'OFF'}) Mbit/s"
        )
    for src, name in (("sim", "calibrated simulator"), ("model", "fitted testbed curve")):
        lines.append(
            f"{name}: {summary[f'{src}_within']:.0%} of {summary['points']} points within the "
            f"bar, knees {'ok' if summary[f'{src}_knees_ok'] else 'OFF'}: "
            f"{'meets' if summary[f'{src}_meets_bar'] else 'does NOT meet'} the bar"
        )
    return lines
