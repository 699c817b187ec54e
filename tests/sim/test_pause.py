# SPDX-License-Identifier: GPL-2.0-only
"""Mixed speeds and IEEE 802.3x: overflow without PAUSE, back-pressure and HOL blocking with it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from lanloss.analysis import wire

GOODPUT_100M = wire.saturation_goodput_bps(1472, 100e6)  # 95.71 Mbit/s
FAST_INTO_SLOW = dict(
    sender_rate="1Gbps",
    edge_rate="100Mbps",
    payload=1472,
    rate="300Mbps",
    duration="0.5s",
    warmup="0.05s",
)


def test_pause_off_switch_egress_drops_the_excess(simulate):
    rec = simulate(pause="off", **FAST_INTO_SLOW)
    expected_loss = 1 - GOODPUT_100M / 300e6
    assert rec.totals["loss"] == pytest.approx(expected_loss, rel=0.02)
    d = rec.drops
    assert d["switch_egress"] == rec.totals["sent"] - rec.totals["received"]
    assert d["sender_queue"] == 0
    assert rec.pause["frames_sent"] == 0
    assert rec.totals["goodput_bps"] == pytest.approx(GOODPUT_100M, rel=0.01)


def test_pause_on_moves_the_loss_to_the_sender(simulate):
    rec = simulate(pause="on", **FAST_INTO_SLOW)
    d = rec.drops
    assert d["switch_egress"] == 0 and d["switch_ingress"] == 0
    assert d["socket_rcvbuf"] == 0
    assert d["sender_queue"] > 0  # a paced, non-blocking sender drops at its own queue
    assert rec.pause["frames_sent"] > 0
    assert rec.pause["ports"]["s1"]["frames_received"] > 0
    assert rec.pause["ports"]["s1"]["paused_s"] > 0.1
    assert rec.totals["goodput_bps"] == pytest.approx(GOODPUT_100M, rel=0.01)


def test_pause_on_blocking_sender_is_slowed_not_dropped(simulate):
    rec = simulate(pause="on", blocking="on", **FAST_INTO_SLOW)
    assert sum(rec.drops.values()) == 0
    assert rec.extra["senders"]["flow0"]["blocked_s"] > 0.1
    assert rec.totals["goodput_bps"] == pytest.approx(GOODPUT_100M, rel=0.01)


def test_timed_pause_style_also_prevents_switch_drops(simulate):
    rec = simulate(pause="on", pause_style="timed", pause_quanta=1664, **FAST_INTO_SLOW)
    assert rec.drops["switch_egress"] == 0 and rec.drops["switch_ingress"] == 0
    assert rec.pause["frames_sent"] > 0
    assert rec.totals["goodput_bps"] == pytest.approx(GOODPUT_100M, rel=0.02)


HOL_TOPOLOGY = """
switches: [sw1]
hosts: {s1: sender, slow: receiver, fast: receiver}
links:
  - [s1, sw1, 1Gbps]
  - [slow, sw1, 100Mbps]
  - [fast, sw1, 1Gbps]
flows:
  - {from: s1, to: slow, rate: 300Mbps}
  - {from: s1, to: fast, rate: 300Mbps}
"""


@pytest.fixture
def hol_topology(tmp_path: Path) -> str:
    path = tmp_path / "hol.yaml"
    path.write_text(HOL_TOPOLOGY)
    return str(path)


def _goodput(rec, receiver):
    return next(f.goodput_bps for f in rec.flows if f.receiver == receiver)


def test_pause_on_head_of_line_blocks_the_fast_receiver(simulate, hol_topology):
    off = simulate(
        topology=hol_topology, pause="off", payload=1472, duration="0.3s", warmup="0.05s"
    )
    on = simulate(topology=hol_topology, pause="on", payload=1472, duration="0.3s", warmup="0.05s")
    # without PAUSE the fast receiver gets its full 300 Mbit/s, the slow one the wire
    assert _goodput(off, "fast") == pytest.approx(300e6, rel=0.01)
    assert _goodput(off, "slow") == pytest.approx(GOODPUT_100M, rel=0.01)
    # with PAUSE the shared 1G ingress is stopped for everyone: the fast flow is
    # dragged down to the slow flow's pace (frames alternate in the sender's queue)
    assert _goodput(on, "fast") < 0.5 * _goodput(off, "fast")
    assert _goodput(on, "fast") == pytest.approx(_goodput(on, "slow"), rel=0.1)
    assert on.drops["switch_egress"] == 0


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_tshark_decodes_pause_frames_in_pcap(simulate, tmp_path):
    simulate(
        pcap_dir=str(tmp_path),
        pause="on",
        pause_quanta=1000,
        **{**FAST_INTO_SLOW, "duration": "0.01s", "warmup": "0.001s"},
    )
    sender_pcap = next(tmp_path.glob("*s1-*.pcap"))
    out = subprocess.run(
        [
            "tshark",
            "-r",
            str(sender_pcap),
            "-Y",
            "eth.type == 0x8808",
            "-T",
            "fields",
            "-e",
            "eth.dst",
            "-e",
            "macc.opcode",
            "-e",
            "macc.pause_time",
            "-e",
            "frame.len",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    rows = [line.split("\t") for line in out if line.strip()]
    assert rows, "no PAUSE frame found"
    for dst, opcode, pause_time, length in rows:
        assert dst == "01:80:c2:00:00:01"
        assert int(opcode, 0) == 1
        assert int(pause_time) in (1000, 0)  # XOFF with the configured quanta, or XON
        assert int(length) == 60  # 64-byte minimum frame without FCS
    assert any(int(r[2]) == 1000 for r in rows)


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_pcaps_have_nanosecond_timestamps_tshark_reads(simulate, tmp_path):
    """64-byte payloads back to back at 1 Gbit/s are 130 wire bytes, 1040 ns, apart: a pcap
    in microseconds would show gaps of 1 and 2 us; in nanoseconds they are exactly 1040 ns."""
    import struct

    simulate(pcap_dir=str(tmp_path), payload=64, rate="max", sender_rate="1Gbps",
             edge_rate="1Gbps", duration="0.0002s", warmup="0s")  # fmt: skip
    pcap = next(tmp_path.glob("*s1-*.pcap"))
    assert struct.unpack("<I", pcap.read_bytes()[:4])[0] == 0xA1B23C4D  # nanosecond magic
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-Y", "udp", "-T", "fields", "-e", "frame.time_epoch"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    from decimal import Decimal

    t = [Decimal(x) for x in out]
    gaps = {t[i + 1] - t[i] for i in range(10, 30)}
    assert gaps == {Decimal("0.000001040")}, gaps
