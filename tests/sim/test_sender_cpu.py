# SPDX-License-Identifier: GPL-2.0-only
"""The sending host's CPU (send_cost per send() call, send_byte_cost per payload byte): a
sender whose CPU cannot keep up sends one datagram per send_cost + payload x send_byte_cost
and no faster, whatever the wire allows; a paced sender above that rate misses its offered
rate, and the record says so. Counted exactly: the first call is at t = 0, so a run of T
seconds makes ceil(T / cost) calls."""

from __future__ import annotations

import math

import pytest

from lanloss import options

pytestmark = pytest.mark.slow


def _calls(duration: float, cost: float) -> int:
    return math.ceil(duration / cost - 1e-9)


@pytest.mark.parametrize(
    ("payload", "send_cost", "byte_cost"),
    [(64, 10e-6, 0.0), (64, 10e-6, 0.5e-9), (1472, 1e-6, 10e-9)],
)
def test_a_cpu_bound_sender_sends_one_datagram_per_call_time(
    simulate, payload, send_cost, byte_cost
):
    # 1 Gbit/s carries 1.49 M 64-byte or 81 k 1472-byte datagrams/s: the CPU binds first
    # (100 k, 99.7 k and 63.6 k calls/s)
    cost = send_cost + payload * byte_cost
    rec = simulate(
        edge_rate="1Gbps",
        payload=payload,
        rate="max",
        send_cost=f"{send_cost!r}s",
        send_byte_cost=f"{byte_cost!r}s",
        duration="0.5s",
        warmup="0.1s",
    )
    t = rec.totals
    assert t["sent"] == _calls(0.5, cost)
    assert t["received"] == t["sent"]  # the wire had room: nothing lost anywhere


def test_a_paced_sender_above_its_cpu_misses_the_offered_rate_and_says_so(simulate):
    cost = 10e-6  # 100 k calls/s = 51.2 Mbit/s of 64-byte payload
    over = simulate(
        edge_rate="1Gbps", payload=64, rate="200Mbps", send_cost="10us", duration="0.5s"
    )
    assert over.totals["sent"] == _calls(0.5, cost)
    assert over.totals["offered_met"] is False
    assert over.totals["achieved_send_bps"] == pytest.approx(64 * 8 / cost, rel=1e-4)
    under = simulate(
        edge_rate="1Gbps", payload=64, rate="20Mbps", send_cost="10us", duration="0.5s"
    )
    assert under.totals["sent"] == math.ceil(20e6 * 0.5 / (8 * 64))  # the schedule: 19,532
    assert under.totals["offered_met"] is True


@pytest.mark.parametrize("name", ["send_cost", "send_byte_cost", "send_packet_cost"])
def test_sender_costs_apply_to_both_protocols_and_are_sim_only(name):
    for protocol in ("udp", "tcp"):  # TCP's: tests/sim/test_tcp_costs.py
        assert options.resolve({"protocol": protocol, name: "1us"}, "sim")[name] == 1e-6
    assert options.BY_NAME[name].one_source_because  # the testbed's sender is a real CPU
    with pytest.raises(options.OptionError, match=name):
        options.resolve({name: "1us"}, "bed")


def test_a_fragmented_datagram_costs_the_sender_a_frame_each(simulate):
    # 4000 bytes at MTU 1500: 3 fragments; 5 us per call + 3 x 10 us per frame = 35 us
    rec = simulate(edge_rate="1Gbps", payload=4000, rate="max", send_cost="5us",
                   send_packet_cost="10us", duration="0.5s", warmup="0.1s")  # fmt: skip
    assert rec.totals["sent"] == _calls(0.5, 35e-6)


def test_the_send_time_per_call_is_its_cpu_and_its_blocking(simulate):
    """What seed 003 timed at the sender: a call's CPU, plus the time it was blocked once
    the offered rate passes what the link takes (tables: send_time_us)."""
    from lanloss.analysis import tables

    paced = simulate(edge_rate="1Gbps", payload=1400, rate="100Mbps", send_cost="10us",
                     duration="0.2s", warmup="0.05s")  # fmt: skip
    row = tables.rows_of(paced, "paced.json", "t")[0]
    assert row["send_time_us"] == pytest.approx(10.0)  # never blocked: its CPU only
    # a small transmit queue: the few calls that fill it at the start (not blocked) are few
    full = simulate(edge_rate="100Mbps", payload=1400, rate="max", send_cost="10us",
                    tx_queue="16KiB", duration="0.5s", warmup="0.05s")  # fmt: skip
    row = tables.rows_of(full, "full.json", "t")[0]
    per_frame = 1400 * 8 / 95.2e6  # a 1400-byte datagram's time on 100 Mbit/s: 117.6 us
    assert row["send_time_us"] == pytest.approx(per_frame * 1e6, rel=0.02)  # the link's pace
