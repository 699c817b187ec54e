# SPDX-License-Identifier: GPL-2.0-only
"""Counter deltas -> the run record's drop points, with ``unexplained`` the remainder.

| drop point     | counter (delta over the run)                                  | where      |
|----------------|---------------------------------------------------------------|------------|
| sender_socket  | the sender tool's failed sends (send_errors: ENOBUFS, EAGAIN)  | sender app |
| sender_queue   | drops of the root qdisc on the sender's interface (tc -s)      | sender     |
| switch_ingress | rx drop of the switch port a flow enters by (/proc/net/dev)   | netns sw   |
|                | (a switch read over SNMP: ifInDiscards + ifInErrors)          | SNMP sw    |
| switch_egress  | drops of the root qdisc (the shaper) of switch ports on path  | netns sw   |
|                | (a switch read over SNMP: ifOutDiscards)                      | SNMP sw    |
| rx_fifo        | the driver's FIFO/port-buffer counters (lanloss.testbed.      | rx NIC     |
|                | nic_counters; no map: rx fifo + ethtool rx_missed_errors)     |            |
| rx_ring        | the driver's no-descriptor/no-buffer counters + what          | rx NIC     |
|                | /proc/net/dev rx drop holds beyond them (no map: rx drop -    |            |
|                | rx_missed_errors)                                             |            |
| rx_error       | the driver's FCS/length/alignment counters (or the kernel's   | rx NIC     |
|                | standard eth-mac/rmon statistics where the driver has none)   |            |
| backlog        | /proc/net/softnet_stat column 2, summed over CPUs              | rx kernel  |
| reassembly     | Ip ReasmFails                                                 | receiver   |
| socket_rcvbuf  | Udp RcvbufErrors + (InErrors - RcvbufErrors - InCsumErrors)   | receiver   |
| unexplained    | sent - received - all of the above (may be negative: flagged) |            |

``sent`` counts what the application offered: datagrams sent plus failed sends,
as in the simulator (sender_socket is then one of the drop points). SndbufErrors
is not used as a drop point because it double-counts: the kernel counts both
sends refused to the application and datagrams the sender's own qdisc dropped
after a successful send; it is kept as a cross-check.

The receiving NIC's counters are read through the map of its driver (`ethtool -i`); a
counter that moved and that the map does not know, or that it marks uncertain, is listed
(``nic_reports``) and the attribution is marked incomplete (``incomplete``): its drops, if
they are drops, are in ``unexplained``.

A counter shared by several flows (a trunk port, a receiver with several
senders, the kernel-wide softnet_stat) is split between them in proportion to
their loss, in whole datagrams (largest remainder). A multicast datagram
dropped before it is copied is lost for every receiver of that stream, so it
counts once per receiver, as each (sender, receiver) pair is a flow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lanloss.record import DROP_POINTS, empty_drops
from lanloss.testbed import nic_counters
from lanloss.testbed.counters import get


@dataclass
class FlowPath:
    """What can drop a flow's datagrams, by host and interface."""

    sender: str
    sender_iface: str
    receiver: str
    receiver_iface: str
    stream: int  # sending process; multicast flows of one stream share it
    machine: str  # host whose softnet_stat counts the receiver's backlog
    sent: int  # offered: sent + failed sends
    received: int
    send_failures: int = 0
    ingress: list[tuple[str, str]] = field(default_factory=list)  # (switch host, port)
    egress: list[tuple[str, str]] = field(default_factory=list)
    nic_port: tuple[str, str] | None = None  # vm: (switch, tap) whose tx drops are rx_fifo
    receiver_driver: str | None = None  # `ethtool -i` driver of receiver_iface

    @property
    def lost(self) -> int:
        return self.sent - self.received


@dataclass
class Source:
    """One counter value and the flows it may hold drops of."""

    point: str
    value: int
    flows: list[int]
    where: str
    copies: bool = False  # each flow of a stream lost each drop (before multicast copying)


def sources(
    paths: list[FlowPath], deltas: dict[str, dict[str, Any]], protocol: str
) -> list[Source]:
    """Every place that dropped datagrams of these flows, with the flows it charges."""
    if protocol != "udp":
        return []  # TCP retransmits what is dropped: its loss is sent - received, unattributed
    return [
        *_sender_sources(paths, deltas),
        *_switch_sources(paths, deltas),
        *_receiver_sources(paths, deltas),
        *_backlog_sources(paths, deltas),
    ]


def _flows_where(paths: list[FlowPath], **match: Any) -> list[int]:
    """Flows whose path attributes equal `match` (egress/ingress: contains)."""
    out = []
    for i, p in enumerate(paths):
        ok = True
        for k, v in match.items():
            have = getattr(p, k)
            ok = ok and (v in have if isinstance(have, list) else have == v)
        if ok:
            out.append(i)
    return out


def _sender_sources(paths: list[FlowPath], deltas: dict[str, dict[str, Any]]) -> list[Source]:
    """Send errors of each stream's socket, then drops in each sender's queue."""
    out: list[Source] = []
    by_stream: dict[int, list[int]] = {}
    for i, p in enumerate(paths):
        by_stream.setdefault(p.stream, []).append(i)
    for stream, idx in by_stream.items():
        fails = paths[idx[0]].send_failures
        if fails:
            out.append(Source("sender_socket", fails, idx, f"stream {stream} send errors", True))
    for host, iface in sorted({(p.sender, p.sender_iface) for p in paths}):
        v = get(deltas.get(host, {}), "qdisc", iface, "drops")
        if v:
            flows = _flows_where(paths, sender=host)
            out.append(Source("sender_queue", v, flows, f"{host} {iface} qdisc", True))
    return out


# Drops at switch ports: the point, the FlowPath attribute listing the ports a flow
# crosses, and the counters (group, name) that count them: the harness's own (an emulated
# switch's namespace) or, for a switch read over SNMP (lanloss.testbed.snmp: the group
# "ifmib" is in its deltas), the port's IF-MIB discards and errors.
SWITCH_PORT_DROPS = (
    ("switch_egress", "egress", (("qdisc", "drops"),), (("ifmib", "ifOutDiscards"),)),
    (
        "switch_ingress",
        "ingress",
        (("dev", "rx_drop"),),
        (("ifmib", "ifInDiscards"), ("ifmib", "ifInErrors")),
    ),
)


def _switch_sources(paths: list[FlowPath], deltas: dict[str, dict[str, Any]]) -> list[Source]:
    """Drops at each switch port the flows cross, egress ports first."""
    out: list[Source] = []
    for point, side, own, snmp in SWITCH_PORT_DROPS:
        for sw, port in sorted({hp for p in paths for hp in getattr(p, side)}):
            d = deltas.get(sw, {})
            for group, counter in snmp if "ifmib" in d else own:
                v = get(d, group, port, counter)
                if v:
                    flows = _flows_where(paths, **{side: (sw, port)})
                    label = {"qdisc": "qdisc", "ifmib": f"{counter} (SNMP)"}.get(group, counter)
                    out.append(Source(point, v, flows, f"{sw} {port} {label}", True))
    return out


def _receiver_sources(paths: list[FlowPath], deltas: dict[str, dict[str, Any]]) -> list[Source]:
    """Drops in each receiver: its NIC, the vm tap in front of it, reassembly, sockets."""
    out: list[Source] = []
    reports = nic_reports(paths, deltas)
    for host, iface in sorted({(p.receiver, p.receiver_iface) for p in paths}):
        d = deltas.get(host, {})
        idx = _flows_where(paths, receiver=host)
        nic = reports[(host, iface)]
        for point in nic_counters.NIC_POINTS:
            if nic.points[point]:
                what = f"{host} {iface} {nic.describe(point)} ({nic.map})"
                out.append(Source(point, nic.points[point], idx, what))
        taps = sorted({p.nic_port for p in paths if p.receiver == host and p.nic_port})
        for sw, tap in taps:
            # vm: a full RX ring makes QEMU stop reading the tap, which then drops
            v = get(deltas.get(sw, {}), "dev", tap, "tx_drop")
            if v:
                out.append(Source("rx_fifo", v, idx, f"{sw} {tap} tx_drop (guest NIC overflow)"))
        v = get(d, "snmp", "Ip", "ReasmFails")
        if v:
            out.append(Source("reassembly", v, idx, f"{host} Ip ReasmFails"))
        rcvbuf = get(d, "snmp", "Udp", "RcvbufErrors")
        other = get(d, "snmp", "Udp", "InErrors") - rcvbuf - get(d, "snmp", "Udp", "InCsumErrors")
        if rcvbuf:
            out.append(Source("socket_rcvbuf", rcvbuf, idx, f"{host} Udp RcvbufErrors"))
        if other > 0:
            out.append(Source("socket_rcvbuf", other, idx, f"{host} Udp InErrors (udp_mem)"))
    return out


def _backlog_sources(paths: list[FlowPath], deltas: dict[str, dict[str, Any]]) -> list[Source]:
    """Drops in each machine's per-CPU backlog (softnet_stat)."""
    out: list[Source] = []
    for machine in sorted({p.machine for p in paths}):
        v = get(deltas.get(machine, {}), "softnet", "dropped")
        if v:
            flows = _flows_where(paths, machine=machine)
            out.append(Source("backlog", v, flows, f"{machine} softnet_stat dropped", True))
    return out


def nic_reports(
    paths: list[FlowPath], deltas: dict[str, dict[str, Any]]
) -> dict[tuple[str, str], nic_counters.NicDrops]:
    """Each receiving (host, interface): its counter deltas read through its driver's map."""
    drivers = {(p.receiver, p.receiver_iface): p.receiver_driver for p in paths}
    out = {}
    for (host, iface), driver in sorted(drivers.items()):
        d = deltas.get(host, {})
        out[(host, iface)] = nic_counters.nic_drops(
            driver,
            (d.get("ethtool") or {}).get(iface) or {},
            (d.get("dev") or {}).get(iface) or {},
            (d.get("standard") or {}).get(iface) or {},
        )
    return out


def incomplete(reports: dict[tuple[str, str], nic_counters.NicDrops]) -> list[str]:
    """Why the NIC attribution is incomplete: one line per interface whose counters moved
    where the map does not know them or does not know whether they are drops; [] if none."""
    why = []
    for (host, iface), nic in sorted(reports.items()):
        driver = nic.driver or "unknown driver"
        if nic.unmapped:
            names = ", ".join(f"{k}={v}" for k, v in sorted(nic.unmapped.items()))
            why.append(f"{host} {iface} ({driver}): moved, not in the {nic.map} map: {names}")
        if nic.uncertain:
            names = ", ".join(f"{k}={v}" for k, v in sorted(nic.uncertain.items()))
            why.append(f"{host} {iface} ({driver}): moved, may or may not be drops: {names}")
    return why


def _split(value: int, weights: list[float]) -> list[int]:
    """Whole datagrams in proportion to weights (largest remainder)."""
    total = sum(weights)
    if total <= 0:
        weights, total = [1.0] * len(weights), float(len(weights))
    exact = [value * w / total for w in weights]
    shares = [int(x) for x in exact]
    rest = value - sum(shares)
    for i in sorted(range(len(exact)), key=lambda i: exact[i] - shares[i], reverse=True)[:rest]:
        shares[i] += 1
    return shares


def attribute(paths: list[FlowPath], srcs: list[Source]) -> dict[str, Any]:
    """Per-flow and total drops; unexplained = lost - attributed (per flow and in total)."""
    per_flow = [empty_drops() for _ in paths]
    detail = []
    for s in srcs:
        groups: dict[int, list[int]] = {}
        for i in s.flows:
            groups.setdefault(paths[i].stream if s.copies else -1 - i, []).append(i)
        keys = list(groups)
        weights = [float(max(paths[i].lost for i in groups[k])) for k in keys]
        shares = _split(s.value, weights)
        for k, share in zip(keys, shares, strict=True):
            for i in groups[k]:
                per_flow[i][s.point] += share
        detail.append(
            {"point": s.point, "counter": s.where, "value": s.value, "flows": len(s.flows)}
        )
    for i, p in enumerate(paths):
        known = sum(v for k, v in per_flow[i].items() if k != "unexplained")
        per_flow[i]["unexplained"] = p.lost - known
    totals = empty_drops()
    for d in per_flow:
        for k in DROP_POINTS:
            totals[k] += d[k]
    sent = sum(p.sent for p in paths)
    flags = []
    if totals["unexplained"] < 0:
        flags.append(
            "counters explain more drops than were lost (overlapping counters or "
            "traffic other than the run's)"
        )
    if sent and abs(totals["unexplained"]) > 0.001 * sent:
        flags.append("unexplained above 0.1% of sent")
    return {"flows": per_flow, "totals": totals, "detail": detail, "flags": flags}
