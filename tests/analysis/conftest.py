# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures of the analysis tests (table, fit, plan)."""

from __future__ import annotations

import pytest


@pytest.fixture
def run(capsys):
    """run(*argv) -> (exit code, stdout, stderr) of `lanloss` called in this process: the
    console script's entry point without a new interpreter per call."""
    from lanloss.cli import main

    def _run(*argv):
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return _run
