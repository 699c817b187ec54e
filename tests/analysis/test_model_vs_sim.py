# SPDX-License-Identifier: GPL-2.0-only
"""The model against the simulator itself: real `lanloss sim run` records, through the table.

Each point's loss must agree with the model's prediction within the binomial noise of the
run (3 sd) plus 0.5 % for the mean-value approximations (NAPI batches, drain timing).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lanloss import options, sim
from lanloss.analysis import loss_model as lm
from lanloss.analysis import tables

HOST = dict(host="e1000-2008", payload="64", warmup="0.01s", rcvbuf="106496")
# the default study's slow panel with the costs testbed/quota_periods.py measured on the
# netns testbed (README, "What it costs the held-out test"): a read 1.1 us, a call 11 us
SLOW = dict(host="netns", recv_cpu="20", recv_work="50us", read_cost="1.1us", read_call_cost="11us")
POINTS = [
    # receive livelock (ITR 0) and its cure (ITR 2500), host-model.rst's validation
    dict(HOST, itr="0", rate=str(64_000 * 512), duration="0.15s"),
    dict(HOST, itr="0", rate=str(72_000 * 512), duration="0.15s"),
    dict(HOST, itr="2500", rate=str(72_000 * 512), duration="0.15s"),
    # the ITR-2500 knee at 1 Gbit/s: the CPU, slope -c_d/c_a
    dict(HOST, itr="2500", edge_rate="1Gbps", rate=str(120_000 * 512), duration="0.1s"),
    # stalls and the socket buffer
    dict(
        HOST,
        itr="2500",
        rate=str(64_000 * 512),
        duration="0.3s",
        stall_period="50ms",
        stall_length="5ms",
    ),  # fmt: skip
    # the wire: a 1 Gbit/s server into a 100 Mbit/s client, without and with PAUSE
    dict(sender_rate="1Gbps", rate="150Mbps", duration="0.1s", warmup="0.01s"),
    dict(sender_rate="1Gbps", rate="150Mbps", duration="0.1s", warmup="0.01s", pause="on"),
    # fragments lost at the NIC: 1 - (1-p)^n_f
    dict(
        host="e1000-2008",
        itr="2500",
        payload="4000",
        rate="20Mbps",
        duration="0.3s",
        warmup="0.01s",
        frame_loss="0.02",
    ),  # fmt: skip
    # a CPU quota with a cost per receive call: the readers drain a
    # period's backlog in batches, then pay a call per datagram (quota_rate); without the
    # call's share the model would lose nothing at 44 Mbit/s and 42 % at 80
    *(
        dict(SLOW, rate=r, edge_rate="100Mbps", payload="1472", duration="2s")
        for r in ("44Mbps", "80Mbps")
    ),
    # multicast: one stream, a row per member
    dict(HOST, itr="2500", rate="30Mbps", duration="0.05s", cast="multicast", receivers="4"),
]


def _simulated_and_predicted(points: list[dict]) -> pd.DataFrame:
    """The points' simulator records through the table, with the model's loss (predicted)."""
    rows = []
    for i, given in enumerate(points):
        record = sim.run_point(options.resolve(given, "sim"))
        rows += tables.rows_of(record.to_dict(), f"point{i}.json", "vs-sim")
    df = tables._typed(pd.DataFrame(rows).reindex(columns=tables.columns()))
    df["predicted"] = lm.predict(lm.prepare(df), lm.default_theta()).loss
    return df


@pytest.fixture(scope="module")
def compared(built):
    return _simulated_and_predicted(POINTS)


def test_model_predicts_the_simulator(compared):
    for _, r in compared.iterrows():
        p = min(max(r["predicted"], 1e-4), 1 - 1e-4)
        tol = 3 * math.sqrt(p * (1 - p) / r["sent"]) + 0.005
        assert abs(r["loss"] - r["predicted"]) <= tol, (r["point"], r["loss"], r["predicted"])
    assert (compared["loss"] > 0.1).sum() >= 4  # the comparison is not all zeros


def test_multicast_rows_and_host_shares(compared):
    mc = compared[compared["cast"] == "multicast"]
    assert len(mc) == 4 and mc["receiver"].nunique() == 4
    livelock = compared[(compared["itr"] == 0) & (compared["rate"] == 72_000 * 512)].iloc[0]
    # U_k = 72 kpps x (8 + 4) us: IRQ 57.6 %, softirq 28.8 %, as the record's cpu section
    assert livelock["cpu_irq"] == pytest.approx(0.576, abs=0.005)
    assert livelock["cpu_softirq"] == pytest.approx(0.288, abs=0.005)


# java-2015's collector (Preset.collector): a 1.8 ms pause each 32 MiB read, into a socket
# of SO_RCVBUF 16 KiB, below the knee: what a pause brings beyond the socket is lost
COLLECTED = [
    dict(
        host="java-2015",
        payload=p,
        rate="900Mbps",
        edge_rate="1Gbps",
        duration="1s",
        warmup="0.01s",
        rcvbuf="16384",
    )  # fmt: skip
    for p in ("1400", "8000")
]


def test_model_predicts_the_collectors_loss(built):
    """The model takes the collector as stalls of its pause whose period is the bytes it
    reads between them over the rate it reads: the loss within a fifth of the simulator's
    (the run's whole collections against the model's mean) plus 3 sd; without the
    collector it would predict nothing."""
    for _, r in _simulated_and_predicted(COLLECTED).iterrows():
        assert r["lost"] > 50  # the pauses lose, the socket aside nothing does
        tol = 0.2 * r["loss"] + 3 * math.sqrt(r["loss"] * (1 - r["loss"]) / r["sent"])
        assert abs(r["loss"] - r["predicted"]) <= tol, (r["payload"], r["loss"], r["predicted"])
