# SPDX-License-Identifier: GPL-2.0-only
"""A run the machine disturbed is measured again (`lanloss bed run --retry-disturbed N`).

One rule decides (lanloss.disturbance): the one the fit and the validation leave runs out
by. The harness keeps the last attempt's record and the disturbed attempts before it in
``extra.disturbed_attempts``; the table counts them and the validation says how many runs
were measured again. A LAN emulated here is also disturbed when the hypervisor took more
than 1 % of the CPUs during its traffic (/proc/stat's steal). The netns test offers a load
no sender here can reach (64-byte datagrams at 800 Mbit/s, 1.6 million a second), so every
attempt is disturbed, by the sender's own count: traffic stays inside the namespaces the
harness builds."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd
import pytest

from lanloss import disturbance
from lanloss.analysis import tables, validate
from lanloss.record import load
from lanloss.testbed import steal

FIELDS = dict(payload=1472, mtu=1500, switch_buffer=16384)  # a port holds 16384/1518 = 10.8


def test_a_burst_disturbs_only_beyond_what_the_switch_port_holds():
    held = disturbance.port_buffer_datagrams(1472, 1500, 16384)
    assert held == pytest.approx(16384 / 1518)
    assert disturbance.reasons({**FIELDS, "max_burst_datagrams": held * 0.99}) == []
    assert disturbance.reasons({**FIELDS, "max_burst_datagrams": held * 1.01}) == [
        disturbance.BURST
    ]
    # not measured (NaN, None: the simulator, iperf3) disturbs nothing
    for missing in (math.nan, None):
        fields = {**FIELDS, "max_burst_datagrams": missing, "offered_met": missing}
        assert disturbance.reasons({**fields, "recv_stalled": missing}) == []


def test_every_reason_is_named_in_one_order():
    fields = {
        **FIELDS,
        "offered_met": 0.0,
        "max_burst_datagrams": 100.0,
        "recv_stalled": 1.0,
        "guest_kept_pace": False,
        "steal_share": 0.02,
    }
    # a burst beyond the port is the one reason; one the port holds, at a full port, the other
    assert disturbance.reasons(fields) == [
        r for r in disturbance.LABELS if r != disturbance.FULL_PORT
    ]
    full = {**fields, "max_burst_datagrams": 9.0, "sent": 8238, "drop_switch_egress": 100}
    assert disturbance.reasons(full) == [r for r in disturbance.LABELS if r != disturbance.BURST]
    fields.update(offered_met=True, max_burst_datagrams=0.0, recv_stalled=0, guest_kept_pace=1)
    fields.update(steal_share=disturbance.STEAL_MAX)  # at the limit: not over it
    assert disturbance.reasons(fields) == []
    assert disturbance.reasons({**fields, "steal_share": math.nan}) == []


def test_a_stalled_reader_in_an_icount_guest_is_the_guests_own_work():
    stalled = {**FIELDS, "recv_stalled": 1.0}
    assert disturbance.reasons(stalled) == [disturbance.STALLED]  # netns, ssh, real-time vm
    assert disturbance.reasons({**stalled, "vm_icount_shift": math.nan}) == [disturbance.STALLED]
    # on the guest's clock: not this machine's doing; this machine's shows in the pace
    assert disturbance.reasons({**stalled, "vm_icount_shift": 5.0}) == []
    slow = {**stalled, "vm_icount_shift": 5.0, "guest_kept_pace": 0.0}
    assert disturbance.reasons(slow) == [disturbance.SLOW_GUEST]
    # a record gives the shift as its table row does
    env = {"vm": {"icount": {"shift": 5, "kept_pace": True}}}
    fields = disturbance.record_fields(FIELDS, {"recv_stalled": True}, env)
    assert fields["vm_icount_shift"] == 5 and disturbance.reasons(fields) == []
    assert (
        disturbance.record_fields(FIELDS, {}, {"vm": {"icount": None}})["vm_icount_shift"] is None
    )


def test_a_burst_the_port_holds_disturbs_where_the_port_dropped_and_it_is_over_01_percent():
    # 1472 B into a 16 KiB port at 97 Mbit/s for 1 s: 8,238 sent, the wire's 100 dropped
    run = {**FIELDS, "sent": 8238, "drop_switch_egress": 100}
    assert disturbance.reasons({**run, "max_burst_datagrams": 9.16}) == [disturbance.FULL_PORT]
    assert disturbance.reasons({**run, "max_burst_datagrams": 8.2}) == []  # 0.1 % is 8.238
    assert disturbance.reasons({**run, "max_burst_datagrams": 3.2}) == []
    # a port that dropped nothing had room for it; counts not measured judge nothing
    assert disturbance.reasons({**run, "drop_switch_egress": 0, "max_burst_datagrams": 9.16}) == []
    for missing in (None, math.nan):
        assert (
            disturbance.reasons({**run, "drop_switch_egress": missing, "max_burst_datagrams": 9.16})
            == []
        )
        assert disturbance.reasons({**run, "sent": missing, "max_burst_datagrams": 9.16}) == []
    # a record gives the same fields: its totals' sent and its drops' switch_egress
    fields = disturbance.record_fields(
        FIELDS, {"sent": 8238, "max_burst_datagrams": 9.16}, {}, {"switch_egress": 100}
    )
    assert disturbance.reasons(fields) == [disturbance.FULL_PORT]
    assert disturbance.record_fields(FIELDS, {}, {})["drop_switch_egress"] is None


def test_steal_is_the_stolen_part_of_all_cpus_time(tmp_path):
    stat = tmp_path / "stat"
    # user nice system idle iowait irq softirq steal guest guest_nice
    stat.write_text("cpu  100 0 50 800 0 0 10 40 7 0\ncpu0 50 0 25 400 0 0 5 20 7 0\n")
    before = steal.read(str(stat))
    assert before == steal.Jiffies(steal=40, total=1000)  # guest time is in user already
    stat.write_text("cpu  150 0 60 960 0 0 10 43 9 0\n")
    after = steal.read(str(stat))
    assert steal.share(before, after) == pytest.approx(3 / 223)
    assert steal.share(after, after) is None


def test_a_record_gives_the_fields_its_table_row_has():
    params = {**FIELDS, "rate": 60e6}
    totals = {"offered_met": True, "max_burst_datagrams": 11.6, "recv_stalled": False}
    env = {"vm": {"icount": {"kept_pace": False}}}
    fields = disturbance.record_fields(params, totals, env)
    assert disturbance.reasons(fields) == [disturbance.BURST, disturbance.SLOW_GUEST]
    assert disturbance.record_fields(params, totals, {})["guest_kept_pace"] is None


def test_a_bad_number_of_attempts_is_refused_before_any_host_is_touched(bed, tmp_path):
    res = bed("run", "--retry-disturbed", "11", "--out", str(tmp_path / "r.json"))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "'11'" in lines[0] and "--retry-disturbed" in lines[0]
    assert not (tmp_path / "r.json").exists()


@pytest.mark.netns
@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")
def test_a_disturbed_run_is_measured_again_and_says_so(bed, tmp_path: Path):
    out = tmp_path / "run.json"
    args = ["--payload", "64", "--rate", "800Mbps", "--edge-rate", "1Gbps"]
    args += ["--duration", "0.2s", "--warmup", "0s", "--retry-disturbed", "1"]
    res = bed("run", *args, "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "measuring it again (1 of 1)" in res.stderr
    rec = load(str(out))
    # the last attempt is the record; it was disturbed too, and stays so (left out)
    assert rec.totals["offered_met"] is False
    attempts = rec.extra["disturbed_attempts"]
    assert len(attempts) == 1
    assert disturbance.UNMET in attempts[0]["reasons"]
    assert attempts[0]["offered_met"] is False and attempts[0]["sent"] > 0
    assert attempts[0]["started_utc"] < rec.env["started_utc"]
    # the attempt's senders waited for its own receiver, not for the ready file the attempt
    # before left in the run folder: no datagram met a closed port, none is unexplained
    receiver = next(n for n, h in rec.env["hosts"].items() if h.get("role") == "receiver")
    udp = rec.extra["counters"][receiver]["snmp"]["Udp"]
    assert udp.get("NoPorts", 0) == 0 and rec.drops["unexplained"] == 0
    # the LAN ran on this machine: the hypervisor's share of it was measured
    assert 0.0 <= rec.totals["steal_share"] <= 1.0
    assert 0.0 <= attempts[0]["steal_share"] <= 1.0
    # but no host's CPU shares: a namespace's /proc/stat is this machine's
    assert rec.cpu == {} and "stat" in rec.extra["counters"][receiver]
    df = pd.DataFrame(tables.rows_of(rec, str(out), "retry"))
    assert list(df["disturbed_attempts"]) == [1]
    assert validate.measured_again(df) == {str(out): 1}
    assert disturbance.UNMET in validate.left_out_runs(df)
