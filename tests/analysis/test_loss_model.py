# SPDX-License-Identifier: GPL-2.0-only
"""The combined model against the simulator's validated numbers (models/doc/host-model.rst)
and the wire's closed forms (docs/physics.md §1)."""

from __future__ import annotations

import pytest
from synthetic_tables import VALIDATION_RCVBUF, sim_params

from lanloss.analysis import loss_model as lm
from lanloss.analysis import network
from lanloss.analysis.wire import wire


def predict(**given):
    prep = lm.prepare(lm.rows_for(sim_params(**given)))
    return prep, lm.predict(prep, lm.default_theta())


LIVELOCK = dict(
    payload=64, duration="0.15s", warmup="0.01s", host="e1000-2008", rcvbuf=VALIDATION_RCVBUF
)


@pytest.mark.parametrize(
    "pps, goodput, loss",
    # host-model.rst "Receive livelock", ITR 0, 150 ms of 64-byte CBR on 100 Mbit/s
    [(40_000, 40_000, 0.0), (56_000, 56_000, 0.0), (64_000, 46_400, 0.246),
     (72_000, 27_200, 0.597), (80_000, 8_000, 0.877)],
)  # fmt: skip
def test_receive_livelock_itr0(pps, goodput, loss):
    prep, pred = predict(**LIVELOCK, itr=0, rate=pps * 64 * 8)
    # the readers' capacity past the knee is the mean-value model's (1 - U_k)/c_a, exactly
    assert min(pps, pred.mu_app[0]) == pytest.approx(goodput, rel=1e-9)
    assert pred.loss[0] == pytest.approx(loss, abs=1e-3)  # the record's three digits
    if loss:
        assert pred.stages["interrupts"][0] == pytest.approx(pred.loss[0])  # seed 000: IRQs


def test_itr_2500_removes_the_loss_at_100m():
    for pps in (40_000, 64_000, 72_000, 80_000):
        _, pred = predict(**LIVELOCK, itr=2500, rate=pps * 64 * 8)
        assert pred.loss[0] == 0.0


def test_knees():
    assert lm.knee(8e-6, 4e-6, 5e-6) == pytest.approx(58_823.5, rel=1e-4)  # 58.8 kpps
    assert lm.knee(8e-6, 4e-6, 5e-6, itr=2500) == pytest.approx(108_888.9, rel=1e-4)
    gamma = lm.livelock_goodput([64_000, 72_000, 80_000], 8e-6, 4e-6, 5e-6)
    assert list(gamma) == pytest.approx([46_400, 27_200, 8_000])


@pytest.mark.parametrize("pps, goodput, loss", [(104_000, 104_000, 0.0),
                                                 (112_000, 106_400, 0.038),
                                                 (120_000, 100_000, 0.155)])  # fmt: skip
def test_itr_2500_knee_at_1g(pps, goodput, loss):
    _, pred = predict(
        **LIVELOCK, itr=2500, edge_rate="1Gbps", rate=pps * 64 * 8
    )  # slope -c_d/c_a = -0.8 past the knee
    assert min(pps, pred.mu_app[0]) == pytest.approx(goodput, rel=1e-9)
    assert pred.loss[0] == pytest.approx(loss, abs=0.003)  # the doc does not give T
    if loss:
        assert pred.stages["cpu"][0] > 0 and pred.stages["interrupts"][0] == 0


def test_stalls_seed000():
    # 64 kpps, 5 ms stalls every 50 ms, 400 ms: ITR 0 33.6 %, ITR 2500 1.75 %, big rcvbuf 0
    base = dict(LIVELOCK, rate=64_000 * 512, duration="0.4s", stall_period=0.05,
                stall_length=0.005)  # fmt: skip
    _, p0 = predict(**base, itr=0)
    _, p1 = predict(**base, itr=2500)
    _, p2 = predict(**{**base, "rcvbuf": 212992}, itr=2500)
    assert p0.loss[0] == pytest.approx(0.336, abs=0.005)
    assert p1.loss[0] == pytest.approx(0.0175, abs=0.001)
    assert p1.stages["socket_buffer"][0] == pytest.approx(p1.loss[0])
    assert p2.K[0] == 555 and p2.loss[0] == 0.0


@pytest.mark.parametrize(
    ("host", "payload", "charged"),
    # Linux 6.1 as measured in the vm guest (1280 a copy, 2176 e1000's fragment), 2.6's rule
    [("qemu-e1000", 64, 1280), ("qemu-e1000", 512, 2176), ("qemu-e1000", 4000, 3 * 2176),
     ("e1000-2008", 64, 768), ("e1000-2008", 512, 2304), ("ideal", 64, 768)],
)  # fmt: skip
def test_a_simulated_host_is_charged_its_kernels_truesize(host, payload, charged):
    """The model's socket holds what the simulator's does: a 4 KiB socket (8 KiB
    sk_rcvbuf) takes 7 datagrams of 64 bytes on qemu-e1000 (tests/sim/test_host_presets.py),
    11 on e1000-2008."""
    prep, _ = predict(host=host, payload=payload, edge_rate="1Gbps", rate="1Mbps")
    assert prep.ts_rule[0] == charged
    held = {1280: 7, 768: 11}
    if charged in held:
        assert lm.socket_capacity(lm.sk_rcvbuf(4096), prep.ts_rule[0]) == held[charged]


def test_socket_capacity_rule():
    # host-model.rst: floor(sk_rcvbuf / truesize) + 1 with a stalled reader
    assert lm.socket_capacity(lm.sk_rcvbuf(None), lm.datagram_truesize(64, 1500)) == 278
    assert lm.socket_capacity(lm.sk_rcvbuf(100_000), lm.datagram_truesize(64, 1500)) == 261
    assert lm.socket_capacity(lm.RMEM_DEFAULT, lm.datagram_truesize(1472, 1500)) == 93
    assert lm.datagram_truesize(4000, 1500) == 6912  # three fragments of 2304
    assert lm.socket_capacity(lm.RMEM_DEFAULT, 6912) == 31
    assert lm.socket_capacity(lm.RMEM_DEFAULT, lm.datagram_truesize(64, 1500, 1000)) == 213
    assert lm.socket_capacity(lm.sk_rcvbuf(1), 768) == 7  # SOCK_MIN_RCVBUF
    assert lm.frame_truesize(60) == 704 and lm.frame_truesize(106) == 768


@pytest.mark.parametrize(
    "payload, edge, pps",
    [(64, 100e6, 96_153.8), (1472, 100e6, 8_127.4), (1472, 1e9, 81_274.4), (64512, 100e6, 186.4)],
)
def test_wire_capacity_is_the_closed_form(payload, edge, pps):
    prep, pred = predict(payload=payload, edge_rate=int(edge), rate="10Gbps", duration="1s")
    assert prep.capacity[0] == pytest.approx(wire(payload).datagrams_per_s(edge), rel=1e-12)
    assert prep.capacity[0] == pytest.approx(pps, rel=5e-4)  # docs/physics.md §1, rounded
    # long run: goodput = eta R (docs/physics.md §1)
    p = sim_params(payload=payload, edge_rate=int(edge), rate="10Gbps")
    flows = network.solve(p, duration=float("inf"))
    (fr,) = flows.values()
    assert fr.delivered == pytest.approx(wire(payload).datagrams_per_s(edge), rel=1e-9)


def test_multicast_floods_every_port_and_crosses_the_sender_link_once():
    p = sim_params(receivers=40, payload=64, rate="20Mbps")
    p["cast"] = "multicast"
    flows = network.solve(p)
    assert len(flows) == 40
    for fr in flows.values():  # 20 Mbit/s on a 100 Mbit/s sender link: once, not 40 times
        assert fr.delivered == pytest.approx(20e6 / 512) and fr.loss_wire == 0
    p["cast"] = "unicast"  # the same as 40 unicast flows overloads the sender's link
    assert all(fr.loss_wire > 0.5 for fr in network.solve(p).values())


def test_fragment_loss():
    p = 1e-3
    prep, pred = predict(payload=64512, rate="10Mbps", frame_loss=p)
    assert prep.n_f[0] == 44
    assert pred.loss[0] == pytest.approx(1 - (1 - p) ** 44)  # 4.3 %, docs/physics.md §5


def test_pause_moves_the_loss_to_the_sender():
    off = network.solve(sim_params(sender_rate="1Gbps", rate="300Mbps", duration="0.2s"))
    on = network.solve(sim_params(sender_rate="1Gbps", rate="300Mbps", duration="0.2s", pause="on"))
    (f_off,), (f_on,) = off.values(), on.values()
    assert f_off.drop_point == "switch_egress" and f_on.drop_point == "sender_queue"
    # the same goodput, the closed form's, both ways
    assert f_off.throughput == pytest.approx(8127.44, rel=1e-4)
    assert f_on.throughput == pytest.approx(8127.44, rel=1e-4)
    blocking = network.solve(
        sim_params(sender_rate="1Gbps", rate="300Mbps", pause="on", blocking="on")
    )
    assert next(iter(blocking.values())).loss_wire == 0.0  # the sender slows instead


@pytest.mark.parametrize("scv", [1.0, 20.0])
def test_a_cpu_quota_binds_over_its_period_not_on_short_bursts(scv):
    """The default study's slow receiver (recv_cpu 20, recv_work 50 us, 1472-byte CBR): the
    readers run at a core's speed until the 100 ms quota is used, so a paced sender's short
    bursts (the testbed's arrival_scv) cost nothing while lambda c_a < share; past it the
    loss is the fluid 1 - share / (lambda c_a), less what the socket buffer absorbs once."""
    from synthetic_tables import bed_params

    theta = dict(lm.default_theta(), read_cost=3e-6, arrival_scv=scv)
    c_a = theta["read_cost"] + 50e-6
    lam_quota = 0.2 / c_a  # datagrams/s the quota allows: 3774/s, 44.4 Mbit/s
    given = dict(payload=1472, recv_cpu=20, recv_work="50us", duration="1s", warmup="0.1s")
    for rate, expect in ((0.95 * lam_quota, 0.0), (1.5 * lam_quota, None)):
        rows = lm.rows_for(dict(bed_params(**given, rate=rate * 1472 * 8)), "bed")
        rows["recv_cpu_enforced"] = 1.0
        pred = lm.predict(lm.prepare(rows), theta)
        if expect is not None:
            assert pred.loss[0] == expect
        else:
            K = pred.K[0]
            fluid = 1 - 0.2 / (rate * c_a) - K / rate  # over T = 1 s
            assert pred.loss[0] == pytest.approx(fluid, rel=1e-6)
            assert pred.stages["socket_buffer"][0] == 0 and pred.stages["cpu"][0] > 0


def test_the_quota_rate_between_a_call_per_datagram_and_none():
    """quota_rate's limits: no call cost, or a reader that never catches up (lambda c_a >=
    1: every datagram read in a batch), gives share / c_a; a call per datagram when the
    socket holds nothing; the drained backlog cheapens the datagrams as lambda grows."""
    assert lm.quota_rate(0.2, 50e-6, 0.0, 5000.0, 90.0) == pytest.approx(0.2 / 50e-6)
    assert lm.quota_rate(0.2, 50e-6, 10e-6, 30_000.0, 90.0) == pytest.approx(0.2 / 50e-6)
    assert lm.quota_rate(0.2, 50e-6, 10e-6, 5000.0, 0.0) == pytest.approx(0.2 / 60e-6)
    rates = [lm.quota_rate(0.2, 50e-6, 10e-6, lam, 90.0) for lam in (4000.0, 6000.0, 8000.0)]
    assert rates == sorted(rates) and rates[-1] < 0.2 / 50e-6


def test_readers_capacity_counts_the_copy_and_the_lock_handoffs():
    """The readers' capacity as the simulator has it (tests/sim/test_readers.py): a read is
    its call plus the payload's copy; threads on one socket copy one at a time, a handoff
    between copies; processes on sockets of their own read in parallel."""
    base = dict(host="modern", edge_rate="1Gbps", payload=1472, rate="max", duration="0.2s",
                packet_cost="0.1us", irq_cost="0.1us")  # fmt: skip
    _, p = predict(**base, read_cost="10us", read_byte_cost="10ns")
    assert p.mu_app[0] == pytest.approx(1 / 24.72e-6)  # one reader on a core of its own
    shared = dict(base, read_cost="20us", wakeup_cost="5us", readers=2)
    _, p = predict(**shared, reuseport="off")
    assert p.mu_app[0] == pytest.approx(1 / 25e-6)
    _, p = predict(**shared, reuseport="on")
    assert p.mu_app[0] == pytest.approx(2 / 20e-6)
