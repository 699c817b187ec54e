# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for simulation tests: run a point and check conservation on every record."""

from __future__ import annotations

import pytest

from lanloss import options, sim
from lanloss.record import DROP_POINTS, RunRecord


def assert_conserved(record: RunRecord) -> None:
    """sent == received + sum(drops), with nothing unexplained, in total and per flow."""
    t = record.totals
    assert record.drops["unexplained"] == 0, record.drops
    assert t["sent"] == t["received"] + sum(record.drops.values()), (t, record.drops)
    for f in record.flows:
        assert f.drops["unexplained"] == 0, f
        assert f.sent == f.received + sum(f.drops.values()), f
        assert f.lost == f.sent - f.received
    assert set(record.drops) == set(DROP_POINTS)
    assert record.extra["ipv4_other_drops"] == 0


@pytest.fixture(scope="session")
def simulate(built):
    """simulate(payload=..., rate=...) -> RunRecord, conservation already checked."""

    def _run(pcap_dir: str | None = None, host_file: str | None = None, **given) -> RunRecord:
        params = options.resolve({k: str(v) for k, v in given.items()}, "sim", host_file)
        record = sim.run_point(params, pcap_dir=pcap_dir, host_file=host_file)
        assert_conserved(record)
        return record

    return _run
