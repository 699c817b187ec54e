# SPDX-License-Identifier: GPL-2.0-only
"""The campus figure from a hand-made table: members pooled over servers, its error rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from lanloss.analysis import wire
from lanloss.analysis.figures import campus
from lanloss.record import DROP_POINTS

CAMPUS = str(Path(__file__).resolve().parents[2] / "config" / "topologies" / "campus.yaml")


def member_rows(run: str, rate: float, pause: str, goodput: dict[str, float], lost: dict):
    rows = []
    for receiver, g in goodput.items():
        for server in ("srv1", "srv2"):  # one flow per server and member, halves of each
            row = {
                "source": "sim",
                "run_file": run,
                "receiver": receiver,
                "sender": server,
                "rate": rate,
                "pause": pause,
                "host": "modern",
                "payload": 64.0,
                "topology": CAMPUS,
                "sent": 1000,
                "lost": lost.get(receiver, 0) // 2,
                "goodput_bps": g / 2,
            }
            row.update({f"drop_{p}": 0 for p in DROP_POINTS})
            row["drop_switch_egress"] = lost.get(receiver, 0) // 2
            rows.append(row)
    return rows


def test_campus_pools_servers_groups_members_and_checks_the_slow_port():
    cap = wire.saturation_goodput_bps(64, 10e6)
    off = {"c001": 20e6, "c260": 20e6, "slow": cap}
    rows = member_rows("a.json", 10e6, "off", off, {"slow": 1200})
    on = {"c001": 20e6, "c260": cap * 0.6, "slow": cap * 0.99}
    rows += member_rows("b.json", 10e6, "on", on, {"c260": 800})
    fig, errors = campus.draw(pd.DataFrame(rows))
    m = campus.members(pd.DataFrame(rows))
    assert len(m) == 6  # two runs x three members, the two servers' flows summed
    group = dict(zip(m["receiver"], m["group"], strict=False))
    assert group == {"c001": "other", "c260": "neighbour", "slow": "slow"}  # c260 is on e6
    slow_off = m[(m["receiver"] == "slow") & (m["pause"] == "off")].iloc[0]
    assert slow_off["loss"] == pytest.approx(1200 / 2000)
    assert slow_off["offered_mbps"] == pytest.approx(20.0)  # both servers
    rows_by = {(r["point"].split(",")[1].strip(), r["quantity"]): r for _, r in errors.iterrows()}
    slow = rows_by[("PAUSE off", "slow member's goodput")]
    assert slow["sim_value"] == pytest.approx(cap / 1e6)
    assert slow["reference_value"] == pytest.approx(cap / 1e6)
    near = rows_by[("PAUSE on", "the slow member's neighbours: goodput, highest")]
    assert near["relation"] == "max" and bool(near["sim_meets"])
    others = rows_by[("PAUSE on", "members on other edge switches: goodput, lowest")]
    assert others["sim_value"] == pytest.approx(20.0) and others["reference_value"] == 20.0


def test_campus_flags_neighbours_faster_than_the_slow_port_with_pause_on():
    cap = wire.saturation_goodput_bps(64, 10e6)
    rows = member_rows("b.json", 10e6, "on", {"c001": 20e6, "c260": 20e6, "slow": cap}, {})
    _, errors = campus.draw(pd.DataFrame(rows))
    near = errors[errors["quantity"] == "the slow member's neighbours: goodput, highest"].iloc[0]
    assert not bool(near["sim_meets"])  # 20 Mbit/s through a trunk the slow port holds paused
