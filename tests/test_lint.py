# SPDX-License-Identifier: GPL-2.0-only
"""The house style is checked where CI runs (make test): ruff lint and ruff format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PATHS = ["lanloss", "analysis", "testbed", "tests", "bench", "workflow/scripts"]


def test_ruff_lint_and_format_are_clean():
    ruff = [sys.executable, "-m", "ruff"]
    check = subprocess.run([*ruff, "check", *PATHS], cwd=REPO, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    fmt = subprocess.run(
        [*ruff, "format", "--check", *PATHS], cwd=REPO, capture_output=True, text=True
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
