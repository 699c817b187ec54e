# SPDX-License-Identifier: GPL-2.0-only
"""Tables for the figure tests: real simulator records where the simulator runs the options
today, and synthetic rows (each test says which) where an option is not simulated yet.

Synthetic rows are copies of a real table row with options and counts replaced, so they
carry exactly the columns and types `lanloss table` writes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from lanloss import options, sim
from lanloss.analysis import tables
from lanloss.record import dump_json, write_atomic


def real_table(folder: Path, points: list[dict[str, Any]], study: str) -> pd.DataFrame:
    """Run each point in the simulator (lanloss sim run), then build the study's table."""
    files = []
    for i, given in enumerate(points):
        params = options.resolve({k: str(v) for k, v in given.items()}, "sim")
        record = sim.run_point(params)
        path = folder / f"{study}-{i}.json"
        write_atomic(str(path), dump_json(record.to_dict()))
        files.append(str(path))
    return tables.build(files, study)


def synthetic(template: pd.DataFrame, rows: list[dict[str, Any]], tag: str) -> pd.DataFrame:
    """Copies of the template's first row with the given columns replaced, one run each.

    `lost` follows from `sent` and `received` when they are given, `loss` from both.
    """
    base = template.iloc[0]
    out = []
    for i, changes in enumerate(rows):
        row = base.copy()
        for key, value in changes.items():
            row[key] = value
        if "received" in changes and "sent" in changes:
            row["lost"] = int(changes["sent"]) - int(changes["received"])
        row["loss"] = row["lost"] / row["sent"] if row["sent"] else math.nan
        row["run_file"] = f"synthetic/{tag}-{i}.json"
        row["point"] = f"{tag}-{i}"
        out.append(row)
    frame = pd.DataFrame(out).reset_index(drop=True)
    return frame.astype(template.dtypes.to_dict(), errors="ignore")
