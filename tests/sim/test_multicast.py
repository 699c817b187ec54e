# SPDX-License-Identifier: GPL-2.0-only
"""UDP multicast: one group, every receiver a member, the switches flood it.

One record flow per receiver (as the testbed writes them: testbed/runner.py), each
with its own received / lost / drops, and conservation per receiver: a drop before
the copy (the sender's queue) is lost for every member, a drop on one branch of the
flood only for the members behind that branch. ``totals`` sum the flows (sent counts
a datagram once per member), exactly as the testbed does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lanloss.analysis import wire

SEED000_GROUP = dict(cast="multicast", receivers=40, rate="20Mbps", payload=1472)


def test_forty_receivers_one_copy_on_the_senders_link(simulate):
    rec = simulate(**SEED000_GROUP, host="e1000-2008", itr=2500, duration="0.2s", warmup="0.05s")
    sender = rec.extra["senders"]["flow0"]
    datagrams = sender["sent_ok"]
    assert datagrams == 340  # 20 Mbit/s of 1472-byte payloads for 0.2 s
    # the sender's NIC put each datagram on its link once, not once per receiver
    assert sender["frames_on_link"] == datagrams
    assert len(rec.flows) == 40
    assert {f.receiver for f in rec.flows} == {f"r{i}" for i in range(1, 41)}
    for f in rec.flows:
        assert f.sender == "s1"
        assert f.sent == datagrams and f.received == datagrams
        assert f.goodput_bps == pytest.approx(20e6, rel=0.01)
    assert rec.totals["sent"] == 40 * datagrams
    assert rec.totals["offered_bps"] == 40 * 20e6
    assert set(rec.cpu) == {f"r{i}" for i in range(1, 41)}  # every member has its own CPU


def test_a_drop_before_the_copy_counts_for_every_member(simulate):
    """A paced sender above its own link rate drops in its queue, before any copy."""
    rec = simulate(
        cast="multicast",
        receivers=4,
        rate="150Mbps",
        tx_queue="64KiB",
        duration="0.1s",
        warmup="0.01s",
    )
    lost = {f.receiver: f.drops["sender_queue"] for f in rec.flows}
    assert len(set(lost.values())) == 1 and lost["r1"] > 0
    assert rec.drops["sender_queue"] == 4 * lost["r1"]
    for f in rec.flows:
        assert f.sent - f.received == f.drops["sender_queue"]


BRANCHES = """
switches: [core, fast, slow]
hosts: {s1: sender, a1: receiver, a2: receiver, b1: receiver, b2: receiver}
links:
  - [s1, core, 100Mbps]
  - [fast, core, 1Gbps]
  - [slow, core, 10Mbps]
  - [a1, fast, 100Mbps]
  - [a2, fast, 100Mbps]
  - [b1, slow, 100Mbps]
  - [b2, slow, 100Mbps]
"""


def test_a_drop_on_one_branch_counts_only_behind_it(simulate, tmp_path: Path):
    """The core's 10 Mbit/s port to one edge switch overflows: only its two members lose."""
    topo = tmp_path / "branches.yaml"
    topo.write_text(BRANCHES)
    rec = simulate(topology=str(topo), cast="multicast", rate="20Mbps", duration="0.3s")
    by = {f.receiver: f for f in rec.flows}
    for name in ("a1", "a2"):
        assert by[name].lost == 0 and by[name].drops["switch_egress"] == 0
    for name in ("b1", "b2"):
        assert by[name].lost > 0
        assert by[name].drops["switch_egress"] == by[name].lost
    assert by["b1"].lost == by["b2"].lost  # the same copies were lost before the split
    assert rec.drops["switch_egress"] == 2 * by["b1"].lost


def mixed_group(path: Path) -> str:
    """Seed 000's warning: 39 members at 100 Mbit/s and one at 10 Mbit/s on one switch."""
    lines = ["switches: [sw1]", "hosts:", "  s1: sender", "  slow: receiver"]
    lines += [f"  r{i}: receiver" for i in range(1, 40)]
    lines += ["links:", "  - [s1, sw1, 100Mbps]", "  - [slow, sw1, 10Mbps]"]
    lines += [f"  - [r{i}, sw1, 100Mbps]" for i in range(1, 40)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_slow_member_with_pause_throttles_the_whole_group(simulate, tmp_path: Path):
    topo = mixed_group(tmp_path / "mixed.yaml")
    group = dict(topology=topo, cast="multicast", rate="20Mbps", duration="0.3s", warmup="0.1s")
    slow_link = wire.saturation_goodput_bps(1472, 10e6)  # 9.57 Mbit/s

    free = simulate(pause="off", **group)
    by = {f.receiver: f for f in free.flows}
    assert len(by) == 40
    assert by["slow"].goodput_bps == pytest.approx(slow_link, rel=0.01)
    assert by["slow"].drops["switch_egress"] == by["slow"].lost > 0
    for name, f in by.items():
        if name != "slow":
            assert f.lost == 0 and f.goodput_bps == pytest.approx(20e6, rel=0.01)

    paused = simulate(pause="on", **group)
    by = {f.receiver: f for f in paused.flows}
    # the slow port's queue pauses the switch's ingress from s1: s1's one link is held,
    # so every member gets at most what the slow one gets
    assert paused.pause["ports"]["s1"]["frames_received"] > 0
    assert by["slow"].drops["switch_egress"] == 0
    for name, f in by.items():
        assert f.goodput_bps < 1.01 * slow_link
        if name != "slow":
            assert f.goodput_bps < 0.5 * 20e6
