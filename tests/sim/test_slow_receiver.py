# SPDX-License-Identifier: GPL-2.0-only
"""recv_cpu and recv_work in the simulator: the same meaning as on the testbed.

recv_cpu is a CFS quota (quota = share x period, period as the testbed's cgroup) on the
receiving host's readers, recv_work the application's CPU time per datagram. The readers
then take at most share / (read_cost + recv_work) datagrams per second, and a period's
quota bounds the CPU time they get in it.
"""

from __future__ import annotations

import math

import pytest

from lanloss.testbed import cpulimit

NETNS = {"host": "netns", "read_cost": "2us", "payload": 1472, "duration": "1s"}
PPS_80M = 80e6 / (8 * 1472)


def _limit(record):
    (host,) = record.extra["hosts"].values()
    return host.get("cpu_limit"), host["readers"]


def test_the_quota_period_is_the_testbeds(simulate):
    r = simulate(**NETNS, rate="30Mbps", recv_cpu=20)
    limit, _ = _limit(r)
    assert limit["period_us"] == cpulimit.PERIOD_US
    assert limit["quota_us"] == 20 * cpulimit.PERIOD_US // 100
    assert limit["quota_enforced"] is True


def test_below_the_quota_nothing_is_throttled_or_lost(simulate):
    # 30 Mbit/s: 2548 datagrams/s x 52 us = 13 % of a CPU < 20 %
    r = simulate(**NETNS, rate="30Mbps", recv_cpu=20, recv_work="50us")
    limit, _ = _limit(r)
    assert limit["nr_throttled"] == 0
    assert r.totals["loss"] == 0


def test_above_the_quota_the_readers_get_the_quota_and_the_socket_overflows(simulate):
    r = simulate(**NETNS, rate="80Mbps", recv_cpu=20, recv_work="50us")
    limit, readers = _limit(r)
    cost = 52e-6
    reads = sum(x["reads"] for x in readers)
    cpu = sum(x["cpu_s"] for x in readers)
    assert cpu == pytest.approx(reads * cost, rel=1e-9)  # read_cost + recv_work per read
    # CPU time never exceeds the quota of the periods begun
    assert cpu <= limit["nr_periods"] * limit["quota_us"] * 1e-6 + 1e-9
    assert limit["nr_throttled"] >= 9  # every full period of the run
    # delivered at the quota's rate: 0.2 / 52 us = 3846/s, over the periods of the traffic
    assert reads == pytest.approx(0.2 / cost * 1.0, rel=0.12)
    # everything else is lost, at the socket (conservation is checked by the fixture)
    assert r.drops["socket_rcvbuf"] == r.totals["sent"] - r.totals["received"]
    assert r.totals["loss"] == pytest.approx(1 - 0.2 / cost / PPS_80M, abs=0.05)


def test_recv_work_alone_slows_the_reader(simulate):
    # 2 ms per datagram: 500/s from a reader offered 2548/s (30 Mbit/s), and after the
    # traffic the K datagrams the socket held (rmem_default 212992 / truesize 2304 -> 93)
    from lanloss.analysis.loss_model import socket_capacity

    r = simulate(**NETNS, rate="30Mbps", recv_work="2ms")
    limit, readers = _limit(r)
    assert limit is None  # no quota without recv_cpu
    K = float(socket_capacity(212992, 2304))
    assert sum(x["reads"] for x in readers) == pytest.approx(1.0 / 2.002e-3 + K, rel=0.02)
    assert r.drops["socket_rcvbuf"] > 0


def test_without_a_host_model_they_are_refused(simulate):
    from lanloss.options import OptionError

    for opt in ({"recv_cpu": 20}, {"recv_work": "50us"}):
        with pytest.raises(OptionError, match="needs a host model"):
            simulate(payload=1472, rate="30Mbps", **opt)


def test_the_mean_value_model_agrees(simulate):
    """The loss model's share/work terms, now for simulator rows too, against the run."""
    from lanloss.analysis import loss_model as lm
    from lanloss.options import resolve

    r = simulate(**NETNS, rate="60Mbps", recv_cpu=20, recv_work="50us")
    params = resolve(
        {
            k: str(v)
            for k, v in {**NETNS, "rate": "60Mbps", "recv_cpu": 20, "recv_work": "50us"}.items()
        },
        "sim",
    )
    rows = lm.rows_for(params)
    rows["recv_cpu_enforced"] = 1.0
    pred = lm.predict(lm.prepare(rows), lm.default_theta())
    assert math.isfinite(pred.mu_app[0])
    assert pred.mu_app[0] == pytest.approx(0.2 / 52e-6, rel=1e-6)
    assert float(pred.loss[0]) == pytest.approx(r.totals["loss"], abs=0.03)
