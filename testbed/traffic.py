# SPDX-License-Identifier: GPL-2.0-only
"""Traffic: receivers first, a barrier, then the senders; reports parsed from JSON.

Tools: the project's lanloss-send / lanloss-recv (default) or iperf3 (``--tool
iperf3``, JSON mode, ``--udp-counters-64bit``) for cross-checks.

The barrier: every receiver creates its ``--ready-file`` once bound (iperf3:
its control port listens), and only then are the senders started; when all
hosts share one kernel (same boot id, so one CLOCK_MONOTONIC) the senders also
get a common ``--start-at``. The end: after the senders exit, the harness waits
until the network is drained (no queued bytes in the shapers, empty receive
socket queues) and then stops the receivers with SIGINT, so that nothing still
in flight is counted as lost and the receivers' reports are final.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lanloss import header_constants, paths
from lanloss.options import RECV_STOP_GRACE_S
from lanloss.testbed import clocks
from lanloss.testbed.arrivals import Arrival
from lanloss.testbed.errors import BedError
from lanloss.testbed.hosts import Host
from lanloss.testbed.transport import Proc, wait_until

PORT = header_constants.PORT
IPERF_PORT = 5201
# Senders on this machine's clock start together at a time set before they are spawned:
# late enough for the first one's spawn and exec, and each further one's spawn (a process
# and a journal entry, 6 ms measured; margin for a busy machine). One that starts late
# starts at once, off the others' start, never with a catch-up burst (lanloss-send).
START_DELAY_S = 0.05
START_DELAY_PER_SENDER_S = 0.02
READY_TIMEOUT_S = 10.0
MAX_LOG_BYTES = 64 << 20
WIRE_H = paths.REPO / "testbed" / "tools" / "wire.h"
_FIELD_FORMAT = {"u64": "Q", "u32": "I"}  # wire.h's field types as struct codes


def log_record_layout(header: str) -> tuple[tuple[str, ...], struct.Struct]:
    """lanloss-recv's per-packet log record as wire.h's table defines it ("Per-packet log":
    one ``offset N  u64|u32  name`` line per field, little-endian): (field names, its struct).
    The fields must follow each other without gaps and fill LL_LOG_REC bytes."""
    section = header.split("Per-packet log", 1)[1].split("*/", 1)[0]
    fields = re.findall(r"offset\s+(\d+)\s+(u64|u32)\s+(\w+)", section)
    record = struct.Struct("<" + "".join(_FIELD_FORMAT[kind] for _, kind, _ in fields))
    declared = re.search(r"#define LL_LOG_REC (\d+)u", header)
    at = 0
    for offset, kind, name in fields:
        if int(offset) != at:
            raise RuntimeError(f"{WIRE_H}: log field {name} at {offset}, expected {at}")
        at += struct.calcsize(_FIELD_FORMAT[kind])
    if not fields or declared is None or record.size != int(declared.group(1)):
        raise RuntimeError(f"{WIRE_H}: the per-packet log fields do not fill LL_LOG_REC")
    return tuple(name for _, _, name in fields), record


# (seq, tx_ns, rx_ns, flow, len): wire.h's per-packet log record
LOG_FIELDS, LOG_RECORD = log_record_layout(WIRE_H.read_text())


@dataclass
class Stream:
    """One sending process: a flow id from a sender to an address (unicast or the group)."""

    id: int
    sender: Host
    dst: str
    port: int
    rate: int | str
    receivers: list[Host]


@dataclass
class Traffic:
    """What to run: streams, receivers and the per-tool knobs from the params."""

    streams: list[Stream]
    receivers: list[Host]
    params: dict[str, Any]
    tool: str  # lanloss | iperf3
    tool_paths: dict[str, str]  # host name -> folder holding lanloss-send/-recv
    group: str | None = None
    rcvbuf_force: bool = False
    sndbuf_force: bool = False
    shared_clock: bool = False
    # receiver -> sender -> receiver's clock minus the sender's (clocks.measure_pair; None:
    # not measured), across kernels only
    clock_offsets: dict[str, dict[str, Any]] = field(default_factory=dict)
    pin: dict[str, list[str]] = field(default_factory=dict)  # host -> exec wrapper (taskset)
    cgroups: dict[str, str] = field(default_factory=dict)  # host -> cgroup.procs file
    pre: dict[str, list[str]] = field(default_factory=dict)  # host -> extra exec wrapper
    keep_log: bool = True
    # receiver -> its data NIC's device name: lanloss-recv --cpu-window (an emulated guest
    # reports its own CPU time and that NIC's interrupts over most of the traffic)
    cpu_window: dict[str, str] = field(default_factory=dict)


@dataclass
class Outcome:
    senders: dict[int, dict[str, Any]]  # stream id -> sender report
    receivers: dict[str, dict[str, Any]]  # receiver host -> report (iperf3: per stream)
    logs: dict[str, dict[int, list[Arrival]]]  # receiver -> flow -> its per-packet log
    timing: dict[str, float]
    stderr: dict[str, str]


def _tool(t: Traffic, host: Host, name: str) -> str:
    return os.path.join(t.tool_paths[host.name], name) if t.tool == "lanloss" else name


def _duration(params: dict[str, Any]) -> str:
    return repr(float(params["duration"]))


# -- the files the tools write in their host's run folder: each name is spelt here only,
# for the argv that names it, the read that collects it and the clearing before an attempt.
RECV_READY, RECV_REPORT, RECV_LOG = "recv.ready", "recv.json", "recv.log"


def receiver_file(host: Host, name: str) -> str:
    """A receiver's file: RECV_READY (made once bound), RECV_REPORT or RECV_LOG."""
    return f"{host.workdir}/{name}"


def send_report(s: Stream) -> str:
    return f"{s.sender.workdir}/send-{s.id}.json"


def iperf_server_report(s: Stream, host: Host) -> str:
    return f"{host.workdir}/iperf-server-{s.id}.json"


def iperf_client_report(s: Stream) -> str:
    return f"{s.sender.workdir}/iperf-client-{s.id}.json"


def recv_argv(t: Traffic, host: Host) -> list[str]:
    p = t.params
    argv = [_tool(t, host, "lanloss-recv"), "--port", str(PORT), "--proto", p["protocol"]]
    if t.group:
        argv += ["--group", t.group, "--iface-addr", host.spec.data_address]
    else:
        argv += ["--bind", host.spec.data_address]
    if p.get("rcvbuf") is not None:
        argv += ["--rcvbuf", str(int(p["rcvbuf"]))]
        if t.rcvbuf_force:
            argv.append("--rcvbuf-force")
    if int(p.get("readers") or 1) > 1:
        argv += ["--readers", str(int(p["readers"]))]
        if p["protocol"] == "udp":  # reuseport off: threads on one socket
            argv += ["--sockets", "reuseport" if p.get("reuseport") == "on" else "shared"]
    if p.get("recv_work"):
        argv += ["--work-ns", str(int(round(float(p["recv_work"]) * 1e9)))]
    if p["protocol"] == "tcp":
        argv += ["--payload", str(int(p["payload"]))]
    # The harness ends the run (after draining); the deadline only guards a lost harness.
    deadline = float(p["duration"]) + start_delay(len(t.streams)) + 120
    argv += [
        "--duration",
        f"{deadline:g}",
        "--idle-timeout",
        "0",
        "--ready-file",
        receiver_file(host, RECV_READY),
        "--json",
        receiver_file(host, RECV_REPORT),
    ]
    if t.keep_log:
        argv += ["--log", receiver_file(host, RECV_LOG)]
    if host.name in t.cpu_window and p["protocol"] == "udp":
        argv += [
            "--cpu-window",
            f"{cpu_window_seconds(float(p['duration'])):g}",
            "--cpu-window-irq",
            t.cpu_window[host.name],
        ]
    return argv + ["--stamp-clock", stamp_clock(t)]


def cpu_window_seconds(duration: float) -> float:
    """lanloss-recv --cpu-window for a traffic of `duration` seconds: from the first
    datagram to a tenth of a second before the senders stop (half of a shorter traffic),
    so that the window ends while the traffic still runs."""
    return duration - min(0.1, duration / 2)


def stamp_clock(t: Traffic) -> str:
    """The tools' --stamp-clock: one kernel's CLOCK_MONOTONIC, else CLOCK_REALTIME."""
    return clocks.STAMP_SHARED if t.shared_clock else clocks.STAMP_ACROSS


SENDER_RT_PRIORITY = 10  # below the kernel's own RT threads (migration, watchdog: 99)


def send_argv(t: Traffic, s: Stream, start_at: int | None) -> list[str]:
    p = t.params
    rate = "max" if s.rate == "max" else str(int(s.rate))
    argv = [
        _tool(t, s.sender, "lanloss-send"),
        "--dst",
        s.dst,
        "--port",
        str(s.port),
        "--proto",
        p["protocol"],
        "--payload",
        str(int(p["payload"])),
        "--rate",
        rate,
        "--pattern",
        p["pattern"],
        "--seed",  # the run's: the tool draws flow s.id's stream (lanloss-schedule.h)
        str(int(p["seed"])),
        "--duration",
        _duration(p),
        "--flow",
        str(s.id),
        "--stamp-clock",
        stamp_clock(t),
        "--json",
        send_report(s),
    ]
    if t.group:
        argv += ["--mcast-if", s.sender.spec.data_address, "--ttl", "1"]
    if p.get("sndbuf") is not None:
        argv += ["--sndbuf", str(int(p["sndbuf"]))]
        if t.sndbuf_force:
            argv.append("--sndbuf-force")
    if start_at is not None:
        argv += ["--start-at", str(start_at)]
    if p.get("start_burst"):
        argv += ["--start-burst", str(int(p["start_burst"]))]
    if p["protocol"] == "udp" and rate != "max":
        # A paced sender under SCHED_FIFO keeps its schedule where CFS would delay it by a
        # slice and then let it burst (testbed/tools/realtime.c); the tool declines above
        # the rate it can pace so, and its report's "sched" says what it ran under.
        argv += ["--realtime", str(SENDER_RT_PRIORITY)]
    return argv


def iperf_server_argv(t: Traffic, s: Stream, host: Host) -> list[str]:
    return [
        "iperf3",
        "-s",
        "-1",
        "-B",
        host.spec.data_address,
        "-p",
        str(s.port),
        "-J",
        "--logfile",
        iperf_server_report(s, host),
    ]


def iperf_client_argv(t: Traffic, s: Stream) -> list[str]:
    p = t.params
    argv = [
        "iperf3",
        "-c",
        s.dst,
        "-p",
        str(s.port),
        "-l",
        str(int(p["payload"])),
        "-t",
        _duration(p),
        "-J",
        "--logfile",
        iperf_client_report(s),
    ]
    if p["protocol"] == "udp":
        rate = "0" if s.rate == "max" else str(int(s.rate))
        argv += ["-u", "-b", rate, "--udp-counters-64bit"]
    window = p.get("rcvbuf") or p.get("sndbuf")
    if window:
        argv += ["-w", str(int(window))]  # iperf3 sets both ends' buffers from one -w
    return argv


def _spawn(t: Traffic, host: Host, argv: list[str], label: str, journal: Any) -> Proc:
    pre = [*t.pin.get(host.name, []), *t.pre.get(host.name, [])]
    log = os.path.join(host.local_dir, f"{label}.out")
    proc = host.transport.spawn(
        argv, log, cgroup_procs=t.cgroups.get(host.name), pre=pre, workdir=host.workdir
    )
    proc.label = label  # type: ignore[attr-defined]
    proc.host = host  # type: ignore[attr-defined]
    proc.log = log  # type: ignore[attr-defined]
    journal.record("procs", proc.journal_entry())
    return proc


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            text = fh.read()[-2000:].decode(errors="replace").strip()
    except OSError:
        return ""
    return text.splitlines()[-1] if text else ""


def _no_report(exc: BedError, status: int | None, said: str) -> str:
    """Why a receiver's report is missing, in one line: killed after the stop grace (its
    report file is opened at start and written last), or its own last words."""
    if status in (-signal.SIGKILL, 128 + signal.SIGKILL):
        return (
            f"{exc}: lanloss-recv did not finish within {RECV_STOP_GRACE_S:g}s of the "
            "harness's stop and was killed before writing its report (a reader works "
            "recv_work on each datagram of its batch before it sees the stop)"
        )
    how = "still running" if status is None else f"exit status {status}"
    return f"{exc}; lanloss-recv ({how}) said: {said or 'nothing'}"


def _read_json(host: Host, path: str) -> dict[str, Any]:
    data = host.transport.read_file(path)
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise BedError(f"{host.name}: {path} is not JSON ({exc})") from None


def read_log(host: Host, path: str) -> dict[int, list[Arrival]]:
    """The receiver's per-packet log: flow -> its records, in arrival order."""
    size = host.transport.file_size(path)
    if size is None or size > MAX_LOG_BYTES:
        return {}
    data = host.transport.read_file(path, timeout=120)
    return parse_log(data)


def parse_log(data: bytes) -> dict[int, list[Arrival]]:
    """Per-packet log bytes -> flow -> its records (a torn last record is left out)."""
    at = [LOG_FIELDS.index(name) for name in ("seq", "tx_ns", "rx_ns", "flow", "len")]
    flows: dict[int, list[Arrival]] = {}
    usable = len(data) - len(data) % LOG_RECORD.size
    for rec in LOG_RECORD.iter_unpack(data[:usable]):
        seq, tx_ns, rx_ns, flow, length = (rec[i] for i in at)
        flows.setdefault(flow, []).append(Arrival(seq, tx_ns, rx_ns, length))
    return flows


def _socket_queue(host: Host, proto: str, port: int) -> int | None:
    """Bytes waiting in the receive queues of sockets bound to `port` (None: unreadable)."""
    r = host.transport.run(["cat", f"/proc/net/{proto}"], timeout=10)
    if not r.ok:
        return None
    total = 0
    for line in r.out.splitlines()[1:]:
        cols = line.split()
        if len(cols) > 4 and cols[1].endswith(f":{port:04X}"):
            total += int(cols[4].split(":")[1], 16)
    return total


def _point_files(t: Traffic) -> dict[str, tuple[Host, list[str]]]:
    """Per host, the paths this attempt's tools write in its run folder."""
    files: dict[str, tuple[Host, list[str]]] = {}
    for h in t.receivers:
        mine = [receiver_file(h, name) for name in (RECV_READY, RECV_REPORT, RECV_LOG)]
        mine += [iperf_server_report(s, h) for s in t.streams]
        files.setdefault(h.name, (h, []))[1].extend(mine)
    for s in t.streams:
        mine = [send_report(s), iperf_client_report(s)]
        files.setdefault(s.sender.name, (s.sender, []))[1].extend(mine)
    return files


def _clear_point_files(t: Traffic) -> None:
    """Remove, by exact name, what this attempt's tools will write. An attempt measured
    again (--retry-disturbed) runs in the same run folders as the one before it, and no
    file that attempt left may stand for this one's: its recv.ready would let the senders
    start before this receiver has bound (the first datagrams then meet no socket: the
    receiver's Udp NoPorts, unexplained), its reports would stand for a tool that wrote
    none."""
    for host, files in _point_files(t).values():
        try:
            host.transport.remove_files(files)
        except BedError as exc:
            raise BedError(f"{exc} (the last attempt's files in {host.workdir})") from None


def run(
    t: Traffic,
    journal: Any,
    network_idle: Callable[[], bool],
    tick: Callable[[str, float], None] = lambda phase, frac: None,
) -> Outcome:
    """Run one traffic phase; every started process is stopped before this returns."""
    procs: list[Proc] = []
    timing: dict[str, float] = {}
    _clear_point_files(t)
    try:
        if t.tool == "lanloss":
            return _run_lanloss(t, journal, network_idle, tick, procs, timing)
        return _run_iperf(t, journal, tick, procs, timing)
    finally:
        for p in procs:  # senders first (they were started last), then receivers
            p.stop(grace=5.0)
        for p in procs:
            journal.forget("procs", p.journal_entry())


def start_delay(senders: int) -> float:
    """Seconds from setting the senders' start time to the start (START_DELAY_S)."""
    return START_DELAY_S + START_DELAY_PER_SENDER_S * max(0, senders - 1)


def _wait_senders(
    t: Traffic, senders: list[Proc], tick: Callable[[str, float], None], timing: dict[str, float]
) -> None:
    duration = float(t.params["duration"])
    t0 = time.monotonic()
    delay = start_delay(len(senders))
    limit = duration + delay + 60.0
    while any(p.poll() is None for p in senders):
        el = time.monotonic() - t0
        tick("traffic", min(1.0, el / (duration + delay)))
        if el > limit:
            raise BedError(f"senders still running {limit:.0f}s after the start")
        time.sleep(0.01)
    timing["traffic_s"] = time.monotonic() - t0
    for p in senders:
        if p.poll() != 0:
            host = p.host  # type: ignore[attr-defined]
            raise BedError(
                f"{host.name}: {p.label} exited with {p.poll()}: "  # type: ignore[attr-defined]
                f"{_tail(p.log)}"
            )  # type: ignore[attr-defined]


def _run_lanloss(
    t: Traffic,
    journal: Any,
    network_idle: Callable[[], bool],
    tick: Callable[[str, float], None],
    procs: list[Proc],
    timing: dict[str, float],
) -> Outcome:
    receivers: dict[str, Proc] = {}
    t0 = time.monotonic()
    for h in t.receivers:
        receivers[h.name] = _spawn(t, h, recv_argv(t, h), f"recv-{h.name}", journal)
        procs.append(receivers[h.name])

    def ready() -> bool:
        for h in t.receivers:
            if receivers[h.name].poll() is not None:
                raise BedError(
                    f"{h.name}: lanloss-recv exited before it was ready: "
                    f"{_tail(receivers[h.name].log)}"
                )  # type: ignore[attr-defined]
        return all(
            h.transport.run(["test", "-e", receiver_file(h, RECV_READY)]).ok for h in t.receivers
        )

    tick("barrier", 0.0)
    if not wait_until(ready, READY_TIMEOUT_S, 0.02):
        raise BedError(f"receivers not ready within {READY_TIMEOUT_S:g}s")
    timing["barrier_s"] = time.monotonic() - t0

    delay_ns = int(start_delay(len(t.streams)) * 1e9)
    start_at = time.monotonic_ns() + delay_ns if t.shared_clock else None
    senders = []
    for s in t.streams:
        p = _spawn(t, s.sender, send_argv(t, s, start_at), f"send-{s.id}", journal)
        senders.append(p)
        procs.insert(0, p)
    _wait_senders(t, senders, tick, timing)

    # Drain: shapers empty and socket queues empty twice in a row, then stop receivers.
    t1 = time.monotonic()
    proto = t.params["protocol"]
    tick("drain", 0.0)

    def drained() -> bool:
        if not network_idle():
            return False
        return all(_socket_queue(h, proto, PORT) in (0, None) for h in t.receivers)

    # Idle at two checks 20 ms apart: between a queue the checks see (a shaper's backlog,
    # a socket's) and the next, a datagram is out of sight for microseconds (a softirq).
    quiet = 0
    while time.monotonic() - t1 < 60:
        quiet = quiet + 1 if drained() else 0
        if quiet == 2:
            break
        time.sleep(0.02)
    stopped = {h.name: receivers[h.name].stop(grace=RECV_STOP_GRACE_S) for h in t.receivers}
    timing["drain_s"] = time.monotonic() - t1

    senders_rep = {}
    for s in t.streams:
        senders_rep[s.id] = _read_json(s.sender, send_report(s))
    recv_rep, logs = {}, {}
    for h in t.receivers:
        try:
            recv_rep[h.name] = _read_json(h, receiver_file(h, RECV_REPORT))
        except BedError as exc:
            raise BedError(_no_report(exc, stopped[h.name], _tail(receivers[h.name].log))) from None
        if t.keep_log:
            logs[h.name] = read_log(h, receiver_file(h, RECV_LOG))
    return Outcome(senders_rep, recv_rep, logs, timing, {})


def _run_iperf(
    t: Traffic,
    journal: Any,
    tick: Callable[[str, float], None],
    procs: list[Proc],
    timing: dict[str, float],
) -> Outcome:
    servers: dict[int, Proc] = {}
    t0 = time.monotonic()
    for s in t.streams:
        h = s.receivers[0]
        servers[s.id] = _spawn(t, h, iperf_server_argv(t, s, h), f"iperf-server-{s.id}", journal)
        procs.append(servers[s.id])

    def ready() -> bool:
        for s in t.streams:
            h = s.receivers[0]
            if servers[s.id].poll() is not None:
                raise BedError(f"{h.name}: iperf3 -s exited early: {_tail(servers[s.id].log)}")  # type: ignore[attr-defined]
            r = h.transport.run(["ss", "-Hltn", f"sport = :{s.port}"])
            if not r.out.strip():
                return False
        return True

    tick("barrier", 0.0)
    if not wait_until(ready, READY_TIMEOUT_S, 0.05):
        raise BedError(f"iperf3 servers not listening within {READY_TIMEOUT_S:g}s")
    timing["barrier_s"] = time.monotonic() - t0
    clients = []
    for s in t.streams:
        p = _spawn(t, s.sender, iperf_client_argv(t, s), f"iperf-client-{s.id}", journal)
        clients.append(p)
        procs.insert(0, p)
    _wait_senders(t, clients, tick, timing)
    t1 = time.monotonic()
    for s in t.streams:
        if servers[s.id].wait(15.0) is None:
            servers[s.id].stop()
    timing["drain_s"] = time.monotonic() - t1
    snd, rcv = {}, {}
    for s in t.streams:
        snd[s.id] = _read_json(s.sender, iperf_client_report(s))
        h = s.receivers[0]
        rcv[f"{h.name}#{s.id}"] = _read_json(h, iperf_server_report(s, h))
    return Outcome(snd, rcv, {}, timing, {})


def describe_commands(t: Traffic) -> list[str]:
    """The command lines, for the record (a point can always be re-run by hand)."""
    if t.tool == "lanloss":
        out = [shlex.join(recv_argv(t, h)) for h in t.receivers]
        return out + [shlex.join(send_argv(t, s, None)) for s in t.streams]
    out = [shlex.join(iperf_server_argv(t, s, s.receivers[0])) for s in t.streams]
    return out + [shlex.join(iperf_client_argv(t, s)) for s in t.streams]
