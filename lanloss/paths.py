# SPDX-License-Identifier: GPL-2.0-only
"""Where lanloss's built programs and data live (editable install: the repo)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("LANLOSS_BUILD", REPO / "build"))


def data_file(path: str) -> str:
    """A file a study names by a relative path (a topology file): the working directory's,
    else the lanloss checkout's, so a shipped study's files are found from any working
    directory (Snakemake -d) while the study keeps the short path in its point ids."""
    if os.path.isabs(path) or os.path.exists(path):
        return path
    shipped = REPO / path
    return str(shipped) if shipped.exists() else path


def program(name: str) -> Path:
    """A built C++ program under build/bin, with a clear error if it is missing."""
    path = BUILD / "bin" / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is not built; run `make build` first")
    return path


def ctool(name: str) -> Path:
    """A built testbed C tool under testbed/tools."""
    path = REPO / "testbed" / "tools" / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is not built; run `make build` first")
    return path
