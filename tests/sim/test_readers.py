# SPDX-License-Identifier: GPL-2.0-only
"""Several receiving processes and the cost of a read (host model): counted, not timed.

- read_byte_cost: a reader on a core of its own, fed faster than it reads, takes one
  datagram per read_cost + payload x read_byte_cost.
- reuseport on: a socket per reader, the datagrams dealt out to them in turn (the testbed's
  reuseport BPF program does the same by IP ID): each socket gets exactly its share.
- reuseport off: the readers share one socket and copy one at a time; each handoff of the
  lock costs the woken reader wakeup_cost, so two readers that always wait for each other
  take one datagram per read_cost + wakeup_cost, fewer than one reader alone.
- reader_cores all: reader i on core i mod cores, the first on the interrupt's core.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

# A 4-core host whose kernel is nearly free: the readers alone bind. 1 Gbit/s of 1472-byte
# datagrams is 81,274/s, far more than the readers below take.
FAST_KERNEL = dict(
    host="modern",
    edge_rate="1Gbps",
    payload=1472,
    rate="max",
    tx_queue="64KiB",
    rcvbuf="1MiB",
    packet_cost="0.1us",
    irq_cost="0.1us",
    duration="0.2s",
    warmup="0.05s",
)


def _reads(rec) -> list[int]:
    return [r["reads"] for r in rec.extra["hosts"]["r1"]["readers"]]


def _rate(rec) -> float:
    return rec.totals["goodput_bps"] / (8 * rec.params["payload"])


def test_a_read_costs_its_call_and_its_bytes(simulate):
    # 10 us + 1472 x 10 ns = 24.72 us per read: 40,453 reads/s of the 81,274 offered
    rec = simulate(**FAST_KERNEL, read_cost="10us", read_byte_cost="10ns")
    assert _rate(rec) == pytest.approx(1 / 24.72e-6, rel=0.002)
    assert rec.drops["socket_rcvbuf"] > 0  # the rest overflows the socket
    # without the bytes the reader would take 100,000/s: the wire's 81,274/s bind instead
    none = simulate(**FAST_KERNEL, read_cost="10us", read_byte_cost="0s")
    assert _rate(none) == pytest.approx(81274.3, rel=0.003) and none.totals["loss"] == 0


@pytest.mark.parametrize("readers", [2, 3, 4])
def test_reuseport_deals_the_datagrams_out_in_turn(simulate, readers):
    rec = simulate(**FAST_KERNEL, read_cost="1us", readers=readers, reuseport="on")
    sockets = rec.extra["hosts"]["r1"]["sockets"]
    assert len(sockets) == readers and rec.totals["loss"] == 0
    got = [s["enqueued"] for s in sockets]
    total = rec.totals["received"]
    assert sum(got) == total and max(got) - min(got) <= 1  # in turn: equal shares, exactly
    assert all(s["lock_handoffs"] == 0 for s in sockets)  # a reader each: nobody waits


def test_readers_sharing_a_socket_copy_one_at_a_time(simulate):
    # 20 us per read: one reader takes 50,000/s; two on one socket hand the lock over with
    # every datagram, each handoff costing 5 us: 40,000/s; two sockets: 81,274 (the wire)
    base = dict(FAST_KERNEL, read_cost="20us", wakeup_cost="5us")
    one = simulate(**base, readers=1)
    shared = simulate(**base, readers=2, reuseport="off")
    apart = simulate(**base, readers=2, reuseport="on")
    assert _rate(one) == pytest.approx(1 / 20e-6, rel=0.002)
    assert _rate(shared) == pytest.approx(1 / 25e-6, rel=0.005)
    handoffs = shared.extra["hosts"]["r1"]["sockets"][0]["lock_handoffs"]
    assert handoffs == pytest.approx(shared.totals["received"], rel=0.01)  # every datagram
    assert _rate(apart) == pytest.approx(81274.3, rel=0.003)
    # the copies themselves: the readers' CPU is their reads plus the handoffs
    cpu = sum(r["cpu_s"] for r in shared.extra["hosts"]["r1"]["readers"])
    assert cpu == pytest.approx(sum(_reads(shared)) * 20e-6 + handoffs * 5e-6, rel=1e-6)


def test_reader_cores_all_puts_the_first_reader_with_the_interrupt(simulate):
    others = simulate(**FAST_KERNEL, read_cost="1us", readers=5, reuseport="on")
    every = simulate(**FAST_KERNEL, read_cost="1us", readers=5, reuseport="on", reader_cores="all")
    cores = [r["core"] for r in others.extra["hosts"]["r1"]["readers"]]
    assert cores == [1, 2, 3, 1, 2]  # 1 + i mod (cores - 1): never the interrupt's core 0
    cores = [r["core"] for r in every.extra["hosts"]["r1"]["readers"]]
    assert cores == [0, 1, 2, 3, 0]  # i mod cores


# Seed 004's host: Linux 2.6.32's socket locks and hyper-threading (host_presets.py,
# SocketLock and Smt of x3440-2010); a short run at the seed's point.
X3440 = dict(
    host="x3440-2010",
    edge_rate="1Gbps",
    payload=1,
    rate="max",
    tx_queue="64KiB",
    duration="0.03s",
    warmup="0.005s",
)


def test_threads_on_one_socket_take_linuxs_locks(simulate):
    rec = simulate(**X3440, readers=2, reuseport="off")
    host = rec.extra["hosts"]["r1"]
    sock = host["sockets"][0]
    assert sock["read"] == sum(_reads(rec)) == rec.totals["received"]
    assert 0 <= sock["futile_wakeups"] <= sock["wakeups"]
    # the lock's line moves between the softirq's CPU 0 and the threads' CPUs 0 and 1
    assert sock["line_transfers"] > 0 and sock["spin_s"] >= 0
    assert [r["core"] for r in host["readers"]] == [0, 1]
    # other presets keep the simpler lock over a whole recvmsg: no such counters
    other = simulate(**FAST_KERNEL, read_cost="1us", readers=2, reuseport="off")
    assert "wakeups" not in other.extra["hosts"]["r1"]["sockets"][0]


def test_hyper_threading_gives_eight_logical_cpus(simulate):
    rec = simulate(**X3440, readers=8, reuseport="on")
    cores = [r["core"] for r in rec.extra["hosts"]["r1"]["readers"]]
    assert cores == list(range(8))  # 4 cores x 2 threads, reader i on logical CPU i
