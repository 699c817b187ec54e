# SPDX-License-Identifier: GPL-2.0-only
"""The vm backend's study in numbers: per point (itr, rcvbuf, rate) the repetitions' loss
(mean and spread), where it was lost, and the receiver NIC's interrupts per datagram.

    python -m lanloss.analysis.vm_table results/runs/vm-seed000/bed

Interrupts per datagram: the receiver's /proc/interrupts line of its data NIC (delta over
the run, which includes the 1-2 s of counter snapshots and barrier around the traffic)
divided by the datagrams its NIC received (ethtool -S rx_packets).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

STAGES = ("sender_socket", "switch_egress", "rx_fifo", "rx_ring", "backlog", "socket_rcvbuf")


def row(rec: dict[str, Any]) -> dict[str, Any]:
    p, t, d = rec["params"], rec["totals"], rec["drops"]
    rx = rec["extra"]["counters"].get("r1", {})
    nic_rx = rx.get("ethtool", {}).get("eth0", {}).get("rx_packets", 0)
    irq = rx.get("interrupts", {}).get("eth0", 0)
    lost = t["sent"] - t["received"]
    return {
        "itr": p.get("itr"),
        "rcvbuf": p.get("rcvbuf"),
        "rate": float(p["rate"]),
        "offered_pps": t["offered_pps"],
        "sent_pps": t["achieved_send_bps"] / (8 * int(p["payload"])),
        "loss": t["loss"],
        "lost": lost,
        "drops": {k: d.get(k, 0) for k in (*STAGES, "unexplained")},
        "irq_per_dgram": irq / nic_rx if nic_rx else None,
        "rx_pps": t["received"] / float(p["duration"]),
    }


def table(rows: list[dict[str, Any]]) -> str:
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["itr"], r["rcvbuf"], r["rate"]), []).append(r)
    out = [
        "| itr | rcvbuf | offered pps | sent pps | loss % (mean; min-max) | irq/datagram "
        "| lost at (sum of repetitions) | unexplained |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (itr, rcvbuf, _rate), rs in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        losses = [100 * r["loss"] for r in rs]
        irqs = [r["irq_per_dgram"] for r in rs if r["irq_per_dgram"] is not None]
        stages = {k: sum(r["drops"][k] for r in rs) for k in STAGES}
        where = ", ".join(f"{k} {v}" for k, v in stages.items() if v) or "-"
        unexpl = sum(r["drops"]["unexplained"] for r in rs)
        lost = sum(r["lost"] for r in rs)
        out.append(
            f"| {itr} | {rcvbuf} | {rs[0]['offered_pps']:.0f} "
            f"| {statistics.mean(r['sent_pps'] for r in rs):.0f} "
            f"| {statistics.mean(losses):.2f}; {min(losses):.2f}-{max(losses):.2f} "
            f"| {'-' if not irqs else f'{min(irqs):.2f}-{max(irqs):.2f}'} "
            f"| {where} | {unexpl} of {lost} |"
        )
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m lanloss.analysis.vm_table RUNS_FOLDER", file=sys.stderr)
        return 2
    files = sorted(Path(argv[0]).glob("*.json"))
    if not files:
        print(f"lanloss: error: no run records in {argv[0]}", file=sys.stderr)
        return 2
    rows = [row(json.loads(f.read_text())) for f in files]
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
