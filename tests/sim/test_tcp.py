# SPDX-License-Identifier: GPL-2.0-only
"""TCP bulk transfer (--protocol tcp): goodput against the closed forms.

Messages of `payload` bytes written as fast as the socket accepts them; the record
counts messages (sent = accepted by the sender's socket, received = read by the
receiver), as the testbed's lanloss-send/-recv do for TCP. TCP retransmits what the
network drops, so nothing is lost once the connection has drained.
"""

from __future__ import annotations

import pytest

from lanloss.analysis import wire

MSS = 1500 - 52  # timestamps: 20 IP + 20 TCP + 12 option bytes


def test_tcp_at_saturation_reaches_the_closed_form(simulate):
    rec = simulate(protocol="tcp", edge_rate="100Mbps", duration="0.3s", warmup="0.1s")
    closed = wire.tcp_goodput_bps(100e6)  # 94.15 Mbit/s (seed 001's TCP columns: ~94)
    assert rec.totals["goodput_bps"] == pytest.approx(closed, rel=0.01)
    f = rec.flows[0]
    assert f.sent == f.received > 0 and f.lost == 0
    assert sum(rec.drops.values()) == 0
    # bytes accepted: the whole messages, and the start of one unfinished at the stop
    assert f.sent * 1472 <= rec.extra["senders"]["flow0"]["bytes"] < (f.sent + 1) * 1472


def frame_time(ip_bytes: int, rate_bps: float) -> float:
    return 8 * wire.frame_wire_bytes(ip_bytes) / rate_bps


def test_window_below_the_bdp_gives_window_over_rtt(simulate):
    """two-site: 100M edges, a 1 Gbit/s backbone of 1.6 ms. 32 KiB < BDP (45 KB)."""
    window = 32 * 1024
    rec = simulate(
        protocol="tcp",
        topology="two-site",
        tcp_window=window,
        duration="0.5s",
        warmup="0.2s",
    )
    # Nagle sends full segments only: the window holds 22 of them.
    in_flight = (window // MSS) * MSS
    # RTT of a full segment and its ACK: propagation (1.6 ms + 2 x 1 us each way), the
    # segment stored and forwarded over 100M, 1G, 100M, and its ACK back (the receiver
    # acknowledges every segment: lanloss-sim sets DelAckCount 1).
    prop = 2 * (1.6e-3 + 2e-6)
    seg = 2 * frame_time(1500, 100e6) + frame_time(1500, 1e9)
    ack = 2 * frame_time(52, 100e6) + frame_time(52, 1e9)
    rtt = prop + seg + ack
    assert 100e6 * rtt / 8 > window  # the bandwidth-delay product is larger
    assert rec.totals["goodput_bps"] == pytest.approx(8 * in_flight / rtt, rel=0.01)
    assert rec.totals["goodput_bps"] < 0.8 * wire.tcp_goodput_bps(100e6)


def test_a_tcp_payload_is_a_message_and_may_exceed_a_udp_datagram(simulate):
    """seed 001's TCP rows send 65536-byte messages (netperf -m): allowed for TCP, refused
    for UDP (65507 is the largest UDP payload)."""
    from lanloss.options import OptionError, resolve

    r = simulate(protocol="tcp", payload=65536, rate="max", duration="0.2s", warmup="0.05s")
    assert r.params["payload"] == 65536 and r.totals["received"] > 0
    with pytest.raises(OptionError, match="65507"):
        resolve({"payload": "65536"}, "sim")
    with pytest.raises(OptionError, match="payload: '2000000' is above the maximum"):
        resolve({"protocol": "tcp", "payload": "2000000"}, "sim")
