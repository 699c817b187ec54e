# SPDX-License-Identifier: GPL-2.0-only
"""The guest image the vm tests boot (test_bed_vm*.py, test_vm_study.py)."""

from __future__ import annotations

import os

import pytest

from lanloss.testbed import vmimage

# Every guest test: root (namespaces, taps), the netns resource, slow, and untimed (its checks
# are counts, so it may run beside the ns-3 tree's build: tests/conftest.py).
GUEST_TEST_MARKS = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (namespaces, taps)"),
    pytest.mark.netns,
    pytest.mark.slow,
    pytest.mark.untimed,
]


def build_or_fail() -> None:
    """Build the guest image on first use (downloads the kernel: make vm-image); a machine
    that cannot build it fails the test, naming why."""
    try:
        vmimage.build()
    except RuntimeError as exc:
        pytest.fail(f"the guest image cannot be built: {exc}")
