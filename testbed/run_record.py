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
from lanloss.record import RunRecord
from lanloss.testbed import attribution, counters, cpulimit, nic_counters, settings, traffic
from lanloss.testbed.machines import Host
from lanloss.totals import Stream, run_totals

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


@dataclass
class Outcome:
    """What the run measured."""

    traffic: traffic.Outcome
    deltas: dict[str, dict[str, Any]]  # host -> counter deltas (lanloss.testbed.counters)
    counter_errors: dict[str, Any]  # host -> counters that could not be read
    cpu_stat: dict[str, Any]  # receiver -> its cgroup's cpu.stat
    facts: dict[str, dict[str, Any]]  # host -> kernel, driver, ...


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


def _goodput(
    flow_rep: dict[str, Any], log: list[tuple[int, int]] | None, warmup: float, duration: float
) -> float:
    """Payload bit/s in the window [first arrival + warmup, first arrival + duration), from the
    per-packet log (else the whole flow): the simulator's window (UdpFlowSink). A fixed window,
    not first-to-last arrival: arrivals are stamped when the application reads them, and a
    reader a socket buffer behind would shorten a first-to-last span (measured: 93.06 Mbit/s
    of 1500-byte datagrams on 100M, above the 92.36 the wire carries); at the window's two
    edges the errors cancel."""
    if log and len(log) >= 2:
        first = min(rx for rx, _ in log)
        t0, t1 = first + int(warmup * 1e9), first + int(duration * 1e9)
        if t1 > t0:
            return 8 * sum(n for rx, n in log if t0 <= rx < t1) / ((t1 - t0) / 1e9)
    first, last = flow_rep.get("first_rx_ns"), flow_rep.get("last_rx_ns")
    n = int(flow_rep.get("received") or 0)
    if not first or not last or last <= first or n < 2:
        return 0.0
    return 8 * int(flow_rep.get("bytes") or 0) * (n - 1) / n / ((last - first) / 1e9)


def build(
    req: Request,
    state: RunState,
    outcome: Outcome,
    restore_report: RestoreReport,
    timing: dict[str, float],
) -> RunRecord:
    """The run's record (source "bed")."""
    p = req.params
    out = outcome.traffic
    backend = state.backend
    payload = int(p["payload"])
    rows: list[FlowRow] = []
    paths_ = []
    for fp in state.flows:
        st = fp.stream
        if req.tool == "lanloss":
            srep = out.senders[st.id]
            fails = sum(int(v) for v in (srep.get("send_errors") or {}).values())
            sent = int(srep["sent"]) + fails
            rrep = out.receivers[fp.receiver.name]
            frep = next((f for f in rrep.get("flows", []) if f.get("flow") == st.id), {})
            received = int(frep.get("received") or 0)
            log = out.logs.get(fp.receiver.name, {}).get(st.id)
            goodput = _goodput(frep, log, float(p["warmup"]), float(p["duration"]))
            lat = frep.get("latency_us") or {}
            latency = {k: lat.get(k) for k in ("p50", "p99", "max")}
            runs = frep.get("loss_runs") or {"count": 0, "mean": 0.0, "max": 0}
            dup, reord = int(frep.get("duplicated") or 0), int(frep.get("reordered") or 0)
            span = max(0, int(srep.get("end_ns") or 0) - int(srep.get("start_ns") or 0)) / 1e9
            late = float((srep.get("pacing") or {}).get("max_late_us") or 0.0) / 1e6
        else:
            crep = out.senders[st.id]
            srv = out.receivers[f"{fp.receiver.name}#{st.id}"]
            end_c, end_s = crep.get("end", {}), srv.get("end", {})
            fails = 0
            if p["protocol"] == "udp":
                sent = int(end_c.get("sum_sent", {}).get("packets") or 0)
            else:
                sent = int(end_c.get("sum_sent", {}).get("bytes") or 0) // payload
            recv_bytes = int(end_s.get("sum_received", {}).get("bytes") or 0)
            received = recv_bytes // payload
            goodput = float(end_s.get("sum_received", {}).get("bits_per_second") or 0)
            latency = {"p50": None, "p99": None, "max": None}
            runs = {"count": 0, "mean": 0.0, "max": 0}
            streams = end_s.get("streams") or [{}]
            reord = int((streams[0].get("udp") or {}).get("out_of_order") or 0)
            dup = 0
            span = float(end_c.get("sum_sent", {}).get("seconds") or 0)
            late = 0.0  # iperf3 does not report its pacing: unknown, taken as kept
        ingress, egress = backend.flow_ports(fp.sender.name, fp.receiver.name)
        paths_.append(
            attribution.FlowPath(
                fp.sender.name,
                fp.sender.iface,
                fp.receiver.name,
                fp.receiver.iface,
                st.id,
                fp.receiver.sysctl_host.name,
                sent,
                received,
                fails,
                ingress,
                egress,
                backend.nic_port(fp.receiver.name),
                receiver_driver=outcome.facts.get(fp.receiver.name, {}).get("driver"),
            )
        )
        rows.append(
            FlowRow(
                fp.sender.name,
                fp.receiver.name,
                sent,
                received,
                dup,
                reord,
                goodput,
                latency,
                runs,
                st.id,
                st.rate,
                span,
                late,
            )
        )

    srcs = attribution.sources(paths_, outcome.deltas, p["protocol"])
    attr = attribution.attribute(paths_, srcs)
    for row, d in zip(rows, attr["flows"], strict=True):
        row.drops = d

    flows = [r.flow() for r in rows]
    streams = _streams_done(req, rows)
    totals = run_totals(
        [{**f, "stream": r.stream} for f, r in zip(flows, rows, strict=True)],
        streams,
        payload,
        float(p["duration"]),
    )

    nic = _nic_section(paths_, outcome, p["protocol"])
    attr["flags"].extend(
        f"attribution incomplete: {why}" for why in nic["attribution"].get("incomplete", [])
    )
    env = _env(req, state, outcome, restore_report)
    pause = _pause(state, outcome)
    extra = {
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
    return RunRecord.from_dict(
        {
            "schema": "lanloss.run/1",
            "source": "bed",
            "params": dict(p),
            "env": env,
            "flows": flows,
            "totals": totals,
            "drops": attr["totals"],
            "pause": pause,
            "timing": timing,
            "extra": extra,
        }
    )


def _streams_done(req: Request, rows: list[FlowRow]) -> dict[int, Stream]:
    """What each sending application did (lanloss.totals), from its tool's report: what it
    tried to send is what its flows count as sent (failures included)."""
    streams: dict[int, Stream] = {}
    for r in rows:
        if r.stream not in streams:
            rate = r.rate if r.rate == "max" else float(r.rate)
            streams[r.stream] = Stream(rate, r.sent, r.span, req.params["pattern"], r.late)
    return streams


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
        "controller": {
            "kernel": platform.release(),
            "machine": platform.machine(),
            "hostname": provenance.hostname(),
        },
        "started_utc": state.started_utc,
        "hosts": hosts,
        "topology": state.backend.describe(),
        "changes": changes,
        "restore": {
            "ok": not restore_report.failures,
            "mismatches": restore_report.mismatches,
        },
        "clock_shared": state.traffic.shared_clock,
        "pinning": state.traffic.pin,
        **_backend_env(state.backend),
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
            entry["rcvbuf_expected"] = max(2 * int(req.params["rcvbuf"]), 2304)  # socket(7)
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
