# SPDX-License-Identifier: GPL-2.0-only
"""What a figure's error table is evidence of, counted and said in words.

Each row of an error table is `predicted`, `calibrated` or `closed form` (common.EVIDENCE).
Only predicted rows count as evidence for the simulator: a calibrated row agrees because a
parameter was set from it, and a closed-form row compares the simulator with its own
arithmetic. A predicted row *holds* when the simulator is within PREDICTED_WITHIN_PCT of a
number the paper gives (relation approx; a reference of 0 only by 0), equals it (equal), keeps
the bound it states (max, min, below, above), or is within `lanloss validate`'s bar of a
testbed measurement (bar).

The caption written next to a figure (NAME-caption.md) is generated here from the error
table, so the numbers it states are the figure's own and cannot go stale; a seed figure's
caption opens with the paper it reproduces (the figure module's CITATION).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from lanloss.analysis.figures import common


def holds(row: pd.Series | dict[str, Any], source: str = "sim") -> Any:
    """Does `source`'s value hold the row? pd.NA when the source has no value there."""
    value = float(row[f"{source}_value"])
    if math.isnan(value):
        return pd.NA
    relation = row["relation"]
    if relation == "approx":
        if float(row["reference_value"]) == 0:
            return value == 0  # no relative error against 0: only 0 agrees
        return abs(float(row[f"{source}_rel_error_pct"])) <= common.PREDICTED_WITHIN_PCT
    if relation == "equal":
        return value == float(row["reference_value"])
    return bool(row[f"{source}_meets"])


def counts(errors: pd.DataFrame, source: str = "sim") -> dict[str, dict[str, int]]:
    """Per evidence kind: rows, rows the source has a value for (judged), rows it holds."""
    out = {}
    for kind in common.EVIDENCE:
        rows = errors[errors["evidence"] == kind]
        verdicts = [holds(r, source) for _, r in rows.iterrows()]
        judged = [v for v in verdicts if v is not pd.NA]
        out[kind] = {"rows": len(rows), "judged": len(judged), "held": sum(map(bool, judged))}
    return out


def _value(row: pd.Series, source: str) -> str:
    unit = f" {row['unit']}" if isinstance(row["unit"], str) and row["unit"] else ""
    ref, got = float(row["reference_value"]), float(row[f"{source}_value"])
    if row["relation"] in ("approx", "equal"):
        err = float(row[f"{source}_rel_error_pct"])
        tail = f" ({err:+.1f} %)" if not math.isnan(err) else ""
        return f"{got:.4g}{unit} against {ref:.4g}{tail}"
    if row["relation"] == "bar":
        within = "within" if holds(row, source) else "outside"
        return f"{got:.4g}{unit} against {ref:.4g}, {within} max(0.5 %, 15 %)"
    sign = {"max": "<=", "min": ">=", "below": "<", "above": ">"}[row["relation"]]
    kept = "kept" if holds(row, source) else "broken"
    return f"{got:.4g}{unit}, bound {sign} {ref:.4g} {kept}"


def summary_line(figure: str, errors: pd.DataFrame, source: str = "sim") -> str:
    """One line: how many predicted rows hold, and how many rows are not evidence."""
    c = counts(errors, source)
    p = c["predicted"]
    return (
        f"{figure}: {p['held']} of {p['judged']} predicted rows hold "
        f"(within {common.PREDICTED_WITHIN_PCT:g} % or their bound; {p['rows']} in the table); "
        f"not evidence: {c['calibrated']['rows']} calibrated, "
        f"{c['closed form']['rows']} closed form"
    )


def cited(figure: str) -> str | None:
    """The paper a seed figure reproduces, as its module's CITATION gives it (else None)."""
    from lanloss.analysis import figures

    if figure not in figures.FIGURES:
        return None
    return getattr(figures.module(figure), "CITATION", None)


def caption(figure: str, errors: pd.DataFrame, source: str = "sim") -> str:
    """The paper the figure reproduces, then the figure's own numbers against the paper's,
    grouped by what they are evidence of."""
    paper = cited(figure)
    lines = [f"Reproduces {paper}.", ""] if paper else []
    lines += [summary_line(figure, errors, source) + ".", ""]
    titles = {
        "predicted": "Predicted (no parameter was set from these numbers)",
        "calibrated": "Calibrated (a parameter was set from these: agreement by construction)",
        "closed form": "Closed form (the simulator against its own arithmetic, not the paper)",
    }
    for kind in common.EVIDENCE:
        rows = errors[errors["evidence"] == kind]
        if rows.empty:
            continue
        lines.append(f"{titles[kind]}:")
        for _, r in rows.iterrows():
            if math.isnan(float(r[f"{source}_value"])):
                lines.append(f"- {r['point']}, {r['quantity']}: no simulated value")
                continue
            mark = "" if kind != "predicted" else (" [holds]" if holds(r, source) else " [OFF]")
            why = r.get("missing")
            if mark == " [OFF]" and isinstance(why, str) and why:
                mark = f" [OFF; not modelled: {why}]"
            lines.append(f"- {r['point']}, {r['quantity']}: {_value(r, source)}{mark}")
        lines.append("")
    for note in common.notes_of(errors):
        lines.append(f"Note: {note}")
    return "\n".join(lines).rstrip() + "\n"
