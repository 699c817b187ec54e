# SPDX-License-Identifier: GPL-2.0-only
"""The ns-3 module's own TestSuites, run with ns-3's TestRunner.

The suites are the ones models/test/*.cc declare (``TestSuite("lanloss-...")``), so a new
suite cannot be left out of this list; and the runner must list exactly those, so a suite
file the build does not compile (models/CMakeLists.txt globs models/test/*.cc) fails here
too."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

TEST_DIR = Path(__file__).resolve().parent.parent / "models" / "test"
DECLARED_RE = re.compile(r'TestSuite\("([\w-]+)"')


def declared_suites() -> list[str]:
    """Every suite the module's test sources declare, in file order."""
    return [
        name
        for source in sorted(TEST_DIR.glob("*.cc"))
        for name in DECLARED_RE.findall(source.read_text())
    ]


def listed_suites(built: Path) -> list[str]:
    runner = built / "bin" / "lanloss-test-runner"
    out = subprocess.run([str(runner), "--list"], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_the_runner_lists_every_declared_suite(built):
    declared = declared_suites()
    assert len(declared) == len(set(declared)) >= 9, declared
    assert sorted(listed_suites(built)) == sorted(declared)


@pytest.mark.parametrize("suite", declared_suites())
def test_ns3_suite(built, suite):
    runner = built / "bin" / "lanloss-test-runner"
    proc = subprocess.run(
        [str(runner), f"--suite={suite}", "--verbose"], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0 and "FAIL" not in proc.stdout, proc.stdout + proc.stderr
    assert f"PASS {suite}" in proc.stdout
