# SPDX-License-Identifier: GPL-2.0-only
"""What a figure's error table is evidence of: each row's kind, counted and said in words.

A figure declares each row `predicted`, `calibrated`, `imposed`, `input` or `closed form`
(common.EVIDENCE). A seed figure's predicted rows are then split by the simulator's `ideal`
host, run by the study at the same points (a separate block of config/studies/seed00N.yaml):

- **wire-bound**: the era host's value is within common.WIRE_BOUND_PCT of the ideal host's,
  and the ideal host's value would hold the row too. Neither the paper's number nor the
  simulator's depends on the host model: agreement checks the simulator's arithmetic (wire,
  line rate, window/RTT), not the host.
- **host-bound**: every other predicted row. This includes a row where the simulator sits at
  the ideal host's value but the paper's number does not: the seed's host decided it and the
  model's did not, a failure of the host model that must count against it.
- a predicted row the table has no ideal-host value for stays `predicted` (not split).

Precedence: a declared kind other than predicted is never changed by the ideal host: a
calibrated row stays calibrated even where the era host equals the ideal one.

Only host-bound rows are evidence for the host model. A row *holds* when the simulator is
within common.PREDICTED_WITHIN_PCT of a number the paper gives (relation approx; a reference
of 0 only by 0), equals it (equal), keeps the bound it states (max, min, below, above), or is
within `lanloss validate`'s bar of a testbed measurement (bar); `lanloss figures` also reports
the share within common.LOOSE_WITHIN_PCT (the same rule with the wider tolerance).

The caption written next to a figure (NAME-caption.md) is generated here from the error
table, so the numbers it states are the figure's own and cannot go stale; a seed figure's
caption opens with the paper it reproduces (the figure module's CITATION).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from lanloss.analysis.figures import common

NOT_PREDICTIONS = ("calibrated", "imposed", "input", "closed form")


# -- judging a value -----------------------------------------------------------------------


def judge(row: pd.Series | Mapping[str, Any], value: float, pct: float) -> Any:
    """Does `value` hold the row with a tolerance of `pct` per cent (approx rows)? Equal,
    bound and bar rows are judged by their relation alone. pd.NA when there is no value."""
    value = float(value)
    if math.isnan(value):
        return pd.NA
    ref, relation = float(row["reference_value"]), row["relation"]
    if relation == "approx":
        if ref == 0:
            return value == 0  # no relative error against 0: only 0 agrees
        return abs(common.rel_error_pct(value, ref)) <= pct
    if relation == "equal":
        return value == ref
    return bool(common.meets(value, ref, relation))


def within(row: pd.Series | Mapping[str, Any], pct: float, source: str = "sim") -> Any:
    """Does `source`'s value hold the row within `pct` per cent (or its bound)?"""
    return judge(row, row[f"{source}_value"], pct)


def holds(row: pd.Series | Mapping[str, Any], source: str = "sim") -> Any:
    """Does `source`'s value hold the row? pd.NA when the source has no value there."""
    return within(row, common.PREDICTED_WITHIN_PCT, source)


# -- the kind of a row ---------------------------------------------------------------------


def near(value: float, ideal: float, pct: float = common.WIRE_BOUND_PCT) -> bool:
    """Is `value` within `pct` per cent of `ideal` (against an ideal of 0: only 0)?"""
    if math.isnan(value) or math.isnan(ideal):
        return False
    if ideal == 0:
        return value == 0
    return abs(value - ideal) <= pct / 100 * abs(ideal)


def kind_of(row: pd.Series | Mapping[str, Any]) -> str:
    """The row's kind from its declared kind, the era host's value (sim_value) and the ideal
    host's (ideal_value): the rule of this module's docstring."""
    declared = row["kind"]
    if declared not in common.PREDICTED_KINDS:
        return declared  # calibrated, imposed, input, closed form: never overridden
    era, ideal = float(row["sim_value"]), float(row["ideal_value"])
    if math.isnan(era) or math.isnan(ideal):
        return "predicted"
    ideal_holds = judge(row, ideal, common.PREDICTED_WITHIN_PCT) is True
    return "wire-bound" if near(era, ideal) and ideal_holds else "host-bound"


def with_kinds(errors: pd.DataFrame, ideal_errors: pd.DataFrame | None) -> pd.DataFrame:
    """The error table with each predicted row's ideal_value (the ideal host's simulated
    value at the same point and quantity, from `ideal_errors`) and every row's kind."""
    notes = common.notes_of(errors)
    out = errors.copy()
    ideal: dict[tuple[str, str], float] = {}
    if ideal_errors is not None:
        for p, q, v in ideal_errors[["point", "quantity", "sim_value"]].itertuples(index=False):
            ideal[(p, q)] = float(v)
    predicted = out["kind"].isin(common.PREDICTED_KINDS)
    out["ideal_value"] = [
        ideal.get((p, q), math.nan) if is_predicted else math.nan
        for p, q, is_predicted in zip(out["point"], out["quantity"], predicted, strict=True)
    ]
    out["kind"] = [kind_of(r) for _, r in out.iterrows()]
    unsplit = int((out["kind"] == "predicted").sum())
    if unsplit:
        notes.append(
            f"{unsplit} predicted rows have no ideal-host run at their point: not split into "
            "host-bound and wire-bound"
        )
    return common.with_notes(out, notes)


def scored(
    draw: Callable[..., tuple[Any, pd.DataFrame]],
    table: pd.DataFrame,
    fit: dict | None = None,
    **kw: Any,
) -> tuple[Any, pd.DataFrame]:
    """A seed figure drawn from its era host's runs, its rows' kinds set by the ideal host's:
    `draw` runs once on the table without the ideal-host runs (the figure) and once on those
    runs alone (their rows' simulated values are the ideal host's at the same points)."""
    import matplotlib.pyplot as plt

    ideal = common.ideal_runs(table)
    fig, errors = draw(table[~ideal].reset_index(drop=True), fit, **kw)
    ideal_errors = None
    if ideal.any():
        ideal_fig, ideal_errors = draw(table[ideal].reset_index(drop=True), fit, **kw)
        plt.close(ideal_fig)
    return fig, with_kinds(errors, ideal_errors)


# -- counting ------------------------------------------------------------------------------


def counts(errors: pd.DataFrame, source: str = "sim") -> dict[str, dict[str, int]]:
    """Per kind: rows, rows the source has a value for (judged), rows it holds (within 5 % or
    the bound) and rows within 10 % (or the bound)."""
    out = {}
    for kind in common.KINDS:
        rows = errors[errors["kind"] == kind]
        held = [holds(r, source) for _, r in rows.iterrows()]
        loose = [within(r, common.LOOSE_WITHIN_PCT, source) for _, r in rows.iterrows()]
        out[kind] = {
            "rows": len(rows),
            "judged": sum(v is not pd.NA for v in held),
            "held": sum(v is True for v in held),
            "within_loose": sum(v is True for v in loose),
        }
    return out


def _of(n: int, total: int) -> str:
    return f"{n} of {total}" + (f" ({100 * n / total:.0f} %)" if total else "")


def summary_line(figure: str, errors: pd.DataFrame, source: str = "sim") -> str:
    """One line: host-bound predicted rows that hold, then every other kind apart."""
    c = counts(errors, source)
    h, w = c["host-bound"], c["wire-bound"]
    line = (
        f"{figure}: host-bound predicted rows that hold: {_of(h['held'], h['judged'])} within "
        f"{common.PREDICTED_WITHIN_PCT:g} % or their bound, {_of(h['within_loose'], h['judged'])}"
        f" within {common.LOOSE_WITHIN_PCT:g} %; wire-bound (not evidence of the host): "
        f"{w['held']} of {w['judged']} hold; not predictions: "
        + ", ".join(f"{c[k]['rows']} {k}" for k in NOT_PREDICTIONS)
    )
    if c["predicted"]["rows"]:
        line += f"; {c['predicted']['rows']} predicted without an ideal-host run (not split)"
    return line


SCORE_COLUMNS = (
    "seed",
    "host-bound rows that hold (within 5 % or their bound)",
    "host-bound within 10 %",
    "wire-bound rows that hold",
    "calibrated",
    "imposed",
    "input",
    "closed form",
    "predicted, not split",
)


def score_table(errors_by_figure: Mapping[str, pd.DataFrame], source: str = "sim") -> str:
    """A Markdown table: per figure and in total, host-bound predicted rows that hold and
    within 10 % (of those the simulator has a value for), wire-bound rows apart, and how many
    rows of each other kind (what `lanloss figures --score` prints for the README)."""
    lines = ["| " + " | ".join(SCORE_COLUMNS) + " |", "|" + "---|" * len(SCORE_COLUMNS)]
    total: dict[str, dict[str, int]] = {}
    for figure, errors in [*errors_by_figure.items(), ("total", None)]:
        c = total if errors is None else counts(errors, source)
        if errors is not None:
            for kind, numbers in c.items():
                for k, v in numbers.items():
                    total.setdefault(kind, {}).setdefault(k, 0)
                    total[kind][k] += v
        h, w = c["host-bound"], c["wire-bound"]
        cells = [
            f"**{figure}**" if errors is None else figure,
            _of(h["held"], h["judged"]),
            _of(h["within_loose"], h["judged"]),
            f"{w['held']} of {w['judged']}",
            *(str(c[k]["rows"]) for k in (*NOT_PREDICTIONS, "predicted")),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# -- the caption ---------------------------------------------------------------------------


def _value(row: pd.Series, source: str) -> str:
    unit = f" {row['unit']}" if isinstance(row["unit"], str) and row["unit"] else ""
    ref, got = float(row["reference_value"]), float(row[f"{source}_value"])
    if row["relation"] in ("approx", "equal"):
        err = float(row[f"{source}_rel_error_pct"])
        tail = f" ({err:+.1f} %)" if not math.isnan(err) else ""
        return f"{got:.4g}{unit} against {ref:.4g}{tail}"
    if row["relation"] == "bar":
        within_bar = "within" if holds(row, source) else "outside"
        return f"{got:.4g}{unit} against {ref:.4g}, {within_bar} max(0.5 %, 15 %)"
    sign = {"max": "<=", "min": ">=", "below": "<", "above": ">"}[row["relation"]]
    kept = "kept" if holds(row, source) else "broken"
    return f"{got:.4g}{unit}, bound {sign} {ref:.4g} {kept}"


def cited(figure: str) -> str | None:
    """The paper a seed figure reproduces, as its module's CITATION gives it (else None)."""
    from lanloss.analysis import figures

    if figure not in figures.FIGURES:
        return None
    return getattr(figures.module(figure), "CITATION", None)


TITLES = {
    "host-bound": "Host-bound predictions (the era host decides the simulator's value: "
    "evidence for the host model)",
    "wire-bound": "Wire-bound predictions (the era host within 5 % of the ideal host, which "
    "holds them too: the simulator's arithmetic, not the host model)",
    "predicted": "Predicted, not split (no ideal-host run at the point)",
    "calibrated": "Calibrated (a cost was set from these: agreement by construction)",
    "imposed": "Imposed (they follow from a condition the study imposes)",
    "input": "Input (the study gives the simulator this number)",
    "closed form": "Closed form (the simulator against its own arithmetic, not the paper)",
}


def _caption_line(r: pd.Series, kind: str, source: str) -> str:
    if math.isnan(float(r[f"{source}_value"])):
        return f"- {r['point']}, {r['quantity']}: no simulated value"
    mark = ""
    if kind in common.PREDICTED_KINDS:
        mark = " [holds]" if holds(r, source) else " [OFF]"
    why = r.get("missing")
    if mark == " [OFF]" and isinstance(why, str) and why:
        mark = f" [OFF; not modelled: {why}]"
    ideal = float(r["ideal_value"]) if "ideal_value" in r else math.nan
    at_ideal = f"; ideal host {ideal:.4g}" if not math.isnan(ideal) else ""
    return f"- {r['point']}, {r['quantity']}: {_value(r, source)}{at_ideal}{mark}"


def caption(figure: str, errors: pd.DataFrame, source: str = "sim") -> str:
    """The paper the figure reproduces, then the figure's own numbers against the paper's,
    grouped by kind."""
    paper = cited(figure)
    lines = [f"Reproduces {paper}.", ""] if paper else []
    lines += [summary_line(figure, errors, source) + ".", ""]
    for kind in common.KINDS:
        rows = errors[errors["kind"] == kind]
        if rows.empty:
            continue
        lines.append(f"{TITLES[kind]}:")
        lines += [_caption_line(r, kind, source) for _, r in rows.iterrows()]
        lines.append("")
    for note in common.notes_of(errors):
        lines.append(f"Note: {note}")
    return "\n".join(lines).rstrip() + "\n"
