# SPDX-License-Identifier: GPL-2.0-only
"""The testbed's run record: what a run set up and measured (typed state) -> a RunRecord.

``lanloss.testbed.runner`` orchestrates (set up, apply, count, traffic, restore) and
fills a ``RunState``, an ``Outcome`` and a ``RestoreReport``; ``build`` turns them into
the record, the same schema the simulator writes (lanloss/record.py): per-flow counts from
the tools' reports, drops attributed per layer from the counters
(lanloss.testbed.attribution), totals by lanloss.totals, and the environment (hosts,
settings before and after, tool hashes).
"""

from __future__ import annotations

import platform
import shutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lanloss import paths, provenance
from lanloss.header_constants import SOCK_MIN_RCVBUF
from lanloss.record import RunRecord
from lanloss.testbed import (
    arrivals,
    attribution,
    clocks,
    counters,
    cpulimit,
    nic_counters,
    settings,
    traffic,
)
from lanloss.testbed.hosts import Host, local_boot_id
from lanloss.totals import Receiver, Stream, run_totals

if TYPE_CHECKING:
    from lanloss.testbed.runner import Request


@dataclass
class FlowPlan:
    """One record flow: a stream from its sender as seen by one receiver."""

    sender: Host
    receiver: Host
    stream: traffic.Stream


@dataclass
class RunState:
    """What a run has set up so far: restore undoes it, the record describes it."""

    started_utc: str
    backend: Any = None  # NetnsBackend | SshBackend | VmBackend
    hosts: dict[str, Host] = field(default_factory=dict)  # every host settings touch
    run_hosts: list[Host] = field(default_factory=list)  # senders and receivers
    captured: dict[str, settings.Captured] = field(default_factory=dict)  # before the run
    changes: list[settings.Change] = field(default_factory=list)  # planned, for restore
    unsupported: list[settings.Unsupported] = field(default_factory=list)
    cpu: dict[str, tuple[Host, cpulimit.CpuLimit]] = field(default_factory=dict)  # receiver ->
    traffic: traffic.Traffic | None = None
    flows: list[FlowPlan] = field(default_factory=list)
    # a LAN that stands between runs: {"reused", "kept", "points", "since", "carried"}
    lan: dict[str, Any] = field(default_factory=lambda: {"reused": False})


@dataclass
class Outcome:
    """What the run measured."""

    traffic: traffic.Outcome
    deltas: dict[str, dict[str, Any]]  # host -> counter deltas (lanloss.testbed.counters)
    counter_errors: dict[str, Any]  # host -> counters that could not be read
    cpu_stat: dict[str, Any]  # receiver -> its cgroup's cpu.stat
    facts: dict[str, dict[str, Any]]  # host -> kernel, driver, ...
    # the hypervisor's share of this machine's CPUs during the traffic (lanloss.testbed.steal;
    # None where the LAN does not run here: the ssh backend)
    steal_share: float | None = None


@dataclass
class RestoreReport:
    """How restore went: failures (empty = restored), settings read after, differences."""

    failures: list[str] = field(default_factory=list)
    after: dict[str, settings.Captured] = field(default_factory=dict)
    mismatches: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class FlowRow:
    """One record flow and what its sending stream did (for lanloss.totals)."""

    sender: str
    receiver: str
    sent: int
    received: int
    duplicated: int
    reordered: int
    goodput_bps: float
    latency_us: dict[str, float | None]
    loss_runs: dict[str, Any]
    stream: int
    rate: Any  # the stream's configured rate, or "max"
    span: float  # its first to last send, seconds
    late: float  # its largest delay behind schedule, seconds
    drops: dict[str, int] = field(default_factory=dict)
    latency_null_reason: str | None = None  # for the record's clocks section

    def flow(self) -> dict[str, Any]:
        """The record's flow."""
        return {
            "sender": self.sender,
            "receiver": self.receiver,
            "sent": self.sent,
            "received": self.received,
            "lost": self.sent - self.received,
            "duplicated": self.duplicated,
            "reordered": self.reordered,
            "goodput_bps": self.goodput_bps,
            "latency_us": self.latency_us,
            "loss_runs": self.loss_runs,
            "drops": self.drops,
        }


def _whole_flow_goodput(flow_rep: dict[str, Any]) -> float:
    """Without the per-packet log: payload bit/s from the tool's first to last arrival (n - 1
    datagrams' bytes in that span)."""
    first, last = flow_rep.get("first_rx_ns"), flow_rep.get("last_rx_ns")
    n = int(flow_rep.get("received") or 0)
    if not first or not last or last <= first or n < 2:
        return 0.0
    return 8 * int(flow_rep.get("bytes") or 0) * (n - 1) / n / ((last - first) / 1e9)


def _measured(
    flow_rep: dict[str, Any],
    log: list[arrivals.Arrival] | None,
    start_ns: int | None,
    params: dict[str, Any],
) -> tuple[float, dict[str, float | None]]:
    """A flow's goodput and latency: from the per-packet log by the simulator's rules
    (lanloss.testbed.arrivals); without a log (--no-log, or one too large to fetch), the
    tool's whole-flow goodput and histogram percentiles."""
    stats = (
        arrivals.flow_stats(log, start_ns, float(params["warmup"]), float(params["duration"]))
        if log
        else None
    )
    if stats is not None:
        return stats.goodput_bps, stats.latency_us
    lat = flow_rep.get("latency_us") or {}
    return _whole_flow_goodput(flow_rep), {k: lat.get(k) for k in ("p50", "p99", "max")}


def _pair_shares_clock(fp: FlowPlan) -> bool:
    """Sender and receiver run in one kernel (one boot id): one CLOCK_MONOTONIC."""
    boot = fp.sender.facts.get("boot_id")
    return boot is not None and boot == fp.receiver.facts.get("boot_id")


def _one_way(
    fp: FlowPlan, frep: dict[str, Any], raw: dict[str, float | None], t: traffic.Traffic
) -> tuple[dict[str, float | None], str | None]:
    """The flow's latency as reported (clocks.one_way_latency) and why it is null."""
    measured = (t.clock_offsets.get(fp.receiver.name) or {}).get(fp.sender.name)
    offset = clocks.Offset(**measured["probe"]) if measured and measured.get("probe") else None
    negative = int(frep.get("latency_negative") or 0)
    return clocks.one_way_latency(raw, negative, _pair_shares_clock(fp), offset)


def _lanloss_row(fp: FlowPlan, out: traffic.Outcome, p: dict[str, Any], t: traffic.Traffic):
    """(the flow's row, its failed sends) from lanloss-send's and lanloss-recv's reports."""
    shared_clock = t.shared_clock
    st = fp.stream
    srep = out.senders[st.id]
    fails = sum(int(v) for v in (srep.get("send_errors") or {}).values())
    rrep = out.receivers[fp.receiver.name]
    frep = next((f for f in rrep.get("flows", []) if f.get("flow") == st.id), {})
    # the sender's first send is the traffic's start where both read one clock
    start_ns = int(srep.get("start_ns") or 0) if shared_clock else 0
    log = out.logs.get(fp.receiver.name, {}).get(st.id)
    goodput, raw_latency = _measured(frep, log, start_ns or None, p)
    latency, why = _one_way(fp, frep, raw_latency, t)
    row = FlowRow(
        fp.sender.name,
        fp.receiver.name,
        sent=int(srep["sent"]) + fails,
        received=int(frep.get("received") or 0),
        duplicated=int(frep.get("duplicated") or 0),
        reordered=int(frep.get("reordered") or 0),
        goodput_bps=goodput,
        latency_us=latency,
        loss_runs=frep.get("loss_runs") or {"count": 0, "mean": 0.0, "max": 0},
        stream=st.id,
        rate=st.rate,
        span=max(0, int(srep.get("end_ns") or 0) - int(srep.get("start_ns") or 0)) / 1e9,
        late=float((srep.get("pacing") or {}).get("max_late_us") or 0.0) / 1e6,
        latency_null_reason=why,
    )
    return row, fails


def _iperf_row(fp: FlowPlan, out: traffic.Outcome, p: dict[str, Any]):
    """(the flow's row, 0 failed sends) from the iperf3 client's and server's reports."""
    st = fp.stream
    payload = int(p["payload"])
    end_c = out.senders[st.id].get("end", {})
    end_s = out.receivers[f"{fp.receiver.name}#{st.id}"].get("end", {})
    if p["protocol"] == "udp":
        sent = int(end_c.get("sum_sent", {}).get("packets") or 0)
    else:
        sent = int(end_c.get("sum_sent", {}).get("bytes") or 0) // payload
    streams = end_s.get("streams") or [{}]
    row = FlowRow(
        fp.sender.name,
        fp.receiver.name,
        sent=sent,
        received=int(end_s.get("sum_received", {}).get("bytes") or 0) // payload,
        duplicated=0,
        reordered=int((streams[0].get("udp") or {}).get("out_of_order") or 0),
        goodput_bps=float(end_s.get("sum_received", {}).get("bits_per_second") or 0),
        latency_us={"p50": None, "p99": None, "max": None},
        loss_runs={"count": 0, "mean": 0.0, "max": 0},
        stream=st.id,
        rate=st.rate,
        span=float(end_c.get("sum_sent", {}).get("seconds") or 0),
        late=0.0,  # iperf3 does not report its pacing: unknown, taken as kept
    )
    return row, 0


def _flow_path(
    fp: FlowPlan, row: FlowRow, fails: int, backend: Any, outcome: Outcome
) -> attribution.FlowPath:
    """Where the flow's datagrams pass, for attributing its drops."""
    ingress, egress = backend.flow_ports(fp.sender.name, fp.receiver.name)
    return attribution.FlowPath(
        fp.sender.name,
        fp.sender.iface,
        fp.receiver.name,
        fp.receiver.iface,
        fp.stream.id,
        fp.receiver.sysctl_host.name,
        row.sent,
        row.received,
        fails,
        ingress,
        egress,
        backend.nic_port(fp.receiver.name),
        receiver_driver=outcome.facts.get(fp.receiver.name, {}).get("driver"),
    )


def _extra(
    req: Request, state: RunState, outcome: Outcome, attr: dict[str, Any], nic: dict[str, Any]
) -> dict[str, Any]:
    """The record's source-specific detail: tool reports, counters, attribution detail."""
    out = outcome.traffic
    return {
        "tool_reports": {
            "senders": {str(k): v for k, v in out.senders.items()},
            "receivers": out.receivers,
        },
        "counters": {n: counters.nonzero(d) for n, d in outcome.deltas.items()},
        "counter_errors": outcome.counter_errors,
        "attribution": {
            "detail": attr["detail"],
            "flags": attr["flags"],
            **nic["attribution"],
        },
        **nic["extra"],
        "cross_check": _cross_check(req, state, outcome),
        "cpu_stat": outcome.cpu_stat,
        "commands": traffic.describe_commands(state.traffic),
    }


def build(
    req: Request,
    state: RunState,
    outcome: Outcome,
    restore_report: RestoreReport,
    timing: dict[str, float],
) -> RunRecord:
    """The run's record (source "bed")."""
    p = req.params
    assert state.traffic is not None
    rows: list[FlowRow] = []
    paths_ = []
    for fp in state.flows:
        if req.tool == "lanloss":
            row, fails = _lanloss_row(fp, outcome.traffic, p, state.traffic)
        else:
            row, fails = _iperf_row(fp, outcome.traffic, p)
        rows.append(row)
        paths_.append(_flow_path(fp, row, fails, state.backend, outcome))

    srcs = attribution.sources(paths_, outcome.deltas, p["protocol"])
    attr = attribution.attribute(paths_, srcs)
    for row, d in zip(rows, attr["flows"], strict=True):
        row.drops = d
    flows = [r.flow() for r in rows]
    streams = _streams_done(req, rows)
    totals = run_totals(
        [{**f, "stream": r.stream} for f, r in zip(flows, rows, strict=True)],
        streams,
        int(p["payload"]),
        float(p["duration"]),
        _receivers_scheduled(req, state, outcome, streams),
    )
    totals["steal_share"] = outcome.steal_share
    nic = _nic_section(paths_, outcome, p["protocol"])
    env = _env(req, state, outcome, restore_report)
    env["clocks"]["latency_null_reason"] = {
        str(r.stream): r.latency_null_reason for r in rows if r.latency_null_reason
    }
    attr["flags"].extend(
        f"attribution incomplete: {why}" for why in nic["attribution"].get("incomplete", [])
    )
    return RunRecord.from_dict(
        {
            "schema": "lanloss.run/1",
            "source": "bed",
            "params": dict(p),
            "env": env,
            "flows": flows,
            "totals": totals,
            "drops": attr["totals"],
            "pause": _pause(state, outcome),
            "cpu": _cpu(state, outcome),
            "timing": timing,
            "extra": _extra(req, state, outcome, attr, nic),
        }
    )


def _cpu(state: RunState, outcome: Outcome) -> dict[str, dict[str, float]]:
    """Each receiving host's CPU shares (counters.cpu_shares) between the counters'
    snapshots around the traffic (warm-up and drain included, where the simulator's
    cover the goodput window), for hosts with a kernel of their own: in a namespace,
    /proc/stat is this machine's, no host's."""
    assert state.traffic is not None
    here = local_boot_id()
    shares = {}
    for h in state.traffic.receivers:
        boot = h.facts.get("boot_id")
        if boot is None or boot == here:
            continue
        got = counters.cpu_shares(outcome.deltas.get(h.name, {}).get("stat") or {})
        if got is not None:
            shares[h.name] = got
    return shares


def _streams_done(req: Request, rows: list[FlowRow]) -> dict[int, Stream]:
    """What each sending application did (lanloss.totals), from its tool's report: what it
    tried to send is what its flows count as sent (failures included)."""
    streams: dict[int, Stream] = {}
    for r in rows:
        if r.stream not in streams:
            rate = r.rate if r.rate == "max" else float(r.rate)
            streams[r.stream] = Stream(rate, r.sent, r.span, req.params["pattern"], r.late)
    return streams


def buffer_lasts_s(sk_rcvbuf: float, payload: int, mtu: int, datagrams_per_s: float) -> float:
    """How long a socket buffer takes to fill at an arrival rate while nobody reads it:
    its capacity over the rate. The capacity is the analysis's rule
    (lanloss.analysis.rx_truesize): floor(sk_rcvbuf / truesize) + 1 datagrams, a datagram
    charged the sum of its frames' skb truesizes by the e1000 copybreak rule (frames up
    to the copybreak copied into a fitting skb, larger ones a 2 KiB receive buffer's)."""
    from lanloss.analysis.rx_truesize import datagram_truesize, socket_capacity

    if datagrams_per_s <= 0:
        return float("inf")
    capacity = float(socket_capacity(sk_rcvbuf, datagram_truesize(payload, mtu)))
    return capacity / datagrams_per_s


def _socket_rate(req: Request, state: RunState, receiver: str, streams: dict[int, Stream]) -> float:
    """Datagrams per second offered to one of the receiver's sockets: its flows' streams
    (rate max: what they achieved), split over the readers' sockets where SO_REUSEPORT
    deals a unicast flow out in turn (a multicast group gives every socket a copy)."""
    p = req.params
    payload, duration = int(p["payload"]), float(p["duration"])
    bps = 0.0
    for fp in state.flows:
        if fp.receiver.name == receiver:
            st = streams[fp.stream.id]
            bps += st.achieved_bps(payload, duration) if st.rate == "max" else float(st.rate)
    readers = int(p.get("readers") or 1)
    dealt = readers > 1 and p.get("reuseport") == "on" and not state.traffic.group
    return bps / (8.0 * payload) / (readers if dealt else 1)


def _quota_explains_s(state: RunState, receiver: str) -> float | None:
    """The off-CPU time a receiver's recv_cpu quota explains: a CFS quota throttles it for
    up to one period less its share; SCHED_IDLE (no quota) for as long as anything else
    runs, so None: its stalls are not judged."""
    if receiver not in state.cpu:
        return 0.0
    limit = state.cpu[receiver][1]
    if limit.method == "sched-idle":
        return None
    return cpulimit.PERIOD_US / 1e6 * (1.0 - limit.percent / 100.0)


def _receivers_scheduled(
    req: Request, state: RunState, outcome: Outcome, streams: dict[int, Stream]
) -> dict[str, Receiver] | None:
    """Each receiver's scheduling as lanloss-recv measured it (its report's
    ``scheduling``), against how long its socket buffer lasts; None where nothing measured
    it (iperf3, TCP, a tool without the report)."""
    if req.tool != "lanloss" or req.params["protocol"] != "udp" or state.traffic is None:
        return None
    p = req.params
    out: dict[str, Receiver] = {}
    for h in state.traffic.receivers:
        rep = outcome.traffic.receivers[h.name]
        sched = rep.get("scheduling") or {}
        if sched.get("max_stall_us") is None or not rep.get("rcvbuf_actual"):
            return None
        rate = _socket_rate(req, state, h.name, streams)
        delay = sched.get("run_delay_us")
        out[h.name] = Receiver(
            max_stall_s=float(sched["max_stall_us"]) / 1e6,
            buffer_s=buffer_lasts_s(
                float(rep["rcvbuf_actual"]), int(p["payload"]), int(p["mtu"]), rate
            ),
            explained_s=_quota_explains_s(state, h.name),
            run_delay_s=None if delay is None else float(delay) / 1e6,
            nivcsw=sched.get("nivcsw"),
            socket_drops=rep.get("socket_drops"),
        )
    return out


def _env(
    req: Request, state: RunState, outcome: Outcome, restore_report: RestoreReport
) -> dict[str, Any]:
    from lanloss.sim import git_describe

    captured, after, facts = state.captured, restore_report.after, outcome.facts
    hosts = {}
    for name, host in state.hosts.items():
        f = facts.get(name, {})
        entry: dict[str, Any] = {
            "role": host.spec.role,
            "kernel": f.get("kernel"),
            "driver": f.get("driver"),
            "interface": host.iface or None,
            "address": host.spec.data_address or None,
        }
        if host.spec.netns:
            entry["netns"] = host.spec.netns
        if f.get("link_speed"):
            entry["link_speed"] = f.get("link_speed")
        if f.get("nproc"):
            entry["nproc"] = f["nproc"]  # `nproc` there: a guest's vCPUs, a namespace's CPUs
        if name in captured:
            entry["settings_before"] = captured[name].values
            entry["settings_after"] = after[name].values if name in after else None
            entry["unsupported"] = [
                {"setting": k, "reason": v, "option": None, "explicit": False}
                for k, v in captured[name].unreadable.items()
            ] + [
                {
                    "setting": u.setting,
                    "reason": u.reason,
                    "option": u.option,
                    "explicit": u.explicit,
                }
                for u in state.unsupported
                if u.host == name
            ]
        if name in state.cpu:
            entry["cpu_limit"] = state.cpu[name][1].describe()
        hosts[name] = entry
    tool: dict[str, Any] = {"name": req.tool}
    if req.tool == "lanloss":
        tool["path"] = str(paths.ctool("lanloss-send").parent)
        tool["sha256"] = provenance.files_sha256(
            [paths.ctool("lanloss-send"), paths.ctool("lanloss-recv")]
        )
        reps = outcome.traffic.senders
        tool["version"] = next(iter(reps.values()), {}).get("version") if reps else None
    else:
        reps = outcome.traffic.senders
        first = next(iter(reps.values()), {})
        tool["version"] = first.get("start", {}).get("version")
        iperf3 = shutil.which("iperf3")
        tool["sha256"] = provenance.files_sha256([iperf3]) if iperf3 else None
    assert state.traffic is not None
    changes = [c.to_dict() for c in state.changes]
    return {
        "backend": req.backend,
        "tool": tool,
        "harness": {"python": platform.python_version(), **git_describe()},
        "versions": provenance.versions(),
        "controller": {
            "kernel": platform.release(),
            "machine": platform.machine(),
            "hostname": provenance.hostname(),
        },
        "started_utc": state.started_utc,
        "hosts": hosts,
        "topology": state.backend.describe(),
        "lan": state.lan,
        "changes": changes,
        "restore": {
            "ok": not restore_report.failures,
            "mismatches": restore_report.mismatches,
        },
        "clock_shared": state.traffic.shared_clock,
        "clocks": _clocks_env(state.traffic),
        "pinning": state.traffic.pin,
        **_backend_env(state.backend),
    }


def _clocks_env(t: traffic.Traffic) -> dict[str, Any]:
    """The tools' stamp clock, each receiver's measured offset to its senders (ping-pong and
    chrony/ptp4l status), and the rule one-way latency was reported by; the flows' reasons
    for a null latency are added by build."""
    return {
        "stamp_clock": traffic.stamp_clock(t) if t.tool == "lanloss" else None,
        "offsets": t.clock_offsets,
        "latency_factor": clocks.LATENCY_FACTOR,
        "latency_null_reason": {},
    }


def _nic_section(
    paths: list[attribution.FlowPath], outcome: Outcome, protocol: str
) -> dict[str, Any]:
    """The receiving NICs' counters as their drivers' maps read them: for extra.attribution,
    whether the attribution is complete (and why not), and for extra, the maps used
    (``nic``) and the moved counters no map knows (``unmapped_counters``: host -> iface ->
    name -> delta). TCP is not attributed (its loss is sent - received): nothing."""
    if protocol != "udp":
        return {"attribution": {}, "extra": {}}
    reports = attribution.nic_reports(paths, outcome.deltas)
    why = attribution.incomplete(reports)
    nic: dict[str, Any] = {}
    unmapped: dict[str, Any] = {}
    for (host, iface), r in reports.items():
        nic.setdefault(host, {})[iface] = {
            "driver": r.driver,
            "map": r.map,
            "counters": {k: v for k, v in r.counters.items() if r.points[k]},
            "uncertain": r.uncertain,
        }
        if r.unmapped:
            unmapped.setdefault(host, {})[iface] = r.unmapped
    extra: dict[str, Any] = {"nic": nic}
    if unmapped:
        extra["unmapped_counters"] = unmapped
    return {"attribution": {"complete": not why, "incomplete": why}, "extra": extra}


def _pause(state: RunState, outcome: Outcome) -> dict[str, Any]:
    """Standard pause statistics (`ethtool -I -a`) where the NIC reports them; else, for a
    host's interface under test, its driver's PAUSE counters (lanloss.testbed.nic_counters),
    marked with their source; {} when there are neither (veth has none)."""
    ports = {}
    for name, d in outcome.deltas.items():
        for iface, stats in (d.get("pause") or {}).items():
            ports[f"{name}:{iface}"] = {
                "frames_sent": stats.get("tx_pause_frames", 0),
                "frames_received": stats.get("rx_pause_frames", 0),
            }
    for name, host in state.hosts.items():
        driver = outcome.facts.get(name, {}).get("driver")
        d = outcome.deltas.get(name, {})
        stats = (d.get("ethtool") or {}).get(host.iface)
        if not host.iface or f"{name}:{host.iface}" in ports or not stats:
            continue
        if not nic_counters.map_for(driver).counts_pause:
            continue
        counted = nic_counters.nic_drops(driver, stats, {}).pause
        ports[f"{name}:{host.iface}"] = {
            "frames_sent": counted["tx"],
            "frames_received": counted["rx"],
            "source": f"{driver} ethtool -S counters",
        }
    if not ports:
        return {}
    return {"frames_sent": sum(v["frames_sent"] for v in ports.values()), "ports": ports}


def _cross_check(req: Request, state: RunState, outcome: Outcome) -> dict[str, Any]:
    """Independent counts of the same drops: kernel, socket, application."""
    out: dict[str, Any] = {}
    deltas = outcome.deltas
    if req.tool != "lanloss" or state.traffic is None:
        return out
    for h in state.traffic.receivers:
        rep = outcome.traffic.receivers[h.name]
        d = deltas.get(h.name, {})
        entry = {
            "RcvbufErrors": counters.get(d, "snmp", "Udp", "RcvbufErrors"),
            "InErrors": counters.get(d, "snmp", "Udp", "InErrors"),
            "socket_drops": rep.get("socket_drops"),
            "rxq_ovfl": rep.get("rxq_ovfl"),
            "rcvbuf_actual": rep.get("rcvbuf_actual"),
        }
        if req.params.get("rcvbuf") is not None:
            entry["rcvbuf_requested"] = int(req.params["rcvbuf"])
            # Linux doubles the request, never below SOCK_MIN_RCVBUF (sock_setsockopt)
            entry["rcvbuf_expected"] = max(2 * int(req.params["rcvbuf"]), SOCK_MIN_RCVBUF)
        out[h.name] = entry
    for s in state.traffic.streams:
        rep = outcome.traffic.senders[s.id]
        d = deltas.get(s.sender.name, {})
        out[f"{s.sender.name}#{s.id}"] = {
            "SndbufErrors": counters.get(d, "snmp", "Udp", "SndbufErrors"),
            "send_errors": rep.get("send_errors"),
            "sndbuf_actual": rep.get("sndbuf_actual"),
            "achieved_bps": rep.get("achieved_bps"),
        }
    return out


def _backend_env(backend: Any) -> dict[str, Any]:
    """The backend's own facts under its name (env.vm: the emulator), if it has any."""
    facts = backend.env()
    return {} if facts is None else {backend.name: facts}
