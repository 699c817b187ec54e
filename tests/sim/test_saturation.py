# SPDX-License-Identifier: GPL-2.0-only
"""Saturation goodput equals the closed form (docs/physics.md §1), and seed 001 is reproduced."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

import pytest

from lanloss.analysis import wire

CASES = [
    # (payload, mtu)
    (1, 1500),
    (64, 1500),
    (576, 1500),
    (1472, 1500),
    (1500, 1500),
    (8972, 9000),
    (64512, 1500),
]
RATES = {"100Mbps": 100e6, "1Gbps": 1e9}


def duration_for(payload: int, mtu: int, rate_bps: float, datagrams: int = 1500) -> float:
    """Long enough for ~`datagrams` in the goodput window (count error <= 1/datagrams)."""
    return round(0.002 + datagrams / wire.wire(payload, mtu).datagrams_per_s(rate_bps), 4)


@pytest.mark.parametrize("rate", sorted(RATES))
@pytest.mark.parametrize("payload,mtu", CASES)
def test_saturation_goodput_matches_closed_form(simulate, payload, mtu, rate):
    bps = RATES[rate]
    duration = duration_for(payload, mtu, bps)
    rec = simulate(
        payload=payload,
        mtu=mtu,
        rate="max",
        edge_rate=rate,
        duration=f"{duration}s",
        warmup="0.001s",
    )
    expected = wire.saturation_goodput_bps(payload, bps, mtu)
    got = rec.totals["goodput_bps"]
    assert got == pytest.approx(expected, rel=0.005), (payload, rate, got, expected)
    # a blocking sender on an ideal LAN loses nothing
    assert rec.totals["received"] == rec.totals["sent"]


def _seed001_udp_medians() -> dict[int, float]:
    path = (
        Path(__file__).resolve().parents[2] / "analysis" / "reference" / "seed001_netperf_100m.csv"
    )
    rows = [r for r in csv.DictReader(line for line in path.open() if not line.startswith("#"))]
    by_size: dict[int, list[float]] = {}
    for r in rows:
        if r["combo"] == "LL" and r["protocol"] == "udp":
            by_size.setdefault(int(r["payload_bytes"]), []).append(float(r["throughput_mbps"]))
    return {size: statistics.median(v) for size, v in by_size.items()}


@pytest.mark.parametrize("payload", [576, 1500, 64512])
def test_seed001_linux_udp_column(simulate, payload):
    """netperf UDP_STREAM Linux-Linux, 100 Mbit/s (seed 001, table LL): within 1% of the medians."""
    median_mbps = _seed001_udp_medians()[payload]
    rec = simulate(
        payload=payload,
        rate="max",
        edge_rate="100Mbps",
        duration=f"{duration_for(payload, 1500, 100e6, 400)}s",
        warmup="0.001s",
    )
    assert rec.totals["goodput_bps"] / 1e6 == pytest.approx(median_mbps, rel=0.01)
