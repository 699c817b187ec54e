# SPDX-License-Identifier: GPL-2.0-only
"""The network part of the loss model: links, flows, and what each flow loses before a host.

Fluid model of one run configuration (docs/physics.md §4, §5, §7). The LAN is the one the
simulator builds (models/helper/lan-spec.cc: star, two-tier, two-site, or a topology file):
a tree of full-duplex links. A unicast flow follows the tree path; a multicast stream is
flooded along every link away from its sender (no IGMP snooping), so a port carries every
group's traffic and a sender's link carries each stream once.

Every directed link has a capacity in wire bits (closed form, lanloss.analysis.wire: the
datagram's frames with preamble, padding, FCS and IFG) and an egress buffer: ``tx_queue``
when it leaves a host, ``switch_buffer`` when it leaves a switch. Per link, in series along
each path (a stream thinned by one link offers less to the next; solved to a fixed point):

* capacity (``wire``): a link offered more than it carries drops the excess, after its
  buffer has filled: over a run of T seconds lost = max(0, (load - C) T - B);
* queueing (``switch``): Poisson traffic (pattern poisson) queues below capacity: M/D/1/K
  with K the buffer in datagrams; CBR does not;
* bursts (``switch``): n back-to-back frames arriving at R_in for an egress of R_out < R_in
  build a queue of burst (1 - R_out/R_in); what does not fit in the buffer is lost, and a
  datagram that loses one fragment is lost (docs/physics.md §4, bursts).

With ``pause on`` (802.3x) a switch egress that cannot keep up pauses the links feeding it,
so nothing is dropped in the switch: every sender whose traffic crosses it is slowed by the
same factor (head-of-line blocking: a slow multicast member slows the whole group), and the
excess is dropped in the sender's own transmit queue (``blocking off``) or not sent at all
(``blocking on``, ``rate max``).
"""

from __future__ import annotations

import functools
import math
import os
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from lanloss import paths
from lanloss.analysis import mdk
from lanloss.analysis.wire import MIN_MAC_PAYLOAD, fragment_sizes, wire

ETH_HEADER_FCS = 18  # MAC header + FCS: a buffer holds the frame from header to FCS


def buffered_bytes(payload: int, mtu: int) -> int:
    """Bytes one datagram occupies in a switch or NIC queue (its frames, padded, no IFG)."""
    return sum(max(MIN_MAC_PAYLOAD, ip) + ETH_HEADER_FCS for ip in fragment_sizes(payload, mtu))


class ModelError(ValueError):
    """A configuration the model cannot describe (the message names it)."""


@dataclass
class Lan:
    roles: dict[str, str]  # node -> switch | sender | receiver | host
    links: dict[tuple[str, str], float]  # directed (a, b) -> bit/s
    flows: list[tuple[str, str, float | None]]  # (sender, receiver, rate bit/s or None)


@dataclass
class FlowResult:
    sender: str
    receiver: str
    lam: float  # datagrams/s the sender sends (offered, less what blocking holds back)
    delivered: float  # of those, datagrams/s reaching the receiving host (eventually)
    loss_wire: float  # capacity losses (sender queue, links)
    loss_switch: float  # queueing and burst losses below capacity
    capacity: float  # this flow's datagram rate at which its path fills (others scaled alike)
    bottleneck: str  # the link that fills first, "a->b"
    throughput: float = 0.0  # datagrams/s arriving during the run (links pass <= capacity)
    host_load: float = 1.0  # datagrams/s reaching this receiver from all flows / this flow's
    drop_point: str = "switch_egress"  # where the capacity loss is counted


def _load_topology(path: str, delay: float) -> dict[str, Any]:
    """A topology file, parsed once per version of the file: the planner and the fit
    build the LAN hundreds of times, and a campus file of 300 hosts takes 0.7 s to parse."""
    st = os.stat(paths.data_file(path))
    return _load_topology_cached(path, st.st_mtime_ns, st.st_size, delay)


@functools.lru_cache(maxsize=16)
def _load_topology_cached(path: str, mtime_ns: int, size: int, delay: float) -> dict[str, Any]:
    from lanloss import topology

    return topology.load(path, delay)


def is_missing(value: Any) -> bool:
    """A table cell that holds no value: None, NaN or pandas' NA."""
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def with_defaults(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters as a resolved run carries them: every vocabulary option that is
    missing (absent, None, NaN) at its default (lanloss.options), sender_rate at edge_rate
    (the vocabulary's rule). Table rows and what-ifs name only some options."""
    from lanloss.options import OPTIONS

    out = dict(params)
    for opt in OPTIONS:
        if is_missing(out.get(opt.name)):
            out[opt.name] = opt.default
    if out["sender_rate"] is None:
        out["sender_rate"] = out["edge_rate"]
    return out


def build_lan(params: dict[str, Any]) -> Lan:
    """The simulator's LAN for these parameters (lanloss.topology, as both sides build it)."""
    from lanloss import topology

    p = with_defaults(params)
    topo = str(p["topology"])
    try:
        if topo not in topology.NAMED:  # a file: parsed once (the fit and planner ask often)
            t = _load_topology(topo, float(p["link_delay"]))
        else:
            t = topology.of_params(p)
    except Exception as exc:  # a table read elsewhere may name a file not here
        raise ModelError(f"topology {topo!r}: {exc}") from None
    roles = {s: "switch" for s in t["switches"]}
    roles.update(t["hosts"])
    undirected = [(a, b, float(r)) for a, b, r, _ in t["links"]]
    flows = [(a, b, None if r is None else float(r)) for a, b, r in t["flows"]]
    return Lan(roles, _directed(undirected), flows or topology.default_flows(t["hosts"]))


def _directed(undirected: list[tuple[str, str, float]]) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for a, b, r in undirected:
        out[(a, b)] = r
        out[(b, a)] = r
    return out


def _tree_from(src: str, links: dict[tuple[str, str], float]) -> dict[str, str | None]:
    """BFS parents from src over the (tree) LAN."""
    adj: dict[str, list[str]] = {}
    for a, b in links:
        adj.setdefault(a, []).append(b)
    parent: dict[str, str | None] = {src: None}
    q = deque([src])
    while q:
        u = q.popleft()
        for v in adj.get(u, []):
            if v not in parent:
                parent[v] = u
                q.append(v)
    return parent


def _path(parent: dict[str, str | None], dst: str) -> list[tuple[str, str]]:
    if dst not in parent:
        raise ModelError(f"no path to {dst!r}")
    edges = []
    v = dst
    while parent[v] is not None:
        u = parent[v]
        edges.append((u, v))
        v = u
    return edges[::-1]


@dataclass
class _Stream:
    sender: str
    lam: float  # datagrams/s offered
    edges: list[tuple[str, str]]  # in order from the sender (tree order for multicast)
    upstream: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    members: list[str] = field(default_factory=list)  # receivers


def _link_loss(rate: float, cap: float, buf: float, offered: float, queues: bool) -> tuple:
    """(capacity loss, queueing loss) of one link offered `offered` datagrams (mdk.run_loss)."""
    rho = rate / cap
    if not queues:  # deterministic arrivals: mdk.run_loss's fluid part, in plain floats
        if rho <= 1:
            return 0.0, 0.0
        over = 1 - 1 / rho
        fill = buf / (offered * over) if math.isfinite(offered) else 0.0
        return over * max(0.0, 1 - fill), 0.0
    total, fluid = mdk.run_loss(rho, buf, offered, buf)
    fluid, total = float(fluid), float(total)
    return fluid, (total - fluid) / (1 - fluid) if fluid < 1 else 0.0


@dataclass(frozen=True)
class _Settings:
    """The run-wide values solve reads from the parameters."""

    payload: int
    wire_bytes: float  # one datagram on the wire (lanloss.analysis.wire)
    held: int  # bytes one datagram occupies in a queue (buffered_bytes)
    T: float  # the run's length (math.inf: long-run)
    multicast: bool
    pause: bool
    blocking: bool
    rate_max: bool
    rate: Any  # the rate option (bit/s), when not rate max
    poisson: bool
    burst_n: int  # datagrams per burst (pattern burst:N), else 1
    switch_buffer: float
    tx_queue: float

    @property
    def sender_waits(self) -> bool:
        """A sender whose own queue is full waits (blocking on, rate max) instead of dropping."""
        return self.blocking or self.rate_max


def _settings(params: dict[str, Any], duration: float | None) -> _Settings:
    P, mtu = int(params["payload"]), int(params["mtu"])
    rate = params["rate"]
    pattern = str(params["pattern"])
    return _Settings(
        payload=P,
        wire_bytes=float(wire(P, mtu).wire_bytes),
        held=buffered_bytes(P, mtu),
        T=float(params["duration"]) if duration is None else float(duration),
        multicast=str(params["cast"]) == "multicast",
        pause=str(params["pause"]) == "on",
        blocking=str(params["blocking"]) == "on",
        rate_max=rate == "max",
        rate=rate,
        poisson=pattern == "poisson",
        burst_n=int(pattern.split(":")[1]) if pattern.startswith("burst:") else 1,
        switch_buffer=float(params["switch_buffer"]),
        tx_queue=float(params["tx_queue"]),
    )


@dataclass
class _Streams:
    """What the senders send: one stream per unicast flow, or per multicast sender."""

    streams: list[_Stream]
    of_flow: dict[tuple[str, str], int]  # (sender, receiver) -> index in streams
    trees: dict[str, dict[str, str | None]]  # sender -> BFS parents over the LAN


def _streams(lan: Lan, run: _Settings, lam_of: dict[tuple[str, str], float]) -> _Streams:
    out = _Streams([], {}, {})

    def offered(src: str, dst: str, rate: float | None) -> float:
        if (src, dst) in lam_of:
            return float(lam_of[(src, dst)])
        r = rate if rate is not None else (None if run.rate_max else float(run.rate))
        if r is None:  # rate max without a measurement: what the sender's link carries
            return lan.links[(src, next(b for a, b in lan.links if a == src))] / (
                8 * run.wire_bytes
            )
        return r / (8 * run.payload)

    if run.multicast:
        for src in dict.fromkeys(s for s, _, _ in lan.flows):
            parent = out.trees.setdefault(src, _tree_from(src, lan.links))
            members = [d for s, d, _ in lan.flows if s == src]
            edges = [(u, v) for v, u in parent.items() if u is not None]
            order = {n: i for i, n in enumerate(parent)}
            edges.sort(key=lambda e: order[e[1]])
            st = _Stream(src, offered(src, members[0], None), edges, members=members)
            for e in edges:
                st.upstream[e] = _path(parent, e[0])
            for d in members:
                out.of_flow[(src, d)] = len(out.streams)
            out.streams.append(st)
    else:
        for src, dst, rate in lan.flows:
            parent = out.trees.setdefault(src, _tree_from(src, lan.links))
            edges = _path(parent, dst)
            st = _Stream(src, offered(src, dst, rate), edges, members=[dst])
            for k, e in enumerate(edges):
                st.upstream[e] = edges[:k]
            out.of_flow[(src, dst)] = len(out.streams)
            out.streams.append(st)
    return out


@dataclass
class _Links:
    """Per directed link: what it carries and holds, in datagrams."""

    rate: dict[tuple[str, str], float]  # bit/s
    cap: dict[tuple[str, str], float]  # datagrams/s
    buf: dict[tuple[str, str], float]  # egress buffer in datagrams (+1: the one in flight)
    is_host: dict[tuple[str, str], bool]  # leaves a host (its transmit queue)
    feeds_faster: dict[tuple[str, str], bool]  # fed by a faster link on some stream's path
    offered_load: dict[tuple[str, str], float]  # datagrams/s if nothing were lost anywhere


def _links(lan: Lan, run: _Settings, streams: list[_Stream]) -> _Links:
    def egress_buffer(a: str) -> float:
        bytes_ = run.switch_buffer if lan.roles.get(a) == "switch" else run.tx_queue
        return bytes_ / run.held + 1

    # where traffic queues: a stream's first link, and links slower than the one feeding them
    feeds_faster = dict.fromkeys(lan.links, False)
    offered_load = dict.fromkeys(lan.links, 0.0)
    for st in streams:
        for e in st.edges:
            up = st.upstream[e]
            if up and lan.links[up[-1]] > lan.links[e]:
                feeds_faster[e] = True
            offered_load[e] += st.lam
    return _Links(
        rate=lan.links,
        cap={e: r / (8 * run.wire_bytes) for e, r in lan.links.items()},
        buf={e: egress_buffer(e[0]) for e in lan.links},
        is_host={e: lan.roles.get(e[0]) != "switch" for e in lan.links},
        feeds_faster=feeds_faster,
        offered_load=offered_load,
    )


@dataclass
class _State:
    """The fixed point: per sender its slow-down, per link what passes and what is lost."""

    throttle: dict[str, float]  # sender -> fraction of its rate it sends (pause, own queue)
    slowed_own: dict[str, bool]  # slowed by its own link (not a paused switch)
    thru: dict[tuple[str, str], float]  # fraction a link passes during the run
    loss: dict[tuple[str, str], float]  # fraction a link loses (capacity and queueing)
    qloss: dict[tuple[str, str], float]  # of which queueing below capacity


def _arrivals(streams: list[_Stream], links: _Links, run: _Settings, s: _State) -> tuple:
    """Per link: datagrams/s arriving during the run, and datagrams/s counted (eventually)."""
    rate = dict.fromkeys(links.rate, 0.0)
    count = dict.fromkeys(links.rate, 0.0)
    for st in streams:
        r0 = st.lam * s.throttle[st.sender]
        n0 = st.lam * (s.throttle[st.sender] if run.sender_waits else 1.0)
        for e in st.edges:
            r, n = r0, n0
            for u in st.upstream[e]:
                r *= s.thru[u]
                n *= 1 - s.loss[u]
            rate[e] += r
            count[e] += n
    return rate, count


def _fixed_point(streams: list[_Stream], links: _Links, run: _Settings) -> _State:
    """Rates propagate through throughput fractions (a link passes at most its capacity
    during the run; its buffer drains later), counts through loss fractions; senders are
    slowed by pause (whole ingress link) or their own full queue."""
    senders = sorted({st.sender for st in streams})
    s = _State(
        throttle=dict.fromkeys(senders, 1.0),
        slowed_own=dict.fromkeys(senders, False),
        thru=dict.fromkeys(links.rate, 1.0),
        loss=dict.fromkeys(links.rate, 0.0),
        qloss=dict.fromkeys(links.rate, 0.0),
    )
    finite = math.isfinite(run.T)
    for _ in range(500):
        rate, count = _arrivals(streams, links, run, s)
        changed = 0.0
        for e in links.rate:
            host = links.is_host[e]
            lossless = (host and run.sender_waits) or (not host and run.pause)
            new_loss = new_q = 0.0
            new_thru = 1.0
            if lossless:
                if rate[e] > links.cap[e] * (1 + 1e-12):
                    f = links.cap[e] / rate[e]  # slow every sender whose traffic crosses it
                    for st in streams:
                        if e in st.upstream:
                            s.throttle[st.sender] *= f
                            s.slowed_own[st.sender] |= host
                    changed = max(changed, 1 - f)
            elif rate[e] > 0:
                offered_n = count[e] * run.T if finite else math.inf
                queues = run.poisson and (host or links.feeds_faster[e])
                fl, q = _link_loss(rate[e], links.cap[e], links.buf[e], offered_n, queues)
                new_loss, new_q = 1 - (1 - fl) * (1 - q), q
                new_thru = min(1.0, links.cap[e] / rate[e]) * (1 - q)
            changed = max(
                changed,
                abs(new_loss - s.loss[e]),
                abs(new_thru - s.thru[e]),
                abs(new_q - s.qloss[e]),
            )
            s.loss[e], s.thru[e], s.qloss[e] = new_loss, new_thru, new_q
        if changed < 1e-12:
            break
    return s


def _flow_result(
    src: str,
    dst: str,
    st: _Stream,
    path: list[tuple[str, str]],
    links: _Links,
    run: _Settings,
    s: _State,
) -> FlowResult:
    """One flow's rates and losses along its path, from the solved links."""
    keep_fluid, keep_queue, keep_burst = 1.0, 1.0, 1.0
    passing = s.throttle[src]
    for e in path:
        passing *= s.thru[e]
    worst = (0.0, "switch_egress")
    prev_rate = links.rate[path[0]]
    for e in path:
        fl = 1 - (1 - s.loss[e]) / (1 - s.qloss[e]) if s.qloss[e] < 1 else 0.0
        keep_fluid *= 1 - fl
        keep_queue *= 1 - s.qloss[e]
        if s.loss[e] > worst[0]:
            worst = (s.loss[e], "sender_queue" if links.is_host[e] else "switch_egress")
        r_out = links.rate[e]
        if not links.is_host[e] and r_out < prev_rate:
            grow = run.burst_n * run.held * (1 - r_out / prev_rate)  # bytes one burst queues
            excess = grow - (links.buf[e] - 1) * run.held
            if excess > 0:
                lost = min(run.burst_n, math.ceil(excess / run.held))
                keep_burst *= 1 - lost / run.burst_n
        prev_rate = r_out
    # a sender slowed by PAUSE drops the excess in its own queue (blocking off)
    thr = s.throttle[src]
    sender_loss = 0.0
    if thr < 1 and not run.sender_waits:
        room = links.buf[path[0]]
        if run.pause and not s.slowed_own[src]:  # the paused switch holds its share first
            room += sum(links.buf[e] for e in path[1:])
        if math.isfinite(run.T):
            sender_loss = max(0.0, (1 - thr) * st.lam * run.T - room) / (st.lam * run.T)
        else:
            sender_loss = 1 - thr
        if sender_loss > worst[0]:
            worst = (sender_loss, "sender_queue")
    sent = st.lam * (thr if run.sender_waits else 1.0)
    util = {e: links.offered_load[e] / links.cap[e] for e in path}
    b_edge = max(path, key=lambda e: util[e])
    return FlowResult(
        sender=src,
        receiver=dst,
        lam=sent,
        delivered=sent * (1 - sender_loss) * keep_fluid * keep_queue * keep_burst,
        loss_wire=1 - (1 - sender_loss) * keep_fluid,
        loss_switch=1 - keep_queue * keep_burst,
        capacity=st.lam / util[b_edge] if util[b_edge] > 0 else math.inf,
        throughput=st.lam * passing * keep_burst,
        bottleneck=f"{b_edge[0]}->{b_edge[1]}",
        drop_point=worst[1],
    )


def solve(
    params: dict[str, Any],
    lam_of: dict[tuple[str, str], float] | None = None,
    duration: float | None = None,
) -> dict[tuple[str, str], FlowResult]:
    """Per (sender, receiver): offered and delivered datagram rates and what was lost where.

    lam_of overrides the offered datagram rate of flows (rate max: what the run sent).
    duration: the run's T (None = params duration; math.inf = long-run).
    """
    p = with_defaults(params)
    lan = build_lan(p)
    run = _settings(p, duration)
    flows = _streams(lan, run, lam_of or {})
    links = _links(lan, run, flows.streams)
    state = _fixed_point(flows.streams, links, run)
    out = {
        (src, dst): _flow_result(
            src, dst, flows.streams[k], _path(flows.trees[src], dst), links, run, state
        )
        for (src, dst), k in flows.of_flow.items()
    }
    per_receiver: dict[str, float] = {}
    for r in out.values():
        per_receiver[r.receiver] = per_receiver.get(r.receiver, 0.0) + r.delivered
    for r in out.values():
        r.host_load = per_receiver[r.receiver] / r.delivered if r.delivered > 0 else 1.0
    return out
