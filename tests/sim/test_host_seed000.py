# SPDX-License-Identifier: GPL-2.0-only
"""Seed 000's story in simulation (Tambach & Hennig, "How reliable is UDP?").

A 2008 PC (``--host e1000-2008``) receives 64-byte datagrams on 100 Mbit/s:
interrupts starve the application (receive livelock: past the knee less arrives
than at lower rates), interrupt moderation (``--itr 2500``) cures that and leaves
bursts of socket-buffer loss during application stalls, and a larger socket
buffer cures the rest (the seed: "deutlich unter einem Paket von zehntausend").

The preset's costs are c_i = 8 us per interrupt, c_d = 4 us per frame and
c_a = 5 us per read, so with one interrupt per frame the knee is
1 / (c_i + c_d + c_a) = 58.8 kpps = 30.1 Mbit/s of payload (docs/physics.md §2).
"""

from __future__ import annotations

import pytest

PAYLOAD_BITS = 64 * 8
SEED000 = dict(host="e1000-2008", payload=64, edge_rate="100Mbps", warmup="0.05s")
C_I, C_D, C_A = 8e-6, 4e-6, 5e-6


def rate(pps: int) -> str:
    return f"{pps * PAYLOAD_BITS}bps"


@pytest.fixture(scope="module")
def itr0_sweep(simulate):
    """Goodput and loss against offered rate with an interrupt per frame (0.2 s each)."""
    return {
        pps: simulate(**SEED000, itr=0, rate=rate(pps), duration="0.2s")
        for pps in (40_000, 56_000, 64_000, 72_000, 80_000)
    }


def test_itr0_knee_at_a_few_tens_of_mbits(itr0_sweep):
    knee_pps = 1 / (C_I + C_D + C_A)  # 58.8 kpps
    assert 56_000 < knee_pps < 64_000
    for pps in (40_000, 56_000):
        assert itr0_sweep[pps].totals["loss"] == 0
    lossy = itr0_sweep[64_000]
    assert lossy.totals["loss"] > 0.1
    # 20.5 Mbit/s clean, 32.8 Mbit/s lossy: the knee is at a few tens of Mbit/s,
    # a third of what the wire carries (49.2 Mbit/s of 64-byte payload)
    assert 56_000 * PAYLOAD_BITS < knee_pps * PAYLOAD_BITS < 64_000 * PAYLOAD_BITS < 35e6
    # The kernel never drops: the starved application's socket overflows (the seed's
    # finding: losses in the SOCK RCV buffer, with the CPU busy with interrupts).
    assert lossy.drops["socket_rcvbuf"] == lossy.totals["sent"] - lossy.totals["received"]


def test_itr0_goodput_falls_past_the_knee(itr0_sweep):
    """Livelock: past the knee, more offered means less delivered (docs/physics.md §2)."""
    gp = {pps: rec.totals["goodput_bps"] / PAYLOAD_BITS for pps, rec in itr0_sweep.items()}
    assert gp[64_000] > gp[72_000] > gp[80_000]
    assert gp[80_000] < 0.25 * gp[56_000]  # "absolut weniger Daten" than at lower rates
    # Mean-value model with one interrupt per packet: gamma = (1 - lambda (c_i + c_d)) / c_a
    for pps in (64_000, 72_000, 80_000):
        assert gp[pps] == pytest.approx((1 - pps * (C_I + C_D)) / C_A, rel=0.01)


def test_cpu_shares_at_72kpps(itr0_sweep):
    """The cpu section: IRQ work crowds out the application (one core, no idle time)."""
    cpu = itr0_sweep[72_000].cpu["r1"]
    assert cpu["irq"] == pytest.approx(72_000 * C_I, abs=2e-3)
    assert cpu["softirq"] == pytest.approx(72_000 * C_D, abs=2e-3)
    assert cpu["idle"] == pytest.approx(0, abs=1e-3)
    assert sum(cpu.values()) == pytest.approx(1, abs=1e-9)
    assert set(cpu) == {"irq", "softirq", "app", "idle"}


def test_itr2500_moves_the_knee_up(simulate, itr0_sweep):
    rec = simulate(**SEED000, itr=2500, rate=rate(72_000), duration="0.2s")
    assert itr0_sweep[72_000].totals["loss"] > 0.5
    assert rec.totals["loss"] == 0
    # interrupts capped at 2500/s: 2 % of the CPU instead of 58 %
    assert rec.cpu["r1"]["irq"] == pytest.approx(2500 * C_I, abs=1e-3)
    # knee now (1 - 2500 c_i) / (c_d + c_a) = 108.9 kpps, beyond the 100M wire's 96.2 kpps
    assert (1 - 2500 * C_I) / (C_D + C_A) > 100e6 / (8 * 130)


STALLS = dict(SEED000, rate=rate(64_000), duration="0.4s", stall_period="50ms")


def test_itr2500_cuts_loss_tenfold_and_losses_become_bursty(simulate):
    """Same rate, same application stalls (3 ms every 50 ms): ITR 0 vs ITR 2500."""
    per_packet = simulate(**STALLS, stall_length="3ms", itr=0)
    moderated = simulate(**STALLS, stall_length="3ms", itr=2500)
    l0, l2500 = per_packet.totals["loss"], moderated.totals["loss"]
    assert l0 > 0.2
    assert 0 < l2500 <= l0 / 10
    runs0 = per_packet.flows[0].loss_runs["mean"]
    runs2500 = moderated.flows[0].loss_runs["mean"]
    assert runs2500 > 5 * runs0  # seed 000: "nicht kontinuierlich, sondern impulsartig"
    # what remains is the socket buffer overflowing while the reader stalls; no PAUSE
    assert (
        moderated.drops["socket_rcvbuf"] == moderated.totals["sent"] - moderated.totals["received"]
    )
    assert moderated.pause["frames_sent"] == 0
    # 192 datagrams arrive per stall; sk_rcvbuf 109568 (rmem_default of that era) holds
    # floor(109568 / 768) + 1 = 143 of them
    assert moderated.extra["hosts"]["r1"]["sockets"][0]["peak_queue"] == 143


def test_large_rcvbuf_removes_the_rest(simulate):
    rec = simulate(**STALLS, stall_length="3ms", itr=2500, rcvbuf=212992)
    assert rec.totals["sent"] == 25_600
    assert rec.totals["loss"] < 1e-4  # the seed's figure for the optimised receivers
    # sk_rcvbuf 425984 holds 555 datagrams; a stall queues 192 (+ what arrives while
    # the reader catches up)
    assert rec.extra["hosts"]["r1"]["sockets"][0]["sk_rcvbuf"] == 2 * 212992
    assert rec.extra["hosts"]["r1"]["sockets"][0]["peak_queue"] < 555
