# SPDX-License-Identifier: GPL-2.0-only
"""Runs in the guest (measure_recv.sh): one run's line from the reader's report and the
counters read before and after it, as name-value pairs (fit_recv.py reads them)."""

import json
import sys

KINDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def counters(path: str) -> tuple[list[int], int, float, int, int]:
    """/proc/stat's cpu ticks, eth0's interrupts, the uptime, eth0's frames received and
    UDP's RcvbufErrors, as the guest wrote them."""
    lines = open(path, encoding="utf-8").read().split("\n")
    ticks = [int(x) for x in lines[0].split()[1:9]]
    return ticks, int(lines[1]), float(lines[2]), int(lines[3]), int(lines[4])


def main(folder: str) -> None:
    r = json.load(open(f"{folder}/recv.json", encoding="utf-8"))
    s = r["scheduling"]
    (c0, i0, u0, f0, e0) = counters(f"{folder}/before")
    (c1, i1, u1, f1, e1) = counters(f"{folder}/after")
    ticks = " ".join(f"{k} {b - a}" for k, a, b in zip(KINDS, c0, c1, strict=True))
    print(
        f"datagrams {r['received']} bytes {r['bytes']} calls {s['calls']} nvcsw {s['nvcsw']} "
        f"nivcsw {s['nivcsw']} wall {u1 - u0:.2f} irqs {i1 - i0} frames {f1 - f0} "
        f"rcvbuf_errors {e1 - e0} socket_drops {r['socket_drops']} {ticks}"
    )


if __name__ == "__main__":
    main(sys.argv[1])
