# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss figures --regress REFDIR FILE...`: have the simulator's numbers moved?

A FILE is a seed figure's error table (``NAME-errors.csv``, written by ``lanloss figures``)
or a study's summary (``NAME-summary.csv``, the workflow's rule ``summary``). Its committed
reference is ``REFDIR/<the same file name>`` (analysis/reference/regression/). Every row is
matched to the reference's by its key and compared column by column; every difference is
one line naming the file, the row and the column, ``old -> new``, and rows only one side
has are named too. ``--update`` writes the fresh tables as the references instead.

What is compared is the side of a table that is deterministic: the simulator's values and
the closed forms (and the ideal host's runs), never the testbed's (``bed_*`` columns, a
summary's ``bed`` rows): the same study, seeds and build give the simulator the same
numbers, the testbed never does.

The tolerance is the noise of floating point only. An error table is written with 10
significant digits: a value that moved by rounding noise (a few ulps, from another numpy
or CPU) can change its last digit, one part in 10^9 at most, so values within a relative
1e-9 are the same. A relative error in per cent, 100 (v - r) / r, is computed before it is
written: a value's few ulps move it by about 1e-13 points, hence the absolute 1e-12 (for
values at or near zero). A summary is written with 6 digits (1e-5) and its counts are
integers, compared exactly. Anything beyond that is a change.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from io import StringIO

import pandas as pd

from lanloss import inputs
from lanloss.options import OptionError
from lanloss.record import write_atomic

ABS_TOL = 1e-12  # a value that is zero in one table: at most this far from zero


@dataclass(frozen=True)
class Layout:
    """A kind of table the regression knows: how its rows are named and what is compared."""

    what: str  # in messages, with its article
    suffix: str  # its file name ends so
    key: tuple[str, ...]  # the columns that name a row (a summary: its option columns)
    compared: tuple[str, ...]  # the deterministic columns, compared cell by cell
    exact: tuple[str, ...]  # columns of integers: compared exactly
    rel_tol: float  # one unit in the last significant digit the file is written with


ERRORS = Layout(
    what="an error table",
    suffix="-errors.csv",
    key=("figure", "point", "quantity"),
    compared=(
        "unit",
        "relation",
        "kind",
        "reference_value",
        "sim_value",
        "model_value",
        "ideal_value",
        "sim_rel_error_pct",
        "model_rel_error_pct",
        "sim_meets",
        "model_meets",
    ),
    exact=(),
    rel_tol=1e-9,  # common.save: float_format %.10g
)
SUMMARY = Layout(
    what="a study summary",
    suffix="-summary.csv",
    key=(),  # the columns between `source` and `runs` (the study's varied options)
    compared=(
        "runs",
        "offered_Mbps",
        "goodput_Mbps",
        "sent",
        "received",
        "lost",
        "loss",
        "loss_min",
        "loss_max",
        "where_lost",
    ),
    exact=("runs", "sent", "received", "lost"),
    rel_tol=1e-5,  # workflow/scripts/summary.py: float_format %.6g
)
LAYOUTS = (ERRORS, SUMMARY)
SIM = "sim"  # the summary rows compared: the simulator's


class RegressionInputError(OptionError):
    """A file the regression cannot compare: one line naming it (exit 2)."""


@dataclass(frozen=True)
class Table:
    """A table's deterministic side, as text (the cells as written), ready to compare."""

    name: str  # its file name: the reference's too
    layout: Layout
    key: tuple[str, ...]
    rows: pd.DataFrame  # key + compared columns, strings ('' for an empty cell)

    def label(self) -> str:
        """seed004 for seed004-errors.csv (its figure), default-summary for a summary."""
        return self.name.removesuffix(".csv").removesuffix(ERRORS.suffix.removesuffix(".csv"))

    def csv(self) -> str:
        return self.rows.to_csv(index=False)


def layout_of(name: str) -> Layout:
    for layout in LAYOUTS:
        if name.endswith(layout.suffix):
            return layout
    raise RegressionInputError(
        f"--regress: {name!r} is neither an error table (NAME-errors.csv) nor a study "
        "summary (NAME-summary.csv)"
    )


def _read_text(path: str, flag: str) -> pd.DataFrame:
    """Every cell as the file writes it ('' when empty), so nothing is reinterpreted."""
    text = inputs.read_text(path, flag)  # InputError: one line naming the file
    try:
        return pd.read_csv(StringIO(text), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise RegressionInputError(
            f"{flag}: {path!r} is not a readable CSV ({inputs.one_line(str(exc))})"
        ) from None


def _summary_key(frame: pd.DataFrame, path: str, flag: str) -> tuple[str, ...]:
    cols = list(frame.columns)
    if "source" not in cols or "runs" not in cols or cols.index("source") > cols.index("runs"):
        raise RegressionInputError(f"{flag}: {path!r} is not a study summary: no source ... runs")
    return tuple(cols[cols.index("source") : cols.index("runs")])


def load(path: str, flag: str = "--regress") -> Table:
    """A fresh table or a reference: its deterministic rows (a summary's simulator rows)."""
    name = os.path.basename(path)
    layout = layout_of(name)
    frame = _read_text(path, flag)
    key = _summary_key(frame, path, flag) if layout is SUMMARY else layout.key
    if layout is SUMMARY:
        frame = frame[frame["source"] == SIM]
    missing = [c for c in (*key, *layout.compared) if c not in frame.columns]
    if missing:
        raise RegressionInputError(f"{flag}: {path!r} is not {layout.what}: no {missing[0]!r}")
    rows = frame[[*key, *layout.compared]].reset_index(drop=True)
    twice = rows.duplicated(list(key), keep=False)
    if twice.any():
        first = rows[twice].iloc[0]
        raise RegressionInputError(f"{flag}: {path!r}: row {_row_name(first, key)} is there twice")
    return Table(name, layout, key, rows)


def _row_name(row: pd.Series, key: Iterable[str]) -> str:
    """A row in words: its key's values (a summary's as option=value)."""
    key = tuple(key)
    if key and key[0] == "figure":
        return " | ".join(str(row[k]) for k in key[1:])
    return ", ".join(f"{k}={row[k]}" for k in key if k != "source")


def same_cell(old: str, new: str, column: str, layout: Layout) -> bool:
    """Equal text, or numbers within the layout's noise (its integer columns exactly)."""
    if old == new:
        return True
    try:
        a, b = float(old), float(new)
    except ValueError:
        return False  # text (a kind, a relation, True/False) or one side empty
    if column in layout.exact:
        return a == b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=layout.rel_tol, abs_tol=ABS_TOL)


def _shown(cell: str) -> str:
    return cell if cell != "" else "(empty)"


def differences(reference: Table, fresh: Table) -> list[str]:
    """Every way the fresh table differs from its reference, one line each: a cell
    (file, row, column: old -> new), a row only one side has, or a changed key."""
    label = fresh.label()
    if reference.key != fresh.key:
        return [f"{label}: rows named by {list(fresh.key)}, the reference by {list(reference.key)}"]
    key = list(fresh.key)
    old = reference.rows.set_index(key, drop=False)
    new = fresh.rows.set_index(key, drop=False)
    lines = []
    for k in old.index.difference(new.index, sort=False):
        lines.append(f"{label} | {_row_name(old.loc[k], key)}: in the reference, not in the table")
    for k in new.index.difference(old.index, sort=False):
        lines.append(f"{label} | {_row_name(new.loc[k], key)}: new, not in the reference")
    for k in new.index.intersection(old.index, sort=False):
        o, n = old.loc[k], new.loc[k]
        for col in fresh.layout.compared:
            if not same_cell(o[col], n[col], col, fresh.layout):
                lines.append(
                    f"{label} | {_row_name(n, key)} | {col}: {_shown(o[col])} -> {_shown(n[col])}"
                )
    return lines


@dataclass(frozen=True)
class Outcome:
    """One fresh table against its reference."""

    table: Table
    reference_path: str
    lines: list[str]  # the differences (empty: nothing moved)
    new: bool  # no reference yet

    def moved(self) -> bool:
        return self.new or bool(self.lines)


def check(refdir: str, paths: Iterable[str]) -> list[Outcome]:
    """Each fresh table (error table or study summary) against REFDIR/<its file name>."""
    if not os.path.isdir(refdir):
        raise RegressionInputError(f"--regress: {refdir!r} is not a folder of references")
    out, seen = [], set()
    for path in paths:
        fresh = load(path)
        if fresh.name in seen:
            raise RegressionInputError(f"--regress: {fresh.name!r} given twice ({path!r})")
        seen.add(fresh.name)
        ref_path = os.path.join(refdir, fresh.name)
        if not os.path.exists(ref_path):
            out.append(Outcome(fresh, ref_path, [], True))
            continue
        try:
            reference = load(ref_path, "reference")
        except OptionError as exc:  # unreadable, or of another layout: --update replaces it
            out.append(Outcome(fresh, ref_path, [f"{fresh.label()}: {exc}"], False))
            continue
        out.append(Outcome(fresh, ref_path, differences(reference, fresh), False))
    return out


def report(outcomes: list[Outcome]) -> str:
    """The differences, then one line per table: moved or as its reference."""
    lines = []
    for o in outcomes:
        lines += o.lines
    for o in outcomes:
        n = len(o.table.rows)
        if o.new:
            lines.append(f"{o.table.label()}: no reference {o.reference_path} ({n} rows)")
        elif o.lines:
            k = len(o.lines)
            lines.append(
                f"{o.table.label()}: {k} difference{'s' * (k != 1)} from the reference ({n} rows)"
            )
        else:
            lines.append(f"{o.table.label()}: {n} rows as the reference")
    return "\n".join(lines) + "\n"


def update(outcomes: list[Outcome]) -> list[str]:
    """Write each moved or new table as its reference (whole or not at all); their paths."""
    written = []
    for o in outcomes:
        if o.moved():
            write_atomic(o.reference_path, o.table.csv(), "--regress")
            written.append(o.reference_path)
    return written
