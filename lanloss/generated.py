# SPDX-License-Identifier: GPL-2.0-only
"""C++ headers the build generates from the Python tables (one definition each): the
presets' NIC families (lanloss.host_values) and the scenario program's flags: help,
default, choices and range of each, and the named topologies (lanloss.scenario_flags,
from lanloss.options). Written whole or not at all, as the build may be interrupted."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def header_main(argv: list[str], flag: str, module: str, render: Callable[[], str]) -> int:
    """``python -m MODULE FLAG PATH``: write render() to PATH; a usage line, exit 2, else."""
    if len(argv) != 2 or argv[0] != flag:
        print(f"usage: python -m {module} {flag} PATH", file=sys.stderr)
        return 2
    path = argv[1]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(render())
    os.replace(tmp, path)
    return 0
