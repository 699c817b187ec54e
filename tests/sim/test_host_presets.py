# SPDX-License-Identifier: GPL-2.0-only
"""The host presets have one table (lanloss/host_presets.py, TABLE): the scenario program's NIC
families are generated from it at build time (scenario-presets.h), it knows exactly the
table's presets, and no scenario source spells a preset's values itself."""

from __future__ import annotations

import re
import subprocess

from lanloss import host_values, paths
from lanloss.sim import SCENARIO

GENERATED = paths.BUILD / "ns3-scratch" / "generated" / "scenario-presets.h"


def test_the_built_header_is_the_tables(built):
    """A stale build (the table edited, the program not rebuilt) or a hand edit fails here."""
    assert GENERATED.read_text() == host_values.cxx_header()


def test_the_program_knows_the_tables_presets(built):
    proc = subprocess.run(
        [str(paths.program(SCENARIO)), "--host=no-such-preset"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    known = re.search(r"host: 'no-such-preset' is not one of \(([^)]*)\)", proc.stderr)
    assert known, proc.stderr
    assert known.group(1).split(", ") == [host_values.IDEAL, *host_values.TABLE]


def test_the_header_carries_every_nic_value():
    text = host_values.cxx_header()
    for name, p in host_values.TABLE.items():
        n, lk = p.nic, p.lock
        row = (
            f'{{"{name}", {n.dma_bps}ULL, {n.driver_share!r}, 0x{n.pause_time:04X}, '
            f"0x{n.pause_refresh:04X}, {str(n.drop_when_no_ring).lower()}, "
            f"{str(lk.spinlock).lower()}, {lk.line_transfer!r}, {lk.hold!r}, "
            f"{str(lk.wake_all).lower()}, {lk.owner!r}, {p.smt.threads}, {p.smt.share!r}, "
            f"{p.clock.advance!r}, {p.clock.speedup!r}, {p.clock.interrupt_stall!r}, "
            f"{str(p.tcp_prequeue).lower()}}}"
        )
        assert row in text
        # the double the program computes with is the table's, digit for digit
        assert float(repr(n.driver_share)) == n.driver_share
    table = host_values.TABLE
    assert host_values.DRIVER_SHARE == {name: p.nic.driver_share for name, p in table.items()}
    assert host_values.PRESETS == {name: p.values for name, p in host_values.TABLE.items()}


def test_no_scenario_source_spells_a_preset():
    tracked = subprocess.run(
        ["git", "ls-files", "ns3-scratch", "models/helper", "models/model"],
        capture_output=True,
        text=True,
        cwd=paths.REPO,
        check=True,
    ).stdout.split()
    spelled = [f'"{name}"' for name in host_values.TABLE]
    hits = [
        f"{f}: {s}"
        for f in tracked
        if f.endswith((".cc", ".h"))
        for s in spelled
        if s in (paths.REPO / f).read_text()
    ]
    assert hits == []
