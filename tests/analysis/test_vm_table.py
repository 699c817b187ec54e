# SPDX-License-Identifier: GPL-2.0-only
"""`python -m lanloss.analysis.vm_table`: a vm study's points with their repetitions pooled:
loss mean and range, where it was lost, interrupts per datagram, and the pace verdicts."""

from __future__ import annotations

from lanloss.analysis import vm_table


def _record(received: int, rx_fifo: int, irq: int, pace: float, kept: bool) -> dict:
    sent = 1000
    return {
        "params": {
            "payload": 64,
            "itr": 2500,
            "rx_ring": 256,
            "rcvbuf": 262144,
            "rate": 5.5e6,
            "duration": 3.0,
        },
        "totals": {
            "sent": sent,
            "received": received,
            "loss": (sent - received) / sent,
            "offered_pps": 10742.0,
            "achieved_send_bps": 10742.0 * 512,
        },
        "drops": {"rx_fifo": rx_fifo, "socket_rcvbuf": sent - received - rx_fifo, "unexplained": 0},
        "extra": {
            "counters": {
                "r1": {
                    "ethtool": {"eth0": {"rx_packets": received + 100}},
                    "interrupts": {"eth0": irq},
                }
            }
        },
        "env": {"vm": {"icount": {"kept_pace": kept, "pace": {"r1": {"pace": pace}}}}},
    }


def test_repetitions_are_pooled_with_their_spread_and_pace_verdicts():
    rows = [
        vm_table.row(_record(900, 60, 500, 0.99, True)),
        vm_table.row(_record(700, 200, 80, 0.80, False)),
    ]
    text = vm_table.table(rows).splitlines()
    assert len(text) == 3  # header, rule, one point
    cells = [c.strip() for c in text[2].strip("|").split("|")]
    assert cells[:5] == ["64", "2500", "256", "262144", "10742"]
    assert cells[6] == "20.00; 10.00-30.00"
    assert cells[7] == "0.10-0.50"  # 80 of 800 and 500 of 1000 frames the NIC took
    assert cells[8] == "rx_fifo 260, socket_rcvbuf 140"
    assert cells[9] == "0 of 400"
    assert cells[10] == "1 of 2 (0.80-0.99)"
