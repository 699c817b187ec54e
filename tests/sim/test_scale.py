# SPDX-License-Identifier: GPL-2.0-only
"""The simulator's work per datagram does not grow with the number of hosts (issue 9).

Counted, never timed: events per received datagram from the record, and the frames on
the senders' links. The ns-3 suite lanloss-lan counts ARP entries and the frames at t = 0;
bench/scale.py measures times and memory.
"""

from __future__ import annotations

import pytest

LOAD = dict(edge_rate="100Mbps", payload=1472, rate="20Mbps", duration="0.05s", warmup="0.01s")


def events_per_datagram(simulate, **given) -> float:
    rec = simulate(**LOAD, **given)  # conservation checked by the fixture
    received = sum(f.received for f in rec.flows)
    assert received > 0 and rec.totals["loss"] == 0
    return rec.timing["events"] / received


def test_star_events_per_datagram_do_not_grow_with_hosts(simulate):
    small = events_per_datagram(simulate, senders=4, receivers=4)
    big = events_per_datagram(simulate, senders=128, receivers=128)
    # before issue 9: 256 hosts' gratuitous ARPs made it 4.5 against 3.2 (+40 %)
    assert big == pytest.approx(small, rel=0.02)
    assert big < 3.25  # source, two links, a few start and drain events per flow (85 datagrams)


def test_multicast_events_per_copy_fall_with_members(simulate):
    few = events_per_datagram(simulate, senders=1, receivers=4, cast="multicast")
    many = events_per_datagram(simulate, senders=1, receivers=128, cast="multicast")
    assert many <= few  # the shared part (source, sender's link) spreads over more copies
    assert many < 1.1  # one arrival per copy delivered, little else


def test_no_arp_on_the_wire_during_the_traffic(simulate):
    """Every frame on a sender's link is one of its datagrams: the ends of each flow know
    each other (LanBuilder's ARP entries), so no ARP request is broadcast to 64 hosts."""
    rec = simulate(**LOAD, senders=32, receivers=32)
    flows = rec.extra["senders"]
    assert len(flows) == 32
    for name, f in flows.items():
        assert f["sent_ok"] > 0 and f["frames_on_link"] == f["sent_ok"], name
