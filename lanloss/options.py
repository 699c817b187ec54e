# SPDX-License-Identifier: GPL-2.0-only
"""The shared option vocabulary: defined once, everything else derives from it.

The CLI options of ``lanloss sim run`` / ``lanloss bed run``, the ns-3 scenario
flags (same names, ``--edge_rate=...``), the Snakemake study schema and the docs
table are all generated from ``OPTIONS`` or checked against it (see
tests/test_options.py). Adding an option is one edit here (plus the code that
uses it).

Values are normalised to canonical numbers: rates in bit/s, sizes in bytes,
times in seconds. ``resolve()`` validates a whole parameter set and fills the
defaults; errors are ``OptionError`` naming the option and the bad value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lanloss import header_constants, host_presets, paths, units


class OptionError(ValueError):
    """A bad option name or value; the message names both."""


@dataclass(frozen=True)
class Option:
    name: str
    kind: str  # rate | rate_or_max | size | time | int | probability | choice | topology | pattern
    default: Any
    help: str
    example: str = ""
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    sim: bool = True  # implemented by the simulator
    bed: bool = True  # implemented by the testbed harness

    @property
    def one_source_because(self) -> str:
        """Why only one source implements it (ONE_SOURCE_BECAUSE), '' for shared options."""
        return ONE_SOURCE_BECAUSE.get(self.name, "")

    @property
    def flag(self) -> str:
        """The CLI flag: design names with dashes."""
        return "--" + self.name.replace("_", "-")


TOPOLOGIES = ("star", "two-tier", "two-site")  # the named LANs (lanloss.topology builds them)
# The largest UDP payload, from the ns-3 module's one definition (lanloss-linux-rx.h).
UDP_MAX_PAYLOAD = header_constants.UDP_MAX_PAYLOAD
# The largest SO_RCVBUF / SO_SNDBUF Linux takes: INT_MAX / 2 (sk_rcvbuf, an int, is twice it).
SOCKET_BUFFER_MAX = (2**31 - 1) // 2
_PATTERN_RE = re.compile(r"^(cbr|poisson|burst:([1-9][0-9]*))$")

OPTIONS: tuple[Option, ...] = (
    Option(
        "topology",
        "topology",
        "star",
        "star (one switch), two-tier (edge switches on a core), two-site (two stars "
        "joined by one long backbone link), or a topology file (YAML)",
        "star",
    ),
    Option("edge_rate", "rate", 100_000_000, "link speed of the hosts' edge links", "100Mbps"),
    Option(
        "backbone_rate",
        "rate",
        1_000_000_000,
        "link speed between switches (two-tier, two-site)",
        "1Gbps",
    ),
    Option(
        "sender_rate", "rate", None, "link speed of the sending hosts (default: edge_rate)", "1Gbps"
    ),
    Option(
        "link_delay", "time", 1e-6, "propagation delay of every LAN link", "1us", bed=False
    ),  # bed: physical (ssh) or not emulated (netns: this kernel has no netem)
    Option(
        "wan_delay",
        "time",
        1.6e-3,
        "propagation delay of the two-site backbone link",
        "1.6ms",
        bed=False,
    ),
    Option(
        "edge_switches",
        "int",
        2,
        "edge switches under the core (two-tier)",
        "2",
        minimum=1,
        maximum=64,
    ),
    Option("senders", "int", 1, "sending hosts", "1", minimum=1, maximum=1024),
    Option("receivers", "int", 1, "receiving hosts", "40", minimum=1, maximum=1024),
    Option(
        "cast",
        "choice",
        "unicast",
        "unicast, or multicast (one group, N members)",
        "multicast",
        choices=("unicast", "multicast"),
    ),
    Option(
        "protocol",
        "choice",
        "udp",
        "transport protocol (tcp: bulk transfer of payload-byte messages)",
        "udp",
        choices=("udp", "tcp"),
    ),
    Option(
        "payload",
        "int",
        1472,
        f"UDP payload size in bytes (at most {UDP_MAX_PAYLOAD}); TCP: the message size of each "
        "send() (netperf -m, iperf3 -l; at most 1048576, as lanloss-send)",
        "1472",
        minimum=1,
        maximum=1048576,
    ),
    Option(
        "rate",
        "rate_or_max",
        "max",
        "offered payload bit rate per sender (as iperf3 -b); max = as fast as the "
        "sender's own stack accepts (blocking socket, no sender drops)",
        "20Mbps",
    ),
    Option("pattern", "pattern", "cbr", "cbr, poisson or burst:N", "cbr"),
    Option(
        "start_burst",
        "int",
        0,
        "UDP datagrams each sender sends back to back as its flow starts, before its pattern "
        "(0: none): a kick that hands a saturated receiver's kernel work to ksoftirqd",
        "200",
        minimum=0,
        maximum=1_000_000,
    ),
    Option(
        "duration",
        "time",
        1.0,
        "traffic duration (the run lasts until the network drains)",
        "2s",
        minimum=1e-6,
    ),
    Option("warmup", "time", 0.1, "start of the run discarded from goodput", "0.2s"),
    Option("seed", "int", 1, "RNG run number", "1", minimum=1, maximum=2**31 - 1),
    Option(
        "mtu",
        "int",
        1500,
        "IP MTU of every link (1500, or 9000 for jumbo frames)",
        "1500",
        minimum=68,
        maximum=9216,
    ),
    Option(
        "pause",
        "choice",
        "off",
        "IEEE 802.3x flow control on hosts and switch ports",
        "on",
        choices=("off", "on"),
    ),
    Option(
        "pause_style",
        "choice",
        "xon",
        "xon: XOFF with pause_quanta then explicit XON (igb); timed: PAUSE with "
        "pause_quanta refreshed at half its length, no XON (e1000e)",
        "timed",
        choices=("xon", "timed"),
        bed=False,
    ),
    Option(
        "pause_quanta",
        "int",
        0xFFFF,
        "pause_time sent in an XOFF, in quanta of 512 bit times",
        "1664",
        minimum=1,
        maximum=0xFFFF,
        bed=False,
    ),
    Option(
        "switch_buffer",
        "size",
        128 * 1024,
        "egress buffer per switch port in bytes",
        "128KiB",
        minimum=64,
        maximum=0xFFFFFFFF,
    ),  # bed: netns shaper queue limit; a real switch is not set
    Option(
        "switch_pool",
        "size",
        0,
        "shared buffer pool of each switch in bytes (0 = egress limits only)",
        "1MiB",
        maximum=0xFFFFFFFF,
        bed=False,
    ),
    Option(
        "tx_queue",
        "size",
        1024 * 1024,
        "transmit queue of each host NIC in bytes (the qdisc plus TX ring)",
        "1MiB",
        minimum=64,
        maximum=0xFFFFFFFF,
    ),  # bed: netns host shaper queue limit; real hosts are not set
    Option(
        "blocking",
        "choice",
        "off",
        "a paced sender whose transmit queue is full waits (on) or drops the datagram, "
        "counted as sender_queue (off); rate max always waits",
        "on",
        choices=("off", "on"),
        bed=False,
    ),
    Option(
        "send_cost",
        "time",
        0.0,
        "the sending host's CPU time per send() call (the system call; UDP: with its IP and "
        "UDP work): a CPU-bound sender makes one call per send_cost + payload x "
        "send_byte_cost + frames x send_packet_cost",
        "5us",
        maximum=1.0,
        bed=False,
    ),
    Option(
        "send_byte_cost",
        "time",
        0.0,
        "the sending host's CPU time per payload byte (copy from user space, checksum)",
        "1ns",
        maximum=1e-3,
        bed=False,
    ),
    Option(
        "send_packet_cost",
        "time",
        0.0,
        "the sending host's CPU time per frame it sends (the driver's transmission; TCP: "
        "the segment's and the ACK the receiver returns for it, charged per byte written "
        "as send_packet_cost / MSS)",
        "2us",
        maximum=1.0,
        bed=False,
    ),
    Option(
        "host",
        "choice",
        "ideal",
        "receive-host model: ideal (no CPU or socket limits) or a preset: "
        + host_presets.summaries()
        + "; each value below overrides the preset (lanloss/host_presets.py)",
        "e1000-2008",
        choices=("ideal", *host_presets.TABLE),
        bed=False,
    ),
    Option(
        "cores",
        "int",
        None,
        "CPU cores of a receiving host",
        "1",
        minimum=1,
        maximum=64,
        bed=False,
    ),
    Option(
        "irq_cost",
        "time",
        None,
        "CPU time per NIC interrupt (hard IRQ)",
        "8us",
        maximum=0.1,
        bed=False,
    ),
    Option(
        "packet_cost",
        "time",
        None,
        "kernel CPU time per received frame (driver poll + IP/UDP, split in the preset's ratio)",
        "4us",
        maximum=0.1,
        bed=False,
    ),
    Option(
        "read_cost",
        "time",
        None,
        "application CPU time per datagram read (recvmsg and the application's own work)",
        "5us",
        maximum=0.1,
        bed=False,
    ),
    Option(
        "read_byte_cost",
        "time",
        None,
        "application CPU time per payload byte read (the copy to user space)",
        "0.5ns",
        maximum=1e-3,
        bed=False,
    ),
    Option(
        "read_call_cost",
        "time",
        None,
        "UDP application CPU time per receive call beyond its datagrams' reads (a call takes "
        "the datagrams waiting, at most 64, as lanloss-recv's recvmmsg: the system call's "
        "entry and exit, the application's work per call); 0: a call per datagram, its "
        "cost in read_cost",
        "1us",
        maximum=0.1,
        bed=False,
    ),
    Option(
        "wakeup_cost",
        "time",
        None,
        "CPU time of a reader woken when the lock of a socket it shares with other readers "
        "is handed to it (a context switch; reuseport off, readers > 1); with a preset's "
        "Linux socket locks (x3440-2010), also of every reader woken from its sleep",
        "2us",
        maximum=0.1,
        bed=False,
    ),
    # An icount guest's emulator (qemu-e1000's GuestClock): measured per testbed point
    # (env.vm.icount.window), solved per study by `lanloss calibrate --table`.
    Option(
        "guest_emulation_share",
        "probability",
        None,
        "a preset with a guest clock (qemu-e1000): the real time the emulator takes per "
        "second of the busy guest's clock (1 / its speed-up; the preset's 0.092 unless given)",
        "0.092",
        minimum=1e-4,
        bed=False,
    ),
    Option(
        "guest_interrupt_stall",
        "time",
        None,
        "a preset with a guest clock (qemu-e1000): the real time the emulator spends per "
        "interrupt while the guest's clock stands still (the preset's 123 us unless given)",
        "123us",
        maximum=0.01,
        bed=False,
    ),
    Option(
        "reader_cores",
        "choice",
        None,
        "where a multi-core host's readers run: others (cores other than the NIC "
        "interrupt's, reader i on 1 + i mod (cores - 1)) or all (reader i on i mod cores: "
        "the first on the interrupt's core, where the softirq that wakes it runs, as the "
        "scheduler places a waker's wakee; the others spread)",
        "all",
        choices=("others", "all"),
        bed=False,
    ),
    Option(
        "truesize",
        "size",
        None,
        "skb truesize charged per received frame in bytes (0 = the driver's rule)",
        "2304",
        maximum=1 << 24,
        bed=False,
    ),
    Option(
        "rx_fifo",
        "size",
        None,
        "NIC receive FIFO in bytes",
        "48KiB",
        minimum=2048,
        maximum=1 << 24,
        bed=False,
    ),
    Option(
        "rx_ring", "int", None, "NIC RX descriptors", "256", minimum=80, maximum=4096
    ),  # E1000_MIN_RXD / E1000_MAX_RXD (igb, ixgbe alike)
    Option(
        "itr",
        "int",
        None,
        "max interrupts per second; 0 = one per packet",
        "2500",
        minimum=0,
        maximum=1_000_000,
    ),
    Option(
        "backlog",
        "int",
        None,
        "netdev_max_backlog (sim: used with rps on)",
        "1000",
        minimum=1,
        maximum=1 << 24,
    ),
    Option(
        "rps",
        "choice",
        None,
        "Receive Packet Steering over every core of the receiving host (IP and UDP on the "
        "core the flow hash picks, through the backlog)",
        "on",
        choices=("off", "on"),
        bed=False,
    ),
    Option(
        "rcvbuf",
        "size",
        None,
        "socket receive buffer as passed to setsockopt (Linux doubles it)",
        "212992",
        maximum=SOCKET_BUFFER_MAX,
    ),
    Option(
        "sndbuf",
        "size",
        None,
        "socket send buffer as passed to setsockopt",
        "212992",
        maximum=SOCKET_BUFFER_MAX,
        sim=False,
    ),
    Option(
        "readers",
        "int",
        1,
        "receiving processes per receiver",
        "1",
        minimum=1,
        maximum=256,
    ),
    Option(
        "reuseport",
        "choice",
        "off",
        "several readers: off = they share one socket (threads on one descriptor, one copy "
        "at a time); on = a socket each in a SO_REUSEPORT group on the port, the datagrams "
        "dealt out to them in turn (processes each on its own port, seed 004's Model 1)",
        "on",
        choices=("off", "on"),
    ),
    Option(
        "stall_period",
        "time",
        None,
        "the receiving application stalls (reads nothing, no CPU) once per this period, "
        "from the start of the traffic; 0 = never",
        "50ms",
        bed=False,
    ),
    Option("stall_length", "time", None, "length of each application stall", "3ms", bed=False),
    Option(
        "frame_loss",
        "probability",
        0.0,
        "probability that a receiving NIC discards a frame as corrupt (bad FCS; an ns-3 "
        "error model): drop point rx_error",
        "0.001",
        maximum=0.999999,
        bed=False,
    ),
    Option(
        "tcp_window",
        "size",
        None,
        "TCP window: both socket buffers of TCP runs in bytes (ns-3 TcpSocket SndBufSize, "
        "RcvBufSize)",
        "16KiB",
        minimum=2048,
        maximum=1 << 30,
        bed=False,
    ),
    # A slow receiving application, the same on both sources: on the testbed a cgroup CPU
    # quota and busy work in lanloss-recv, in the simulator a HostCpu bandwidth group and
    # HostReader WorkCost (both need a host model there).
    Option(
        "recv_cpu",
        "int",
        None,
        "CPU share of each receiving host's readers in percent of one CPU: a CFS quota per "
        "100 ms period (testbed: a cgroup, or SCHED_IDLE without a cpu controller; "
        "simulator: the host model's bandwidth group)",
        "20",
        minimum=1,
        maximum=100,
    ),
    Option(
        "recv_work",
        "time",
        None,
        "the receiving application's own CPU work per datagram, after the read",
        "2us",
        maximum=1.0,
    ),
    # Seed 003's timing: the receiver echoes each message's stamp, the sender times the
    # round trip (models/model/message-echo.h, echo-timer.h).
    Option(
        "echo",
        "choice",
        "off",
        "on: a thread of the receiving host sends each message's 8-byte send stamp back to "
        "the sender, whose timing thread adds the round trip (seed 003's send time; needs a "
        "host model)",
        "on",
        choices=("off", "on"),
        bed=False,
    ),
    Option(
        "echo_cost",
        "time",
        0.0,
        "the receiving host's CPU time per echo (the echo thread's send() call)",
        "9us",
        maximum=1.0,
        bed=False,
    ),
    Option(
        "echo_recv_cost",
        "time",
        0.0,
        "the sender's timing thread's CPU time per echo (its receive() call), on a core of its own",
        "9us",
        maximum=1.0,
        bed=False,
    ),
)

# Why an option exists for one source only: where the physics allows, options are shared.
_NETEM = "the testbed's kernel has no netem (docs/testbed.md §1); on real hosts the cable decides"
_HOST = (
    "the testbed's host is a real one: its costs are measured, and `lanloss fit` calibrates "
    "them into a host file for the simulator"
)
ONE_SOURCE_BECAUSE: dict[str, str] = {
    "link_delay": _NETEM,
    "wan_delay": _NETEM,
    "frame_loss": _NETEM,
    "pause_style": "a real NIC's PAUSE style and quanta are its driver's constants, not settings; "
    "veth has no PAUSE",
    "pause_quanta": "a real NIC's PAUSE style and quanta are its driver's constants, not "
    "settings; veth has no PAUSE",
    "switch_pool": "a Linux bridge has per-port queues only, no shared buffer pool",
    "blocking": "the testbed's sender is a real socket: lanloss-send paces without blocking "
    "and counts what the socket refuses as sender_socket",
    "send_cost": "the testbed's sender is a real CPU: its cost per send() is the machine's "
    "(measured as achieved_send_bps), not a setting",
    "send_byte_cost": "the testbed's sender is a real CPU: its cost per byte is the machine's "
    "(measured as achieved_send_bps), not a setting",
    "send_packet_cost": "the testbed's sender is a real CPU: its cost per frame is the "
    "machine's (measured as achieved_send_bps), not a setting",
    "host": _HOST,
    "cores": _HOST,
    "irq_cost": _HOST,
    "packet_cost": _HOST,
    "read_cost": _HOST + " (on the testbed, recv_work adds to it)",
    "read_byte_cost": _HOST,
    "read_call_cost": _HOST,
    "wakeup_cost": _HOST,
    "reader_cores": "the testbed pins its receiving processes itself, away from the "
    "sender's CPU (docs/testbed.md §5); on real hosts the scheduler decides",
    "truesize": _HOST,
    "rx_fifo": _HOST + " (a NIC's FIFO is fixed by its hardware)",
    "rps": "not applied by the testbed harness yet (rps_cpus in sysfs; veth in netns has one "
    "queue)",
    "stall_period": "lanloss-recv has no stall schedule yet",
    "stall_length": "lanloss-recv has no stall schedule yet",
    "tcp_window": "on the testbed Linux derives the window from the socket buffers: use rcvbuf "
    "and sndbuf",
    "sndbuf": "the simulator's sender has no socket send buffer: its queue is tx_queue",
    "echo": "lanloss-send and lanloss-recv time one way with the payload header's stamp; "
    "they have no echo thread",
    "echo_cost": "lanloss-recv has no echo thread",
    "echo_recv_cost": "lanloss-send has no echo timing thread",
    "guest_emulation_share": "the testbed's guest is the emulator itself: the harness measures "
    "it (env.vm.icount.window) and `lanloss calibrate --table` solves a study for it",
    "guest_interrupt_stall": "the testbed's guest is the emulator itself: the harness measures "
    "it (env.vm.icount.window) and `lanloss calibrate --table` solves a study for it",
}

# The testbed's lanloss-recv takes up to RECV_BATCH datagrams per recvmmsg and works
# recv_work on each before it looks at the harness's stop again; the harness (lanloss.testbed
# .traffic) gives it RECV_STOP_GRACE_S after the stop to write its report, then kills it.
RECV_BATCH = 64  # lanloss-recv --batch default (testbed/tools/recv.c)
RECV_STOP_GRACE_S = 10.0
CFS_PERIOD_S = 0.1  # the recv_cpu quota's period (lanloss.testbed.cpulimit)

BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}


def for_source(source: str) -> tuple[Option, ...]:
    """Options implemented by 'sim' or 'bed'."""
    return tuple(o for o in OPTIONS if getattr(o, source))


def _check_range(opt: Option, value: float, text: Any) -> None:
    if opt.minimum is not None and value < opt.minimum:
        raise OptionError(f"{opt.name}: {text!r} is below the minimum {opt.minimum:g}")
    if opt.maximum is not None and value > opt.maximum:
        raise OptionError(f"{opt.name}: {text!r} is above the maximum {opt.maximum:g}")


def _parse_int(text: Any) -> int:
    if isinstance(text, bool):
        raise ValueError(f"expected a whole number, got {text!r}")
    if isinstance(text, int):
        return text
    s = str(text).strip()
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        raise ValueError(f"expected a whole number, got {text!r}")
    return int(s)


def _parse_probability(text: Any) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"{text!r} is not a probability (e.g. 0.001)") from None
    if not 0.0 <= value < 1.0:
        raise ValueError(f"{text!r} is not a probability in [0, 1)")
    return value


# The largest burst both sources send: lanloss-send's limit (testbed/tools/send.c).
MAX_BURST = 1_000_000


def _parse_pattern(text: Any) -> str:
    """cbr, poisson or burst:N with N in 1..MAX_BURST, lower-cased."""
    value = str(text).strip().lower()
    match = _PATTERN_RE.match(value)
    if not match:
        raise ValueError(f"{text!r} is not cbr, poisson or burst:N (N >= 1)")
    if match.group(2) is not None and int(match.group(2)) > MAX_BURST:
        raise ValueError(f"{text!r} has a burst size above {MAX_BURST}")
    return value


_PARSERS: dict[str, Callable[[Any], Any]] = {
    "rate": units.parse_rate,
    "probability": _parse_probability,
    "size": units.parse_size,
    "time": units.parse_time,
    "int": _parse_int,
}


def parse_value(opt: Option, text: Any) -> Any:
    """One option's text -> canonical value, or OptionError naming both."""
    if text is None:
        return None
    try:
        if opt.kind == "rate_or_max":
            if str(text).strip().lower() == "max":
                return "max"
            value = units.parse_rate(text)
        elif opt.kind in _PARSERS:
            value = _PARSERS[opt.kind](text)
        elif opt.kind == "choice":
            value = str(text).strip().lower()
            if value not in opt.choices:
                raise ValueError(f"{text!r} is not one of {', '.join(opt.choices)}")
        elif opt.kind == "pattern":
            value = _parse_pattern(text)
        elif opt.kind == "topology":
            value = str(text).strip()
            if value not in TOPOLOGIES and not value.endswith((".yaml", ".yml")):
                raise ValueError(
                    f"{text!r} is not {', '.join(TOPOLOGIES)} or a topology file (.yaml)"
                )
            if value not in TOPOLOGIES:
                from lanloss import inputs  # (inputs imports this module)

                try:
                    inputs.check_file(paths.data_file(value), "topology file")
                except inputs.InputError as exc:
                    raise ValueError(f"topology file {text!r} {exc.why}") from None
        else:  # pragma: no cover - a new kind without a parser is a programming error
            raise AssertionError(f"no parser for kind {opt.kind}")
    except ValueError as exc:
        raise OptionError(f"{opt.name}: {exc}") from None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_range(opt, value, text)
    return value


def resolve(
    given: dict[str, Any], source: str = "sim", host_file: str | None = None
) -> dict[str, Any]:
    """Validate a parameter set for 'sim' or 'bed' and fill the defaults.

    Unknown names, values that cannot parse, options the source does not
    implement and inconsistent combinations all raise OptionError. For the sim,
    a host model's values are filled from its preset, then ``host_file`` (a
    calibrated host, lanloss.host_values), then the options given.
    """
    params: dict[str, Any] = {}
    explicit: set[str] = set()
    for name, text in given.items():
        key = name.replace("-", "_")
        opt = BY_NAME.get(key)
        if opt is None:
            raise OptionError(f"unknown option {name!r}")
        if not getattr(opt, source) and text is not None:
            raise OptionError(f"{key}: not supported by source {source!r} yet (given {text!r})")
        params[key] = parse_value(opt, text)
        if text is not None:
            explicit.add(key)
    # Every option appears in the record (defaults resolved), so sim and bed
    # tables share columns; options a source does not implement keep their default.
    for opt in OPTIONS:
        if params.get(opt.name) is None:
            params[opt.name] = opt.default
    if params.get("sender_rate") is None:
        params["sender_rate"] = params["edge_rate"]
    if params["warmup"] >= params["duration"]:
        raise OptionError(
            f"warmup: {params['warmup']:g}s must be shorter than duration {params['duration']:g}s"
        )
    if params["protocol"] == "udp" and params["payload"] > UDP_MAX_PAYLOAD:
        raise OptionError(f"payload: {params['payload']} exceeds the UDP maximum {UDP_MAX_PAYLOAD}")
    if params["cast"] == "multicast" and params["protocol"] == "tcp":
        raise OptionError("cast: multicast needs protocol udp (TCP is unicast)")
    if params["start_burst"] and params["protocol"] == "tcp":
        raise OptionError(f"start_burst: {params['start_burst']} applies to protocol udp only")
    if params["tcp_window"] is not None and params["protocol"] != "tcp":
        raise OptionError(f"tcp_window: {params['tcp_window']} applies to protocol tcp only")
    if params["reuseport"] == "on" and params["readers"] > 1:
        if params["cast"] == "multicast":
            raise OptionError(
                "reuseport: on with multicast: every socket of a SO_REUSEPORT group gets its "
                "own copy of a group's datagram; use reuseport off (readers share one socket)"
            )
        if params["protocol"] == "tcp":
            raise OptionError("reuseport: on applies to protocol udp only")
    if params["echo"] == "on" and params["cast"] == "multicast":
        raise OptionError("echo: on needs cast unicast (every member would echo each message)")
    if params["echo"] == "on" and params["host"] == "ideal":
        raise OptionError(
            "echo: on needs a host model (the echo thread runs on the receiving host's CPU): "
            "give host"
        )
    if source == "sim":
        from lanloss import host_values

        host_values.apply(params, explicit, host_file)
        _check_host(params, explicit)
    elif host_file is not None:
        raise OptionError(f"--host-file: {host_file!r}: host files are for the simulator")
    if source == "bed":
        _check_recv_work(params)
    return params


def _check_recv_work(params: dict[str, Any]) -> None:
    """The testbed's receiver must get through a batch of datagrams' work within the stop
    grace, or it is killed before it writes its report (RECV_BATCH, RECV_STOP_GRACE_S).

    lanloss-recv spins recv_work of wall time per datagram; under a recv_cpu quota each
    spin may end up to one CFS period minus the quota late (throttled past its end)."""
    work, cpu = params.get("recv_work"), params.get("recv_cpu")
    if not work:
        return
    late = CFS_PERIOD_S * (1 - cpu / 100) if cpu is not None else 0.0
    batch_s = RECV_BATCH * (work + late)
    if batch_s > RECV_STOP_GRACE_S:
        quota = f" at recv_cpu {cpu}%" if cpu is not None else ""
        raise OptionError(
            f"recv_work: {work:g}s per datagram{quota}: a testbed receiver's batch of up to "
            f"{RECV_BATCH} datagrams can take {batch_s:.3g}s to work through, more than the "
            f"{RECV_STOP_GRACE_S:g}s it has after the stop to write its report"
        )


def whole_ns(seconds: float) -> int:
    """A time as the simulator keeps it: whole nanoseconds (ns-3's Time resolution), halves
    rounded up as ns-3's llround does (0.5 ns -> 1 ns)."""
    return math.floor(seconds * 1e9 + 0.5)


def _check_host(params: dict[str, Any], explicit: set[str]) -> None:
    """Combinations of host values the model cannot run (sim, after the preset filled them)."""
    _check_guest_clock(params)
    if params["host"] == "ideal":
        return
    _check_stall(params["stall_period"], params["stall_length"])
    _check_reader_cores(params, explicit)
    if params["rx_fifo"] < params["mtu"] + 18:
        raise OptionError(
            f"rx_fifo: {params['rx_fifo']} bytes cannot hold one frame of MTU {params['mtu']}"
        )


def _check_guest_clock(params: dict[str, Any]) -> None:
    """The emulator's constants describe a preset's guest clock: none without one."""
    from lanloss.host_presets import TABLE

    preset = TABLE.get(params["host"])
    if preset is not None and preset.clock.advance > 0:
        return
    for name in ("guest_emulation_share", "guest_interrupt_stall"):
        if params.get(name) is not None:
            raise OptionError(
                f"{name}: {params[name]!r} applies to a host preset with a guest clock "
                f"(qemu-e1000), not host {params['host']}"
            )


def _check_reader_cores(params: dict[str, Any], explicit: set[str]) -> None:
    """reader_cores others asked for on a single core: there is no other core. A single-core
    preset's own "others" (its readers share the one core) is its setting, not a request."""
    from lanloss.host_values import PRESETS

    preset = PRESETS.get(params["host"], {})
    presets_own = preset.get("reader_cores") == "others" and preset.get("cores") == 1
    asked = "reader_cores" in explicit and params["reader_cores"] == "others"
    if asked and params["cores"] == 1 and not presets_own:
        raise OptionError(
            "reader_cores: 'others' needs more than one core (cores is 1: there is no core "
            "other than the interrupt's); use reader_cores all or cores 2 or more"
        )


def _check_stall(period: float, length: float) -> None:
    """The stall schedule as the simulator will run it: both times in whole nanoseconds."""
    period_ns, length_ns = whole_ns(period), whole_ns(length)
    for name, value, ns in (
        ("stall_period", period, period_ns),
        ("stall_length", length, length_ns),
    ):
        if value > 0 and ns == 0:
            raise OptionError(
                f"{name}: {value:g}s rounds to 0 ns (the simulator's times are whole "
                "nanoseconds); give 0 or at least 1ns"
            )
    if (period_ns > 0) != (length_ns > 0):
        raise OptionError(
            f"stall_length: {length:g}s and stall_period {period:g}s must both be 0 or both "
            "positive"
        )
    if period_ns > 0 and length_ns >= period_ns:
        rounded = (
            f" (in the simulator's whole nanoseconds: {length_ns} ns and {period_ns} ns)"
            if (length_ns, period_ns) != (length * 1e9, period * 1e9)
            else ""
        )
        raise OptionError(
            f"stall_length: {length:g}s must be shorter than stall_period {period:g}s{rounded}"
        )


def markdown_table(source: str | None = None) -> str:
    """The vocabulary as a Markdown table (for the README and docs)."""
    rows = ["| option | meaning | default | example | sim | bed |", "|---|---|---|---|---|---|"]
    for o in OPTIONS:
        if source and not getattr(o, source):
            continue
        default = "" if o.default is None else str(o.default)
        why = (
            f" ({'simulator' if o.sim else 'testbed'} only: {o.one_source_because})"
            if (o.one_source_because)
            else ""
        )
        rows.append(
            f"| `{o.name}` | {o.help}{why} | {default} | {o.example} | "
            f"{'yes' if o.sim else ''} | {'yes' if o.bed else ''} |"
        )
    return "\n".join(rows)


def flag_text(opt: Option, value: Any) -> str:
    """A canonical value as the scenario program's flag takes it (``--name=TEXT``)."""
    if opt.kind == "rate":
        return f"{int(value)}bps"
    if opt.kind == "rate_or_max":
        return "max" if value == "max" else f"{int(value)}bps"
    if opt.kind in ("time", "probability"):
        return f"{float(value)!r}" + ("s" if opt.kind == "time" else "")
    return str(value)
