# SPDX-License-Identifier: GPL-2.0-only
"""The workflow tests' marker; their helpers are in snakerun.py."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slurm: starts a one-node Slurm cluster on this machine (needs root)"
    )
