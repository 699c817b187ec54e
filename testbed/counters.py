# SPDX-License-Identifier: GPL-2.0-only
"""Counter snapshots before and after a run, and their deltas.

Per host, in one round trip: ``/proc/net/snmp``, ``/proc/net/netstat``,
``/proc/net/softnet_stat``, ``/proc/net/dev``, ``/proc/interrupts``, /proc/stat's
CPU line, ``tc -s -j qdisc show`` (every device), and per interface under test
``ethtool -S``, the kernel's standard statistics (``ethtool -S --all-groups``, ethtool >=
5.13) and the standard pause statistics (``ethtool -I -a``, kernel >= 5.10). /proc/net
files are per network namespace; softnet_stat, interrupts and stat are the whole kernel's.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from lanloss.testbed.hosts import Host

U32 = 1 << 32


@dataclass
class Snapshot:
    host: str
    t: float
    parsed: dict[str, Any]
    errors: dict[str, str] = field(default_factory=dict)


def snapshot(host: Host, ifaces: list[str] | None = None) -> Snapshot:
    ifaces = ifaces if ifaces is not None else ([host.iface] if host.iface else [])
    argvs: list[tuple[str, list[str]]] = [
        ("snmp", ["cat", "/proc/net/snmp"]),
        ("netstat", ["cat", "/proc/net/netstat"]),
        ("softnet", ["cat", "/proc/net/softnet_stat"]),
        ("dev", ["cat", "/proc/net/dev"]),
        ("qdisc", ["tc", "-s", "-j", "qdisc", "show"]),
        ("interrupts", ["cat", "/proc/interrupts"]),
        ("stat", ["head", "-n", "1", "/proc/stat"]),
    ]
    for i in ifaces:
        argvs.append((f"ethtool {i}", ["ethtool", "-S", i]))
        argvs.append((f"standard {i}", ["ethtool", "-S", i, "--all-groups"]))
        argvs.append((f"pause {i}", ["ethtool", "-I", "-a", i]))
    t = time.monotonic()
    results = host.transport.run_many([a for _, a in argvs])
    parsed: dict[str, Any] = {"ethtool": {}, "standard": {}, "pause": {}}
    errors: dict[str, str] = {}
    for (what, _), r in zip(argvs, results, strict=False):
        if not r.ok:
            errors[what] = r.first_error_line()
            continue
        if what == "snmp":
            parsed["snmp"] = parse_snmp(r.out)
        elif what == "netstat":
            parsed["netstat"] = parse_snmp(r.out)
        elif what == "softnet":
            parsed["softnet"] = parse_softnet(r.out)
        elif what == "dev":
            parsed["dev"] = parse_dev(r.out)
        elif what == "qdisc":
            parsed["qdisc"] = parse_tc_json(r.out)
        elif what == "interrupts":
            parsed["interrupts"] = parse_interrupts(r.out, ifaces)
        elif what == "stat":
            parsed["stat"] = parse_cpu_stat(r.out)
        elif what.startswith("ethtool "):
            parsed["ethtool"][what.split(" ", 1)[1]] = parse_ethtool_stats(r.out)
        elif what.startswith("standard "):
            parsed["standard"][what.split(" ", 1)[1]] = parse_ethtool_stats(r.out)
        elif what.startswith("pause "):
            stats = parse_pause_stats(r.out)
            if stats:
                parsed["pause"][what.split(" ", 1)[1]] = stats
    return Snapshot(host.name, t, parsed, errors)


# -- parsers --------------------------------------------------------------------------------


def parse_snmp(text: str) -> dict[str, dict[str, int]]:
    """/proc/net/snmp and /proc/net/netstat: pairs of 'Proto: names' / 'Proto: values'."""
    out: dict[str, dict[str, int]] = {}
    lines = [ln for ln in text.splitlines() if ":" in ln]
    for head, vals in zip(lines[0::2], lines[1::2], strict=False):
        proto, names = head.split(":", 1)
        proto2, values = vals.split(":", 1)
        if proto != proto2:
            continue
        nums = values.split()
        table = out.setdefault(proto, {})
        for n, v in zip(names.split(), nums, strict=False):
            try:
                table[n] = int(v)
            except ValueError:
                pass
    return out


def parse_softnet(text: str) -> list[list[int]]:
    """/proc/net/softnet_stat: one row of hex u32 per CPU (processed, dropped, squeezed...)."""
    return [[int(x, 16) for x in line.split()] for line in text.splitlines() if line.strip()]


DEV_FIELDS = (
    "rx_bytes",
    "rx_packets",
    "rx_errs",
    "rx_drop",
    "rx_fifo",
    "rx_frame",
    "rx_compressed",
    "rx_multicast",
    "tx_bytes",
    "tx_packets",
    "tx_errs",
    "tx_drop",
    "tx_fifo",
    "tx_colls",
    "tx_carrier",
    "tx_compressed",
)


def parse_dev(text: str) -> dict[str, dict[str, int]]:
    out = {}
    for line in text.splitlines()[2:]:
        if ":" not in line:
            continue
        name, rest = line.split(":", 1)
        out[name.strip()] = dict(zip(DEV_FIELDS, (int(x) for x in rest.split()), strict=False))
    return out


def parse_interrupts(text: str, ifaces: list[str]) -> dict[str, int]:
    """/proc/interrupts: per interface under test, its interrupts summed over CPUs (a
    line whose device list names it; MSI-X queues eth0-rx-0.. count for eth0)."""
    lines = text.splitlines()
    ncpu = len(lines[0].split()) if lines else 0
    out = dict.fromkeys(ifaces, 0)
    for line in lines[1:]:
        head, _, rest = line.partition(":")
        fields = rest.split()
        counts = [int(x) for x in fields[:ncpu] if x.isdigit()]
        if not head.strip().isdigit() or len(counts) < ncpu:
            continue
        devs = " ".join(fields[ncpu:]).replace(",", " ").split()
        for i in ifaces:
            if any(d == i or d.startswith(i + "-") for d in devs):
                out[i] += sum(counts)
    return out


def parse_tc_json(text: str) -> dict[str, dict[str, Any]]:
    """Root qdisc of each device only: a root such as mq already sums its children."""
    out: dict[str, dict[str, Any]] = {}
    try:
        items = json.loads(text or "[]")
    except json.JSONDecodeError:
        return out
    for q in items:
        if not q.get("root"):
            continue
        out[q["dev"]] = {
            "kind": q.get("kind"),
            "bytes": q.get("bytes", 0),
            "packets": q.get("packets", 0),
            "drops": q.get("drops", 0),
            "overlimits": q.get("overlimits", 0),
            "requeues": q.get("requeues", 0),
            "backlog": q.get("backlog", 0),
            "qlen": q.get("qlen", 0),
        }
    return out


def parse_ethtool_stats(text: str) -> dict[str, int]:
    """`ethtool -S` lines "name: value". A name printed more than once is summed: vmxnet3
    prints the same names in each queue's block (bnxt prefixes its rings, "[3]: rx_discards")."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        if ":" in line:
            k, v = line.rsplit(":", 1)
            v = v.strip()
            if v.lstrip("-").isdigit():
                out[k.strip()] = out.get(k.strip(), 0) + int(v)
    return out


# /proc/stat's "cpu" line: time of all CPUs in USER_HZ ticks per kind, in this order
CPU_STAT_COLUMNS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def parse_cpu_stat(text: str) -> dict[str, int]:
    """/proc/stat's first line, "cpu  user nice system idle iowait irq softirq steal ..."
    (guest and guest_nice are already in user and nice, so left out) -> ticks per kind."""
    words = text.split()
    if not words or words[0] != "cpu":
        return {}
    return {k: int(v) for k, v in zip(CPU_STAT_COLUMNS, words[1:], strict=False)}


def cpu_shares(ticks: dict[str, int]) -> dict[str, float] | None:
    """A /proc/stat delta -> the record's cpu shares, in the simulator's kinds of work:
    irq (hard interrupts), softirq (softirqs, ksoftirqd's included where the kernel
    accounts interrupt time), app (user and system: the readers and their system calls),
    idle (idle and iowait); steal is the rest of the total. None when no time passed."""
    total = sum(ticks.get(k, 0) for k in CPU_STAT_COLUMNS)
    if total <= 0:
        return None
    share = {
        "irq": ticks.get("irq", 0),
        "softirq": ticks.get("softirq", 0),
        "app": ticks.get("user", 0) + ticks.get("nice", 0) + ticks.get("system", 0),
        "idle": ticks.get("idle", 0) + ticks.get("iowait", 0),
    }
    return {k: round(v / total, 4) for k, v in share.items()}


def parse_pause_stats(text: str) -> dict[str, int]:
    """`ethtool -I -a`: tx_pause_frames / rx_pause_frames where the driver reports them."""
    stats = parse_ethtool_stats(text)
    return {k: v for k, v in stats.items() if "pause" in k}


# -- deltas ---------------------------------------------------------------------------------

GAUGES = {
    "backlog",
    "qlen",
    "Forwarding",
    "DefaultTTL",
    "CurrEstab",
    "RtoAlgorithm",
    "RtoMin",
    "RtoMax",
    "MaxConn",
}


def _sub(a: Any, b: Any) -> Any:
    if isinstance(b, dict):
        a = a if isinstance(a, dict) else {}
        return {k: _sub(a.get(k), b[k]) if k not in GAUGES else b[k] for k in b}
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return b - a
    return b  # a counter that appeared during the run (from 0), or a label


def delta(before: Snapshot, after: Snapshot) -> dict[str, Any]:
    """after - before, per source; softnet summed over CPUs, with u32 wrap-around."""
    a, b = before.parsed, after.parsed
    out: dict[str, Any] = {"seconds": after.t - before.t}
    keys = ("snmp", "netstat", "dev", "qdisc", "ethtool", "standard", "pause", "interrupts", "stat")
    for key in keys:
        if key in b:
            out[key] = _sub(a.get(key, {}), b[key])
    if "softnet" in a and "softnet" in b:
        cols = ("processed", "dropped", "time_squeeze")
        sums = dict.fromkeys(cols, 0)
        for row_a, row_b in zip(a["softnet"], b["softnet"], strict=False):
            for i, c in enumerate(cols):
                if i < len(row_a) and i < len(row_b):
                    sums[c] += (row_b[i] - row_a[i]) % U32
        out["softnet"] = sums
    return out


def nonzero(d: Any) -> Any:
    """A delta with zero counters, gauges and labels left out (for the record's extra)."""
    if isinstance(d, dict):
        kept = {k: nonzero(v) for k, v in d.items() if k not in GAUGES and k != "kind"}
        return {
            k: v for k, v in kept.items() if v not in (0, {}, None, 0.0) and not isinstance(v, str)
        }
    return d


def get(d: dict[str, Any], *path: str, default: int = 0) -> int:
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return default
        d = d[p]
    return d if isinstance(d, int) else default
