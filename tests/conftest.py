# SPDX-License-Identifier: GPL-2.0-only
"""Shared fixtures: the built programs, and the conservation check every sim test uses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build"
LANLOSS = [sys.executable, "-m", "lanloss.cli"]


def run_cli(*args: str, check: bool = False, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run `lanloss ARGS...` as a user would."""
    return subprocess.run(
        [*LANLOSS, *args], capture_output=True, text=True, timeout=timeout, check=check, cwd=REPO
    )


@pytest.fixture
def cli():
    """cli("sim", "run", ...) -> CompletedProcess of the real `lanloss` command."""
    return run_cli


@pytest.fixture(scope="session")
def built():
    """The C++ targets must be built (make test builds them first)."""
    missing = [
        p for p in ("bin/lanloss-sim", "bin/lanloss-test-runner") if not (BUILD / p).exists()
    ]
    if missing:
        pytest.fail(f"not built: {missing}; run `make build`")
    return BUILD


def is_root() -> bool:
    return os.geteuid() == 0
