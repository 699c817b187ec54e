# SPDX-License-Identifier: GPL-2.0-only
"""The vm backend's study in numbers: per point (payload, itr, ring, rcvbuf, readers, rate)
the repetitions' loss (mean and spread), what was delivered per second and how the readers
shared it, where it was lost, the receiver NIC's interrupts per datagram, and how many of
the runs' icount guests kept their pace (testbed/vm.py, pace).

    python -m lanloss.analysis.vm_table results/runs/vm-e1000/bed

Interrupts per datagram: the receiver's /proc/interrupts line of its data NIC (delta over
the run, which includes the 1-2 s of counter snapshots and barrier around the traffic)
divided by the datagrams its NIC received (ethtool -S rx_packets). Readers: "1", or "N
shared" (threads on one socket, reuseport off) or "N reuseport" (a socket each); with
several, each reader's share of what was delivered (its smallest and largest over the
repetitions' readers), from lanloss-recv's report.
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
    icount = (rec["env"].get("vm") or {}).get("icount") or {}
    report = rec["extra"].get("tool_reports", {}).get("receivers", {}).get("r1", {})
    per_reader = [int(r["received"]) for r in report.get("readers") or []]
    return {
        "payload": p.get("payload"),
        "rx_ring": p.get("rx_ring"),
        "kept_pace": icount.get("kept_pace"),
        "pace": min((v["pace"] for v in (icount.get("pace") or {}).values()), default=None),
        "itr": p.get("itr"),
        "rcvbuf": p.get("rcvbuf"),
        "readers": int(p.get("readers") or 1),
        "reuseport": p.get("reuseport") == "on",
        "reader_shares": [n / t["received"] for n in per_reader] if t["received"] else [],
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
        key = (
            r["payload"], r["itr"], r["rx_ring"], r["rcvbuf"], r["readers"], r["reuseport"],
            r["rate"],
        )  # fmt: skip
        groups.setdefault(key, []).append(r)
    out = [
        "| payload | itr | ring | rcvbuf | readers | offered pps | sent pps "
        "| loss % (mean; min-max) | delivered pps (mean; min-max) | readers' shares "
        "| irq/datagram | lost at (sum of repetitions) | unexplained | kept pace (pace) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (payload, itr, ring, rcvbuf, n, reuseport, _rate), rs in sorted(groups.items(), key=_order):
        losses = [100 * r["loss"] for r in rs]
        delivered = [r["rx_pps"] for r in rs]
        shares = [s for r in rs for s in r["reader_shares"]] if n > 1 else []
        irqs = [r["irq_per_dgram"] for r in rs if r["irq_per_dgram"] is not None]
        stages = {k: sum(r["drops"][k] for r in rs) for k in STAGES}
        where = ", ".join(f"{k} {v}" for k, v in stages.items() if v) or "-"
        unexpl = sum(r["drops"]["unexplained"] for r in rs)
        lost = sum(r["lost"] for r in rs)
        paces = [r["pace"] for r in rs if r["pace"] is not None]
        kept = sum(1 for r in rs if r["kept_pace"])
        pace = f"{kept} of {len(rs)} ({min(paces):.2f}-{max(paces):.2f})" if paces else "-"
        out.append(
            f"| {payload} | {itr} | {ring} | {rcvbuf} | {readers_label(n, reuseport)} "
            f"| {rs[0]['offered_pps']:.0f} "
            f"| {statistics.mean(r['sent_pps'] for r in rs):.0f} "
            f"| {statistics.mean(losses):.2f}; {min(losses):.2f}-{max(losses):.2f} "
            f"| {statistics.mean(delivered):.0f}; {min(delivered):.0f}-{max(delivered):.0f} "
            f"| {f'{min(shares):.2f}-{max(shares):.2f}' if shares else '-'} "
            f"| {'-' if not irqs else f'{min(irqs):.2f}-{max(irqs):.2f}'} "
            f"| {where} | {unexpl} of {lost} | {pace} |"
        )
    return "\n".join(out)


def readers_label(readers: int, reuseport: bool) -> str:
    """1, "N shared" (threads on one socket) or "N reuseport" (a socket each)."""
    if readers == 1:
        return "1"
    return f"{readers} {'reuseport' if reuseport else 'shared'}"


def _order(item: tuple[tuple, Any]) -> tuple:
    """Points in order of their options, numbers as numbers (None first)."""
    return tuple((v is not None, float(v) if v is not None else 0.0) for v in item[0])


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
