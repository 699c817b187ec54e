# SPDX-License-Identifier: GPL-2.0-only
"""`python -m lanloss.analysis.vm_table`: a vm study's points with their repetitions pooled:
loss mean and range, where it was lost, interrupts per datagram, and the pace verdicts."""

from __future__ import annotations

from lanloss.analysis import vm_table


def _record(
    received: int, rx_fifo: int, irq: int, pace: float, kept: bool, readers: list[int] = ()
) -> dict:
    """A vm run's record; `readers`: what each of several readers received (lanloss-recv's
    report), with reuseport off."""
    sent = 1000
    params = {
        "payload": 64,
        "itr": 2500,
        "rx_ring": 256,
        "rcvbuf": 262144,
        "rate": 5.5e6,
        "duration": 3.0,
    }
    report = {}
    if readers:
        params.update(readers=len(readers), reuseport="off")
        report = {"readers": [{"received": n} for n in readers]}
    return {
        "params": params,
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
            },
            "tool_reports": {"receivers": {"r1": report}},
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
    assert cells[:6] == ["64", "2500", "256", "262144", "1", "10742"]
    assert cells[7] == "20.00; 10.00-30.00"
    assert cells[8] == "267; 233-300"  # 900 and 700 datagrams in 3 s
    assert cells[9] == "-"  # one reader: no shares
    assert cells[10] == "0.10-0.50"  # 80 of 800 and 500 of 1000 frames the NIC took
    assert cells[11] == "rx_fifo 260, socket_rcvbuf 140"
    assert cells[12] == "0 of 400"
    assert cells[13] == "1 of 2 (0.80-0.99)"


def test_several_readers_are_a_point_of_their_own_with_each_readers_share():
    rows = [
        vm_table.row(_record(900, 60, 500, 0.99, True)),
        vm_table.row(_record(800, 60, 500, 0.99, True, readers=[600, 200])),
        vm_table.row(_record(1000, 0, 500, 0.99, True, readers=[500, 500])),
    ]
    text = vm_table.table(rows).splitlines()
    assert len(text) == 4  # one reader, then two on one socket: points of their own
    one, two = ([c.strip() for c in line.strip("|").split("|")] for line in text[2:])
    assert one[4] == "1" and one[9] == "-"
    assert two[4] == "2 shared"
    assert two[8] == "300; 267-333"
    assert two[9] == "0.25-0.75"  # 600 and 200 of 800; 500 and 500 of 1000
