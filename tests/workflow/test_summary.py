# SPDX-License-Identifier: GPL-2.0-only
"""The report's per-point summary pools repetitions as counts and names where the loss was."""

from __future__ import annotations

import importlib.util

import pandas as pd
import pytest
from snakerun import REPO

from lanloss.record import DROP_POINTS

spec = importlib.util.spec_from_file_location("summary", REPO / "workflow/scripts/summary.py")
summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(summary)


def row(source, run, rate, seed, sent, received, where="switch_egress", receiver="r1"):
    """One table row as `lanloss table` writes it (the columns the summary reads)."""
    r = {
        "study": "t",
        "source": source,
        "point": run,
        "run_file": f"{run}.json",
        "rate": rate,
        "seed": seed,
        "payload": 1472.0,
        "receiver": receiver,
        "sent": sent,
        "received": received,
        "lost": sent - received,
        "goodput_bps": received * 1472 * 8.0,
        "offered_bps": rate,
    }
    r.update({f"drop_{p}": 0 for p in DROP_POINTS})
    r[f"drop_{where}"] = sent - received
    return r


def test_repetitions_pool_as_counts_per_source_and_point():
    table = pd.DataFrame(
        [
            row("sim", "a1", 150e6, 1, 1000, 600),
            row("sim", "a2", 150e6, 2, 3000, 2000),
            row("bed", "b1", 150e6, 1, 1000, 700, where="socket_rcvbuf"),
            row("sim", "c1", 50e6, 1, 500, 500),
        ]
    )
    out = summary.summarise(table).set_index(["source", "rate"])
    assert list(out.columns[:1]) == ["runs"]  # only rate varies (seed is the repetition)
    sim = out.loc[("sim", "150Mbps")]
    assert sim["runs"] == 2 and sim["sent"] == 4000 and sim["lost"] == 1400
    assert sim["loss"] == pytest.approx(1400 / 4000)  # pooled counts, not a mean of ratios
    assert (sim["loss_min"], sim["loss_max"]) == pytest.approx((1 / 3, 0.4))
    assert sim["where_lost"] == "switch_egress 100%"
    assert out.loc[("bed", "150Mbps")]["where_lost"] == "socket_rcvbuf 100%"
    assert out.loc[("sim", "50Mbps")]["where_lost"] == "-"


def test_flows_of_one_run_are_summed():
    table = pd.DataFrame(
        [
            row("sim", "m", 20e6, 1, 100, 90, receiver="r1"),
            row("sim", "m", 20e6, 1, 100, 100, receiver="r2"),
            row("sim", "n", 40e6, 1, 100, 50, receiver="r1", where="rx_ring"),
            row("sim", "n", 40e6, 1, 100, 100, receiver="r2"),
        ]
    )
    out = summary.summarise(table).set_index("rate")
    assert out.loc["20Mbps", "runs"] == 1 and out.loc["20Mbps", "sent"] == 200
    assert out.loc["40Mbps", "loss"] == pytest.approx(50 / 200)
    assert out.loc["40Mbps", "where_lost"] == "rx_ring 100%"


@pytest.mark.parametrize(
    "name,value,text",
    [
        ("rate", 95.71e6, "95.71Mbps"),
        ("switch_buffer", 16384.0, "16KiB"),
        ("duration", 0.5, "500ms"),
        ("recv_work", 5e-05, "50us"),
        ("warmup", 2.0, "2s"),
    ],
)
def test_values_are_shown_in_units(name, value, text):
    assert summary.shown(name, value) == text
