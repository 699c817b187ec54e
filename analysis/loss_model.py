# SPDX-License-Identifier: GPL-2.0-only
"""The combined loss-versus-rate model: a UDP flow through wire, switch and receiving host.

A physical model (docs/physics.md §1-§5), not a free curve. Per flow, in series
(lambda_(i+1) = lambda_i (1 - L_i); L = 1 - prod(1 - L_i), docs/physics.md §5):

1. **network** (``lanloss.analysis.network``): wire capacity from the closed form on every
   link of the path, multicast flooding, switch buffers (speed-mismatch bursts, Poisson
   queueing), PAUSE moving the loss to the sender; no free parameters.
2. **frame loss**: a datagram of n_f fragments survives a frame loss p with (1-p)^n_f.
3. **host kernel** (costs c_i per interrupt, c_d per frame): interrupts n_int = frames
   (``itr`` 0) or min(frames, itr); U_k = n_int c_i + phi c_d on the kernel's core.
   U_k >= 1: the softirq never finishes; NAPI polls with interrupts masked and the work
   moves to ksoftirqd, which shares the core with the reader by time slices (max-min fair);
   the frames it cannot take are dropped at the ring. With ``itr`` > 0 the frames of one
   interrupt interval, phi/itr, must fit in the RX ring (rx_ring - 1) and FIFO.
4. **application and socket buffer**: readers take datagrams at mu_a = (1 - U_k)/c_a on the
   kernel's core (one core: receive livelock, slope -(c_i + c_d)/c_a past the knee), or
   min(readers, cores - 1)/c_a on their own cores. The socket holds K = floor(sk_rcvbuf /
   truesize) + 1 datagrams (net/ipv4/udp.c __udp_enqueue_schedule_skb; truesize: the e1000
   copybreak rule of host-model.rst for the preset's kernel, Preset.skb, summed over
   fragments). Loss: M/D/1/K below the knee
   (Poisson arrivals; CBR into the simulator: none), fluid above, over a run of finite
   length (``mdk.run_loss``); datagrams arriving in batches of b per interrupt need K > b;
   stalls of T_off every period lose max(0, lambda T_off - K) each (docs/physics.md §4);
   a preset's collector (Preset.collector) is a stall of its pause each time the reader
   has read its bytes, so its period is bytes / (datagrams read per second x payload).

Stage losses are reported by bottleneck: ``wire`` (link capacity, sender queue), ``switch``
(buffering below capacity), ``interrupts`` (livelock or ring overflow where interrupt work
dominates the CPU), ``cpu`` (livelock otherwise), ``socket_buffer`` (queueing below the
knee, batches, stalls).

Host costs: a simulator run carries its host's values in its parameters (times the fit's
``theta_sim`` scales, which test how well this mean-value model matches the simulator);
testbed runs use ``theta_host``, fitted. The testbed (netns) has its kernel work on another
CPU than the reader (veth: the sender's), so its host has two cores. On both sources
``recv_cpu`` caps the readers' CPU share (a CFS quota; queueing at the period's scale,
docs/physics.md §2) and ``recv_work`` adds to c_a. Under a quota a receive call's cost
(``read_call_cost``; the testbed's: its base preset's, 0 for netns, not fitted) counts too: a
reader caught up pays one per datagram, one draining a period's backlog almost none
(``quota_rate``).

Validated against the simulator (tests/analysis/test_model_vs_sim.py, test_loss_model.py):
host-model.rst's livelock table to 0.1 %, its stall runs, PAUSE moving the loss, fragment
loss, the wire's closed forms. Not modelled: RPS (``rps on``), the backlog (only used with
RPS), a switch's shared pool, TCP; flows competing for one link share its loss in
proportion to their load (CBR sources in the simulator can split it unevenly by phase, the
total is right); the NAPI/ksoftirqd switch at U_k = 1 is a jump, not a curve.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from lanloss import header_constants
from lanloss.analysis import mdk, network
from lanloss.analysis.rx_truesize import (  # noqa: F401 - the model's names for them
    COPYBREAK,
    RMEM_DEFAULT,
    RX_BUFFER_TRUESIZE,
    SOCK_MIN_RCVBUF,
    datagram_truesize,
    frame_truesize,
    sk_rcvbuf,
    socket_capacity,
)
from lanloss.analysis.wire import fragment_sizes, wire

MODEL = "lanloss.loss"
MODEL_VERSION = 1
BED_CORES = 2  # netns: reader(s) on their own CPU, kernel work on the sender's
# The simulator's preset for the testbed's host: the fit's priors and host file start from
# it, and testbed rows take its cost per receive call
BED_HOST = "netns"
QUOTA_PERIOD = 0.1  # s: the CFS period of a recv_cpu quota (testbed cpulimit, simulator)
STAGES = ("wire", "switch", "interrupts", "cpu", "socket_buffer")


def presets() -> dict[str, dict[str, Any]]:
    """The simulator's host presets (lanloss/host_presets.py), copied: the model's priors."""
    from lanloss.host_values import PRESETS

    return {k: dict(v) for k, v in PRESETS.items()}


def _skb(host: str) -> str:
    """The kernel whose truesizes a simulated host is charged (Preset.skb; 2.6 for ideal)."""
    from lanloss.host_presets import TABLE

    return TABLE[host].skb if host in TABLE else "2.6"


def _collector(host: str) -> tuple[float, float]:
    """A simulated host's collector (Preset.collector): bytes read between its pauses, and
    each pause in seconds; (0, 0) for a program without one (and the ideal host)."""
    from lanloss.host_presets import TABLE

    c = TABLE[host].collector if host in TABLE else None
    return (float(c.every), c.pause) if c else (0.0, 0.0)


def least_truesize(payload: int, mtu: int) -> float:
    """The smallest truesize a frame of this datagram can be charged, per frame: its bytes
    from the MAC header plus the driver's headroom (NET_SKB_PAD), cache-aligned, plus the
    sk_buff and skb_shared_info (SKB_TRUESIZE; lanloss-linux-rx.h): the copy of a frame
    into a buffer of its own size, which no allocation undercuts."""
    frames = [max(60, ip + 14) for ip in fragment_sizes(payload, mtu)]
    return sum(header_constants.copybreak_truesize(f) for f in frames) / len(frames)


def largest_truesize() -> float:
    """The largest truesize one frame of at most a 2 KiB receive buffer's size can be
    charged: its head in a page-sized allocation (two such buffers), plus the sk_buff."""
    return float(2 * RX_BUFFER_TRUESIZE - header_constants.SKB_HEAD)


# ----------------------------------------------------------------------------------------
# Parameters


@dataclass(frozen=True)
class Param:
    name: str
    source: str  # "bed" (theta_host), "sim" (theta_sim) or "both" (shared)
    prior: float
    lower: float
    upper: float
    log: bool  # fitted as log(value)
    unit: str
    help: str
    # lower and upper are physical limits (the estimate may sit there), not the edges of
    # the search
    physical_bounds: bool = False


def parameters(prior_host: dict[str, Any] | None = None) -> tuple[Param, ...]:
    """The model's free parameters; testbed host priors from a preset (default: modern).

    Listed from the least to the most certain prior (a host's CPU costs, then the kernel's
    arithmetic; the simulator's interrupt scale before its per-frame one): where the data fix
    only a combination, the fit keeps the first free and fixes the later at its prior."""
    h = prior_host or presets()["modern"]
    table = [
        # name, source, prior, lower, upper, unit, meaning
        ("irq_cost", "bed", h["irq_cost"], 1e-9, 1e-3, "s", "testbed CPU per interrupt (c_i)"),
        ("packet_cost", "bed", h["packet_cost"], 1e-9, 1e-3, "s", "testbed kernel CPU per frame"),
        ("read_cost", "bed", h["read_cost"], 1e-9, 1e-2, "s", "testbed CPU per datagram read"),
        ("truesize", "bed", RX_BUFFER_TRUESIZE, 256, 65536, "B", "testbed skb truesize per frame"),
        ("arrival_scv", "bed", 1.0, 1e-3, 100.0, "", "testbed arrival variability (1: Poisson)"),
        ("sim_irq_scale", "sim", 1.0, 0.02, 50.0, "", "simulator's effective / configured c_i"),
        ("sim_packet_scale", "sim", 1.0, 0.02, 50.0, "", "simulator's effective / configured c_d"),
        ("sim_read_scale", "sim", 1.0, 0.02, 50.0, "", "simulator's effective / configured c_a"),
    ]
    # a preset's 0 (netns: no interrupts) is the bottom of a log-scale parameter
    return tuple(
        Param(n, src, max(float(pr), float(lo)), float(lo), float(hi), True, u, text)
        for n, src, pr, lo, hi, u, text in table
    )


def default_theta(params: tuple[Param, ...] | None = None) -> dict[str, float]:
    return {p.name: p.prior for p in (params or parameters())}


# ----------------------------------------------------------------------------------------
# Preparing rows: everything that does not depend on the parameters, computed once


@dataclass
class Prepared:
    n: int
    bed: np.ndarray  # bool
    host_on: np.ndarray  # bool: a CPU host (testbed, or a simulator preset)
    sent: np.ndarray  # datagrams sent (N)
    lost: np.ndarray  # datagrams lost (k)
    lam: np.ndarray  # datagrams/s sent by this flow
    T: np.ndarray
    payload: np.ndarray
    n_f: np.ndarray
    net_keep: np.ndarray  # fraction delivered by the network
    net_thru: np.ndarray  # fraction arriving during the run (the rest drains after it)
    loss_wire: np.ndarray
    loss_switch: np.ndarray
    capacity: np.ndarray  # flow's path capacity (datagrams/s)
    host_mult: np.ndarray  # host's total arrivals / this flow's
    p_frame: np.ndarray
    cores: np.ndarray
    readers: np.ndarray
    handoff: np.ndarray  # readers sharing one socket: CPU per lock handoff; NaN: a socket each
    itr: np.ndarray  # 0 = an interrupt per frame
    ring_cap: np.ndarray  # frames the ring and FIFO hold (inf: no ring term)
    sk_rcvbuf: np.ndarray
    ts_rule: np.ndarray  # datagram truesize by the rule (or the preset's fixed value)
    stall_period: np.ndarray
    stall_length: np.ndarray
    collect_every: np.ndarray  # a collected reader: bytes read between its pauses (0: none)
    collect_pause: np.ndarray
    share: np.ndarray  # CPU share cap of the readers (testbed recv_cpu), inf = none
    work: np.ndarray  # extra seconds per read (recv_work)
    c_i0: np.ndarray  # simulator's configured costs (NaN for the testbed)
    c_d0: np.ndarray
    c_a0: np.ndarray
    c_call: np.ndarray  # CPU per receive call (read_call_cost; testbed: BED_HOST's)
    poisson: np.ndarray  # bool
    burst: np.ndarray  # datagrams per burst (pattern burst:N), else 1
    drop_point: list[str] = field(default_factory=list)
    bottleneck_link: list[str] = field(default_factory=list)
    run: np.ndarray | None = None  # run id per row (bootstrap unit)
    goodput: np.ndarray | None = None  # measured goodput bit/s
    rate_bps: np.ndarray | None = None  # offered payload bit/s of the flow
    point: np.ndarray | None = None  # point id per row: repetitions of a flow share one
    # run-to-run over-dispersion of the row's loss (beta-binomial intra-run correlation;
    # 0: binomial), set by the fit from the repetitions (lanloss.analysis.fit.noise)
    rho: np.ndarray | None = None


def _f(v: Any, default: float = math.nan) -> float:
    if v is None:
        return default
    try:
        x = float(v)
    except (TypeError, ValueError):
        return default
    return default if math.isnan(x) else x


def _hashable(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return str(v)


def row_params(row: Any) -> dict[str, Any]:
    """A table row (mapping or Series) -> canonical vocabulary parameters."""
    from lanloss import options as vocab

    get = row.get
    p: dict[str, Any] = {}
    for opt in vocab.OPTIONS:
        v = get(opt.name)
        p[opt.name] = None if network.is_missing(v) else v
    for k in ("senders", "receivers", "payload", "mtu", "edge_switches"):
        if p.get(k) is not None:
            p[k] = int(p[k])
    if bool(get("rate_max", False)):
        p["rate"] = "max"
    for k in ("cast", "pause", "blocking", "pattern", "topology", "host"):
        if p.get(k) is not None:
            p[k] = str(p[k])
    if p.get("sender_rate") is None:
        p["sender_rate"] = p.get("edge_rate")
    return p


_NET_KEYS = (
    "topology",
    "edge_rate",
    "backbone_rate",
    "sender_rate",
    "edge_switches",
    "senders",
    "receivers",
    "cast",
    "payload",
    "rate",
    "pattern",
    "duration",
    "mtu",
    "pause",
    "switch_buffer",
    "tx_queue",
    "blocking",
)


def _configuration(
    row: dict[str, Any],
    lam_of: dict | None,
    duration: float | None,
    host_presets: dict[str, dict[str, Any]],
    net_cache: dict[tuple, dict],
) -> tuple[dict, dict[str, float]]:
    """One configuration's network solution and host values (shared by its flows' rows)."""
    p = network.with_defaults(row_params(row))
    if duration is not None:
        p["duration"] = duration
    key = tuple(str(p.get(k)) for k in _NET_KEYS) + (
        tuple(sorted(lam_of.items())) if lam_of else (),
    )
    if key not in net_cache:
        net_cache[key] = network.solve(p, lam_of)
    source = str(row.get("source") or "sim")
    host = str(p["host"])
    bed = source == "bed"
    P, mtu = int(p["payload"]), int(p["mtu"])
    w = wire(P, mtu)
    pat = str(p["pattern"])
    preset = host_presets.get(host, {})

    def hv(k: str, default: float = math.nan) -> float:
        """A host value: the row's (resolved) option, else its preset's."""
        v = _f(row.get(k))
        return v if not math.isnan(v) else _f(preset.get(k), default)

    if bed:
        cores = float(BED_CORES)
        itr = _f(row.get("itr"), 0.0)
        ring = math.inf  # veth: no ring or FIFO
        ts_fixed = 0.0
        c = (math.nan, math.nan, math.nan)
        c_call = _f(host_presets.get(BED_HOST, {}).get("read_call_cost"), 0.0)
        stall = (0.0, 0.0)
        collect = (0.0, 0.0)
    else:
        cores = hv("cores", 1.0)
        itr = hv("itr", 0.0)
        rx_ring, rx_fifo = hv("rx_ring"), hv("rx_fifo", 0.0)
        frame_held = network.buffered_bytes(P, mtu) / w.fragments
        ring = (rx_ring - 1) + rx_fifo // frame_held if not math.isnan(rx_ring) else math.inf
        ts_fixed = hv("truesize", 0.0)
        # a read: its call plus the copy of the payload (read_byte_cost)
        c = (hv("irq_cost"), hv("packet_cost"), hv("read_cost") + P * hv("read_byte_cost", 0.0))
        c_call = hv("read_call_cost", 0.0)
        stall = (hv("stall_period", 0.0), hv("stall_length", 0.0))
        collect = _collector(host)
    # A slow application, the same on both sources: a CPU quota (unless the testbed could
    # only lower its priority) and work per datagram.
    recv_cpu = _f(row.get("recv_cpu"))
    enforced = _f(row.get("recv_cpu_enforced"), 1.0)
    share = recv_cpu / 100.0 if (not math.isnan(recv_cpu) and enforced) else math.inf
    work = _f(row.get("recv_work"), 0.0)
    rcv = _f(row.get("rcvbuf"))
    if math.isnan(rcv) and not bed and "rcvbuf" in preset:
        rcv = _f(preset.get("rcvbuf"))
    readers = max(1.0, float(p["readers"]))
    shared = readers > 1 and str(p["reuseport"]) != "on"
    values = {
        "host_on": float(bed or host != "ideal"),
        # threads on one socket copy one at a time, a handoff (a wake-up) between copies
        "handoff": (hv("wakeup_cost", 0.0) if not bed else 0.0) if shared else math.nan,
        "cores": cores,
        "readers": readers,
        "itr": itr,
        "ring_cap": ring,
        "sk_rcvbuf": sk_rcvbuf(None if math.isnan(rcv) else rcv),
        "ts_rule": datagram_truesize(P, mtu, ts_fixed, _skb(host) if not bed else "2.6"),
        "stall_period": stall[0],
        "stall_length": stall[1],
        "collect_every": collect[0],
        "collect_pause": collect[1],
        "share": share,
        "work": work,
        "c_i0": c[0],
        "c_d0": c[1],
        "c_a0": c[2],
        "c_call": c_call,
        "p_frame": float(p["frame_loss"]),
        "n_f": float(w.fragments),
        "burst": float(int(pat.split(":")[1]) if pat.startswith("burst:") else 1),
    }
    return net_cache[key], values


# The values _configuration gives each row of a configuration (Prepared's fields by these names)
_CONFIG_VALUES = (
    "host_on",
    "cores",
    "readers",
    "handoff",
    "itr",
    "ring_cap",
    "sk_rcvbuf",
    "ts_rule",
    "stall_period",
    "stall_length",
    "collect_every",
    "collect_pause",
    "share",
    "work",
    "c_i0",
    "c_d0",
    "c_a0",
    "c_call",
    "p_frame",
    "n_f",
    "burst",
)
# Columns that differ between the rows of one configuration (its flows and runs)
_PER_RUN = {"sender", "receiver", "flow", "run_file", "sent", "lost", "received", "point"}


def point_ids(records: list[dict[str, Any]]) -> np.ndarray:
    """Per row, an id shared by the repetitions of one flow at one point: the same source,
    sender, receiver and options, the seed aside."""
    from lanloss import options as vocab

    names = [o.name for o in vocab.OPTIONS if o.name != "seed"]
    names += ["source", "sender", "receiver", "rate_max"]
    keys = [tuple(str(r.get(k)) for k in names) for r in records]
    return pd.factorize(pd.Series(keys, dtype=object))[0] if keys else np.zeros(0, int)


def _measured_rates(records: list[dict[str, Any]]) -> dict[str, dict[tuple[str, str], float]]:
    """Rate max runs: per run file, each flow's datagram rate as sent (sent / duration)."""
    out: dict[str, dict[tuple[str, str], float]] = {}
    for r in records:
        if r.get("rate_max"):
            runs = out.setdefault(str(r.get("run_file")), {})
            runs[(str(r.get("sender")), str(r.get("receiver")))] = float(r["sent"]) / float(
                r["duration"]
            )
    return out


def _per_row(
    records: list[dict[str, Any]], duration: float | None
) -> tuple[list[network.FlowResult], dict[str, np.ndarray]]:
    """Each row's network flow and its configuration's values, each configuration solved
    once (rows_for's rows name theirs; other rows are alike in every column but _PER_RUN)."""
    cache: dict[tuple, dict] = {}
    host_presets = presets()
    lam_measured = _measured_rates(records)
    keycols = sorted({k for r in records[:1] for k in r} - _PER_RUN)
    config_cache: dict[tuple, tuple] = {}
    net = []
    cols: dict[str, list] = {k: [] for k in _CONFIG_VALUES}
    for row in records:
        lam_of = lam_measured.get(str(row.get("run_file"))) if row.get("rate_max") else None
        if "_config" in row:
            ckey = ("config", row["_config"])
        else:
            ckey = tuple(_hashable(row.get(k)) for k in keycols) + (
                (tuple(sorted(lam_of.items())) if lam_of else ()),
            )
        if ckey not in config_cache:
            config_cache[ckey] = _configuration(row, lam_of, duration, host_presets, cache)
        flows, values = config_cache[ckey]
        fr = flows.get((str(row.get("sender")), str(row.get("receiver"))))
        if fr is None:  # names from elsewhere: the model's flows are alike, take the first
            fr = next(iter(flows.values()))
        net.append(fr)
        for k, v in values.items():
            cols[k].append(v)
    return net, {k: np.asarray(v, dtype=float) for k, v in cols.items()}


def prepare(df: pd.DataFrame | list[dict[str, Any]], duration: float | None = None) -> Prepared:
    """Table rows (UDP flows; a DataFrame or a list of row mappings) -> the parameter-free
    part of the model.

    duration: override every run's T (math.inf: long-run predictions, the planner's).
    Rows whose configuration the model cannot describe raise network.ModelError.
    """
    records = df.to_dict("records") if isinstance(df, pd.DataFrame) else list(df)
    n = len(records)
    net, arr = _per_row(records, duration)
    lam = np.array([fr.lam for fr in net])
    delivered = np.array([fr.delivered for fr in net])

    def col(name: str, default: Any = math.nan) -> np.ndarray:
        return np.array([_f(r.get(name), default) for r in records], dtype=float)

    payload = col("payload")
    runs = [str(r.get("run_file", i)) for i, r in enumerate(records)]
    return Prepared(
        n=n,
        bed=np.array([str(r.get("source")) == "bed" for r in records], dtype=bool),
        host_on=arr["host_on"].astype(bool),
        sent=col("sent", 0.0),
        lost=col("lost", 0.0),
        lam=lam,
        T=col("duration") if duration is None else np.full(n, float(duration)),
        payload=payload,
        net_keep=np.where(lam > 0, delivered / np.where(lam > 0, lam, 1), 1.0),
        net_thru=np.array([fr.throughput for fr in net]) / np.where(lam > 0, lam, 1),
        loss_wire=np.array([fr.loss_wire for fr in net]),
        loss_switch=np.array([fr.loss_switch for fr in net]),
        capacity=np.array([fr.capacity for fr in net]),
        host_mult=np.array([fr.host_load for fr in net]),
        **{k: arr[k] for k in _CONFIG_VALUES if k != "host_on"},
        poisson=np.array([str(r.get("pattern")) == "poisson" for r in records], dtype=bool),
        drop_point=[fr.drop_point for fr in net],
        bottleneck_link=[fr.bottleneck for fr in net],
        run=pd.factorize(np.array(runs, dtype=object))[0] if n else np.zeros(0, int),
        goodput=col("goodput_bps"),
        rate_bps=lam * 8 * payload,
        point=point_ids(records),
        rho=np.zeros(n),
    )


# ----------------------------------------------------------------------------------------
# Predicting


@dataclass
class Prediction:
    loss: np.ndarray  # total datagram loss per row
    stages: dict[str, np.ndarray]  # loss by bottleneck (STAGES)
    mu_app: np.ndarray  # readers' capacity, datagrams/s (inf without a host)
    kernel_cap: np.ndarray  # kernel's datagram capacity
    K: np.ndarray  # socket capacity in datagrams
    goodput_bps: np.ndarray


def _costs(prep: Prepared, theta: dict[str, float]) -> tuple[np.ndarray, ...]:
    """Per row: CPU per interrupt, per frame, per read (c_i, c_d, c_a), the datagram's
    truesize and the arrivals' squared coefficient of variation."""
    bed = prep.bed
    c_i = np.where(bed, theta["irq_cost"], prep.c_i0 * theta["sim_irq_scale"])
    c_d = np.where(bed, theta["packet_cost"], prep.c_d0 * theta["sim_packet_scale"])
    c_a = np.where(bed, theta["read_cost"], prep.c_a0 * theta["sim_read_scale"]) + prep.work
    ts = np.where(bed, theta["truesize"] * prep.n_f, prep.ts_rule)
    # CBR into the simulator is exactly periodic: no queueing below the knee
    scv = np.where(prep.poisson, 1.0, np.where(bed, theta["arrival_scv"], 0.0))
    return c_i, c_d, c_a, ts, scv


@dataclass
class _Kernel:
    """The receiving kernel's share of the work (docs/physics.md §2)."""

    n_int: np.ndarray  # interrupts/s
    polling: np.ndarray  # U_k >= 1: NAPI polls, softirq work in ksoftirqd
    avail: np.ndarray  # CPU left after hard interrupts
    share: np.ndarray  # the kernel's CPU share on the reader's core
    cap_frames: np.ndarray  # frames/s it takes when polling (inf otherwise)
    U_k: np.ndarray
    L_kernel: np.ndarray  # loss of frames the kernel cannot take
    L_ring: np.ndarray  # loss of frames of one ITR interval beyond ring and FIFO


def _kernel(prep: Prepared, Lam: np.ndarray, c_i, c_d, c_a) -> _Kernel:
    phi = Lam * prep.n_f  # frames/s
    R = prep.itr
    n_int = np.where(R > 0, np.minimum(phi, np.where(R > 0, R, 1.0)), phi)
    U_k = n_int * c_i + phi * c_d
    polling = U_k >= 1.0
    u_irq = np.where(R > 0, np.minimum(phi, R) * c_i, 0.0)  # NAPI masks them otherwise
    avail = np.clip(1.0 - u_irq, 1e-9, 1.0)
    u_k = phi * c_d
    u_a = Lam * c_a
    # one core, softirq in ksoftirqd: max-min fair split with the reader
    k_share = np.where(u_k <= avail / 2, u_k, np.where(u_a <= avail / 2, avail - u_a, avail / 2))
    k_share = np.where(prep.cores <= 1, k_share, avail)
    cap_frames = np.where(polling, k_share / np.maximum(c_d, 1e-15), np.inf)
    ring = np.where(np.isfinite(prep.ring_cap), prep.ring_cap, 0.0)
    L_kernel, _ = mdk.run_loss(phi / cap_frames, ring, Lam * prep.T * prep.n_f)
    L_kernel = np.where(polling, np.maximum(L_kernel, 0.0), 0.0)
    # ring overflow: frames of one ITR interval beyond what ring and FIFO hold
    batch_frames = np.where(R > 0, phi / np.where(R > 0, R, 1.0), 1.0)
    L_ring = np.where(
        (R > 0) & (batch_frames > prep.ring_cap),
        (batch_frames - prep.ring_cap) / np.maximum(batch_frames, 1e-12),
        0.0,
    )
    return _Kernel(n_int, polling, avail, k_share, cap_frames, U_k, L_kernel, L_ring)


def quota_rate(share, c_a, c_call, Lam, K, period=QUOTA_PERIOD):
    """Datagrams/s readers under a CPU quota take: share s of a CPU per CFS period T,
    c_a per datagram and c_call per receive call (docs/physics.md §2).

    Each period the readers run until the quota is used, then wait for the next; they
    come back to a socket holding up to K datagrams. They drain that backlog in calls of
    many datagrams (while draining, lambda c_a arrive per datagram read: K / (1 - lambda
    c_a) datagrams in all), then, caught up, read each arrival with a call of its own.
    Past the knee the quota buys D datagrams: s T = D c_a + (D - K / (1 - lambda c_a))
    c_call, so D / T = (s + c_call X) / (c_a + c_call), X = K / ((1 - lambda c_a) T);
    never more than s / c_a (every datagram read in a batch: lambda c_a >= 1 or X large).
    The drain's few calls are left out. Without a call cost this is s / c_a."""
    drain = 1.0 - Lam * c_a
    with np.errstate(divide="ignore", invalid="ignore"):
        X = np.where(drain > 0, K / (np.maximum(drain, 1e-12) * period), np.inf)
        singles = (share + c_call * X) / (c_a + c_call)
    return np.minimum(share / c_a, np.where(np.isfinite(X), singles, np.inf))


def _readers_rate(
    prep: Prepared, k: _Kernel, c_a: np.ndarray, Lam: np.ndarray, K: np.ndarray
) -> np.ndarray:
    """mu_a: datagrams/s the readers take (on the kernel's core, or their own)."""
    reader_cores = np.minimum(prep.readers, np.maximum(prep.cores - 1, 1))
    quota = prep.share < reader_cores
    mu_own = np.where(
        quota,
        quota_rate(np.where(quota, prep.share, 1.0), c_a, prep.c_call, Lam, K),
        reader_cores / c_a,
    )
    # several readers on one socket copy one at a time, handing the lock over: at most one
    # datagram per copy + handoff (the work after the copy runs in parallel)
    copy = c_a - prep.work
    with np.errstate(invalid="ignore"):
        serial = 1.0 / (copy + np.nan_to_num(prep.handoff))
        mu_own = np.where(np.isnan(prep.handoff), mu_own, np.minimum(mu_own, serial))
    a_share = np.where(k.polling, k.avail - k.share, 1.0 - k.U_k)
    mu_shared = np.maximum(a_share, 0.0) / c_a
    mu_a = np.where(prep.cores <= 1, mu_shared, mu_own)
    return np.where(prep.host_on, np.maximum(mu_a, 1e-12), np.inf)


@dataclass
class _Socket:
    """The socket buffer's losses (docs/physics.md §2)."""

    K: np.ndarray  # datagrams it holds
    mu_eff: np.ndarray  # the readers' rate, less their stalls
    q_fluid: np.ndarray  # loss above the knee
    L_queue_extra: np.ndarray  # queueing loss below it
    L_batch: np.ndarray  # batches larger than the socket
    L_stall: np.ndarray  # stalls the socket cannot bridge


def _capacity(prep: Prepared, ts: np.ndarray) -> np.ndarray:
    """Datagrams the socket holds. A fitted truesize needs a K that moves with it:
    floor(x) + 1 is x + 1/2 on average."""
    return np.where(prep.bed, prep.sk_rcvbuf / ts + 0.5, socket_capacity(prep.sk_rcvbuf, ts))


def _stall_loss(on, Lam_s, length, period, duty, b, K) -> np.ndarray:
    """Below the knee a stall loses what the socket cannot hold: lambda T_off on top of the
    mean backlog of an interrupt batch, (b - 1)/2, beyond K, once per period (docs/physics.md
    §4); at most the stall's share of the arrivals."""
    over = np.maximum(Lam_s * length + (b - 1) / 2 - K, 0.0)
    return np.where(on, np.minimum(duty, over / np.maximum(Lam_s * period, 1e-12)), 0.0)


def _socket(prep: Prepared, Lam_s: np.ndarray, mu_a, K, scv) -> _Socket:
    """The socket holding K datagrams (_capacity), fed Lam_s and drained at mu_a."""
    on, R = prep.host_on, prep.itr
    reader_cores = np.minimum(prep.readers, np.maximum(prep.cores - 1, 1))
    b = np.maximum(np.where(R > 0, Lam_s / np.where(R > 0, R, 1.0), 1.0), prep.burst)
    b = np.maximum(b, 1.0)
    L_batch = np.where(b > K, (b - K) / b, 0.0)
    # A CPU quota binds over its CFS period (100 ms), where a paced sender's short bursts
    # (what arrival_scv stands for) average out: the readers run at a core's speed until
    # the period's quota is used, so only the arrival counts per period vary, as Poisson's
    # (scv 1) or, for CBR, not at all.
    quota = ~(prep.cores <= 1) & (prep.share < reader_cores)
    scv = np.where(quota, np.where(prep.poisson, 1.0, 0.0), scv)
    with np.errstate(divide="ignore"):
        Kq = np.where(scv > 0, np.maximum(K - b, 1.0) / np.maximum(scv, 1e-12), np.inf)
    # stalls: the reader reads nothing for stall_length every stall_period (no CPU used)
    stalls = (prep.stall_period > 0) & (prep.stall_length > 0)
    period = np.where(stalls, prep.stall_period, 1.0)
    duty = np.where(stalls, np.minimum(prep.stall_length / period, 1.0), 0.0)
    # a collector: a pause each collect_every bytes read (what the socket delivers, at most
    # what the readers take), so its period shortens as the rate grows
    read_bps = np.minimum(Lam_s, mu_a) * prep.payload
    collects = (prep.collect_every > 0) & (prep.collect_pause > 0) & (read_bps > 0)
    c_period = np.where(collects, prep.collect_every / np.maximum(read_bps, 1e-12), 1.0)
    c_duty = np.where(collects, np.minimum(prep.collect_pause / c_period, 1.0), 0.0)
    mu_eff = mu_a * np.maximum(1.0 - duty - c_duty, 0.0)
    rho = np.where(on, Lam_s / np.maximum(mu_eff, 1e-12), 0.0)
    # datagrams arrive b at a time: the queue overflows once it holds more than K - b
    q_total, q_fluid = mdk.run_loss(rho, np.maximum(K - b + 1, 1.0), Lam_s * prep.T, Kq)
    q_total = np.where(on, q_total, 0.0)
    q_fluid = np.where(on, q_fluid, 0.0)
    # the stalls and the collector's pauses the socket cannot bridge
    L_stall = _stall_loss(stalls & (rho < 1), Lam_s, prep.stall_length, period, duty, b, K)
    L_stall = L_stall + _stall_loss(
        collects & (rho < 1), Lam_s, prep.collect_pause, c_period, c_duty, b, K
    )
    L_queue_extra = np.where(q_fluid < 1, (q_total - q_fluid) / np.maximum(1 - q_fluid, 1e-300), 0)
    return _Socket(K, mu_eff, q_fluid, L_queue_extra, L_batch, L_stall)


def predict(prep: Prepared, theta: dict[str, float]) -> Prediction:
    """Loss per row for parameters theta (names of ``parameters()``), vectorised."""
    on = prep.host_on
    c_i, c_d, c_a, ts, scv = _costs(prep, theta)
    L_frame = 1.0 - (1.0 - prep.p_frame) ** prep.n_f
    lam_h = prep.lam * prep.net_keep * (1.0 - L_frame)
    Lam = np.maximum(lam_h * prep.host_mult, 1e-12)  # datagrams/s into the host
    k = _kernel(prep, Lam, c_i, c_d, c_a)
    Lam_s = Lam * (1.0 - k.L_kernel) * (1.0 - k.L_ring)  # into the socket
    K = _capacity(prep, ts)
    mu_a = _readers_rate(prep, k, c_a, Lam_s, K)
    sock = _socket(prep, Lam_s, mu_a, K, scv)

    # which CPU work dominates: interrupts (seed 000's first cause) or the rest
    phi = Lam * prep.n_f
    irq_dominant = k.n_int * c_i >= np.maximum(phi * c_d, Lam * c_a)
    cpu_keep = (1.0 - k.L_kernel) * (1.0 - sock.q_fluid)
    socket_keep = (1 - sock.L_queue_extra) * (1 - sock.L_batch) * (1 - sock.L_stall)
    host = {
        "interrupts": np.where(on, 1 - np.where(irq_dominant, cpu_keep, 1.0) * (1 - k.L_ring), 0),
        "cpu": np.where(on & ~irq_dominant, 1 - cpu_keep, 0.0),
        "socket_buffer": np.where(on, 1 - socket_keep, 0.0),
    }
    stages = {
        "wire": 1 - (1 - prep.loss_wire) * (1 - L_frame),
        "switch": prep.loss_switch,
        **host,
    }
    loss = np.clip(1 - _kept(stages, STAGES, prep.n), 0.0, 1.0)
    # goodput during the run: what arrives (a full link passes its capacity, the rest of its
    # buffer drains after the run) and what the readers take (their share of mu)
    host_keep = _kept(stages, ("interrupts", "cpu", "socket_buffer"), prep.n)
    goodput_dgrams = np.minimum(prep.lam * (1 - loss), prep.lam * prep.net_thru * host_keep)
    goodput_dgrams = np.where(
        on,
        np.minimum(goodput_dgrams, sock.mu_eff / np.maximum(prep.host_mult, 1e-12)),
        goodput_dgrams,
    )
    # frames/s the kernel takes before U_k reaches 1 (or, polling, its share of the core)
    R = prep.itr
    busy_limit = np.where(R > 0, (1 - R * c_i) / np.maximum(c_d, 1e-15), 1 / (c_i + c_d))
    kernel_cap = np.where(on, np.where(k.polling, k.cap_frames, busy_limit), np.inf)
    return Prediction(
        loss=loss,
        stages=stages,
        mu_app=mu_a,
        kernel_cap=kernel_cap / prep.n_f,
        K=np.where(on, sock.K, np.inf),
        goodput_bps=8 * prep.payload * goodput_dgrams,
    )


def _kept(stages: dict[str, np.ndarray], names: tuple[str, ...], n: int) -> np.ndarray:
    """The fraction that passes every one of these stages (losses in series)."""
    keep = np.ones(n)
    for s in names:
        keep = keep * (1 - np.clip(stages[s], 0.0, 1.0))
    return keep


def livelock_goodput(lam, c_i, c_d, c_a, itr=0.0, n_f=1):
    """docs/physics.md §2 on one core: gamma = min(lambda, (1 - U_k)/c_a), U_k < 1."""
    lam = np.asarray(lam, dtype=float)
    phi = lam * n_f
    n_int = phi if not itr else np.minimum(phi, itr)
    U = n_int * c_i + phi * c_d
    return np.minimum(lam, np.maximum(1 - U, 0) / c_a)


def knee(c_i: float, c_d: float, c_a: float, itr: float = 0.0, n_f: int = 1) -> float:
    """Maximum loss-free receive rate on one core: 1/(c_i + c_d + c_a) at itr 0, else
    (1 - itr c_i)/(n_f c_d + c_a) once frames exceed itr."""
    if not itr:
        return 1.0 / (n_f * (c_i + c_d) + c_a)
    return (1 - itr * c_i) / (n_f * c_d + c_a)


_CONFIGS = itertools.count()


def rows_for(params: dict[str, Any], source: str = "sim", frame: bool = True):
    """Resolved parameters (options, host values) -> one table-like row per flow.

    What the planner and the tests feed to ``prepare``: the same columns as
    ``lanloss table`` writes, with nothing measured (sent = lost = 0). frame=False: the
    rows as a list of mappings (cheaper, for prepare).
    """
    lan = network.build_lan(params)
    rate = params.get("rate")
    config = next(_CONFIGS)
    rows = []
    for i, (s, r, _) in enumerate(lan.flows):
        row = {k: v for k, v in params.items()}
        row.update(
            source=source,
            sender=s,
            receiver=r,
            flow=i,
            run_file="what-if",
            rate_max=rate == "max",
            rate=math.nan if rate in ("max", None) else float(rate),
            sent=0,
            lost=0,
        )
        if not frame:
            row["_config"] = config
        rows.append(row)
    return pd.DataFrame(rows) if frame else rows
