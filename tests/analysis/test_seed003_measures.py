# SPDX-License-Identifier: GPL-2.0-only
"""Seed 003's figure measures as the thesis did: TCP loss is the offered data the sender
could not write in time, UDP loss what the receiver lost; send time is the echo round trip
where the record has it."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lanloss.analysis.figures import seed003


def _runs(**columns) -> pd.DataFrame:
    base = dict(
        protocol=["tcp", "udp"],
        payload=[1400.0, 1400.0],
        duration=[1.0, 1.0],
        offered_bps=[1.5e9, 1.5e9],
        sent=[83_000, 85_000],
        lost=[0, 850],
        send_time_us=[13.0, 11.5],
    )
    return pd.DataFrame({**base, **columns})


def test_tcp_loss_is_the_unwritten_share_and_udp_loss_the_receivers():
    loss = seed003.thesis_loss(_runs())
    written = 83_000 * 1400 * 8  # bits the TCP sender wrote in its 1 s
    assert loss.iloc[0] == pytest.approx(1 - written / 1.5e9)
    assert loss.iloc[1] == pytest.approx(850 / 85_000)  # lost / sent, not the offered


def test_a_sender_that_wrote_everything_lost_nothing():
    # 1.5 Gbit/s offered is 133,928.6 messages of 1400 B: writing all (and the rounding's
    # extra one) is no loss, never a negative one
    loss = seed003.thesis_loss(_runs(sent=[133_929, 133_929], lost=[0, 0]))
    assert loss.tolist() == [0.0, 0.0]


def test_send_time_is_the_echo_round_trip_else_the_call_time():
    r = _runs(echo_rtt_us=[1144.0, math.nan])
    ms = seed003.send_time_ms(r)
    assert ms.tolist() == pytest.approx([1.144, 0.0115])
    assert seed003.send_time_ms(_runs()).tolist() == pytest.approx([0.013, 0.0115])
