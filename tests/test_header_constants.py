# SPDX-License-Identifier: GPL-2.0-only
"""The wire constants have one definition (models/model/lanloss-wire-format.h): Python reads
it, the C tools and the ns-3 module include it, and no other file spells the values."""

from __future__ import annotations

import subprocess
from pathlib import Path

from lanloss import constants

REPO = Path(__file__).resolve().parent.parent
SPELLED = ("5001", "239.77.0.1", "0x4C4C5353", "0x4c4c5353")


def test_python_reads_the_header():
    assert constants.PORT == 5001 and constants.GROUP == "239.77.0.1"
    assert constants.MAGIC == int.from_bytes(b"LLSS", "big")
    assert (constants.HDR_SEQ, constants.HDR_FULL) == (8, 24)


def test_no_other_source_spells_a_shared_value():
    tracked = subprocess.run(
        ["git", "ls-files", "*.py", "*.c", "*.h", "*.cc"], capture_output=True, text=True,
        cwd=REPO, check=True,
    ).stdout.split()  # fmt: skip
    allowed = {"models/model/lanloss-wire-format.h", "tests/test_constants.py"}
    # examples and tests may use the port as a literal, as ns-3's own examples do
    hits = [
        f"{f}: {v}"
        for f in tracked
        if f not in allowed and not f.startswith(("tests/", "models/examples/"))
        for v in SPELLED
        if v in (REPO / f).read_text()
    ]
    assert hits == []


def test_the_tools_default_to_the_shared_port(built):
    out = subprocess.run(
        [str(REPO / "testbed/tools/lanloss-send"), "--help"], capture_output=True, text=True
    )
    assert f"destination port ({constants.PORT})" in out.stdout + out.stderr
