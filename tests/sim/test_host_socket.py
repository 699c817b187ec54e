# SPDX-License-Identifier: GPL-2.0-only
"""The receiving host's socket buffer, NIC FIFO and PAUSE, and fragment loss, from the CLI."""

from __future__ import annotations

import math

import pytest

STALLED = dict(
    host="e1000-2008",
    rate="20Mbps",
    stall_period="1s",
    stall_length="0.5s",  # the reader stalls from the start of the traffic to past its end
    duration="0.2s",
    warmup="0.01s",
)


@pytest.mark.parametrize(
    "payload,rcvbuf,truesize,per_datagram",
    [
        (1472, 100_000, None, 2304),  # one frame in e1000's 2 KiB receive buffer
        (64, 100_000, None, 768),  # copybreak: copied into a fitting skb
        (64, 50_000, 1000, 1000),  # --truesize overrides the driver's rule
        (4000, 212_992, None, 3 * 2304),  # reassembled: the truesize of its 3 fragments
    ],
)
def test_socket_holds_floor_2rcvbuf_over_truesize_plus_one(
    simulate, payload, rcvbuf, truesize, per_datagram
):
    extra = {} if truesize is None else {"truesize": truesize}
    rec = simulate(payload=payload, rcvbuf=rcvbuf, **extra, **STALLED)
    capacity = math.floor(2 * rcvbuf / per_datagram) + 1
    assert rec.totals["sent"] > capacity
    # the stalled reader reads, when the stall ends, exactly what the socket held
    assert rec.totals["received"] == capacity
    assert rec.drops["socket_rcvbuf"] == rec.totals["sent"] - capacity
    sock = rec.extra["hosts"]["r1"]["sockets"][0]
    assert sock["sk_rcvbuf"] == 2 * rcvbuf
    assert sock["peak_queue"] == capacity


def test_fragment_loss_is_one_minus_one_minus_p_to_the_44(simulate):
    """A 64512-byte datagram is 44 frames at MTU 1500; it needs every one of them."""
    p = 0.01
    rec = simulate(edge_rate="1Gbps", payload=64512, rate="900Mbps", frame_loss=p, duration="1s")
    n = rec.totals["sent"]
    expected = 1 - (1 - p) ** 44  # 0.357
    # Datagrams are lost independently (frames are, and a datagram's frames are its own):
    # a binomial count, sd = sqrt(L (1 - L) / n) = 0.0115 for n = 1744. Four sd: a
    # correct model fails this once in 16000 seeds.
    sd = math.sqrt(expected * (1 - expected) / n)
    assert n > 1700
    assert abs(rec.totals["loss"] - expected) < 4 * sd
    # charged to the first drop point of each lost datagram: the NIC's bad-FCS discard
    assert rec.drops["rx_error"] == n - rec.totals["received"]
    frames = rec.extra["frame_drops"]["rx_error"]
    assert abs(frames / (44 * n) - p) < 4 * math.sqrt(p * (1 - p) / (44 * n))


HOST_FIFO = dict(
    host="e1000-2008",
    itr=2500,
    packet_cost="20us",  # a kernel of 50 kpps
    rx_ring=80,
    # a socket that holds what ksoftirqd's 3 ms slices deliver between the reader's: the
    # loss these tests look at is the NIC's, not the socket's
    rcvbuf="1MiB",
    payload=64,
    rate="40960000bps",  # 80 kpps
    duration="0.2s",
    warmup="0.05s",
)


def test_without_pause_a_slow_kernel_overflows_the_nic_fifo(simulate):
    rec = simulate(pause="off", **HOST_FIFO)
    assert rec.totals["loss"] > 0.3
    assert rec.drops["rx_fifo"] == rec.totals["sent"] - rec.totals["received"]
    assert rec.pause["frames_sent"] == 0


def test_with_pause_the_host_sends_pause_from_its_fifo(simulate):
    rec = simulate(pause="on", **HOST_FIFO)
    host = rec.extra["hosts"]["r1"]
    assert rec.drops["rx_fifo"] == 0
    assert rec.pause["ports"]["r1"]["frames_sent"] == host["xoff_sent"] + host["xon_sent"] > 0
    # XOFF at the e1000 high-water mark min(0.9 FIFO, FIFO - max frame) = 44232 bytes
    assert host["high_water_bytes"] == 44232
    assert host["peak_fifo_bytes"] >= 44232
    # the switch passes the back-pressure on to the sender
    assert rec.pause["ports"]["s1"]["frames_received"] > 0


def test_a_full_socket_buffer_never_sends_pause(simulate):
    rec = simulate(pause="on", payload=1472, rcvbuf=100_000, **STALLED)
    assert rec.drops["socket_rcvbuf"] > 0
    assert rec.extra["hosts"]["r1"]["xoff_sent"] == 0
    assert rec.pause["frames_sent"] == 0
