# SPDX-License-Identifier: GPL-2.0-only
"""The ns-3 module's own TestSuites, run with ns-3's TestRunner."""

from __future__ import annotations

import subprocess

import pytest

SUITES = [
    "lanloss-ethernet",
    "lanloss-switch",
    "lanloss-apps",
    "lanloss-host",
    "lanloss-host-nic",
    "lanloss-host-kernel",
    "lanloss-lan",
]


@pytest.mark.parametrize("suite", SUITES)
def test_ns3_suite(built, suite):
    runner = built / "bin" / "lanloss-test-runner"
    listed = subprocess.run([str(runner), "--list"], capture_output=True, text=True).stdout
    assert suite in listed.split(), f"suite {suite} is not registered"
    proc = subprocess.run(
        [str(runner), f"--suite={suite}", "--verbose"], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0 and "FAIL" not in proc.stdout, proc.stdout + proc.stderr
    assert f"PASS {suite}" in proc.stdout
