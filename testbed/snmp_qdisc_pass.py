#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""net-snmp ``pass_persist`` handler: IF-MIB ifOutDiscards of each interface = the drops of
its root qdisc (``tc -s -j qdisc show dev IF``), modulo 2^32 (a Counter32).

Linux's own IF-MIB reads ifOutDiscards from /proc/net/dev (tx_dropped), which leaves out
the drops of a qdisc: on the netns backend's emulated switch those are the shapers' egress
drops, the switch's output-buffer overflow. snmpd runs this script inside the switch's
namespace with ``pass_persist .1.3.6.1.2.1.2.2.1.19 python3 THIS``, so an SNMP manager
reads the emulated switch's egress drops where a real switch reports them.

The protocol (snmpd's pass_persist): ``PING`` -> ``PONG``; ``get``/``getnext`` and an OID ->
the OID, its type and value on three lines, or ``NONE``; ``set`` -> ``not-writable``.
Standard library only: snmpd starts it with the system's python3.
"""

from __future__ import annotations

import json
import subprocess
import sys

IF_OUT_DISCARDS = ".1.3.6.1.2.1.2.2.1.19"


def interfaces() -> dict[int, str]:
    """ifIndex -> interface name, of this process's network namespace (netlink, so it
    does not depend on which /sys is mounted)."""
    r = subprocess.run(
        ["ip", "-j", "link", "show"], capture_output=True, text=True, timeout=5, check=False
    )
    try:
        links = json.loads(r.stdout or "[]")
    except json.JSONDecodeError:
        return {}
    return {int(link["ifindex"]): str(link["ifname"]) for link in links if "ifindex" in link}


def qdisc_drops(dev: str) -> int:
    """Drops of `dev`'s root qdisc (0 when it has none or tc fails)."""
    r = subprocess.run(
        ["tc", "-s", "-j", "qdisc", "show", "dev", dev],
        capture_output=True,
        text=True,
        timeout=5,
        check=False,
    )
    try:
        items = json.loads(r.stdout or "[]")
    except json.JSONDecodeError:
        return 0
    return sum(int(q.get("drops", 0)) for q in items if q.get("root"))


def _index_of(oid: str) -> int | None:
    """The ifIndex of an instance OID of ifOutDiscards, or None."""
    if not oid.startswith(IF_OUT_DISCARDS + "."):
        return None
    tail = oid[len(IF_OUT_DISCARDS) + 1 :]
    return int(tail) if tail.isdigit() else None


def _next_index(oid: str, indexes: list[int]) -> int | None:
    """The first ifIndex whose instance OID comes after `oid` (lexicographic by arcs)."""
    arcs = [int(a) for a in oid.strip(".").split(".") if a.isdigit()]
    base = [int(a) for a in IF_OUT_DISCARDS.strip(".").split(".")]
    for i in sorted(indexes):
        if base + [i] > arcs:
            return i
    return None


def answer(command: str, oid: str) -> list[str]:
    """The reply lines to one get/getnext request."""
    ifs = interfaces()
    index = _index_of(oid) if command == "get" else _next_index(oid, list(ifs))
    if index is None or index not in ifs:
        return ["NONE"]
    return [f"{IF_OUT_DISCARDS}.{index}", "counter", str(qdisc_drops(ifs[index]) % (1 << 32))]


def main() -> None:
    for line in sys.stdin:
        command = line.strip()
        if command == "PING":
            reply = ["PONG"]
        elif command in ("get", "getnext"):
            reply = answer(command, sys.stdin.readline().strip())
        elif command == "set":
            sys.stdin.readline()
            sys.stdin.readline()
            reply = ["not-writable"]
        else:
            reply = ["NONE"]
        sys.stdout.write("\n".join(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
