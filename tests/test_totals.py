# SPDX-License-Identifier: GPL-2.0-only
"""lanloss.totals: the one definition of a run's totals (offered, achieved, loss, met)."""

from __future__ import annotations

import pytest

from lanloss.totals import (
    RECEIVER_KEYS,
    Receiver,
    Stream,
    late_streams,
    receiver_totals,
    run_totals,
)

P = 1472
BITS = 8 * P


def test_a_cbr_sender_on_schedule_achieves_its_rate_exactly():
    n = 8493  # 100 Mbit/s of 1472-byte datagrams for 1 s (last due at (n-1)/r)
    st = Stream(100e6, n, (n - 1) * BITS / 100e6)
    assert st.achieved_bps(P, n * BITS / 100e6) == pytest.approx(100e6, rel=1e-12)
    assert st.met(P, 1.0) is True


def test_a_late_sender_misses_the_offered_load():
    n = 8493
    on_time = (n - 1) * BITS / 100e6
    assert Stream(100e6, n, on_time + 0.005).met(P, 1.0) is True  # 0.5 % late
    late = Stream(100e6, n, on_time + 0.02)  # 2 % late
    assert late.met(P, 1.0) is False
    assert late.achieved_bps(P, 1.0) == pytest.approx(n * BITS / (on_time + 0.02 + BITS / 100e6))
    assert late_streams({"s1": late}, P, 1.0) == ["s1: sent 98.039 Mbit/s of 100.000 offered"]
    # a sender that sent fewer (a blocked simulated sender does not catch up)
    assert Stream(100e6, int(0.97 * n), on_time).met(P, 1.0) is False


def test_a_short_run_whose_last_datagram_is_late_within_the_run_met_its_load():
    # 16 senders of 2 Mbit/s, 1472 B, 0.3 s (the netns testbed, 5 December): each tried
    # the 51 datagrams due before 0.3 s (one per 5.888 ms), the last up to 3.8 ms late
    gap = BITS / 2e6
    late_last = 50 * gap + 0.0038  # 0.2982 s from the first: before the run's end
    st = Stream(2e6, 51, late_last)
    assert st.achieved_bps(P, 0.3) < 0.99 * 2e6  # 98.7 %: by the rate alone, not met
    assert st.met(P, 0.3) is True
    assert run_totals([{"stream": 0, "sent": 51, "received": 51}], {0: st}, P, 0.3)["offered_met"]
    # one datagram fewer than due, or the last one after the run's end: by the rate
    assert Stream(2e6, 50, late_last).met(P, 0.3) is False
    assert Stream(2e6, 51, 0.301).met(P, 0.3) is False


def test_poisson_counts_get_three_standard_deviations():
    n_expected = 100e6 / BITS  # 8492.8 per second: sd 1.09 %
    low = Stream(100e6, int(n_expected * 0.975), 0.999, "poisson")  # -2.3 sd
    assert low.met(P, 1.0) is True
    assert Stream(100e6, int(n_expected * 0.96), 0.999, "poisson").met(P, 1.0) is False
    assert Stream(100e6, int(n_expected * 0.975), 0.999, "cbr").met(P, 1.0) is False


def test_rate_max_offers_what_it_achieved_and_has_no_verdict():
    st = Stream("max", 10_000, 0.5)
    flows = [{"stream": 0, "sent": 10_000, "received": 9_000, "goodput_bps": 1e6}]
    t = run_totals(flows, {0: st}, P, 1.0)
    assert t["offered_met"] is None
    assert t["offered_bps"] == pytest.approx(10_000 * BITS / 1.0)
    assert t["loss"] == pytest.approx(0.1)


def test_multicast_offers_per_member_and_achieves_per_stream():
    st = Stream(20e6, 1699, 1698 * BITS / 20e6)
    flows = [
        {"stream": "a", "sent": 1699, "received": r, "goodput_bps": 20e6} for r in (1699, 1600)
    ]
    t = run_totals(flows, {"a": st}, P, 1699 * BITS / 20e6)
    assert t["offered_bps"] == pytest.approx(40e6)
    assert t["achieved_send_bps"] == pytest.approx(20e6)
    assert t["sent"] == 3398 and t["received"] == 3299 and t["offered_met"] is True
    assert t["offered_pps"] == pytest.approx(40e6 / BITS)


def test_a_late_sender_catches_up_with_a_burst_the_totals_state():
    # 5 ms late at 80 Mbit/s of 1472-byte datagrams: 5e-3 x 80e6 / (8 x 1472) = 34 datagrams
    late = Stream(80e6, 6793, 1.0, "cbr", max_late_s=5e-3)
    ok = Stream(80e6, 6793, 1.0, "cbr")
    t = run_totals([{"stream": "a", "sent": 6793, "received": 6793}], {"a": late}, 1472, 1.0)
    assert t["max_late_s"] == 5e-3
    assert t["max_burst_datagrams"] == pytest.approx(5e-3 * 80e6 / (8 * 1472))
    t = run_totals([{"stream": "a", "sent": 6793, "received": 6793}], {"a": ok}, 1472, 1.0)
    assert t["max_late_s"] == 0 and t["max_burst_datagrams"] == 0
    assert Stream("max", 100, 1.0, max_late_s=1.0).burst_datagrams(1472) == 0


def test_a_receiver_is_stalled_when_off_the_cpu_longer_than_its_buffer_lasts():
    assert Receiver(max_stall_s=0.034, buffer_s=0.0335).stalled is True
    assert Receiver(max_stall_s=0.033, buffer_s=0.0335).stalled is False
    # a stall past the buffer estimate with no socket overflow lost nothing
    assert Receiver(0.034, 0.0335, socket_drops=0).stalled is False
    assert Receiver(0.034, 0.0335, socket_drops=3).stalled is True
    # a 5 % CFS quota throttles the reader for up to 95 ms per 100 ms period: explained
    quota = 0.1 * (1 - 5 / 100)
    assert Receiver(0.120, 0.0335, explained_s=quota).stalled is False  # 25 ms beyond it
    assert Receiver(0.130, 0.0335, explained_s=quota).stalled is True  # 35 ms beyond it
    # SCHED_IDLE stalls the reader whenever anything runs: not judged
    assert Receiver(10.0, 0.0335, explained_s=None).stalled is None


def test_receiver_totals_name_the_worst_and_say_null_where_nothing_measured():
    st = Stream(20e6, 1699, 1698 * BITS / 20e6)
    flows = [{"stream": "a", "sent": 1699, "received": 1699}]
    sim = run_totals(flows, {"a": st}, P, 1.0)
    assert {k: sim[k] for k in RECEIVER_KEYS} == dict.fromkeys(RECEIVER_KEYS)
    receivers = {
        "r1": Receiver(0.002, 0.0335, run_delay_s=0.01, nivcsw=3),
        "r2": Receiver(0.300, 0.5, run_delay_s=0.02, nivcsw=5),
    }
    t = run_totals(flows, {"a": st}, P, 1.0, receivers)
    assert (t["max_recv_stall_s"], t["recv_buffer_s"], t["recv_stalled"]) == (0.3, 0.0335, False)
    assert t["recv_run_delay_s"] == pytest.approx(0.03) and t["recv_nivcsw"] == 8
    receivers["r3"] = Receiver(0.05, 0.0335, nivcsw=None)
    t = receiver_totals(receivers)
    assert t["recv_stalled"] is True and t["recv_nivcsw"] is None and t["recv_run_delay_s"] is None
    unjudged = {"r1": Receiver(0.002, 0.0335), "r2": Receiver(1.0, 0.0335, explained_s=None)}
    assert receiver_totals(unjudged)["recv_stalled"] is None
