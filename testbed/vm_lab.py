# SPDX-License-Identifier: GPL-2.0-only
"""The vm backend's guests as a practice lab for the ssh backend
(``lanloss bed run --backend vm --keep-lan --lab-inventory FILE``).

A lab machine is reached over a management network, its switch's SNMP agent too, and
neither shares the NIC under test. Here each switch namespace gets a management link to
this machine's own namespace: a veth (``llm`` + a digest of the namespace's name here,
``mgmt0`` there) with a /30 of MGMT_NET, the first /30 that no route of this machine
covers. On that link's far address, inside the switch namespace:

- each guest's sshd, forwarded by QEMU's user networking (a second ``hostfwd`` beside the
  harness's own on the namespace's loopback) at the guest's port SSH_PORT0 + k. QEMU hands
  the guest such a connection with the client's own address (only a loopback client
  becomes its gateway, 10.0.2.2), so the guest routes MGMT_NET through that gateway
  (``ll.mgmt_route`` on its kernel command line; the image's rc adds the route);
- net-snmp's snmpd serving the switch's ports (snmp_agent: IF-MIB, with the ports'
  qdisc drops as ifOutDiscards), started by the LAN's keeper so that it stands with the
  guests, and answering this machine's end of the link only.

The link goes with the switch namespace (a veth pair is one device: deleting the
namespace deletes this machine's end too), and snmpd with the keeper, so what a standing
LAN's journal removes (namespaces, keeper) removes the lab too.

The inventory (written whole once the lab is up; removed when the run takes the LAN down
instead of leaving it standing) names each guest by its management address and port, the
image's key and host key, its data address and eth0 (the emulated Intel NIC), and its
switch port; and each switch by its agent.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import subprocess
from typing import Any

from lanloss import outputs
from lanloss.testbed import snmp_agent
from lanloss.testbed.errors import BedError

MGMT_NET = ipaddress.IPv4Network("10.78.0.0/16")
MGMT_IFACE = "mgmt0"  # the link's end in the switch namespace


def link_name(ns: str) -> str:
    """This machine's end of the management link of switch namespace `ns` (15 bytes max)."""
    return "llm" + hashlib.sha1(ns.encode()).hexdigest()[:10]


def _routes() -> list[ipaddress.IPv4Network]:
    """Every IPv4 destination this machine's namespace routes (all tables)."""
    out = subprocess.run(
        ["ip", "-4", "-o", "route", "show", "table", "all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    nets = []
    for line in out.splitlines():
        word = line.split()[0] if line.split() else ""
        if word in ("broadcast", "local", "unicast", "multicast"):
            word = line.split()[1]
        if word == "default":
            continue
        try:
            nets.append(ipaddress.IPv4Network(word, strict=False))
        except ValueError:
            continue
    return nets


def free_subnets(count: int) -> list[ipaddress.IPv4Network]:
    """`count` /30s of MGMT_NET that no route here overlaps, lowest first."""
    taken = _routes()
    out = []
    for net in MGMT_NET.subnets(new_prefix=30):
        if not any(net.overlaps(t) for t in taken):
            out.append(net)
            if len(out) == count:
                return out
    raise BedError(f"vm lab: no free /30 left in {MGMT_NET} for the management links")


def _ip(*argv: str) -> None:
    cp = subprocess.run(["ip", *argv], capture_output=True, text=True)
    if cp.returncode != 0:
        raise BedError(f"vm lab: `ip {' '.join(argv)}` failed: {cp.stderr.strip()}")


def add_link(ns: str, subnet: ipaddress.IPv4Network) -> dict[str, str]:
    """The management link of switch namespace `ns` on `subnet` -> its ends' addresses
    (``here``: this machine's, ``there``: the namespace's, where its services listen)."""
    here, there = (str(a) for a in list(subnet.hosts())[:2])
    name = link_name(ns)
    _ip("link", "add", name, "type", "veth", "peer", "name", MGMT_IFACE, "netns", ns)
    _ip("addr", "add", f"{here}/{subnet.prefixlen}", "dev", name)
    _ip("link", "set", name, "up")
    _ip("-n", ns, "addr", "add", f"{there}/{subnet.prefixlen}", "dev", MGMT_IFACE)
    _ip("-n", ns, "link", "set", MGMT_IFACE, "up")
    return {"link": name, "here": here, "there": there, "subnet": str(subnet)}


def snmpd_argv(ns: str, folder: str, link: dict[str, str]) -> list[str]:
    """snmpd in switch namespace `ns` on the link's far address, for this machine's end."""
    return snmp_agent.argv(ns, folder, address=link["there"], clients=link["here"])


def inventory(
    plan: Any, links: dict[str, dict[str, str]], ssh_ports: dict[str, int], image: dict[str, str]
) -> str:
    """The inventory (YAML) of the guests `ssh_ports` names (host -> its hostfwd port) and
    the plan's switches (with `links`: switch -> its management link)."""
    lines = [
        "# A practice lab: the guests of a standing `lanloss bed run --backend vm` LAN,",
        "# reached over their switch namespaces' management links (testbed/vm_lab.py).",
        "ssh:",
        "  user: root",
        f"  key: {json.dumps(image['key'])}",
        f"  known_hosts: {json.dumps(image['known_hosts'])}",
        "  strict_host_key_checking: 'yes'",
        "switches:",
    ]
    for sw in plan.switches:
        agent = snmp_agent.agent(links[sw.name]["there"])
        lines.append(
            f"  {sw.name}: {{address: {agent.address}, snmp: {{version: 2c, community: "
            f"{agent.community}, port: {agent.port}, counter_refresh: {agent.refresh_s:g}}}}}"
        )
    between = []
    for a, b, _, _ in plan.links:
        if plan.nodes[a].kind == "switch" and plan.nodes[b].kind == "switch":
            pa, pb = plan.port_towards(a, b).name, plan.port_towards(b, a).name
            between.append(f"  - {{switch: {a}, port: {pa}, peer: {b}, peer_port: {pb}}}")
    if between:
        lines += ["links:", *between]
    lines.append("hosts:")
    for node in plan.hosts:
        if node.name not in ssh_ports:
            continue
        port = plan.port_towards(node.switch, node.name).name
        role = {"sender": "sender", "receiver": "receiver"}.get(node.kind, "both")
        lines.append(
            f"  {node.name}: {{address: {links[node.switch]['there']}, "
            f"ssh: {{port: {ssh_ports[node.name]}}}, data_address: {node.address}, "
            f"interface: eth0, role: {role}, switch: {node.switch}, switch_port: {port}}}"
        )
    return "\n".join(lines) + "\n"


def write(path: str, text: str) -> None:
    """The inventory, whole or not at all."""
    outputs.write_text(path, text, flag="--lab-inventory")
