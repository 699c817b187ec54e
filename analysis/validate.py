# SPDX-License-Identifier: GPL-2.0-only
"""Does the calibration reproduce its own testbed? ``lanloss validate``.

At every testbed point of a table (a configuration and rate, repetitions pooled) it puts
three numbers side by side: the testbed's loss (the reference), the loss of the simulator
run with the calibrated host file (``lanloss fit --host-out``) at the same options and
seeds, and the fitted testbed curve's loss (the model with the testbed's parameters and
discrepancy). Each is within the bar when |x - testbed| <= max(0.005, 0.15 x testbed).
Per panel (the configuration without the rate) it compares the knee (``panel_knee``): the
lowest rate from which the runs' mean loss stays above 1e-3 at every higher rate,
interpolated linearly below it, so one disturbed run at a lower rate cannot move it; its
interval comes from resampling the repetitions at each rate, widened to the grid's bracket
of the crossing (``_grid_bracket``). A knee agrees with the testbed's when their intervals
overlap, within 5 % of the testbed's knee.

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
KNEE_REPLICATES = 400  # resamples of a panel's repetitions for its knee's interval


@dataclass(frozen=True)
class Bar:
    """The agreement a validation asks for."""

    abs: float = BAR_ABS
    rel: float = BAR_REL
    knee_loss: float = KNEE_LOSS
    knee_tol: float = KNEE_TOL
    fraction: float = BAR_FRACTION

    def tolerance(self, ref: float) -> float:
        """How far a loss may be from the testbed's ``ref`` and still agree with it."""
        return max(self.abs, self.rel * ref)

    def within(self, x: float, ref: float) -> bool:
        return abs(x - ref) <= self.tolerance(ref)


def run_spread(losses: Any) -> float:
    """The range (max - min) of one point's per-run losses; NaN with fewer than two runs."""
    values = [float(v) for v in losses] if isinstance(losses, list) else []
    return max(values) - min(values) if len(values) >= 2 else math.nan


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
        per_run = g.groupby(g["run_file"].astype(str))[["lost", "sent"]].sum()
        per_run = per_run[per_run["sent"] > 0]
        out.append(
            {
                "panel": panel,
                "rate_mbps": rate / 1e6,
                "bed_loss": lost / sent if sent > 0 else math.nan,
                "bed_run_losses": list(per_run["lost"] / per_run["sent"]),
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
) -> tuple[list[float], list[list[float]]]:
    """The calibrated simulator's loss at each point: its seeds pooled, and per seed."""
    from lanloss import sim

    tasks = []
    for i, row in pts.iterrows():
        for seed in row["seeds"]:
            params = vocab.resolve(sim_given(row["template"], seed), "sim", host_file)
            tasks.append((i, params))
    sent = dict.fromkeys(pts.index, 0.0)
    lost = dict.fromkeys(pts.index, 0.0)
    per_seed: dict[Any, list[float]] = {i: [] for i in pts.index}
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:  # each run is a subprocess
        futures = [(i, pool.submit(sim.run_point, params, None, host_file)) for i, params in tasks]
        for i, fut in futures:
            rec = fut.result()
            n = float(rec.totals["sent"])
            k = n - float(rec.totals["received"])
            sent[i] += n
            lost[i] += k
            if n > 0:
                per_seed[i].append(k / n)
            done += 1
            if progress:
                progress(done, len(tasks))
    pooled = [lost[i] / sent[i] if sent[i] > 0 else math.nan for i in pts.index]
    return pooled, [per_seed[i] for i in pts.index]


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


@dataclass(frozen=True)
class Knee:
    """A panel's knee, in the units of its rates: the estimate and its interval over the
    repetitions. NaN estimate: the loss does not stay above the level up to the top rate;
    high = inf: some resamples of the repetitions have no knee within the rates."""

    estimate: float
    low: float
    high: float


def _run_above(loss: np.ndarray, level: float) -> int | None:
    """The index of the first rate of the run of rates (ascending) whose loss stays above
    ``level`` to the top: 0 if every rate's does, None if the top rate's does not."""
    above = loss > level
    if len(loss) == 0 or not above[-1]:
        return None
    below = np.nonzero(~above)[0]
    return 0 if len(below) == 0 else int(below[-1]) + 1


def _stays_above(rates: np.ndarray, loss: np.ndarray, level: float) -> float:
    """The lowest rate from which ``loss`` (one value per rate, rates ascending) stays above
    ``level`` at every higher rate, interpolated linearly between it and the rate below;
    the first rate if the loss is above the level there already; NaN if the top rate's is
    not. A loss above the level below that run of rates (a disturbed run) cannot move it."""
    i = _run_above(loss, level)
    if i is None:
        return math.nan
    if i == 0:
        return float(rates[0])
    t = (level - loss[i - 1]) / (loss[i] - loss[i - 1])
    return float(rates[i - 1] + t * (rates[i] - rates[i - 1]))


def _grid_bracket(rates: np.ndarray, loss: np.ndarray, level: float) -> tuple[float, float]:
    """Where between the rates of the grid the loss (one value per rate, rates ascending)
    can cross ``level``, given the rate ``_stays_above`` starts from, r_i: above the rate
    below it, r_(i-1), whose loss is below the level; and at most r_i (1 - L_i) / (1 -
    level), within r_i. The upper bound holds for a receiver whose delivered rate does not
    fall as the offered rate grows (a wire, a switch port or a CPU that saturates; not a
    receive livelock): crossing at r* it delivers r* (1 - level), no more than the
    r_i (1 - L_i) it delivers at r_i. NaN, NaN where the loss does not stay above."""
    i = _run_above(loss, level)
    if i is None:
        return math.nan, math.nan
    if i == 0:
        return float(rates[0]), float(rates[0])
    top = rates[i] * (1.0 - loss[i]) / (1.0 - level)
    return float(rates[i - 1]), float(min(rates[i], max(rates[i - 1], top)))


def panel_knee(
    rates: np.ndarray,
    losses: np.ndarray,
    level: float = KNEE_LOSS,
    confidence: float = 0.95,
    replicates: int = KNEE_REPLICATES,
    seed: int = 0,
) -> Knee:
    """The knee of one panel from all its runs together: ``rates`` and ``losses`` have one
    entry per run (repetitions repeat a rate).

    Estimate: the runs' mean loss at each rate, then the lowest rate from which that loss
    stays above ``level`` at every higher rate (``_stays_above``), interpolated linearly.
    Interval: the percentile interval of the same knee over ``replicates`` resamples of the
    runs, drawn with replacement within each rate (the repetitions' spread), widened to
    hold the estimate and the grid's own bracket of the crossing (``_grid_bracket``): the
    linear interpolation is one guess within it, and a first lossy rate just past a
    saturating receiver's capacity puts that guess near the rate below. One run per rate:
    the bracket alone. Deterministic for a given ``seed``."""
    r = np.asarray(rates, dtype=float)
    y = np.asarray(losses, dtype=float)
    keep = np.isfinite(r) & np.isfinite(y)
    r, y = r[keep], y[keep]
    grid, where = np.unique(r, return_inverse=True)
    groups = [y[where == g] for g in range(len(grid))]
    mean = np.array([g.mean() for g in groups])
    est = _stays_above(grid, mean, level)
    b_low, b_high = _grid_bracket(grid, mean, level)
    if len(grid) == 0 or all(len(g) == 1 for g in groups) or replicates <= 0:
        if math.isnan(est):
            return Knee(est, est, est)
        return Knee(est, min(b_low, est), max(b_high, est))
    rng = np.random.default_rng(seed)
    means = np.stack(
        [rng.choice(g, size=(replicates, len(g))).mean(axis=1) for g in groups], axis=1
    )
    knees = np.array([_stays_above(grid, m, level) for m in means])
    a = (1 - confidence) / 2
    none = np.isnan(knees)
    found = np.sort(knees[~none])
    if len(found) == 0:
        return Knee(est, math.nan, math.nan)
    # no knee within the rates counts as a knee above the top rate
    ranked = np.concatenate([found, np.full(int(none.sum()), math.inf)])
    low, high = (float(np.quantile(ranked, q, method="inverted_cdf")) for q in (a, 1 - a))
    if not math.isnan(est):
        low, high = min(low, est, b_low), max(high, est, b_high)
    return Knee(est, low, high)


def knee(rates: np.ndarray, loss: np.ndarray, level: float = KNEE_LOSS) -> float:
    """The knee of one loss value per rate (``panel_knee``'s estimate without repetitions)."""
    return panel_knee(rates, loss, level).estimate


def knees_agree(k: Knee, ref: Knee, tol: float) -> bool:
    """Two knees agree when their intervals overlap once ``k``'s is widened by ``tol`` of
    the reference's estimate; a missing knee agrees with a missing one, or with an
    interval reaching beyond the top rate."""
    if math.isnan(ref.estimate) or math.isnan(k.estimate):
        if math.isnan(ref.estimate) and math.isnan(k.estimate):
            return True
        return (math.isnan(ref.estimate) and k.high == math.inf) or (
            math.isnan(k.estimate) and ref.high == math.inf
        )
    slack = tol * ref.estimate
    return k.low - slack <= ref.high and ref.low <= k.high + slack


def knee_ok(k: float, ref: float, tol: float) -> bool:
    """knees_agree for two knees without intervals."""
    return knees_agree(Knee(k, k, k), Knee(ref, ref, ref), tol)


def _source_knee(panel: pd.DataFrame, src: str, level: float) -> Knee:
    """One source's knee in a panel's points: from its runs' losses where the points carry
    them (``{src}_run_losses``), else from its one loss per rate."""
    runs = f"{src}_run_losses"
    rates: list[float] = []
    losses: list[float] = []
    for _, p in panel.iterrows():
        values = p[runs] if runs in panel and isinstance(p[runs], list) and p[runs] else None
        values = values or [p[f"{src}_loss"]]
        rates += [p["rate_mbps"]] * len(values)
        losses += list(values)
    return panel_knee(np.array(rates), np.array(losses), level)


def judge(pts: pd.DataFrame, bar: Bar, judged: pd.Series) -> tuple[pd.DataFrame, dict]:
    """Errors, verdicts and knees; the summary over the judged points."""
    t = pts.copy()
    for src in ("sim", "model"):
        t[f"{src}_error"] = t[f"{src}_loss"] - t["bed_loss"]
        t[f"{src}_ok"] = [
            bar.within(x, ref) for x, ref in zip(t[f"{src}_loss"], t["bed_loss"], strict=True)
        ]
    t["judged"] = judged.to_numpy()
    # The testbed's repetitions of a point that differ from each other by more than the
    # bar: no single value is within the bar of all of them, so whether a source meets it
    # there depends on which runs the machine gave (reported beside the verdict, which it
    # does not change).
    runs = t["bed_run_losses"] if "bed_run_losses" in t else pd.Series([[]] * len(t), index=t.index)
    t["bed_runs"] = [len(v) if isinstance(v, list) else 0 for v in runs]
    t["bed_spread"] = [run_spread(v) for v in runs]
    t["bed_runs_agree"] = [
        not (spread > bar.tolerance(ref))
        for spread, ref in zip(t["bed_spread"], t["bed_loss"], strict=True)
    ]
    summary: dict[str, Any] = {
        "bar": {
            "loss": f"|x - bed| <= max({bar.abs}, {bar.rel} bed)",
            "fraction": bar.fraction,
            "knee": f"lowest rate from which the loss of all repetitions stays above "
            f"{bar.knee_loss:g}; intervals (over the repetitions, and the grid's bracket) "
            f"overlap within {bar.knee_tol:.0%}",
        },
        "points": int(t["judged"].sum()),
    }
    j = t[t["judged"]]
    summary["bed_runs_disagree"] = int((~j["bed_runs_agree"]).sum())
    knees = []
    for panel, g in t.groupby("panel", sort=False):
        k = {src: _source_knee(g, src, bar.knee_loss) for src in ("bed", "sim", "model")}
        entry: dict[str, Any] = {"panel": panel}
        for src in ("bed", "sim", "model"):
            entry[f"{src}_mbps"] = k[src].estimate
            entry[f"{src}_interval"] = [k[src].low, k[src].high]
        for src in ("sim", "model"):
            entry[f"{src}_ok"] = knees_agree(k[src], k["bed"], bar.knee_tol)
        knees.append(entry)
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


def left_out_runs(table: pd.DataFrame) -> dict[str, list[str]]:
    """The testbed runs left out as disturbed (lanloss.analysis.fit.disturbed: a late
    sender, a receiver kept off the CPU), per reason."""
    from lanloss.analysis import fit

    bed = table["source"].astype(str) == "bed"
    out = {}
    for reason, bad in fit.disturbed(table).items():
        runs = sorted(table.loc[bad & bed, "run_file"].astype(str).unique())
        if runs:
            out[reason] = runs
    return out


def measured_again(table: pd.DataFrame) -> dict[str, int]:
    """Testbed runs the harness measured again after disturbed attempts -> how many
    attempts it set aside (the table's ``disturbed_attempts``)."""
    if "disturbed_attempts" not in table:
        return {}
    bed = table[table["source"].astype(str) == "bed"].drop_duplicates("run_file")
    again = bed[bed["disturbed_attempts"].fillna(0) > 0]
    return {
        str(f): int(n) for f, n in zip(again["run_file"], again["disturbed_attempts"], strict=True)
    }


def _run_spread_lines(t: pd.DataFrame, summary: dict[str, Any]) -> list[str]:
    """The judged points whose testbed runs differ from each other by more than the bar."""
    n = summary.get("bed_runs_disagree") or 0
    if not n:
        return []
    j = t[t["judged"] & ~t["bed_runs_agree"]]
    where = ", ".join(
        f"{r['panel']} at {r['rate_mbps']:g} Mbit/s ({r['bed_runs']} runs, "
        f"{100 * r['bed_spread']:.2f} points apart)"
        for _, r in j.iterrows()
    )
    return [
        f"testbed runs further apart than the bar: {n} of {summary['points']} judged points "
        f"(no value is within the bar of all of them): {where}"
    ]


def _left_out_lines(summary: dict[str, Any]) -> list[str]:
    """How many testbed runs were left out as disturbed, and which, per reason."""
    left = summary.get("left_out") or {}
    n = len({f for runs in left.values() for f in runs})
    total = summary.get("bed_runs") or 0
    share = f" ({n / total:.1%})" if total else ""
    lines = [f"left out as disturbed: {n} of {total} testbed runs{share}"]
    for reason, runs in left.items():
        lines.append(f"  {reason}: {len(runs)}: {', '.join(runs)}")
    again = summary.get("measured_again") or {}
    if again:
        lines.append(
            f"measured again after a disturbed attempt (lanloss bed run --retry-disturbed): "
            f"{len(again)} of {total} testbed runs, {sum(again.values())} disturbed attempts "
            "set aside (each record's extra.disturbed_attempts says when and why)"
        )
    return lines


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
        pts["sim_loss"], pts["sim_run_losses"] = simulate(pts, hf, jobs, progress)
    pts["model_loss"] = model_loss(pts, bed, doc)
    t, summary = judge(pts, bar, judged)
    summary["holdout"] = holdout
    summary["left_out"] = left_out_runs(table)
    summary["measured_again"] = measured_again(table)
    summary["bed_runs"] = int(table.loc[table["source"].astype(str) == "bed", "run_file"].nunique())
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
        "bed_runs",
        "bed_spread",
        "bed_runs_agree",
    ]
    return t[cols], summary


def _pct(x: float) -> str:
    return "  n/a " if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:6.2f}"


def _knee_text(k: dict[str, Any], src: str) -> str:
    """A knee and its interval as text: "48.1 [47.9, 48.3]", "none", "none [52.0, >top]"."""

    def f(x: float) -> str:
        return ">top" if x == math.inf else "none" if math.isnan(x) else f"{x:.1f}"

    est = f(k[f"{src}_mbps"])
    lo, hi = k.get(f"{src}_interval") or [math.nan, math.nan]
    if (lo == hi == k[f"{src}_mbps"]) or (math.isnan(lo) and math.isnan(hi)):
        return est
    return f"{est} [{f(lo)}, {f(hi)}]"


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
        lines.append(
            f"knee {k['panel']}: bed {_knee_text(k, 'bed')}, sim {_knee_text(k, 'sim')} "
            f"({'ok' if k['sim_ok'] else 'OFF'}), model {_knee_text(k, 'model')} "
            f"({'ok' if k['model_ok'] else 'OFF'}) Mbit/s"
        )
    for src, name in (("sim", "calibrated simulator"), ("model", "fitted testbed curve")):
        lines.append(
            f"{name}: {summary[f'{src}_within']:.0%} of {summary['points']} points within the "
            f"bar, knees {'ok' if summary[f'{src}_knees_ok'] else 'OFF'}: "
            f"{'meets' if summary[f'{src}_meets_bar'] else 'does NOT meet'} the bar"
        )
    return lines + _run_spread_lines(t, summary) + _left_out_lines(summary)
