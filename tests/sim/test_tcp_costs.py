# SPDX-License-Identifier: GPL-2.0-only
"""TCP's costs on the hosts' CPUs (seed 002: standard frames overload a host, jumbo frames
relieve it), counted against closed forms:

- the sender: send_cost per send() call, send_byte_cost per byte, send_packet_cost per
  segment (with the ACK it gets back), charged per byte as send_packet_cost / MSS: a
  CPU-bound sender writes one message per send_cost + payload x (send_byte_cost +
  send_packet_cost / MSS);
- the receiver: its application reads on the host's CPU, read_cost per recv() and
  read_byte_cost per byte; a reader that cannot keep up closes the window: the sender slows
  down and nothing is lost.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

MSS_1500 = 1448  # 1500 - IP 20 - TCP 20 - timestamps 12

GIG = dict(protocol="tcp", edge_rate="1Gbps", rate="max", tcp_window="1MiB", duration="0.3s",
           warmup="0.1s")  # fmt: skip


def _mbps(rec) -> float:
    return rec.totals["goodput_bps"] / 1e6


def test_a_cpu_bound_tcp_sender_writes_one_message_per_call_time(simulate):
    # 8000-byte messages: 60 us per call + 8000 x 1 ns + 8000 / 1448 x 2 us = 79.05 us per
    # message, 809.6 Mbit/s: below the wire's 941
    rec = simulate(**GIG, payload=8000, send_cost="60us", send_byte_cost="1ns",
                   send_packet_cost="2us")  # fmt: skip
    per_call = 60e-6 + 8000 * 1e-9 + 8000 / MSS_1500 * 2e-6
    assert rec.totals["achieved_send_bps"] == pytest.approx(8000 * 8 / per_call, rel=0.01)
    assert _mbps(rec) == pytest.approx(8000 * 8 / per_call / 1e6, rel=0.02)
    assert rec.totals["loss"] == 0
    free = simulate(**GIG, payload=8000)  # without the costs the wire binds: 941 Mbit/s
    assert _mbps(free) > _mbps(rec) * 1.1


def test_per_segment_costs_make_jumbo_frames_faster(simulate):
    # the same bytes, a sixth of the segments: per byte 1 ns + 10 us / MSS
    base = dict(GIG, payload=65536, send_packet_cost="10us", send_byte_cost="1ns")
    std = simulate(**base, mtu=1500)
    jumbo = simulate(**base, mtu=9000)
    per_byte_std = 1e-9 + 10e-6 / MSS_1500  # 7.9 ns: 1.01 Gbit/s of payload at most
    assert std.totals["achieved_send_bps"] <= 8 / per_byte_std * 1.01
    assert _mbps(jumbo) > _mbps(std)


def test_a_slow_tcp_reader_closes_the_window_instead_of_losing(simulate):
    # the receiving application copies 20 ns per byte (+ 5 us per 64 KiB recv): 49.8 MB/s
    rec = simulate(**GIG, payload=16384, host="modern", read_cost="5us",
                   read_byte_cost="20ns")  # fmt: skip
    per_byte = 20e-9 + 5e-6 / 65536
    assert _mbps(rec) == pytest.approx(8 / per_byte / 1e6, rel=0.03)  # 398 Mbit/s
    assert all(v == 0 for v in rec.drops.values())  # TCP's window, not a drop, slows it
    reader = rec.extra["hosts"]["r1"]["tcp_readers"][0]
    assert reader["cpu_s"] == pytest.approx(reader["reads"] * 5e-6 + reader["bytes"] * 20e-9)
    assert rec.cpu["r1"]["app"] == pytest.approx(0.25, abs=0.01)  # busy: one of four cores


# Seed 002's window below the bandwidth-delay product: 16 KiB over 1 Gbit/s and 2 x 2 ms.
WINDOW_LIMITED = dict(protocol="tcp", topology="two-site", edge_rate="1Gbps",
                      backbone_rate="1Gbps", wan_delay="2ms", payload=16384, rate="max",
                      tcp_window="16KiB", duration="0.5s", warmup="0.3s")  # fmt: skip


def test_a_reader_in_recv_keeps_the_window_open_on_a_prequeue_kernel(simulate):
    # xeon-2002 (Linux 2.4: the prequeue) is one core at 10 us per frame, 5 us per interrupt
    # and per read: busy for about a tenth of each 4 ms round trip. Its reader is in recv()
    # when the window's segments arrive, so each ACK advertises the window after the copy
    # and a window's worth of segments is in flight every round trip, as with no host
    # model: only the round trip is longer, by at most the interrupt throttle's 1/8000 s
    # and a frame's and a read's CPU. modern (4.14 and later: no prequeue) ACKs from the
    # softirq before the read: bytes not yet read shrink each advertised window.
    in_flight_bits = 8 * (16384 // MSS_1500) * MSS_1500
    ideal = simulate(**WINDOW_LIMITED).totals["goodput_bps"]
    era = simulate(**WINDOW_LIMITED, host="xeon-2002")
    modern = simulate(**WINDOW_LIMITED, host="modern").totals["goodput_bps"]
    longer_rtt = in_flight_bits / era.totals["goodput_bps"] - in_flight_bits / ideal
    assert 0 < longer_rtt < 1 / 8000 + 5e-6 + 10e-6 + 5e-6
    assert modern < 0.9 * ideal
    reader = era.extra["hosts"]["r1"]["tcp_readers"][0]
    # what the reader copied is what was delivered, each byte charged once
    assert reader["cpu_s"] == pytest.approx(reader["reads"] * 5e-6 + reader["bytes"] * 1.5e-9)
