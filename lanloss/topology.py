# SPDX-License-Identifier: GPL-2.0-only
"""Topology files (YAML) for topologies the named ones do not cover.

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

import yaml

from lanloss import paths, units
from lanloss.options import OptionError

ROLES = ("sender", "receiver", "host")


def _fail(path: str, why: str) -> OptionError:
    return OptionError(f"topology: {path}: {why}")


# Names go into the scenario program's line format, namespace and file names: no
# spaces, ';', '#' or slashes.
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")


def _section(path: str, doc: dict[str, Any], key: str, kind: type) -> Any:
    value = doc.get(key)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        want = "a list" if kind is list else "a mapping"
        raise _fail(path, f"{key}: expected {want}, got {value!r}")
    return value


def _name(path: str, what: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _fail(path, f"{what} name {value!r} is not a name")
    name = str(value)
    if not _NAME_RE.match(name):
        raise _fail(
            path,
            f"{what} name {name!r}: use 1-32 letters, digits, '_', '.' or '-' "
            "(starting with a letter or digit)",
        )
    return name


def _link(path: str, i: int, raw: Any, default_delay: float) -> tuple[str, str, int, float]:
    if isinstance(raw, dict):
        unknown = set(raw) - {"a", "b", "rate", "delay"}
        if unknown:
            raise _fail(path, f"link {i + 1}: unknown keys {sorted(unknown)}")
        fields = [raw.get("a"), raw.get("b"), raw.get("rate"), raw.get("delay")]
    elif isinstance(raw, (list, tuple)) and 3 <= len(raw) <= 4:
        fields = list(raw) + [None] * (4 - len(raw))
    else:
        raise _fail(path, f"link {i + 1}: expected [a, b, rate, delay?], got {raw!r}")
    a, b, rate, delay = fields
    if not a or not b:
        raise _fail(path, f"link {i + 1}: both ends must be named, got {raw!r}")
    try:
        bps = units.parse_rate(rate)
        seconds = default_delay if delay is None else units.parse_time(delay)
    except ValueError as exc:
        raise _fail(path, f"link {a} - {b}: {exc}") from None
    return str(a), str(b), bps, seconds


def load(path: str, default_delay: float = 1e-6) -> dict[str, Any]:
    """Read and validate a topology file; returns {switches, hosts, links, flows}."""
    try:
        with open(paths.data_file(path), encoding="utf-8") as fh:
            doc = yaml.safe_load(fh)
    except OSError as exc:
        raise _fail(path, f"cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        why = getattr(exc, "problem", None) or str(exc).strip().splitlines()[0]
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise _fail(path, f"not valid YAML{at}: {why}") from None
    if not isinstance(doc, dict):
        raise _fail(path, "expected a mapping with switches, hosts, links")
    unknown = set(doc) - {"switches", "hosts", "links", "flows"}
    if unknown:
        raise _fail(path, f"unknown sections {sorted(unknown)}")

    raw_switches = _section(path, doc, "switches", list)
    raw_hosts = _section(path, doc, "hosts", dict)
    raw_links = _section(path, doc, "links", list)
    raw_flows = _section(path, doc, "flows", list)
    switches = [_name(path, "switch", s) for s in raw_switches]
    hosts: dict[str, str] = {}
    for name, spec in raw_hosts.items():
        name = _name(path, "host", name)
        if isinstance(spec, dict) and set(spec) - {"role"}:
            raise _fail(path, f"host {name!r}: unknown keys {sorted(set(spec) - {'role'})}")
        role = spec.get("role") if isinstance(spec, dict) else spec
        if role not in ROLES:
            raise _fail(path, f"host {name!r}: role {role!r} is not one of {', '.join(ROLES)}")
        hosts[name] = role
    names = switches + list(hosts)
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise _fail(path, f"duplicate names {sorted(dupes)}")
    if not switches:
        raise _fail(path, "no switches")

    links = [_link(path, i, raw, default_delay) for i, raw in enumerate(raw_links)]
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

    flows = []
    for i, f in enumerate(raw_flows):
        if (
            not isinstance(f, dict)
            or not {"from", "to"} <= set(f)
            or set(f) - {"from", "to", "rate"}
        ):
            raise _fail(path, f"flow {i + 1}: expected {{from, to, rate?}}, got {f!r}")
        src, dst = str(f["from"]), str(f["to"])
        if src == dst:
            raise _fail(path, f"flow {src} -> {dst} sends to itself")
        for end in (src, dst):
            if end not in hosts:
                raise _fail(path, f"flow {src} -> {dst} names unknown host {end!r}")
        if root(src) != root(dst):
            raise _fail(path, f"flow {src} -> {dst} has no path")
        try:
            rate = units.parse_rate(f["rate"]) if "rate" in f else None
        except ValueError as exc:
            raise _fail(path, f"flow {src} -> {dst}: {exc}") from None
        flows.append((src, dst, rate))
    if not flows and not ({"sender"} <= set(hosts.values()) and "receiver" in hosts.values()):
        raise _fail(path, "no flows and no sender/receiver hosts to make them from")
    return {"switches": switches, "hosts": hosts, "links": links, "flows": flows}


def to_spec(topo: dict[str, Any]) -> str:
    """The scenario program's line format (models/helper/lan-spec.h)."""
    lines = ["# generated by lanloss from a YAML topology file"]
    lines += [f"switch {s}" for s in topo["switches"]]
    lines += [f"host {h} {role}" for h, role in topo["hosts"].items()]
    lines += [f"link {a} {b} {bps}bps {delay!r}s" for a, b, bps, delay in topo["links"]]
    for src, dst, rate in topo["flows"]:
        lines.append(f"flow {src} {dst}" + (f" {rate}bps" if rate else ""))
    return "\n".join(lines) + "\n"
