# SPDX-License-Identifier: GPL-2.0-only
"""A study's table, summarised for the report: one row per source and point (repetitions
pooled), with the options the study's grids vary, the pooled loss (losses are counts:
sum(lost) / sum(sent)), its range over the runs, the goodput, and where the datagrams
were lost (the drop point with most of them, and its share).

Run by the workflow (rule summary), or by hand:
    .venv/bin/python workflow/scripts/summary.py results/tables/NAME.parquet OUT.csv
"""

# No `from __future__` import: Snakemake's `script:` puts its preamble above this file.
import sys

import pandas as pd

from lanloss import options as vocab
from lanloss import units
from lanloss.record import DROP_POINTS, write_atomic

# Columns of `lanloss table` (its documented contract) this summary reads.
COUNTS = ("sent", "received", "lost")
DROPS = tuple(f"drop_{p}" for p in DROP_POINTS)


def varying_options(table: pd.DataFrame) -> list[str]:
    """Vocabulary options that take more than one value in the table (seed aside)."""
    out = []
    for opt in vocab.OPTIONS:
        if opt.name == "seed" or opt.name not in table:
            continue
        if table[opt.name].astype(str).nunique(dropna=False) > 1:
            out.append(opt.name)
    return out


def shown(name: str, value: object) -> object:
    """An option's canonical value as a person reads it: 50Mbps, 16KiB, 0.5s."""
    kind = vocab.BY_NAME[name].kind
    if not isinstance(value, int | float) or pd.isna(value):
        return "max" if name == "rate" and pd.isna(value) else value
    if kind in ("rate", "rate_or_max"):
        return units.format_rate(value)
    if kind == "size":
        for unit, div in (("MiB", 2**20), ("KiB", 2**10)):
            if value >= div and value % div == 0:
                return f"{value / div:g}{unit}"
        return f"{value:g}"
    if kind == "time":
        for unit, mul in (("s", 1), ("ms", 1e3), ("us", 1e6)):
            if value == 0 or abs(value) * mul >= 1:
                return f"{value * mul:.6g}{unit}"
        return f"{value * 1e9:.6g}ns"
    if kind == "int":
        return int(value)
    return value


def _where(row: pd.Series) -> str:
    drops = row[list(DROPS)]
    total = drops.sum()
    if total <= 0:
        return "-"
    top = drops.idxmax()
    return f"{top.removeprefix('drop_')} {drops[top] / total:.0%}"


def summarise(table: pd.DataFrame, options: list[str] | None = None) -> pd.DataFrame:
    """One row per source and point; `options`: the columns that tell points apart (the
    options the study's grids vary; default: every option that varies in the table)."""
    shown_options = varying_options(table) if options is None else options
    keys = ["source", *(o for o in shown_options if o in table and o != "seed")]
    per_run = table.groupby(["source", "run_file"], sort=False, dropna=False).agg(
        **{c: (c, "sum") for c in (*COUNTS, *DROPS)},
        goodput_bps=("goodput_bps", "sum"),
        offered_bps=("offered_bps", "first"),
        **{k: (k, "first") for k in keys if k != "source"},
    )
    per_run = per_run.reset_index()
    per_run["run_loss"] = per_run["lost"] / per_run["sent"].where(per_run["sent"] > 0)
    grouped = per_run.groupby(keys, sort=True, dropna=False)
    out = grouped.agg(
        runs=("run_file", "count"),
        offered_Mbps=("offered_bps", "mean"),
        goodput_Mbps=("goodput_bps", "mean"),
        **{c: (c, "sum") for c in (*COUNTS, *DROPS)},
        loss_min=("run_loss", "min"),
        loss_max=("run_loss", "max"),
    ).reset_index()
    out["offered_Mbps"] = (out["offered_Mbps"] / 1e6).round(3)
    out["goodput_Mbps"] = (out["goodput_Mbps"] / 1e6).round(3)
    out["loss"] = out["lost"] / out["sent"].where(out["sent"] > 0)
    out["where_lost"] = out.apply(_where, axis=1)
    for name in keys[1:]:
        out[name] = [shown(name, v) for v in out[name]]
    cols = [*keys, "runs", "offered_Mbps", "goodput_Mbps", *COUNTS, "loss"]
    return out[[*cols, "loss_min", "loss_max", "where_lost"]]


def main(table_path: str, out_path: str, options: list[str] | None = None) -> None:
    summary = summarise(pd.read_parquet(table_path), options)
    write_atomic(out_path, summary.to_csv(index=False, float_format="%.6g"))


if __name__ == "__main__":
    if "snakemake" in globals():  # run by the workflow's `script:` directive
        sm = globals()["snakemake"]
        sys.stderr = open(sm.log[0], "w")  # noqa: SIM115 - the job's log
        main(sm.input[0], sm.output[0], list(sm.params.options))
    else:
        if len(sys.argv) != 3:
            sys.exit(__doc__)
        main(sys.argv[1], sys.argv[2])
