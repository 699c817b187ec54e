# SPDX-License-Identifier: GPL-2.0-only
"""The LAN of a run, generated once for both sides: the named topologies (star,
two-tier, two-site) and topology files (YAML) for what the named ones do not cover.

``of_params`` gives the run's LAN as {switches, hosts, links, flows}; ``to_spec``
writes it in the line format the scenario program reads (``lanloss sim run`` passes
every run's LAN that way), and the netns backend builds its namespaces from the same
dict. ``LanSpec::Star/TwoTier/TwoSite`` in models/helper/lan-spec.cc are kept for the
module's C++ users; tests/sim/test_topology_spec.py proves they build what
``named`` generates.

A topology file:

    switches: [sw1, sw2]
    hosts:
      s1: sender            # or {role: sender}
      r1: receiver
    links:                  # [a, b, rate, delay] or {a:, b:, rate:, delay:}
      - [s1, sw1, 1Gbps, 1us]
      - [sw1, sw2, 1Gbps]   # delay defaults to the run's link_delay
      - [r1, sw2, 100Mbps]
    flows:                  # optional; default: sender i -> receiver i (mod)
      - {from: s1, to: r1, rate: 300Mbps}

The file is validated completely (unknown names, dangling links, loops, hosts
with no or several links, bad rates) before anything runs, and converted to the
line format the scenario program reads (see models/helper/lan-spec.h).
"""

from __future__ import annotations

import re
from typing import Any

from lanloss import inputs, paths, units
from lanloss.inputs import shown
from lanloss.options import BY_NAME, TOPOLOGIES, OptionError

ROLES = ("sender", "receiver", "host")
NAMED = TOPOLOGIES  # the vocabulary's named LANs (lanloss.options)


def _numbered(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{i + 1}" for i in range(count)]


def named(
    name: str,
    *,
    senders: int,
    receivers: int,
    edge_rate: int,
    sender_rate: int,
    backbone_rate: int,
    edge_switches: int = BY_NAME["edge_switches"].default,
    link_delay: float = BY_NAME["link_delay"].default,
    wan_delay: float = BY_NAME["wan_delay"].default,
) -> dict[str, Any]:
    """A named topology as {switches, hosts, links, flows} (flows empty: default_flows).

    Hosts s1.. (senders, on ``sender_rate`` links) and r1.. (receivers, on ``edge_rate``
    links). star: one switch sw1. two-tier: a core with edge1..edgeE on ``backbone_rate``
    links, senders on edge1, receiver j on edge 2 + j mod (E - 1) (on edge1 when E is 1).
    two-site: senders on siteA, receivers on siteB, one ``backbone_rate`` link of
    ``wan_delay`` between them. Node and link order is the build order (node ids, MACs).
    """
    snd, rcv = _numbered("s", int(senders)), _numbered("r", int(receivers))
    hosts = {**dict.fromkeys(snd, "sender"), **dict.fromkeys(rcv, "receiver")}
    links: list[tuple[str, str, int, float]] = []
    if name == "star":
        switches = ["sw1"]
        at_sender, at_receiver = ["sw1"] * len(snd), ["sw1"] * len(rcv)
    elif name == "two-tier":
        edges = _numbered("edge", int(edge_switches))
        switches = ["core", *edges]
        links += [(e, "core", int(backbone_rate), link_delay) for e in edges]
        at_sender = [edges[0]] * len(snd)
        spread = edges[1:] or edges  # receivers off the senders' edge, if there is another
        at_receiver = [spread[j % len(spread)] for j in range(len(rcv))]
    elif name == "two-site":
        switches = ["siteA", "siteB"]
        links.append(("siteA", "siteB", int(backbone_rate), wan_delay))
        at_sender, at_receiver = ["siteA"] * len(snd), ["siteB"] * len(rcv)
    else:
        raise OptionError(f"topology: {name!r} is not one of {', '.join(NAMED)}")
    links += [(h, sw, int(sender_rate), link_delay) for h, sw in zip(snd, at_sender, strict=True)]
    links += [(h, sw, int(edge_rate), link_delay) for h, sw in zip(rcv, at_receiver, strict=True)]
    return {"switches": switches, "hosts": hosts, "links": links, "flows": []}


def default_flows(hosts: dict[str, str], cast: str = "unicast") -> list[tuple[str, str, None]]:
    """Flows of a LAN that names none: sender k mod S -> receiver k mod R for k < max(S, R)
    (LanSpec::AddDefaultFlows); multicast: every sender to every receiver."""
    snd = [h for h, r in hosts.items() if r == "sender"]
    rcv = [h for h, r in hosts.items() if r == "receiver"]
    if not snd or not rcv:
        return []
    if cast == "multicast":
        return [(s, r, None) for s in snd for r in rcv]
    n = max(len(snd), len(rcv))
    return [(snd[k % len(snd)], rcv[k % len(rcv)], None) for k in range(n)]


def of_params(params: dict[str, Any], delays: bool = True) -> dict[str, Any]:
    """The run's LAN: the named topology of resolved ``params`` (lanloss.options.resolve)
    or its topology file, validated.

    ``delays=False``: named topologies get no link delays (a backend that does not
    emulate them, as the netns one, where link_delay is no option).
    """
    topo = params["topology"]
    if topo not in NAMED:
        return load(topo, float(params["link_delay"]))
    return named(
        topo,
        senders=int(params["senders"]),
        receivers=int(params["receivers"]),
        edge_rate=params["edge_rate"],
        sender_rate=params["sender_rate"],
        backbone_rate=params["backbone_rate"],
        edge_switches=int(params["edge_switches"]),
        link_delay=float(params["link_delay"]) if delays else 0.0,
        wan_delay=float(params["wan_delay"]) if delays else 0.0,
    )


def _fail(path: str, why: str) -> OptionError:
    return OptionError(f"topology: {inputs.shown_path(path)}: {why}")


# Names go into the scenario program's line format, namespace and file names: no
# spaces, ';', '#', slashes or newlines (checked with fullmatch: a bare `$` also matches
# before a final newline).
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")


def _section(path: str, doc: dict[str, Any], key: str, kind: type) -> Any:
    value = doc.get(key)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        want = "a list" if kind is list else "a mapping"
        raise _fail(path, f"{key}: expected {want}, got {shown(value)}")
    return value


def _name(path: str, what: str, value: Any) -> str:
    # A name is text as written: YAML reads a bare 0x1A, 010, 1e3 or yes as a number or a
    # boolean, which would name another node than the one the user wrote.
    if isinstance(value, (bool, int, float)):
        raise _fail(path, f"{what} name {shown(value)} is not text: write it in quotes")
    if not isinstance(value, str):
        raise _fail(path, f"{what} name {shown(value)} is not a name")
    name = str(value)
    if not _NAME_RE.fullmatch(name):
        raise _fail(
            path,
            f"{what} name {shown(name)}: use 1-32 letters, digits, '_', '.' or '-' "
            "(starting with a letter or digit)",
        )
    return name


def _check_counts(path: str, switches: list[str], hosts: dict[str, str]) -> None:
    """A topology file is held to the named topologies' caps: the `senders` and `receivers`
    options' maxima, and a two-tier's core and edge switches (each node is a namespace on
    the testbed)."""
    max_switches = 1 + int(BY_NAME["edge_switches"].maximum or 0)
    for role, option in (("sender", "senders"), ("receiver", "receivers")):
        count, cap = list(hosts.values()).count(role), int(BY_NAME[option].maximum or 0)
        if count > cap:
            raise _fail(path, f"{count} {role}s: at most {cap} (as the option {option})")
    cap = int(BY_NAME["senders"].maximum or 0) + int(BY_NAME["receivers"].maximum or 0)
    if len(hosts) > cap:
        raise _fail(path, f"{len(hosts)} hosts: at most {cap}")
    if len(switches) > max_switches:
        raise _fail(path, f"{len(switches)} switches: at most {max_switches}")


def _link(path: str, i: int, raw: Any, default_delay: float) -> tuple[str, str, int, float]:
    if isinstance(raw, dict):
        unknown = set(raw) - {"a", "b", "rate", "delay"}
        if unknown:
            raise _fail(path, f"link {i + 1}: unknown keys {shown(sorted(unknown))}")
        fields = [raw.get("a"), raw.get("b"), raw.get("rate"), raw.get("delay")]
    elif isinstance(raw, (list, tuple)) and 3 <= len(raw) <= 4:
        fields = list(raw) + [None] * (4 - len(raw))
    else:
        raise _fail(path, f"link {i + 1}: expected [a, b, rate, delay?], got {shown(raw)}")
    a, b, rate, delay = fields
    if a is None or b is None:
        raise _fail(path, f"link {i + 1}: both ends must be named, got {shown(raw)}")
    a, b = _name(path, f"link {i + 1} end", a), _name(path, f"link {i + 1} end", b)
    try:
        bps = units.parse_rate(rate)
        seconds = default_delay if delay is None else units.parse_time(delay)
    except ValueError as exc:
        raise _fail(path, f"link {a} - {b}: {exc}") from None
    return a, b, bps, seconds


def _hosts(path: str, raw_hosts: dict[str, Any]) -> dict[str, str]:
    """The hosts section: name -> role."""
    hosts: dict[str, str] = {}
    for name, spec in raw_hosts.items():
        name = _name(path, "host", name)
        if isinstance(spec, dict) and set(spec) - {"role"}:
            unknown_keys = shown(sorted(set(spec) - {"role"}))
            raise _fail(path, f"host {name!r}: unknown keys {unknown_keys}")
        role = spec.get("role") if isinstance(spec, dict) else spec
        if role not in ROLES:
            raise _fail(path, f"host {name!r}: role {shown(role)} is not one of {', '.join(ROLES)}")
        hosts[name] = role
    return hosts


def _check_tree(path: str, names: list[str], hosts: dict[str, str], links: list[tuple]) -> None:
    """The links make one tree of the nodes (no loop, nothing apart), each host on exactly
    one link."""
    parent = {n: n for n in names}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    degree = dict.fromkeys(hosts, 0)
    for a, b, _, _ in links:
        for end in (a, b):
            if end not in parent:
                raise _fail(path, f"link {a} - {b} names unknown node {end!r} (dangling link)")
        if a == b:
            raise _fail(path, f"link {a} - {b} connects a node to itself")
        if a in hosts and b in hosts:
            raise _fail(path, f"link {a} - {b} joins two hosts without a switch")
        for end in (a, b):
            if end in degree:
                degree[end] += 1
        ra, rb = root(a), root(b)
        if ra == rb:
            raise _fail(path, f"link {a} - {b} closes a loop (a LAN without STP is a tree)")
        parent[ra] = rb
    for host, n in degree.items():
        if n != 1:
            raise _fail(path, f"host {host!r} must have exactly one link, has {n}")
    # one network: a part not joined to the rest has no path from it (the scenario
    # program's default flows and the testbed's switch ports both need one)
    first = root(names[0])
    for n in names:
        if root(n) != first:
            raise _fail(path, f"{n!r} is not connected to {names[0]!r} (one network needed)")


def _flows(path: str, raw_flows: list[Any], hosts: dict[str, str]) -> list[tuple]:
    """The flows section: (from, to, rate bit/s or None) between two hosts."""
    flows = []
    for i, f in enumerate(raw_flows):
        if (
            not isinstance(f, dict)
            or not {"from", "to"} <= set(f)
            or set(f) - {"from", "to", "rate"}
        ):
            raise _fail(path, f"flow {i + 1}: expected {{from, to, rate?}}, got {shown(f)}")
        src = _name(path, f"flow {i + 1} from", f["from"])
        dst = _name(path, f"flow {i + 1} to", f["to"])
        if src == dst:
            raise _fail(path, f"flow {src} -> {dst} sends to itself")
        for end in (src, dst):
            if end not in hosts:
                raise _fail(path, f"flow {src} -> {dst} names unknown host {end!r}")
        try:
            rate = units.parse_rate(f["rate"]) if "rate" in f else None
        except ValueError as exc:
            raise _fail(path, f"flow {src} -> {dst}: {exc}") from None
        flows.append((src, dst, rate))
    return flows


def load(path: str, default_delay: float = BY_NAME["link_delay"].default) -> dict[str, Any]:
    """Read and validate a topology file; returns {switches, hosts, links, flows}."""
    try:
        doc = inputs.load_yaml(paths.data_file(path), "topology file")
    except inputs.InputError as exc:
        raise _fail(path, exc.why) from None
    if not isinstance(doc, dict):
        raise _fail(path, "expected a mapping with switches, hosts, links")
    unknown = set(doc) - {"switches", "hosts", "links", "flows"}
    if unknown:
        raise _fail(path, f"unknown sections {shown(sorted(unknown))}")

    raw_switches = _section(path, doc, "switches", list)
    raw_hosts = _section(path, doc, "hosts", dict)
    raw_links = _section(path, doc, "links", list)
    raw_flows = _section(path, doc, "flows", list)
    switches = [_name(path, "switch", s) for s in raw_switches]
    hosts = _hosts(path, raw_hosts)
    _check_counts(path, switches, hosts)
    names = switches + list(hosts)
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise _fail(path, f"duplicate names {sorted(dupes)}")
    if not switches:
        raise _fail(path, "no switches")
    links = [_link(path, i, raw, default_delay) for i, raw in enumerate(raw_links)]
    _check_tree(path, names, hosts, links)  # one tree: any two hosts have a path
    flows = _flows(path, raw_flows, hosts)
    if not flows and not ({"sender"} <= set(hosts.values()) and "receiver" in hosts.values()):
        raise _fail(path, "no flows and no sender/receiver hosts to make them from")
    return {"switches": switches, "hosts": hosts, "links": links, "flows": flows}


def to_spec(topo: dict[str, Any]) -> str:
    """The scenario program's line format (models/helper/lan-spec.h).

    Rates as whole bit/s and delays as ``repr`` seconds: the text the scenario
    program's own flags carry, so both parse to the same DataRate and Time.
    """
    lines = ["# generated by lanloss (lanloss/topology.py)"]
    lines += [f"switch {s}" for s in topo["switches"]]
    lines += [f"host {h} {role}" for h, role in topo["hosts"].items()]
    lines += [f"link {a} {b} {bps}bps {delay!r}s" for a, b, bps, delay in topo["links"]]
    for src, dst, rate in topo["flows"]:
        lines.append(f"flow {src} {dst}" + (f" {rate}bps" if rate else ""))
    return "\n".join(lines) + "\n"
