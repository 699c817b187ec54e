# SPDX-License-Identifier: GPL-2.0-only
"""A switch's port counters over SNMP, read with net-snmp's command-line tools
(``snmpbulkwalk``/``snmpget`` with ``-On -Oq``: numeric OIDs, bare values; Debian package
``snmp``), before and after a run.

Per port (given by ifName or ifIndex), from IF-MIB (RFC 2863) and EtherLike-MIB
(RFC 3635)::

    ifInDiscards, ifInErrors, ifOutDiscards                  ifTable, Counter32
    ifHCIn/OutUcastPkts, -MulticastPkts, -BroadcastPkts      ifXTable, Counter64
    dot3InPauseFrames, dot3OutPauseFrames                    dot3PauseTable, Counter32
    dot3HCInPauseFrames, dot3HCOutPauseFrames                dot3PauseTable, Counter64

A snapshot's ``parsed`` has the groups ``ifmib`` and ``dot3`` (port -> the counters of
those MIBs by name); its delta has ``ifmib`` and ``pause`` (port -> rx_pause_frames /
tx_pause_frames, the HC counters where the agent has them), the shapes
lanloss.testbed.attribution and the record's ``pause`` section read. A counter the agent
does not have is left out (a switch without EtherLike-MIB has no ``pause``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - typing only
    from lanloss.testbed.transport import Transport

IF_NAME = ".1.3.6.1.2.1.31.1.1.1.1"
# name -> (column OID, counter width in bits); the instance is .<ifIndex>
IF_COUNTERS: dict[str, tuple[str, int]] = {
    "ifInDiscards": (".1.3.6.1.2.1.2.2.1.13", 32),
    "ifInErrors": (".1.3.6.1.2.1.2.2.1.14", 32),
    "ifOutDiscards": (".1.3.6.1.2.1.2.2.1.19", 32),
    "ifHCInUcastPkts": (".1.3.6.1.2.1.31.1.1.1.7", 64),
    "ifHCInMulticastPkts": (".1.3.6.1.2.1.31.1.1.1.8", 64),
    "ifHCInBroadcastPkts": (".1.3.6.1.2.1.31.1.1.1.9", 64),
    "ifHCOutUcastPkts": (".1.3.6.1.2.1.31.1.1.1.11", 64),
    "ifHCOutMulticastPkts": (".1.3.6.1.2.1.31.1.1.1.12", 64),
    "ifHCOutBroadcastPkts": (".1.3.6.1.2.1.31.1.1.1.13", 64),
}
PAUSE_COUNTERS: dict[str, tuple[str, int]] = {
    "dot3InPauseFrames": (".1.3.6.1.2.1.10.7.10.1.3", 32),
    "dot3OutPauseFrames": (".1.3.6.1.2.1.10.7.10.1.4", 32),
    "dot3HCInPauseFrames": (".1.3.6.1.2.1.10.7.10.1.5", 64),
    "dot3HCOutPauseFrames": (".1.3.6.1.2.1.10.7.10.1.6", 64),
}
WIDTH = {name: bits for name, (_, bits) in {**IF_COUNTERS, **PAUSE_COUNTERS}.items()}
# Values net-snmp prints for an OID the agent does not have
_ABSENT = ("No Such Object", "No Such Instance", "No more variables")
OIDS_PER_GET = 24  # one snmpget PDU stays well below the 1472-byte UDP payload of Ethernet


@dataclass(frozen=True)
class Agent:
    """How to reach a switch's SNMP agent. version "2c" uses `community`; version "3" uses
    `user` with authentication (auth_protocol/auth_password) and privacy (priv_protocol/
    priv_password) where given: the security level follows from what is given."""

    address: str
    port: int = 161
    version: str = "2c"
    community: str = field(default="public", repr=False)  # secrets stay out of reprs
    user: str = ""
    auth_protocol: str = ""
    auth_password: str = field(default="", repr=False)
    priv_protocol: str = ""
    priv_password: str = field(default="", repr=False)
    timeout_s: float = 2.0
    retries: int = 1
    # How old the agent's counters may be when served: agents refresh interface counters
    # from the hardware periodically (net-snmp's Linux ifTable cache: 3 s), so a reading
    # after the traffic waits this long to include all of it.
    refresh_s: float = 10.0

    def level(self) -> str:
        if self.priv_protocol:
            return "authPriv"
        return "authNoPriv" if self.auth_protocol else "noAuthNoPriv"

    def client_args(self) -> list[str]:
        """net-snmp client options (no MIB files loaded: numeric OIDs in and out)."""
        args = ["-m", "", "-On", "-Oq", "-t", f"{self.timeout_s:g}", "-r", str(self.retries)]
        if self.version == "2c":
            args += ["-v2c", "-c", self.community]
        else:
            args += ["-v3", "-l", self.level(), "-u", self.user]
            if self.auth_protocol:
                args += ["-a", self.auth_protocol, "-A", self.auth_password]
            if self.priv_protocol:
                args += ["-x", self.priv_protocol, "-X", self.priv_password]
        host = f"[{self.address}]" if ":" in self.address else self.address
        return [*args, f"udp:{host}:{self.port}"]


@dataclass
class Snapshot:
    """One switch's counters at monotonic time `t` (parsed: groups ifmib, dot3), and what
    could not be read."""

    host: str
    t: float
    parsed: dict[str, Any]
    errors: dict[str, str] = field(default_factory=dict)


class SnmpError(Exception):
    """The agent did not answer, or a port is not on the switch."""


def parse_values(text: str) -> dict[str, str]:
    """`-On -Oq` output lines "OID value" -> {OID: value}; absent objects left out."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        oid, _, value = line.strip().partition(" ")
        if not oid.startswith(".") or value.startswith(_ABSENT):
            continue
        out[oid] = value.strip().strip('"')
    return out


def port_indexes(names: dict[str, str], ports: list[str | int]) -> dict[str, int]:
    """Port label -> ifIndex, from a walk of ifName. A port is an ifName (str) or an
    ifIndex (int); its label is how it was given. SnmpError names a port not found."""
    by_name = {v: int(oid.rsplit(".", 1)[1]) for oid, v in names.items()}
    indexes = set(by_name.values())
    out: dict[str, int] = {}
    for port in ports:
        if isinstance(port, int):
            if port not in indexes:
                raise SnmpError(f"no ifIndex {port} (ifIndexes: {sorted(indexes)})")
            out[str(port)] = port
        elif port in by_name:
            out[port] = by_name[port]
        else:
            raise SnmpError(f"no port named {port!r} (ifName: {', '.join(sorted(by_name))})")
    return out


def port_counters(values: dict[str, str], index: int) -> tuple[dict[str, int], dict[str, int]]:
    """(IF-MIB counters, EtherLike pause counters) of ifIndex `index` from fetched values."""

    def fetched(table: dict[str, tuple[str, int]]) -> dict[str, int]:
        got = {}
        for name, (column, _) in table.items():
            v = values.get(f"{column}.{index}", "")
            if v.isdigit():
                got[name] = int(v)
        return got

    return fetched(IF_COUNTERS), fetched(PAUSE_COUNTERS)


def parse_ports(values: dict[str, str], indexes: dict[str, int]) -> dict[str, Any]:
    """A snapshot's groups ifmib and dot3 (port label -> counters) from fetched values."""
    parsed: dict[str, Any] = {"ifmib": {}, "dot3": {}}
    for label, index in indexes.items():
        ifmib, dot3 = port_counters(values, index)
        if ifmib:
            parsed["ifmib"][label] = ifmib
        if dot3:
            parsed["dot3"][label] = dot3
    return parsed


def pause_frames(dot3: dict[str, int]) -> dict[str, int]:
    """rx/tx PAUSE frames from EtherLike deltas: the HC counter where the agent has it."""
    out = {}
    for side, key in (("In", "rx_pause_frames"), ("Out", "tx_pause_frames")):
        for name in (f"dot3HC{side}PauseFrames", f"dot3{side}PauseFrames"):
            if name in dot3:
                out[key] = dot3[name]
                break
    return out


def walk_argv(agent: Agent, oid: str) -> list[str]:
    return ["snmpbulkwalk", *agent.client_args(), oid]


def get_argvs(agent: Agent, indexes: list[int]) -> list[list[str]]:
    """snmpget commands fetching every counter of these ifIndexes."""
    oids = [
        f"{column}.{i}"
        for i in indexes
        for column, _ in [*IF_COUNTERS.values(), *PAUSE_COUNTERS.values()]
    ]
    return [
        ["snmpget", *agent.client_args(), *oids[k : k + OIDS_PER_GET]]
        for k in range(0, len(oids), OIDS_PER_GET)
    ]


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "no answer"


def resolve(transport: Transport, agent: Agent, ports: list[str | int]) -> dict[str, int]:
    """Port label -> ifIndex on the agent's switch (SnmpError: unreachable, port unknown)."""
    r = transport.run(walk_argv(agent, IF_NAME), timeout=agent.timeout_s * (agent.retries + 1) + 5)
    names = parse_values(r.out) if r.ok else {}
    if not names:
        why = _first_line(r.err or r.out) if not r.ok else "it has no ifName (IF-MIB ifXTable)"
        raise SnmpError(f"SNMP agent {agent.address}:{agent.port}: {why}")
    return port_indexes(names, ports)


@dataclass
class SwitchReader:
    """One switch's counted ports, read over SNMP from where `transport` runs commands."""

    name: str
    agent: Agent
    ports: list[str | int]
    transport: Transport
    indexes: dict[str, int] | None = None

    def snapshot(self) -> Snapshot:
        """The ports' counters now; an unreachable agent is an error entry, not a raise."""
        t = time.monotonic()
        try:
            if self.indexes is None:
                self.indexes = resolve(self.transport, self.agent, self.ports)
        except SnmpError as exc:
            return Snapshot(self.name, t, {"ifmib": {}, "dot3": {}}, {"snmp": str(exc)})
        values: dict[str, str] = {}
        errors: dict[str, str] = {}
        argvs = get_argvs(self.agent, sorted(set(self.indexes.values())))
        for r in self.transport.run_many(argvs):
            if r.ok:
                values.update(parse_values(r.out))
            else:
                errors["snmp"] = f"{self.agent.address}: {_first_line(r.err or r.out)}"
        return Snapshot(self.name, t, parse_ports(values, self.indexes), errors)


def delta(before: Snapshot, after: Snapshot) -> dict[str, Any]:
    """after - before of each port's counters, modulo the counter's width (a Counter32
    that wrapped once between the readings still gives its increase), as the groups
    ``ifmib`` (IF-MIB names) and ``pause`` (rx_pause_frames / tx_pause_frames)."""
    out: dict[str, Any] = {"ifmib": {}, "pause": {}}
    for group in ("ifmib", "dot3"):
        for port, now in after.parsed.get(group, {}).items():
            was = before.parsed.get(group, {}).get(port)
            if was is None:
                continue
            moved = {k: (v - was[k]) % (1 << WIDTH[k]) for k, v in now.items() if k in was}
            if group == "ifmib":
                out["ifmib"][port] = moved
            elif pause_frames(moved):
                out["pause"][port] = pause_frames(moved)
    return out


def snapshots(readers: list[SwitchReader], settle: bool = False) -> dict[str, Snapshot]:
    """Every SNMP-read switch's counters, by switch name; with `settle` (the reading after
    the traffic) first waiting out the agents' counter refresh (Agent.refresh_s)."""
    if settle and readers:
        time.sleep(max(r.agent.refresh_s for r in readers))
    return {r.name: r.snapshot() for r in readers}


def add_deltas(
    deltas: dict[str, dict[str, Any]], before: dict[str, Snapshot], after: dict[str, Snapshot]
) -> None:
    """Put each switch's SNMP deltas into the run's `deltas` under its name, beside what
    the harness counted there itself (an emulated switch has both). A switch with a
    failed reading gets none: its drops stay unattributed (the run's counter_errors say
    why), never zeros."""
    for name, snap in after.items():
        if snap.errors or before[name].errors:
            continue
        moved = delta(before[name], snap)
        d = deltas.setdefault(name, {})
        d["ifmib"] = moved["ifmib"]
        d.setdefault("pause", {}).update(moved["pause"])
