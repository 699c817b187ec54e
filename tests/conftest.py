# SPDX-License-Identifier: GPL-2.0-only
"""Shared fixtures: the built programs, and the conservation check every sim test uses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lanloss.testbed.settings import MODULE_PARAMS, SYSCTLS, sysctl_path

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "build"
LANLOSS = [sys.executable, "-m", "lanloss.cli"]


TREE_TEST = "tests/test_ns3_tree.py"


def pytest_collection_modifyitems(config, items):
    """The untimed testbed tests (mostly waiting on QEMU guests) run just before the ns-3
    tree's test, which waits for the tree `make test` builds in the background: the build
    then finishes while they run. The timing-bound testbed tests keep their place after
    it, on a machine the build no longer loads. Otherwise the order is pytest's."""
    untimed = [i for i in items if i.get_closest_marker("untimed")]
    if not untimed:
        return
    rest = [i for i in items if not i.get_closest_marker("untimed")]
    at = next((k for k, i in enumerate(rest) if i.nodeid.startswith(TREE_TEST)), len(rest))
    items[:] = [*rest[:at], *untimed, *rest[at:]]


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


# The machine-wide settings a testbed run may change (its journal restores them): every test
# must leave them as it found them, whatever it killed or discarded on the way.
MACHINE_SETTINGS = {**{k: sysctl_path(k) for k in SYSCTLS}, **MODULE_PARAMS}


def read_machine_settings() -> dict[str, str | None]:
    """Each shared setting's text; None where it does not exist (sch_htb not loaded)."""
    values: dict[str, str | None] = {}
    for name, path in MACHINE_SETTINGS.items():
        try:
            values[name] = Path(path).read_text().strip()
        except FileNotFoundError:
            values[name] = None
    return values


@pytest.fixture(autouse=True)
def machine_settings_left_as_found():
    """Fails the test that leaves a machine-wide setting changed (a leaked run, a discarded
    journal not undone), naming it, instead of the later test that finds it changed. A
    module loaded during the test (before: None) is not a change."""
    before = read_machine_settings()
    yield
    after = read_machine_settings()
    changed = {
        k: f"{before[k]} -> {after[k]}"
        for k in before
        if before[k] is not None and before[k] != after[k]
    }
    assert not changed, f"this test left machine-wide settings changed: {changed}"
