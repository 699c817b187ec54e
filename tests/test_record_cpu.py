# SPDX-License-Identifier: GPL-2.0-only
"""The run record's optional `cpu` section and the `rx_error` drop point: old records still load."""

from __future__ import annotations

from lanloss.record import DROP_POINTS, RunRecord

OLD = {
    "schema": "lanloss.run/1",
    "source": "bed",
    "params": {"rate": 1},
    "flows": [],
    "totals": {"sent": 3, "received": 2},
    "drops": {name: 0 for name in DROP_POINTS if name != "rx_error"} | {"socket_rcvbuf": 1},
    "pause": {},
    "timing": {},
}


def test_record_without_cpu_or_rx_error_loads():
    rec = RunRecord.from_dict(OLD)
    assert rec.cpu == {}
    assert rec.drops["rx_error"] == 0
    assert rec.conservation_error() == 0


def test_cpu_round_trips_next_to_pause():
    shares = {"r1": {"irq": 0.5, "softirq": 0.25, "app": 0.25, "idle": 0.0}}
    rec = RunRecord.from_dict({**OLD, "cpu": shares})
    d = rec.to_dict()
    assert d["cpu"] == shares
    keys = list(d)
    assert keys[0] == "schema" and keys.index("cpu") == keys.index("pause") + 1
    assert RunRecord.from_dict(d).cpu == shares
