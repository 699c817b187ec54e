# SPDX-License-Identifier: GPL-2.0-only
"""The netns backend: the run's LAN built from network namespaces on this machine.

Every host and every switch is a namespace named ``<prefix><node>``, marked in the run
folder before it is made (runfolder) and listed by exact name in the journal. Only
marked namespaces are ever removed; one named like ours without a marker is refused.
A switch is a Linux bridge; links are veth pairs. The nodes and links are those of the
simulator, generated once by lanloss.topology (a named topology: hosts s1.., r1..,
switches sw1 or core + edge1..; or a YAML topology file), so sim and bed records name
the same things.

Shaping: each end of each link gets an egress shaper at the link's rate (``shaper``:
HTB served in rounds, see there), with a size table (``stab overhead 24 mpu 84``) so
the shaper charges what the wire carries: 14 (MAC header, in skb->len) + 24
(preamble+SFD 8, FCS 4, IFG 12), and at least 84 bytes (64-byte minimum frame + 20).
``mtu``/``tsize`` make the table one byte per cell, which is exact (1538 bytes charged
per 1472-byte datagram, 129 for 63 bytes, 84 for 1 byte; tc's default 4-byte cells
would charge 132 for 63). Saturation goodput then equals lanloss.analysis.wire's closed
form. The shaper's FIFO holds ``switch_buffer`` bytes on switch ports and ``tx_queue``
on hosts' ports.

A switch port must drop, not push back: a UDP skb stays charged to its sending socket
(SO_SNDBUF) until it is freed, and veth and the bridge pass the very skb on, so a frame
waiting in a switch port's queue would hold the sender's memory and a full port would
block the sender. Each switch namespace keeps ``net.bridge.bridge-nf-call-iptables=1``:
br_netfilter's pre-routing hook orphans the skb (setup_pre_routing: skb_orphan), which
a real NIC does when the frame has left. On a host's own port the socket *is* charged
while the frame waits, as on a real host (its socket blocks when its NIC queue is full).
What the sender achieved is recorded and compared with what was offered
(``offered_met`` in the record's totals).

Other choices that keep the counters clean: IPv6 is disabled in every
namespace (no ND/MLD chatter), ARP entries and bridge forwarding entries are
static (a receiver that never transmits would otherwise never be learned and
every frame to it would be flooded), and the bridge floods multicast like an
unmanaged switch (mcast_snooping 0).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lanloss import header_constants
from lanloss import topology as topofile
from lanloss.options import OptionError
from lanloss.testbed import runfolder
from lanloss.testbed.backend import Backend, refuse_guest_options
from lanloss.testbed.errors import BedError
from lanloss.testbed.transport import NETNS_DIR, Local

SUBNET = ipaddress.IPv4Network("10.77.0.0/16")
GROUP = header_constants.GROUP
WIRE_OVERHEAD = 24  # preamble+SFD 8, FCS 4, IFG 12 (the 14-byte MAC header is in skb->len)
MIN_WIRE = 84  # 64-byte minimum frame + preamble/SFD + IFG
IFACE = "eth0"
BRIDGE = "br0"
MACHINE = "machine"  # the host name of this machine's initial namespace in records


@dataclass
class Port:
    """One end of a link inside a switch namespace."""

    name: str  # interface name in the switch namespace
    peer: str  # node at the other end
    rate: int


@dataclass
class Node:
    name: str
    ns: str
    kind: str  # sender | receiver | host | switch
    ports: list[Port] = field(default_factory=list)  # switches
    rate: int = 0  # hosts: their link's rate
    switch: str = ""  # hosts: the switch they hang off
    address: str = ""  # hosts: IPv4
    mac: str = ""  # hosts: filled in by build()


@dataclass
class Plan:
    prefix: str
    nodes: dict[str, Node]
    links: list[tuple[str, str, int, float]]
    flows: list[tuple[str, str, int | None]]
    params: dict[str, Any]
    unsupported: list[str] = field(default_factory=list)

    @property
    def switches(self) -> list[Node]:
        return [n for n in self.nodes.values() if n.kind == "switch"]

    @property
    def hosts(self) -> list[Node]:
        return [n for n in self.nodes.values() if n.kind != "switch"]

    def namespaces(self) -> list[str]:
        return [n.ns for n in self.nodes.values()]

    def port_towards(self, switch: str, target: str) -> Port:
        """The port of `switch` on the (tree) path to node `target`."""
        for port in self.nodes[switch].ports:
            if target == port.peer or target in self._behind(switch, port.peer):
                return port
        raise KeyError(f"{target} not reachable from {switch}")

    def _behind(self, came_from: str, node: str) -> set[str]:
        """Every node reachable from `node` without going back through `came_from`."""
        seen, todo = {came_from, node}, [node]
        while todo:
            cur = todo.pop()
            for a, b, _, _ in self.links:
                for x, y in ((a, b), (b, a)):
                    if x == cur and y not in seen:
                        seen.add(y)
                        todo.append(y)
        return seen - {came_from}

    def path_ports(self, src: str, dst: str) -> list[tuple[str, str]]:
        """(switch, egress port) along src -> dst: where a frame of that flow can queue."""
        hops = []
        cur = self.nodes[src].switch
        while True:
            port = self.port_towards(cur, dst)
            hops.append((cur, port.name))
            if port.peer == dst:
                return hops
            cur = port.peer


def frame_bytes(mtu: int) -> int:
    return mtu + 14 + WIRE_OVERHEAD


def plan(params: dict[str, Any], prefix: str) -> Plan:
    """The namespaces, links and flows of a run (pure; bad input is an OptionError)."""
    if params["topology"] == "two-site":
        raise OptionError(
            "topology: two-site needs its wan_delay emulated (netem), which the "
            "netns backend does not do; use two-tier or a topology file"
        )
    # named topologies without delays: link_delay is no bed option (veth adds a few us)
    spec = topofile.of_params(params, delays=False)
    unsupported = []
    delays = sorted({d for *_, d in spec["links"] if d})
    if delays and max(delays) > 10e-6:
        raise OptionError(
            f"topology: link delay {max(delays):g}s cannot be emulated by the "
            "netns backend (no netem); veth adds a few microseconds"
        )
    if delays:
        unsupported.append(f"link delays {delays} s not emulated (veth: a few microseconds)")

    flows = list(spec["flows"]) or topofile.default_flows(spec["hosts"], params["cast"])
    if not flows:
        raise OptionError("topology: no flows (needs senders and receivers)")
    if params["cast"] == "multicast":
        by_sender: dict[str, set[str]] = {}
        for s, r, _ in flows:
            by_sender.setdefault(s, set()).add(r)
        if len({frozenset(v) for v in by_sender.values()}) > 1:
            raise OptionError(
                "cast: multicast sends every sender to the same group; "
                "the topology's flows name different receiver sets"
            )

    names = list(spec["switches"]) + list(spec["hosts"])
    if MACHINE in names:
        raise OptionError(f"topology: the node name {MACHINE!r} is reserved")
    for n in names:
        if len(prefix + n) > 64 or not all(c.isalnum() or c in "-_." for c in n):
            raise OptionError(f"topology: node name {n!r} cannot name a namespace")
    nodes: dict[str, Node] = {s: Node(s, prefix + s, "switch") for s in spec["switches"]}
    hosts_in = list(spec["hosts"].items())
    if len(hosts_in) > 250 * 250:
        raise OptionError(f"topology: {len(hosts_in)} hosts is more than this backend numbers")
    for k, (h, role) in enumerate(hosts_in):
        addr = SUBNET.network_address + (k // 250) * 256 + (k % 250) + 1
        nodes[h] = Node(h, prefix + h, role, address=str(addr))
    for a, b, rate, _ in spec["links"]:
        for x, y in ((a, b), (b, a)):
            if nodes[x].kind == "switch":
                port = Port(f"p{len(nodes[x].ports) + 1}", y, int(rate))
                nodes[x].ports.append(port)
            else:
                nodes[x].rate = int(rate)
                nodes[x].switch = y

    mtu = int(params["mtu"])
    frame = frame_bytes(mtu)
    for opt in ("switch_buffer", "tx_queue"):
        if int(params[opt]) < frame:
            raise OptionError(
                f"{opt}: {params[opt]} bytes cannot hold one {frame}-byte frame at mtu {mtu}"
            )
    return Plan(prefix, nodes, list(spec["links"]), flows, params, unsupported)


# -- building -------------------------------------------------------------------------------


def _run(argv: list[str], input: bytes | None = None, timeout: float = 20) -> str:
    try:
        cp = subprocess.run(
            argv, input=input, capture_output=True, timeout=timeout, start_new_session=True
        )
    except subprocess.TimeoutExpired:
        raise BedError(f"netns: `{' '.join(argv)}` timed out") from None
    if cp.returncode != 0:
        msg = (cp.stderr or cp.stdout).decode(errors="replace").strip().splitlines()
        raise BedError(f"netns: `{' '.join(argv)}` failed: {msg[-1] if msg else cp.returncode}")
    return cp.stdout.decode(errors="replace")


def _batch(tool: str, ns: str, lines: list[str]) -> None:
    """Many ip/tc/bridge commands in one process (`-batch -`), inside namespace ns."""
    if lines:
        _run(
            ["nsenter", f"--net={NETNS_DIR}/{ns}", "--", tool, "-batch", "-"],
            input=("\n".join(lines) + "\n").encode(),
        )


# Segmentation offloads a veth would otherwise use (see build()).
OFFLOADS_OFF = ("tso", "off", "gso", "off", "gro", "off", "tx-udp-segmentation", "off")


ROUND = 100e-6  # the longest a shaper serves back-to-back before its timer (see shaper())


def shaper(rate: int, limit: int, mtu: int) -> list[str]:
    """tc commands for one port: the wire-exact size table, HTB at `rate`, a byte FIFO.

    Why HTB in hysteresis mode and not tbf: a shaper whose queue is backlogged waits for
    tokens with an hrtimer, one per frame, on the CPU that enqueued (on veth: the sender's,
    which runs the whole path in its softirq). Each timer costs a VM exit here; at 96k
    frames/s (64-byte datagrams into 100 Mbit/s) that is a whole CPU, the sender's, which
    then serves the port's queue inside its own send() calls: it is slowed to exactly the
    port's rate and the switch never drops (64-byte datagrams offered at any rate above
    the port's leave at its 96.2k datagrams/s, none dropped). With htb_hysteresis a class
    that may send keeps sending until it is `cburst` in debt, so a backlogged port is
    served in rounds of at most ROUND of line time (1250 bytes at 100 Mbit/s, 12.5 kB at
    1 Gbit/s) and its timer fires once per round, not per frame. A full-size frame is
    longer than a round below ~120 Mbit/s, so such ports still send one frame per timer,
    exactly as a constant-rate port; small frames leave in groups of at most a round. The
    FIFO limit (bfifo, bytes of the size table) is the port's buffer: `switch_buffer`, or
    `tx_queue` on hosts.
    """
    frame = frame_bytes(mtu)
    table = frame + 2
    round_bytes = max(64, int(rate * ROUND / 8))
    return [
        f"qdisc replace dev {{dev}} root handle 1: stab overhead {WIRE_OVERHEAD} mpu {MIN_WIRE} "
        f"mtu {table} tsize {table + 1} htb default 1",
        f"class add dev {{dev}} parent 1: classid 1:1 htb rate {rate}bit ceil {rate}bit "
        f"burst {round_bytes} cburst {round_bytes} quantum {frame}",
        f"qdisc add dev {{dev}} parent 1:1 handle 2: bfifo limit {limit}",
    ]


def port_description(port: Any) -> dict[str, Any]:
    """What a run's record says of one switch port: its peer and rate (the backends add
    how it is made)."""
    return {"peer": port.peer, "rate_bps": port.rate}


def host_description(host: Any) -> dict[str, Any]:
    """What a run's record says of one host's link: address, switch and rate (the backends
    add how it is made)."""
    return {"address": host.address, "switch": host.switch, "rate_bps": host.rate}


NO_IPV6 = ("net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")


def run_in(ns: str, *argv: str) -> str:
    """`argv` run in namespace `ns` (nsenter --net: only the network namespace changes)."""
    return _run(["nsenter", f"--net={NETNS_DIR}/{ns}", "--", *argv])


def make_switch(ns: str) -> None:
    """Namespace `ns` as a switch: no IPv6, iptables on bridged frames (br_netfilter orphans
    the skb, so a full switch port drops: see the module docstring), lo up, the bridge."""
    run_in(ns, "sysctl", "-q", "-w", *NO_IPV6, "net.bridge.bridge-nf-call-iptables=1")
    _batch(
        "ip",
        ns,
        [
            "link set lo up",
            f"link add {BRIDGE} type bridge mcast_snooping 0 stp_state 0",
            f"link set {BRIDGE} up",
        ],
    )


def shape_port(ns: str, ifname: str, rate: int, limit: int, mtu: int) -> None:
    """Interface `ifname` of namespace `ns` sends at `rate` through a `limit`-byte FIFO
    (shaper()). Its segmentation offloads go off first: the size table charges its
    overhead once per skb, so a TSO/GSO super-packet would pay one frame's overhead for
    many (TCP would pass the 94.15 Mbit/s a 100 Mbit/s wire carries); the stack builds
    wire-sized skbs instead."""
    run_in(ns, "ethtool", "-K", ifname, *OFFLOADS_OFF)
    _batch("tc", ns, [c.format(dev=ifname) for c in shaper(rate, limit, mtu)])


def build(p: Plan, journal: Any) -> None:
    """Create namespaces, links, shapers, addresses and static forwarding (journalled first)."""
    mtu = int(p.params["mtu"])
    for node in p.nodes.values():
        create_namespace(node.ns, journal)
    for node in p.switches:
        make_switch(node.ns)
    for node in p.hosts:
        run_in(node.ns, "sysctl", "-q", "-w", *NO_IPV6)
        _run(["ip", "-n", node.ns, "link", "set", "lo", "up"])

    params = p.params
    for a, b, rate, _ in p.links:
        ends = []
        for x, y in ((a, b), (b, a)):
            n = p.nodes[x]
            ifname = IFACE if n.kind != "switch" else next(q.name for q in n.ports if q.peer == y)
            ends.append((n, ifname))
        (na, ia), (nb, ib) = ends
        add_veth(ia, na.ns, ib, nb.ns)
        for n, ifname in ends:
            limit = params["switch_buffer"] if n.kind == "switch" else params["tx_queue"]
            cmds = [f"link set dev {ifname} mtu {mtu}"]
            if n.kind == "switch":
                cmds.append(f"link set dev {ifname} master {BRIDGE}")
            else:
                cmds.append(f"addr add {n.address}/{SUBNET.prefixlen} dev {ifname}")
            cmds.append(f"link set dev {ifname} up")
            _batch("ip", n.ns, cmds)
            shape_port(n.ns, ifname, int(rate), int(limit), mtu)

    for n in p.hosts:
        link = _run(["ip", "-n", n.ns, "-o", "link", "show", "dev", IFACE])
        n.mac = link.split("link/ether", 1)[1].split()[0]
    _static_forwarding(p)


def _static_forwarding(p: Plan) -> None:
    talkers = [n for n in p.hosts]
    for n in talkers:
        lines = [
            f"neigh replace {o.address} lladdr {o.mac} dev {IFACE} nud permanent"
            for o in talkers
            if o is not n
        ]
        _batch("ip", n.ns, lines)
    for sw in p.switches:
        lines = [
            f"fdb replace {h.mac} dev {p.port_towards(sw.name, h.name).name} master static"
            for h in talkers
        ]
        _batch("bridge", sw.ns, lines)


def wait_link_up(p: Plan, timeout: float = 5.0) -> None:
    """Bridge ports forward only once they are in forwarding state."""
    deadline = time.monotonic() + timeout
    for sw in p.switches:
        while True:
            out = run_in(sw.ns, "bridge", "link", "show")
            states = [ln for ln in out.splitlines() if "master" in ln]
            if states and all("state forwarding" in ln for ln in states):
                break
            if time.monotonic() > deadline:
                raise BedError(f"netns: bridge ports of {sw.ns} not forwarding: {out.strip()}")
            time.sleep(0.05)


# -- teardown and stale cleanup ----------------------------------------------------------------


def foreign(name: str) -> str:
    return (
        f"namespace {name} exists and was not made by lanloss; remove it yourself or "
        "choose another --prefix"
    )


def _inode(name: str) -> int | None:
    try:
        return os.stat(os.path.join(NETNS_DIR, name)).st_ino
    except FileNotFoundError:
        return None


def create_namespace(name: str, journal: Any) -> None:
    """`ip netns add name`, marked and journalled first; a namespace of that name that
    exists already is refused (clear_stale removes a dead run's first)."""
    if os.path.lexists(os.path.join(NETNS_DIR, name)):
        raise BedError(foreign(name))
    runfolder.mark(runfolder.NETNS, name, journal.path, journal.lock_path)
    journal.record("netns", name)
    _run(["ip", "netns", "add", name])
    inode = _inode(name)
    if inode is not None:
        runfolder.set_inode(runfolder.NETNS, name, inode)


def _pids_in(ns: str) -> list[int]:
    try:
        out = _run(["ip", "netns", "pids", ns])
    except BedError:
        return []
    return [int(x) for x in out.split() if x.isdigit()]


def _kill_all(pids: set[int]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 2.0
        while pids and time.monotonic() < deadline:
            pids = {pid for pid in pids if os.path.exists(f"/proc/{pid}")}
            time.sleep(0.02)


def _quiet(text: str) -> None:
    pass


def teardown(names: list[str], say: Callable[[str], None] = _quiet) -> list[str]:
    """Kill what runs in these namespaces of ours and delete them, each only with its
    marker (and the inode it recorded); returns failures. A namespace of such a name that
    is not ours (no marker, another inode: ours is gone) is left alone, and said so."""
    failures, ours = [], []
    for name in names:
        try:
            entry = runfolder.marker(runfolder.NETNS, name)
        except BedError as exc:
            failures.append(str(exc))
            continue
        inode = _inode(name)
        if entry is not None and (inode is None or not runfolder.same_object(entry, inode)):
            runfolder.unmark(runfolder.NETNS, name)  # ours is gone already (or was never made)
            entry = None
        if inode is None:
            continue
        if entry is None:
            say(foreign(name))
            continue
        ours.append(name)
    _kill_all({pid for ns in ours for pid in _pids_in(ns)})
    for ns in ours:
        try:
            _run(["ip", "netns", "del", ns])
            runfolder.unmark(runfolder.NETNS, ns)
        except BedError as exc:
            failures.append(str(exc))
    return failures


def stale(prefix: str) -> list[str]:
    """Marked namespaces named <prefix>... whose creating run is gone (its lock is free):
    what `lanloss bed cleanup` removes without a journal."""
    from lanloss.testbed.journal import lock_free

    return [
        e["name"]
        for e in runfolder.markers(runfolder.NETNS)
        if e["name"].startswith(prefix) and lock_free(e.get("lock", ""))
    ]


def clear_stale(names: list[str]) -> None:
    """Before a build: a namespace the build needs that exists already goes if it is a
    dead run's (marked, its lock free); otherwise the build is refused, named."""
    from lanloss.testbed.journal import lock_free

    for name in names:
        if _inode(name) is None:
            continue
        entry = runfolder.marker(runfolder.NETNS, name)
        if entry is None:
            raise BedError(foreign(name))
        if not lock_free(entry.get("lock", "")):
            raise BedError(
                f"namespace {name} belongs to a lanloss bed run that is still running "
                f"(pid {entry.get('pid')}); wait for it or choose another --prefix"
            )
        failures = teardown([name])
        if failures:
            raise BedError(failures[0])


def lan_shape(plan: Plan) -> dict[str, Any]:
    """What must be equal to reuse a standing LAN: every node (name, namespace, kind,
    address, ports and their peers), every link's ends and the MTU (the veths' and the
    size tables'); rates and buffers are the shapers', changed in place (plan_shapers)."""
    nodes = [
        [n.name, n.ns, n.kind, n.address, [[q.name, q.peer] for q in n.ports]]
        for n in plan.nodes.values()
    ]
    links = [[a, b] for a, b, *_ in plan.links]
    return {"nodes": nodes, "links": links, "mtu": int(plan.params["mtu"])}


def digest(shape: dict[str, Any]) -> str:
    """A short stable name of a LAN's shape (lan_shape, plus what a backend adds)."""
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()[:20]


def plan_shapers(plan: Plan, own_port: Callable[[Node], bool]) -> dict[str, list[str]]:
    """'namespace/interface' -> the tc commands of its shaper (shaper()): every switch
    port, and the hosts' own ports where `own_port(host)` (a guest's is its NIC)."""
    mtu = int(plan.params["mtu"])
    sw_limit, host_limit = int(plan.params["switch_buffer"]), int(plan.params["tx_queue"])
    out = {}
    for sw in plan.switches:
        for q in sw.ports:
            out[f"{sw.ns}/{q.name}"] = [c.format(dev=q.name) for c in shaper(q.rate, sw_limit, mtu)]
    for h in plan.hosts:
        if own_port(h):
            cmds = shaper(h.rate, host_limit, mtu)
            out[f"{h.ns}/{IFACE}"] = [c.format(dev=IFACE) for c in cmds]
    return out


def all_ours(names: list[str]) -> bool:
    """Every namespace named exists and is still the one the harness made (its marker
    and inode): a standing LAN is intact."""
    for name in names:
        inode = _inode(name)
        entry = runfolder.marker(runfolder.NETNS, name)
        if inode is None or entry is None or not runfolder.same_object(entry, inode):
            return False
    return True


def reshape(old: dict[str, list[str]], new: dict[str, list[str]]) -> None:
    """Set the shapers of a standing LAN that differ from what it was built with (the
    network is idle between runs: deleting a root qdisc drops nothing queued)."""
    for where, cmds in new.items():
        if old.get(where) == cmds:
            continue
        ns, dev = where.split("/", 1)
        _batch("tc", ns, [f"qdisc del dev {dev} root", *cmds])


def machine_transport() -> Local:
    return Local(MACHINE, None)


# -- the backend ------------------------------------------------------------------------------


class NetnsBackend(Backend):
    """Hosts are namespaces on this machine; kernel-wide settings live on `machine`."""

    name = "netns"
    changes_this_machine = True
    emulates_here = True
    keeps_lan = True
    serves_snmp = True
    # What veth (this backend's links) cannot set: ethtool -a/-c/-g are not supported.
    cannot = {
        "pause": "veth has no IEEE 802.3x flow control",
        "itr": "veth has no interrupt coalescing",
        "rx_ring": "veth has no RX descriptor ring",
    }

    def __init__(
        self, params: dict[str, Any], prefix: str, run_dir: str, switch_snmp: bool = False
    ) -> None:
        self.params = params
        self.prefix = prefix
        self.run_dir = run_dir
        self.switch_snmp = switch_snmp  # serve each switch's counters with snmpd, read them
        self.agents: dict[str, Any] = {}  # switch name -> snmp_agent.Served
        self.plan = plan(params, prefix)  # pure: bad topologies fail here
        self.machine: Any = None
        self.hosts: dict[str, Any] = {}
        self.switches: list[Any] = []
        self.tool_dirs: dict[str, str] = {}
        self.journal: Any = None  # its "netns" lists the namespaces this run made
        self.standing: dict[str, Any] | None = None  # a LAN an earlier run left (adopt)

    @classmethod
    def check_params(cls, p: dict[str, Any], given: set[str]) -> None:
        for opt, why in cls.cannot.items():
            if opt in given:
                raise OptionError(
                    f"{opt}: {p[opt]!r}: {why}, so the netns backend cannot set it; "
                    "leave it out, or use --backend ssh (real NICs)"
                )
        plan(p, "lanloss-")  # topology errors now, not after the build

    @classmethod
    def check_request(cls, req: Any) -> None:
        if req.inventory:
            raise OptionError(
                "--inventory: the netns backend builds its hosts from the "
                "topology options; an inventory is for --backend ssh"
            )
        if req.senders or req.receivers:
            raise OptionError("--sender/--receiver name inventory hosts (--backend ssh)")
        refuse_guest_options(req, "netns")
        plan(req.params, req.prefix)  # with the run's own names
        cls.validate_machine()
        if req.switch_snmp:
            from lanloss.testbed import snmp_agent

            why = snmp_agent.available()
            if why:
                raise BedError(f"--switch-snmp: {why}")

    @classmethod
    def create(cls, req: Any, run_id: str, run_dir: str) -> NetnsBackend:
        return cls(req.params, req.prefix, run_dir, req.switch_snmp)

    @staticmethod
    def validate_machine() -> None:
        if os.geteuid() != 0:
            raise BedError("the netns backend needs root (network namespaces, tc, cgroups)")
        for tool in ("ip", "tc", "bridge", "nsenter"):
            if not any(
                os.access(os.path.join(d, tool), os.X_OK)
                for d in os.environ.get("PATH", "/usr/sbin:/usr/bin").split(":")
                + ["/usr/sbin", "/sbin"]
            ):
                raise BedError(f"the netns backend needs `{tool}` (iproute2 / util-linux)")

    def setup(self, journal: Any) -> None:
        from lanloss import paths
        from lanloss.testbed.hosts import Host, gather_facts, per_host
        from lanloss.testbed.inventory import HostSpec

        self.journal = journal
        self.machine = Host(
            HostSpec(MACHINE, "machine", "", "", ""),
            machine_transport(),
            self.run_dir,
            self.run_dir,
        )
        if self.standing is None:
            clear_stale(self.plan.namespaces())
            build(self.plan, journal)
            wait_link_up(self.plan)
        else:
            reshape(self.standing.get("shapers", {}), self.shapers())
        tools = str(paths.ctool("lanloss-send").parent)
        for node in self.plan.hosts:
            role = {"sender": "sender", "receiver": "receiver"}.get(node.kind, "both")
            spec = HostSpec(node.name, role, "", node.address, IFACE, netns=node.ns)
            folder = os.path.join(self.run_dir, node.name)
            os.makedirs(folder, exist_ok=True)
            self.hosts[node.name] = Host(
                spec, Local(node.name, node.ns), folder, folder, machine=self.machine
            )
            self.tool_dirs[node.name] = tools
        for sw in self.plan.switches:
            spec = HostSpec(sw.name, "switch", "", "", "", netns=sw.ns)
            self.switches.append(Host(spec, Local(sw.name, sw.ns), self.run_dir, self.run_dir))
        every = [self.machine, *self.hosts.values()]
        per_host(every, gather_facts)
        for h in every:
            journal.record_host(h)
        if self.switch_snmp:
            self.serve_snmp(journal)

    def serve_snmp(self, journal: Any) -> None:
        """snmpd in each switch namespace (journalled by PID), for snmp_readers."""
        from lanloss.testbed import snmp_agent

        for sw in self.switches:
            folder = os.path.join(self.run_dir, f"snmpd-{sw.name}")
            served = snmp_agent.serve(sw.spec.netns, folder, sw.transport)
            journal.record("procs", served.journal_entry())
            self.agents[sw.name] = served

    def snmp_readers(self) -> list[Any]:
        from lanloss.testbed.snmp import SwitchReader

        return [
            SwitchReader(
                sw.name, self.agents[sw.name].agent, self.switch_ports(sw.name), sw.transport
            )
            for sw in self.switches
            if sw.name in self.agents
        ]

    def close(self, lan_stays: bool = False) -> None:
        """Stop the switches' SNMP agents (each run starts its own), then the hosts'."""
        for name, served in list(self.agents.items()):
            served.stop()
            if self.journal is not None:
                self.journal.forget("procs", served.journal_entry())
            del self.agents[name]
        super().close(lan_stays)

    def flows(self) -> list[tuple[str, str, int | None]]:
        return self.plan.flows

    # -- a LAN that stands between runs: the namespaces, veths, bridges, static ARP and
    # forwarding are kept; the shapers (rates, buffers) are set anew where they differ.

    def lan(self) -> dict[str, Any]:
        return {"backend": self.name, "key": self.lan_key(), "shapers": self.shapers()}

    def lan_key(self) -> str:
        return digest(lan_shape(self.plan))

    def shapers(self) -> dict[str, list[str]]:
        return plan_shapers(self.plan, lambda host: True)

    def can_adopt(self, lan: dict[str, Any]) -> bool:
        if lan.get("backend") != self.name or lan.get("key") != self.lan_key():
            return False
        return all_ours(self.plan.namespaces())

    def adopt(self, lan: dict[str, Any]) -> None:
        self.standing = lan

    def pinning(self, senders: list[Any], receivers: list[Any]) -> dict[str, list[str]]:
        """Senders on CPU 0, receivers on the others: they do not compete for a CPU."""
        n = os.cpu_count() or 1
        if n < 2:
            return {}
        rx_cpus = ",".join(str(c) for c in range(1, n))
        out = {h.name: ["taskset", "-c", "0"] for h in senders}
        out.update({h.name: ["taskset", "-c", rx_cpus] for h in receivers})
        return out

    def machine_changes(self, captured: dict[str, Any]) -> list[Any]:
        """Machine-wide settings the emulation needs: HTB's hysteresis for the shapers."""
        from lanloss.testbed.settings import param_change

        change = param_change(
            self.machine, captured[MACHINE], "sch_htb.htb_hysteresis", 1, "netns shaper rounds"
        )
        return [change] if change.before != change.want else []

    def switch_ports(self, name: str) -> list[str]:
        return [p.name for p in self.plan.nodes[name].ports]

    def network_idle(self) -> bool:
        """No bytes queued in any shaper (switch ports and hosts' own ports)."""
        return shapers_idle(self.plan.namespaces())

    def flow_ports(self, src: str, dst: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        return flow_ports(self.plan, src, dst)

    def describe(self) -> dict[str, Any]:
        mtu = int(self.params["mtu"])
        sw_limit, host_limit = int(self.params["switch_buffer"]), int(self.params["tx_queue"])
        return {
            "prefix": self.prefix,
            "namespaces": self.plan.namespaces(),
            "switches": {
                sw.name: {
                    p.name: {
                        **port_description(p),
                        "tc": "; ".join(shaper(p.rate, sw_limit, mtu)),
                    }
                    for p in sw.ports
                }
                for sw in self.plan.switches
            },
            "hosts": {
                h.name: {**host_description(h), "tc": "; ".join(shaper(h.rate, host_limit, mtu))}
                for h in self.plan.hosts
            },
            "bridge": {
                "bridge-nf-call-iptables": 1,
                "mcast_snooping": 0,
                "fdb": "static",
                "arp": "static",
            },
            "not_emulated": self.plan.unsupported,
        }

    def teardown(self) -> list[str]:
        """The namespaces this run made (none of anyone else's, even of the same name)."""
        return teardown(list(self.journal.data["netns"])) if self.journal else []


def shapers_idle(namespaces) -> bool:
    """No bytes queued in any qdisc of these namespaces (netns and vm backends)."""
    from lanloss.testbed.counters import parse_tc_json

    for ns in namespaces:
        out = _run(["tc", "-n", ns, "-s", "-j", "qdisc", "show"])
        if any(q["backlog"] for q in parse_tc_json(out).values()):
            return False
    return True


def flow_ports(plan, src: str, dst: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(ingress ports, egress ports) of the switches on the path src -> dst of a plan."""
    egress = plan.path_ports(src, dst)
    ingress = []
    prev = src
    for sw, _port in egress:
        ingress.append((sw, plan.port_towards(sw, prev).name))
        prev = sw
    return ingress, egress


def add_veth(a: str, ns_a: str, b: str, ns_b: str) -> None:
    """A veth pair, end `a` in namespace ns_a and end `b` in ns_b (netns and vm backends)."""
    _run(["ip", "link", "add", a, "netns", ns_a, "type", "veth", "peer", "name", b, "netns", ns_b])
