# SPDX-License-Identifier: GPL-2.0-only
"""The named topologies and topology files build the LANs they describe."""

from __future__ import annotations

import pytest

from lanloss.analysis import wire


def test_two_tier_delivers_every_flow(simulate):
    rec = simulate(
        topology="two-tier",
        senders=2,
        receivers=4,
        edge_switches=3,
        rate="10Mbps",
        duration="0.05s",
        warmup="0.01s",
    )
    assert len(rec.flows) == 4
    assert {f.receiver for f in rec.flows} == {"r1", "r2", "r3", "r4"}
    assert rec.totals["loss"] == 0
    # sender -> edge1 -> core -> edgeN -> receiver: four store-and-forward hops at least
    one_hop_us = 1538 * 8 / 100e6 * 1e6
    assert all(f.latency_us["p50"] >= 2 * one_hop_us for f in rec.flows)


def test_two_site_latency_includes_the_wan(simulate):
    rec = simulate(
        topology="two-site", wan_delay="1.6ms", rate="10Mbps", duration="0.05s", warmup="0.01s"
    )
    lat = rec.flows[0].latency_us["p50"]
    # 1.6 ms of fibre + three store-and-forward hops (100M, 1G, 100M) + three 1 us cables
    expected = (
        1600
        + (1538 * 8 / 100e6 * 2 + 1538 * 8 / 1e9) * 1e6
        - 2 * 12 * 8 / 100e6 * 1e6
        - 12 * 8 / 1e9 * 1e6
        + 3
    )
    assert lat == pytest.approx(expected, abs=1.0)


def test_incast_overflows_the_receivers_port(simulate):
    """Three 100M senders at 50 Mbit/s each into one 100M receiver: the egress is the bottleneck."""
    rec = simulate(senders=3, receivers=1, rate="50Mbps", duration="0.3s", warmup="0.05s")
    assert rec.drops["switch_egress"] > 0
    assert rec.totals["goodput_bps"] == pytest.approx(
        wire.saturation_goodput_bps(1472, 100e6), rel=0.01
    )


def test_fragments_lost_at_the_switch_lose_the_datagram_once(simulate):
    """64512-byte datagrams (44 fragments) into a small buffer: each lost datagram counted once."""
    rec = simulate(
        sender_rate="1Gbps",
        payload=64512,
        rate="200Mbps",
        duration="0.2s",
        warmup="0.02s",
        switch_buffer="64KiB",
    )
    assert rec.drops["switch_egress"] > 0
    frames_dropped = rec.extra["frame_drops"]["switch_egress"]
    assert frames_dropped >= rec.drops["switch_egress"]  # several fragments, one datagram


def test_jumbo_frames_on_a_two_tier_lan(simulate):
    rec = simulate(
        topology="two-tier",
        mtu=9000,
        payload=8972,
        rate="max",
        edge_rate="1Gbps",
        duration="0.05s",
        warmup="0.005s",
    )
    assert rec.totals["goodput_bps"] == pytest.approx(
        wire.saturation_goodput_bps(8972, 1e9, 9000), rel=0.005
    )
