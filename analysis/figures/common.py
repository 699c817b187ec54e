# SPDX-License-Identifier: GPL-2.0-only
"""What every figure shares: the look, the table checks, the reference CSVs, the error table
and saving (PNG + PDF + errors CSV, each file whole or absent).

Colours and markers are fixed per source, so a reader of any figure knows them: the
simulator blue circles, the testbed orange triangles, the seed's reference values black
crosses (or black lines), closed forms grey dotted lines, fitted models solid lines in their
source's colour with a shaded band.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from io import StringIO
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, never a display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

REFERENCE_DIR = Path(__file__).resolve().parent.parent / "reference"
SOURCES = ("sim", "bed")
SOURCE_LABEL = {"sim": "simulator (ns-3)", "bed": "testbed (netns)"}


def source_label(source: str, table: pd.DataFrame | None = None) -> str:
    """How a legend names a source: the testbed by the backends its rows ran on (the
    table's ``backend`` column), netns where the table does not say."""
    if source != "bed" or table is None or "backend" not in table:
        return SOURCE_LABEL[source]
    rows = table[table["source"].astype(str) == "bed"] if "source" in table else table
    backends = sorted({str(b) for b in rows["backend"].dropna()})
    return f"testbed ({', '.join(backends)})" if backends else SOURCE_LABEL[source]


COLOR = {
    "sim": "#1f77b4",
    "bed": "#e6550d",
    "reference": "black",
    "closed_form": "0.45",
}
MARKER = {"sim": "o", "bed": "^", "reference": "X"}
# A reference point that is not a prediction is ringed in the figure, in its kind's style.
KIND_MARK = {
    "calibrated": {
        "marker": "o",
        "color": "#d62728",
        "label": "calibrated: a cost was set from it",
    },
    "input": {"marker": "D", "color": "#ff7f0e", "label": "input: the study offers it"},
    "imposed": {"marker": "s", "color": "#8c564b", "label": "imposed: the study's stall forces it"},
}

# The error table: one row per reference point (lanloss figures NAME -> NAME-errors.csv).
ERROR_COLUMNS = (
    "figure",
    "point",  # which reference point, in words ("udp 1472 B, buffer 16384 B")
    "quantity",
    "unit",
    "relation",  # equal | approx | max / min (value <= / >= reference) | below / above (< / >)
    #              | bar (|value - reference| <= max(0.5 %, 15 % of it): `lanloss validate`'s)
    "kind",  # what agreement here proves (KINDS): host-bound | wire-bound | calibrated | ...
    "reference_value",
    "sim_value",
    "bed_value",
    "model_value",  # a closed form or fitted model's value for the same point, if any
    "ideal_value",  # a predicted row: the simulator's `ideal` host at the same point (its kind)
    "sim_rel_error_pct",  # 100 (value - reference) / reference
    "bed_rel_error_pct",
    "model_rel_error_pct",
    "sim_meets",  # for a bound (max, min, below, above): does the value respect it
    "bed_meets",
    "model_meets",
    "reference",  # where the reference value comes from
    "missing",  # for a row the simulator does not hold: the mechanism the model lacks ('')
)
RELATIONS = ("equal", "approx", "max", "min", "below", "above", "bar")
# What a row's reference is to the simulator, as a figure declares it (error_row's `evidence`;
# a parameter fitted to a number is no evidence for it):
#   predicted   - a number the paper measured that no parameter of the simulated host was set
#                 from, at a point the study does not force;
#   calibrated  - a number a parameter was set from, wherever that happened (lanloss
#                 calibrate's CALIBRATIONS, or a study's costs chosen to reproduce it):
#                 agreement is by construction;
#   imposed     - a number that follows from a condition the study imposes (seed 000's reader
#                 stall: the socket buffer overflows when lambda * T_off exceeds it);
#   input       - a number the study gives the simulator (an offered rate it copies);
#   closed form - the reference is the wire's (or window/RTT's) arithmetic, not a measurement:
#                 agreement checks the simulator against its own physics, not the paper.
EVIDENCE = ("predicted", "calibrated", "imposed", "input", "closed form")
# The `kind` column: the declaration above, with a seed figure's predicted rows split by the
# simulator's `ideal` host at the same point (evidence.kind_of):
#   host-bound  - the era host decides the simulator's value: evidence for the host model;
#   wire-bound  - the era host's value is within WIRE_BOUND_PCT of the ideal host's, and the
#                 ideal host would hold the row too: it checks the simulator's arithmetic;
#   predicted   - a predicted row the table has no ideal-host run for (not split).
PREDICTED_KINDS = ("host-bound", "wire-bound", "predicted")
KINDS = (*PREDICTED_KINDS, *EVIDENCE[1:])
PREDICTED_WITHIN_PCT = 5.0  # the bar a predicted row with a paper number is held to
LOOSE_WITHIN_PCT = 10.0  # the second share lanloss figures reports (within 10 % or the bound)
WIRE_BOUND_PCT = 5.0  # an era host this close to the ideal one does not decide the value
IDEAL_HOST = "ideal"  # the `host` value of the runs that tell wire-bound from host-bound
_BOUNDS = {
    "max": lambda v, r: v <= r,
    "min": lambda v, r: v >= r,
    "below": lambda v, r: v < r,
    "above": lambda v, r: v > r,
    "bar": lambda v, r: _validation_bar().within(v, r),
}


def _validation_bar():
    from lanloss.analysis.validate import Bar  # its one definition

    return Bar()


class FigureInputError(ValueError):
    """A table or fit a figure cannot use: one line naming what is wrong (exit 2)."""


# -- the look ------------------------------------------------------------------------------


def new_figure(nrows: int = 1, ncols: int = 1, size: tuple[float, float] = (11, 6), **kw):
    """A figure with the house style; constrained layout leaves room for legend and notes."""
    sns.set_theme(context="paper", style="whitegrid", font_scale=1.15)
    fig, axes = plt.subplots(nrows, ncols, figsize=size, layout="constrained", squeeze=False, **kw)
    return fig, axes


def handle(kind: str, label: str | None = None, **kw) -> Any:
    """A legend entry for a source, the reference, a closed form or a fitted model."""
    if kind in ("sim", "bed", "reference"):
        color = kw.pop("color", COLOR[kind])
        style = {
            "color": color,
            "marker": kw.pop("marker", MARKER[kind]),
            "linestyle": kw.pop("linestyle", "none"),
            "markersize": 8 if kind == "reference" else 7,
            "mfc": kw.pop("mfc", "white" if kind == "bed" else color),
        }
        default = "seed (reference)" if kind == "reference" else SOURCE_LABEL[kind]
        return Line2D([], [], label=label or default, **style, **kw)
    if kind == "closed_form":
        color = kw.pop("color", COLOR["closed_form"])
        return Line2D([], [], color=color, linestyle=":", lw=2, label=label, **kw)
    if kind == "band":
        return Patch(alpha=0.2, label=label, **kw)
    return Line2D([], [], label=label, **kw)


def mark_kind(ax: Any, x: Any, y: Any, kind: str) -> None:
    """Ring reference points whose kind is not a prediction (KIND_MARK): open, large, on top."""
    style = KIND_MARK[kind]
    ax.plot(x, y, ls="none", marker=style["marker"], ms=17, mfc="none", mec=style["color"],
            mew=2.2, zorder=6)  # fmt: skip


def note(ax: Any, text: str, xy: tuple[float, float], offset: tuple[float, float]) -> None:
    """A reference's note in the figure: `text` at `offset` points from the data point `xy`."""
    ax.annotate(text, xy, xytext=offset, textcoords="offset points", fontsize=9)


def kind_handle(kind: str) -> Any:
    """The legend entry for mark_kind's ring."""
    style = KIND_MARK[kind]
    return Line2D([], [], ls="none", marker=style["marker"], ms=12, mfc="none",
                  mec=style["color"], mew=2, label=style["label"])  # fmt: skip


def plot_source(
    ax: Any,
    frame: pd.DataFrame,
    x: str,
    source: str,
    *,
    y: str = "mean",
    scale: float = 1.0,
    connect: bool = True,
    **kw: Any,
) -> None:
    """A source's points (mean over repetitions, bars from min to max), in its colour."""
    if frame.empty:
        return
    f = frame.sort_values(x)
    yy = f[y].astype(float) * scale
    err = None
    if "lo" in f and "hi" in f:
        lo = (yy - f["lo"].astype(float) * scale).clip(lower=0)
        hi = (f["hi"].astype(float) * scale - yy).clip(lower=0)
        err = np.vstack([lo.fillna(0), hi.fillna(0)])
    color = kw.pop("color", COLOR[source])
    ax.errorbar(
        f[x].astype(float),
        yy,
        yerr=err,
        color=color,
        marker=kw.pop("marker", MARKER[source]),
        markersize=kw.pop("markersize", 6),
        linestyle=kw.pop("ls", kw.pop("linestyle", "-" if connect else "none")),
        lw=kw.pop("lw", 1.2),
        capsize=2,
        mfc=kw.pop("mfc", color if source == "sim" else "white"),
        zorder=kw.pop("zorder", 3),
        **kw,
    )


def finish(
    fig: Figure,
    title: str,
    handles: Sequence[Any],
    notes: Sequence[str],
    legend: str = "below",
) -> None:
    """Title, one legend for the whole figure (below or right of the panels), the notes."""
    fig.suptitle(title, fontsize=13, fontweight="bold")
    below = legend == "below"
    inch = 1.0 / fig.get_figheight()  # one inch as a fraction of the figure's height
    lines = sum(1 + len(n) // 250 for n in notes)
    notes_h = (0.17 * lines + 0.08) * inch if notes else 0.0
    ncols = min(4, len(handles)) if below else 1
    legend_h = (0.27 * -(-len(handles) // max(ncols, 1)) + 0.1) * inch if handles and below else 0
    # The panels keep clear of a strip at the bottom: the legend (below), then the notes.
    if notes_h or legend_h:
        fig.get_layout_engine().set(rect=(0, notes_h + legend_h, 1, 1 - notes_h - legend_h))
    if handles:
        fig.legend(
            handles=list(handles),
            loc="upper center" if below else "outside right upper",
            bbox_to_anchor=(0.5, notes_h + legend_h) if below else None,
            ncols=ncols,
            frameon=False,
            fontsize=10,
        )
    if notes:
        fig.text(
            0.01,
            notes_h / 2,
            "\n".join(f"Note: {n}" for n in notes),
            fontsize=8.5,
            style="italic",
            ha="left",
            va="center",
            color="0.25",
            wrap=True,
        )


# -- the table -----------------------------------------------------------------------------


def require_columns(table: pd.DataFrame, columns: Iterable[str], figure: str) -> None:
    """The table must have every column the figure reads (a missing one: one line, exit 2)."""
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise FigureInputError(f"figure {figure}: table is missing column(s) {', '.join(missing)}")


def source_notes(table: pd.DataFrame, wanted: Sequence[str]) -> list[str]:
    """A note for each source the figure compares that has no rows in the table."""
    have = set(table["source"].astype(str)) if len(table) else set()
    return [
        f"no {SOURCE_LABEL[s]} rows in the table: {s} not drawn" for s in wanted if s not in have
    ]


def runs(table: pd.DataFrame) -> pd.DataFrame:
    """One row per run: the flows of a run summed (a receiving host's datagrams, goodput).

    loss is pooled (lost / sent), as losses are counts.
    """
    if table.empty:
        return table.assign(n_flows_summed=pd.Series(dtype=float))
    sums = ["sent", "received", "lost", "goodput_bps"]
    sums = [c for c in sums if c in table.columns]
    drops = [c for c in table.columns if c.startswith("drop_")]
    keep = [c for c in table.columns if c not in sums and c not in drops]
    agg: dict[str, Any] = {c: "first" for c in keep if c != "run_file"}
    agg.update({c: "sum" for c in sums + drops})
    out = table.groupby("run_file", sort=False, dropna=False).agg(agg).reset_index()
    out["n_flows_summed"] = table.groupby("run_file", sort=False, dropna=False).size().values
    if "sent" in out and "lost" in out:
        sent = out["sent"].astype(float)
        out["loss"] = np.where(sent > 0, out["lost"].astype(float) / sent.where(sent > 0), np.nan)
    return out


def drawn_runs(
    r: pd.DataFrame, keep_rule: Callable[[pd.DataFrame], pd.Series], left_out: str
) -> tuple[pd.DataFrame, list[str]]:
    """The runs `r` (rows of `runs`) that `keep_rule` keeps, as a copy, and the note
    "N runs LEFT_OUT are not drawn" when it leaves any out."""
    keep = keep_rule(r)
    notes = [f"{int((~keep).sum())} runs {left_out} are not drawn"] if (~keep).any() else []
    return r[keep].copy(), notes


def simulated_at(r: pd.DataFrame, link_bps: float) -> pd.Series:
    """Runs of the simulator on links of `link_bps`."""
    return (r["source"].astype(str) == "sim") & (r["edge_rate"].astype(float) == link_bps)


def points(run_rows: pd.DataFrame, keys: Sequence[str], value: str) -> pd.DataFrame:
    """Repetitions of a point pooled: mean, min and max of `value` per source and keys."""
    keys = ["source", *[k for k in keys if k != "source"]]
    if run_rows.empty:
        return pd.DataFrame(columns=[*keys, "mean", "lo", "hi", "n"])
    g = run_rows.groupby(keys, dropna=False)[value]
    out = g.agg(["mean", "min", "max", "count"]).reset_index()
    return out.rename(columns={"min": "lo", "max": "hi", "count": "n"})


def pooled_loss(run_rows: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Loss per source and keys, pooled over repetitions: sum lost / sum sent (and the range)."""
    keys = ["source", *[k for k in keys if k != "source"]]
    if run_rows.empty:
        return pd.DataFrame(columns=[*keys, "lost", "sent", "loss", "lo", "hi", "n"])
    g = run_rows.groupby(keys, dropna=False)
    out = g.agg(lost=("lost", "sum"), sent=("sent", "sum"), lo=("loss", "min"), hi=("loss", "max"))
    out["n"] = g.size()
    out = out.reset_index()
    out["loss"] = np.where(
        out["sent"] > 0, out["lost"] / out["sent"].where(out["sent"] > 0), np.nan
    )
    return out


def offered_mbps(run_rows: pd.DataFrame) -> pd.Series:
    """Offered payload rate per run in Mbit/s: the option `rate`, else what the sender sent."""
    rate = run_rows["rate"].astype(float)
    return (rate.where(rate.notna(), run_rows["offered_bps"].astype(float))) / 1e6


def by_source(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {s: frame[frame["source"].astype(str) == s] for s in SOURCES}


def ideal_runs(table: pd.DataFrame) -> pd.Series:
    """The rows of the simulator's `ideal` host that a seed figure scores against, not draws:
    only when the table also simulates another host (a study of the ideal host alone is its
    own era host). Every row of a run is marked, so `runs` never mixes the two."""
    if table.empty or "host" not in table.columns:
        return pd.Series(False, index=table.index)
    sim = table["source"].astype(str) == "sim"
    ideal = sim & (table["host"].astype(str) == IDEAL_HOST)
    return ideal if (sim & ~ideal).any() else pd.Series(False, index=table.index)


def ideal_for_every(table: pd.DataFrame, columns: list[str], keys: list[str]) -> pd.DataFrame:
    """The table with each ideal-host run standing for every value of `columns` (options that
    need a host model, which the ideal host is not given: itr, rcvbuf, readers) that the era
    host's runs have at the same `keys`: a copy per value, with a run_file of its own so
    that runs() keeps the copies apart."""
    ideal = ideal_runs(table)
    if not ideal.any():
        return table
    era = table[~ideal & (table["source"].astype(str) == "sim")]
    values = era[[*keys, *columns]].drop_duplicates()
    copies = []
    for _, row in table[ideal].iterrows():
        same = np.ones(len(values), dtype=bool)
        for k in keys:
            same &= _same(values[k], row[k])
        for _, value in values[same].iterrows():
            copy = row.copy()
            copy[columns] = value[columns]
            tag = ",".join(f"{c}={value[c]}" for c in columns)
            copy["run_file"] = f"{row['run_file']}#{tag}"
            copies.append(copy)
    copied = pd.DataFrame(copies, columns=table.columns).astype(table.dtypes.to_dict())
    return pd.concat([table[~ideal], copied], ignore_index=True)


def _same(column: pd.Series, value: Any) -> np.ndarray:
    """column == value, NaN equal to NaN (an option no run set)."""
    if pd.isna(value):
        return column.isna().to_numpy()
    return (column == value).to_numpy()


# -- reference data ------------------------------------------------------------------------


def load_reference(name: str) -> tuple[pd.DataFrame, str]:
    """A seed table from analysis/reference/NAME: (rows, citation from its comment header).

    Every reference CSV starts with '#' lines citing the seed exactly; a file without one is
    refused, so no number enters a figure without its source.
    """
    path = REFERENCE_DIR / name
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    citation = [ln.lstrip("# ").rstrip() for ln in lines if ln.startswith("#")]
    if not citation:
        raise FigureInputError(f"reference {path}: no citation comment (# lines) at the top")
    body = [ln for ln in lines if not ln.startswith("#") and ln.strip()]
    frame = pd.read_csv(StringIO("\n".join(body)))
    return frame, " ".join(citation)


def reference_files() -> list[str]:
    return sorted(p.name for p in REFERENCE_DIR.glob("*.csv"))


# -- the error table -----------------------------------------------------------------------


def rel_error_pct(value: float, reference: float) -> float:
    """100 (value - reference) / reference; NaN when either is missing or the reference is 0."""
    if value is None or reference is None:
        return math.nan
    value, reference = float(value), float(reference)
    if math.isnan(value) or math.isnan(reference) or reference == 0:
        return math.nan
    return 100.0 * (value - reference) / reference


def meets(value: float, reference: float, relation: str) -> Any:
    """Does `value` keep the bound `relation` states (pd.NA for no bound or no value)?"""
    if relation not in _BOUNDS or value is None or math.isnan(float(value)):
        return pd.NA
    return bool(_BOUNDS[relation](float(value), float(reference)))


def error_row(
    point: str,
    quantity: str,
    unit: str,
    reference_value: float,
    *,
    sim: float = math.nan,
    bed: float = math.nan,
    model: float = math.nan,
    relation: str = "approx",
    reference: str = "",
    evidence: str,
    missing: str = "",
) -> dict[str, Any]:
    """One reference point of the error table (relative errors computed here); `evidence`
    says what the reference is to the simulator (EVIDENCE), the row's first `kind`."""
    if relation not in RELATIONS:
        raise ValueError(f"relation {relation!r} is not one of {RELATIONS}")
    if evidence not in EVIDENCE:
        raise ValueError(f"evidence {evidence!r} is not one of {EVIDENCE}")
    ref = float(reference_value)
    vals = {"sim": sim, "bed": bed, "model": model}
    row: dict[str, Any] = {
        "point": point,
        "quantity": quantity,
        "unit": unit,
        "relation": relation,
        "kind": evidence,
        "reference_value": ref,
        "ideal_value": math.nan,
        "reference": reference,
        "missing": missing,
    }
    for k, v in vals.items():
        v = math.nan if v is None else float(v)
        row[f"{k}_value"] = v
        row[f"{k}_rel_error_pct"] = rel_error_pct(v, ref)
        row[f"{k}_meets"] = meets(v, ref, relation)
    return row


def error_table(figure: str, rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """The error table in its documented columns (ERROR_COLUMNS), one row per reference point."""
    frame = pd.DataFrame([{"figure": figure, **r} for r in rows], columns=list(ERROR_COLUMNS))
    frame["figure"] = figure
    for c in ("sim_meets", "bed_meets", "model_meets"):
        frame[c] = frame[c].astype("boolean")
    return frame


# -- saving --------------------------------------------------------------------------------


SAVED = (".png", ".pdf", "-errors.csv", "-caption.md")


def saved_paths(out_dir: str, name: str) -> dict[str, str]:
    """The files save() writes, by suffix."""
    return {ext: os.path.join(out_dir, f"{name}{ext}") for ext in SAVED}


def save(fig: Figure, errors: pd.DataFrame, out_dir: str, name: str) -> list[str]:
    """DIR/NAME.png, .pdf, -errors.csv and -caption.md (the error table in words, see
    evidence.py): all written to temporary files first, then committed by lanloss.outputs'
    rule (a file renamed whole, a device or FIFO written through), so a failure leaves none
    of them half-written."""
    from lanloss import outputs
    from lanloss.analysis.figures import evidence

    os.makedirs(out_dir, exist_ok=True)
    targets = saved_paths(out_dir, name)
    where = {ext: outputs.target(path, "--out") for ext, path in targets.items()}
    temps: dict[str, str] = {}
    try:
        for ext in targets:
            temps[ext] = outputs.temp_for(where[ext], suffix=ext)
        # No creation date in the PDF: the same table draws the same file.
        fig.savefig(temps[".png"], format="png", dpi=150)
        fig.savefig(temps[".pdf"], format="pdf", metadata={"CreationDate": None})
        with open(temps["-errors.csv"], "w", encoding="utf-8") as fh:
            fh.write(errors.to_csv(index=False, float_format="%.10g"))
        with open(temps["-caption.md"], "w", encoding="utf-8") as fh:
            fh.write(evidence.caption(name, errors))
        for ext in targets:
            outputs.commit(temps.pop(ext), where[ext])
    finally:
        for tmp in temps.values():
            outputs.discard(tmp)
        plt.close(fig)
    return list(targets.values())


def notes_of(errors: pd.DataFrame) -> list[str]:
    """What a figure could not draw (set by draw() in errors.attrs['notes'])."""
    return list(errors.attrs.get("notes", []))


def with_notes(errors: pd.DataFrame, notes: Sequence[str]) -> pd.DataFrame:
    errors.attrs["notes"] = list(notes)
    return errors
