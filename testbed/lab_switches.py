# SPDX-License-Identifier: GPL-2.0-only
"""The managed switches of an inventory (lanloss.testbed.inventory): how to reach each
one's SNMP agent, which switch port each host and each inter-switch link is plugged into,
and the ports a flow crosses.

    switches:
      sw1:
        address: 192.0.2.2         # the agent's address (IP or resolvable name)
        snmp:
          version: 2c              # 2c (community) | 3 (user)
          community: public
          port: 161                # optional
          timeout: 2               # seconds per request, optional
          counter_refresh: 10      # seconds the agent may serve old counters, optional
      sw2:
        address: 192.0.2.3
        snmp: {version: 3, user: lanloss, auth: {protocol: SHA, password: secret-1},
               priv: {protocol: AES, password: secret-2}}
    links:                         # inter-switch links, each once
      - {switch: sw1, port: Gi1/0/24, peer: sw2, peer_port: Gi1/0/24}
    hosts:
      pc1: {..., switch: sw1, switch_port: Gi1/0/1}   # ifName, or an ifIndex (integer)

The links must form a tree (one path between two switches): a path's ports are then
exact. Problems are ValueErrors with the one-line reason; the inventory adds its file.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lanloss.inputs import shown
from lanloss.testbed import snmp
from lanloss.testbed.snmp import Agent

if TYPE_CHECKING:  # pragma: no cover - typing only
    from lanloss.testbed.transport import Transport

# net-snmp's names (snmpcmd(1) -a / -x)
AUTH_PROTOCOLS = ("MD5", "SHA", "SHA-224", "SHA-256", "SHA-384", "SHA-512")
PRIV_PROTOCOLS = ("DES", "AES", "AES-192", "AES-256")
MIN_PASSPHRASE = 8  # RFC 3414 (USM) passphrases are at least 8 characters
_SNMP_KEYS = {"version", "community", "user", "auth", "priv", "port", "timeout", "counter_refresh"}
_SWITCH_KEYS = {"address", "snmp"}
_LINK_KEYS = {"switch", "port", "peer", "peer_port"}
_PORT_RE = re.compile(r"^[!-~]( ?[!-~]){0,63}$")  # printable, single spaces (ifName)
_TEXT_RE = re.compile(r"^[!-~]{1,64}$")


@dataclass(frozen=True)
class SwitchSpec:
    name: str
    agent: Agent


@dataclass(frozen=True)
class Link:
    switch: str
    port: str | int
    peer: str
    peer_port: str | int


def port_value(value: Any, what: str) -> str | int:
    """An ifName (text) or an ifIndex (a positive integer)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1 or value > 2**31 - 1:
            raise ValueError(f"{what} {shown(value)} is not an ifIndex (1..2^31-1)")
        return value
    if isinstance(value, str) and _PORT_RE.fullmatch(value):
        return value
    raise ValueError(f"{what} {shown(value)} is not an ifName or an ifIndex")


def _number(raw: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    v = raw.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high:
        raise ValueError(f"snmp {key} {shown(v)} is not a number in {low:g}..{high:g}")
    return float(v)


def _secret(raw: Any, what: str, protocols: tuple[str, ...]) -> tuple[str, str]:
    if not isinstance(raw, dict) or set(raw) != {"protocol", "password"}:
        raise ValueError(f"snmp {what} must be {{protocol: ..., password: ...}}")
    proto, password = raw["protocol"], raw["password"]
    if proto not in protocols:
        raise ValueError(
            f"snmp {what} protocol {shown(proto)} is not one of {', '.join(protocols)}"
        )
    if not isinstance(password, str) or len(password) < MIN_PASSPHRASE or "\n" in password:
        raise ValueError(
            f"snmp {what} password must be text of at least {MIN_PASSPHRASE} characters"
        )
    return proto, password


def agent(address: str, raw: Any) -> Agent:
    """An Agent from a switch's `snmp:` mapping (ValueError naming the bad value)."""
    if not isinstance(raw, dict):
        raise ValueError("'snmp' must be a mapping (version, community or user, ...)")
    unknown = set(raw) - _SNMP_KEYS
    if unknown:
        raise ValueError(f"unknown snmp keys {shown(sorted(unknown))}")
    version = str(raw.get("version", "2c"))
    port = raw.get("port", 161)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ValueError(f"bad snmp port {shown(port)}")
    common = {
        "port": port,
        "timeout_s": _number(raw, "timeout", 2.0, 0.1, 60),
        "refresh_s": _number(raw, "counter_refresh", 10.0, 0, 300),
    }
    if version == "2c":
        if "user" in raw or "auth" in raw or "priv" in raw:
            raise ValueError("snmp version 2c takes a community, not user/auth/priv")
        community = raw.get("community")
        if not isinstance(community, str) or not _TEXT_RE.fullmatch(community):
            raise ValueError(f"snmp community {shown(community)} is missing or not one word")
        return Agent(address, version="2c", community=community, **common)
    if version != "3":
        raise ValueError(f"snmp version {shown(raw.get('version'))} is not one of 2c, 3")
    if "community" in raw:
        raise ValueError("snmp version 3 takes a user, not a community")
    user = raw.get("user")
    if not isinstance(user, str) or not _TEXT_RE.fullmatch(user):
        raise ValueError(f"snmp user {shown(user)} is missing or not one word")
    auth = _secret(raw["auth"], "auth", AUTH_PROTOCOLS) if "auth" in raw else ("", "")
    if "priv" in raw and "auth" not in raw:
        raise ValueError("snmp priv needs auth too (USM has no privacy without authentication)")
    priv = _secret(raw["priv"], "priv", PRIV_PROTOCOLS) if "priv" in raw else ("", "")
    return Agent(address, version="3", user=user, auth_protocol=auth[0],
                 auth_password=auth[1], priv_protocol=priv[0], priv_password=priv[1],
                 **common)  # fmt: skip


def switch_spec(name: str, raw: Any, address: str) -> SwitchSpec:
    if not isinstance(raw, dict):
        raise ValueError("expected a mapping with address and snmp")
    unknown = set(raw) - _SWITCH_KEYS
    if unknown:
        raise ValueError(f"unknown keys {shown(sorted(unknown))}")
    if "snmp" not in raw:
        raise ValueError("snmp is missing (version and community, or user)")
    return SwitchSpec(name, agent(address, raw["snmp"]))


def links(raw: Any, switches: dict[str, SwitchSpec]) -> list[Link]:
    """The inter-switch links, checked to name known switches and to form a tree."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValueError("'links' must be a list of {switch, port, peer, peer_port}")
    out = []
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict) or set(item) != _LINK_KEYS:
            raise ValueError(f"link {i}: expected {{switch, port, peer, peer_port}}")
        for key in ("switch", "peer"):
            if item[key] not in switches:
                raise ValueError(f"link {i}: {key} {shown(item[key])} is not in 'switches'")
        if item["switch"] == item["peer"]:
            raise ValueError(f"link {i}: a switch linked to itself ({item['switch']})")
        port = port_value(item["port"], f"link {i}: port")
        peer_port = port_value(item["peer_port"], f"link {i}: peer_port")
        out.append(Link(item["switch"], port, item["peer"], peer_port))
    _check_tree(out)
    return out


def _check_tree(found: list[Link]) -> None:
    """Links without a loop: joining each link's two components must never find them one."""
    part: dict[str, str] = {}

    def root(x: str) -> str:
        while part.get(x, x) != x:
            x = part[x]
        return x

    for link in found:
        a, b = root(link.switch), root(link.peer)
        if a == b:
            raise ValueError(
                f"links form a loop through {link.switch}-{link.peer}: a path between two "
                "switches must be unique (list only the links of the spanning tree)"
            )
        part[a] = b


def plugs(
    hosts: dict[str, tuple[str | None, str | int | None]], found: list[Link]
) -> dict[tuple[str, str], str | int]:
    """(switch, port label) -> the port as given, of every host and link end; ValueError
    when a switch port is plugged twice (two hosts, or a host and a link)."""
    ends = [(sw, port, f"host {name!r}") for name, (sw, port) in hosts.items() if sw]
    for link in found:
        ends += [(link.switch, link.port, "a link"), (link.peer, link.peer_port, "a link")]
    out: dict[tuple[str, str], str | int] = {}
    who: dict[tuple[str, str], str] = {}
    for sw, port, plugged in ends:
        assert port is not None
        key = (str(sw), str(port))
        if key in who:
            raise ValueError(f"switch {sw} port {port} is plugged twice: {who[key]}, {plugged}")
        out[key], who[key] = port, plugged
    return out


def check_connected(used: list[str], found: list[Link]) -> None:
    """The switches hosts are plugged into are all joined by links."""
    for other in used[1:]:
        _hops(found, used[0], other)


def _hops(found: list[Link], src: str, dst: str) -> list[tuple[str, str | int, str, str | int]]:
    """The links from switch src to switch dst as (from, its port, to, its port)
    (ValueError if they are not connected)."""
    nbrs: dict[str, list[tuple[str, str | int, str | int]]] = {}
    for link in found:
        nbrs.setdefault(link.switch, []).append((link.peer, link.port, link.peer_port))
        nbrs.setdefault(link.peer, []).append((link.switch, link.peer_port, link.port))
    back: dict[str, tuple[str, str | int, str | int]] = {src: (src, 0, 0)}
    todo = deque([src])
    while todo:
        x = todo.popleft()
        for y, out_port, in_port in nbrs.get(x, []):
            if y not in back:
                back[y] = (x, out_port, in_port)
                todo.append(y)
    if dst not in back:
        raise ValueError(f"switches {src} and {dst} are not connected by 'links'")
    hops = []
    while dst != src:
        x, out_port, in_port = back[dst]
        hops.append((x, out_port, dst, in_port))
        dst = x
    return hops[::-1]


def path_ports(
    found: list[Link], src: tuple[str, str | int], dst: tuple[str, str | int]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(ingress, egress) switch ports, as (switch, port label), from the port host `src`
    is plugged into to the port of `dst` (each a (switch, port))."""
    ingress = [(src[0], str(src[1]))]
    egress = []
    for a, a_port, b, b_port in _hops(found, src[0], dst[0]):
        egress.append((a, str(a_port)))
        ingress.append((b, str(b_port)))
    egress.append((dst[0], str(dst[1])))
    return ingress, egress


def probe(spec: SwitchSpec, ports: list[str | int], transport: Transport) -> tuple[bool, str]:
    """Read-only: whether the switch's agent answers and has these ports -> (ok, one line
    naming the switch, and the remedy when not)."""
    a = spec.agent
    where = f"switch {spec.name} ({a.address}:{a.port}, SNMP v{a.version})"
    try:
        found = snmp.resolve(transport, a, ports)
    except snmp.SnmpError as exc:
        return False, (
            f"{where}: {exc}; check the address, the SNMP credentials and that this machine "
            "may query the agent (its access list), and the hosts' switch_port names"
        )
    shown_ports = ", ".join(f"{label}=ifIndex {i}" for label, i in found.items()) or "none asked"
    return True, f"{where}: reachable; ports {shown_ports}"
