# SPDX-License-Identifier: GPL-2.0-only
"""Generic fixtures for the testbed tests: root, namespace names, the harness's state folder.

Tests create network namespaces only under their own name prefix and send traffic only
inside them. Helpers specific to one group of tests live in that group's own files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NS_PREFIX = "lltb-"  # every namespace/cgroup a harness test makes starts with this


def is_root() -> bool:
    return os.geteuid() == 0


needs_root = pytest.mark.skipif(not is_root(), reason="needs root (network namespaces)")


@pytest.fixture(scope="session")
def ns_prefix() -> str:
    """Prefix for the harness (`lanloss bed --prefix`) and for namespaces tests build."""
    return NS_PREFIX


@pytest.fixture
def bed_state(tmp_path: Path) -> Path:
    """A private restore-journal folder (LANLOSS_STATE_DIR) for one test."""
    d = tmp_path / "state"
    d.mkdir()
    return d


@pytest.fixture
def bed(bed_state: Path, ns_prefix: str):
    """Run `lanloss bed ARGS...` as a user would, with the test's prefix and state folder."""

    def run(
        *args: str,
        timeout: float = 120,
        netns: str | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "lanloss.cli", "bed", *args]
        if args and args[0] in ("run", "restore", "cleanup", "check"):
            cmd += ["--prefix", ns_prefix]
        if netns:
            cmd = ["nsenter", f"--net=/run/netns/{netns}", "--", *cmd]
        full_env = {**os.environ, "LANLOSS_STATE_DIR": str(bed_state), **(env or {})}
        return run_waiting_for_the_machine(cmd, timeout=timeout, env=full_env)

    return run


def machine_busy(res: subprocess.CompletedProcess) -> bool:
    """`bed restore`/`bed cleanup` refused because a run holds the machine lock."""
    return res.returncode == 1 and "machine.lock" in res.stderr and "holds" in res.stderr


def run_waiting_for_the_machine(
    cmd: list[str], timeout: float, env: dict[str, str], patience: float = 900
) -> subprocess.CompletedProcess:
    """Run a `lanloss bed` command; restore and cleanup refuse at once while another run
    (another test, on a shared machine) holds the machine lock: try those again until it
    is free, as a user would."""
    deadline = time.monotonic() + patience
    while True:
        res = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO, env=env
        )
        if not machine_busy(res) or time.monotonic() > deadline:
            return res
        time.sleep(1.0)
