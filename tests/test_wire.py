# SPDX-License-Identifier: GPL-2.0-only
"""The closed-form wire model against the table of docs/physics.md §1"""

import pytest

from lanloss.analysis import wire


@pytest.mark.parametrize(
    "payload,mtu,fragments,wire_bytes",
    [
        (1, 1500, 1, 84),
        (64, 1500, 1, 130),
        (576, 1500, 1, 642),
        (1472, 1500, 1, 1538),
        (1500, 1500, 2, 1624),
        (64512, 1500, 44, 67072),
        (8972, 9000, 1, 9038),
        (1500, 9000, 1, 1566),
        (64512, 9000, 8, 64984),
    ],
)
def test_wire_bytes(payload, mtu, fragments, wire_bytes):
    w = wire.wire(payload, mtu)
    assert (w.fragments, w.wire_bytes) == (fragments, wire_bytes)


def test_line_rates():
    assert wire.wire(1).datagrams_per_s(1e9) == pytest.approx(1_488_095, abs=1)
    assert wire.saturation_goodput_bps(1472, 100e6) / 1e6 == pytest.approx(95.71, abs=0.005)
