# SPDX-License-Identifier: GPL-2.0-only
"""Generic fixtures for the testbed tests: root, namespace names, the harness's state folder.

Tests create network namespaces only under their own name prefix and send traffic only
inside them. Helpers specific to one group of tests live in that group's own files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from bed_process import run_waiting_for_the_machine

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
