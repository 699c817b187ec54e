# SPDX-License-Identifier: GPL-2.0-only
"""Seed 003's send time (option echo): the receiver's echo thread sends every message's stamp
back, the sender's timing thread adds arrival minus stamp. Counted exactly: each message read
is echoed once, the timed ones are those stamped inside the goodput window, and each thread's
cost adds to every round trip exactly once while neither thread has a queue."""

from __future__ import annotations

import math

import pytest

from lanloss import options

pytestmark = pytest.mark.slow

LIGHT = dict(
    edge_rate="1Gbps",
    host="java-2015",
    blocking="on",
    payload=1400,
    rate="200Mbps",  # one message per 56 us: the threads below never queue
    duration="0.2s",
    warmup="0.05s",
    echo="on",
)


def _sender(rec) -> dict:
    (s,) = rec.extra["senders"].values()
    return s


def _stamped_in_window(rate: float, payload: int, warmup: float, duration: float) -> int:
    """Messages k of a paced sender that never waits are stamped at k * gap: those in
    [warmup, duration)."""
    gap = 8.0 * payload / rate
    return math.ceil(duration / gap - 1e-9) - math.ceil(warmup / gap - 1e-9)


@pytest.mark.parametrize("protocol", ["udp", "tcp"])
def test_every_message_read_is_echoed_once_and_the_windows_are_timed(simulate, protocol):
    rec = simulate(protocol=protocol, echo_cost="9us", echo_recv_cost="9us", **LIGHT)
    s = _sender(rec)
    (flow,) = rec.flows
    assert flow.received == flow.sent  # light load: nothing lost
    assert s["echoed"] == flow.received  # one echo per message read
    assert s["echo_received"] == s["echoed"]  # no echo lost on the way back
    assert s["echo_queue_drops"] == 0
    # UDP's stamps follow the schedule from the traffic's start; TCP's from the connection's
    # (one round trip later), so its count is checked against the same rule loosely
    expected = _stamped_in_window(200e6, 1400, 0.05, 0.2)
    if protocol == "udp":
        assert s["echo_timed"] == expected
    else:
        assert abs(s["echo_timed"] - expected) <= 1


@pytest.mark.parametrize("protocol", ["udp", "tcp"])
def test_each_threads_cost_adds_once_to_every_round_trip(simulate, protocol):
    base = simulate(protocol=protocol, **LIGHT)
    costly = simulate(protocol=protocol, echo_cost="9us", echo_recv_cost="4us", **LIGHT)
    rtt0 = _sender(base)["echo_rtt_mean_s"]
    rtt1 = _sender(costly)["echo_rtt_mean_s"]
    assert _sender(costly)["echo_timed"] == _sender(base)["echo_timed"]
    # the forward path is the same run for run; each echo spends 9 + 4 us more in threads
    # that never queue at one message per 56 us
    assert rtt1 - rtt0 == pytest.approx(13e-6, abs=1e-9)
    assert rtt0 > 0


def test_a_tcp_sender_past_the_link_waits_behind_its_full_send_buffer(simulate):
    """Offered far beyond the link, a message's send() call starts behind a full send buffer
    (ns-3 TcpSocket SndBufSize, 131072 bytes): its round trip includes at least the time
    the link takes to carry the buffer's bytes ahead of it."""
    rec = simulate(**{**LIGHT, "protocol": "tcp", "rate": "3Gbps"})
    s = _sender(rec)
    capacity = rec.flows[0].goodput_bps
    ahead = (131072 - 1400) * 8 / capacity
    assert s["echo_rtt_mean_s"] >= ahead
    light = simulate(**{**LIGHT, "protocol": "tcp"})
    assert _sender(light)["echo_rtt_mean_s"] < ahead / 10


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (dict(echo="on"), "echo: on needs a host model"),
        (dict(echo="on", host="java-2015", cast="multicast"), "echo: on needs cast unicast"),
    ],
)
def test_echo_needs_a_modelled_unicast_receiver(given, message):
    with pytest.raises(options.OptionError, match=message):
        options.resolve(given, "sim")


def test_two_senders_to_one_receiver_each_get_their_own_echoes(simulate):
    rec = simulate(senders=2, echo_cost="9us", echo_recv_cost="9us", **LIGHT)
    assert len(rec.flows) == 2
    by_sender = {s["sender"]: s for s in rec.extra["senders"].values()}
    for flow in rec.flows:
        s = by_sender[flow.sender]
        assert s["echoed"] == flow.received == flow.sent  # its own datagrams, no other's
        assert s["echo_received"] == s["echoed"]
