# SPDX-License-Identifier: GPL-2.0-only
"""A run's totals: one definition for the simulator and the testbed (the record's ``totals``).

Both sources describe what happened per flow (sender -> receiver: sent, received, goodput)
and per *stream* (one sending application; a multicast stream feeds a flow per member),
and this module turns that into the record's ``totals``:

``offered_bps``
    the load offered to the receivers: per flow, the configured rate of its stream (a
    topology file's per-flow rate, else ``rate``), summed over flows (a multicast stream
    counts once per member); with ``rate: max`` a stream offers what it achieved.
``offered_pps``
    ``offered_bps / (8 payload)``.
``sent``, ``received``, ``loss``, ``goodput_bps``
    sums over flows; ``loss = 1 - received / sent`` (0 when nothing was sent).
``achieved_send_bps``
    what the sending applications handed to their sockets, per stream (failures
    included), over the time they took: ``8 payload attempted / max(duration, span)``
    where span runs from the first attempt to the last plus one mean interval, so a
    sender that kept its schedule achieves exactly what it was scheduled to send.
``offered_met``
    whether every stream sent what was offered: its achieved rate at least 99 % of its
    configured rate (Poisson streams: less 3 standard deviations of their random count,
    3/sqrt(expected datagrams), where that is more than 1 %), or, at a constant rate,
    every datagram its schedule puts in the run tried, the first to the last within the
    run's duration (its last one may be late, within the run); ``null`` when ``rate: max``
    (nothing was offered but what the sender could do). A testbed sender slowed by its own CPU, or a
    simulated one blocked by a full transmit queue, fails it; ``lanloss bed run`` warns,
    ``lanloss table`` marks the rows and ``lanloss fit`` leaves them out by default.
``max_late_s``, ``max_burst_datagrams``
    the pattern as kept: the largest delay of a send behind its schedule, and the catch-up
    burst it made (a paced sender that falls behind sends the missed datagrams back to
    back): ``max_late_s x rate / (8 payload)``, the largest over streams. The simulator's
    sources are never late (0); a testbed sender descheduled for 5 ms at 80 Mbit/s sends
    34 datagrams of 1472 bytes at its line rate, more than a 16 KiB switch port holds, so
    it loses where a CBR source would not. ``lanloss fit`` and ``lanloss validate`` leave
    out runs whose burst exceeds the receiver's switch port buffer.
``max_recv_stall_s``, ``recv_buffer_s``, ``recv_stalled``
    the receivers as scheduled: the longest time a receiving application was kept off
    the CPU while datagrams waited in its socket (beyond what its ``recv_cpu`` quota
    explains), how long that receiver's socket buffer lasts at its offered rate, and
    whether the stall outlasted the buffer (the receiver was not running while its socket
    overflowed: a disturbed run, which ``lanloss fit`` and ``lanloss validate`` leave out).
    ``recv_run_delay_s`` and ``recv_nivcsw`` sum the receivers' run-queue delay and
    involuntary context switches. Measured by the testbed's lanloss-recv; ``null`` where
    nothing measured them (the simulator, whose receivers run when its host model says;
    iperf3; TCP).
``steal_share``
    testbed records only: the hypervisor's share of the harness machine's CPUs during the
    traffic (lanloss.testbed.steal), where the LAN runs on it (netns, vm backends; null for
    ssh). Over 1 % the run is disturbed (lanloss.disturbance).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MET_TOLERANCE = 0.01  # achieved within 1 % of the offered rate


@dataclass(frozen=True)
class Stream:
    """One sending application's schedule and what it did."""

    rate: float | str  # configured payload bit/s, or "max"
    attempted: int  # datagrams (TCP: messages) it tried to send, failures included
    span_s: float  # first attempt to last attempt (seconds); 0 if fewer than two
    pattern: str = "cbr"  # cbr | poisson | burst:N
    max_late_s: float = 0.0  # the largest delay of a send behind its schedule

    def burst_datagrams(self, payload: int) -> float:
        """The catch-up burst after the largest delay (0 for rate max: it has no schedule)."""
        if self.rate == "max" or not self.rate:
            return 0.0
        return self.max_late_s * float(self.rate) / (8.0 * payload)

    def sent_all_in_time(self, payload: int, duration: float) -> bool:
        """A constant-rate stream that tried every datagram its schedule puts in the run
        (one every 8 payload / rate from the start, before ``duration``), the first to
        the last within ``duration``: it offered all its load, however late its last
        datagram was within the run (a short run's tolerance is otherwise small: 1 % of
        0.3 s is 3 ms)."""
        due = math.ceil(duration * float(self.rate) / (8.0 * payload) - 1e-9)
        return self.attempted >= due and self.span_s <= duration

    def achieved_bps(self, payload: int, duration: float) -> float:
        if self.attempted <= 0:
            return 0.0
        gap = 0.0 if self.rate == "max" or not self.rate else 8.0 * payload / float(self.rate)
        took = max(float(duration), self.span_s + gap)
        return 8.0 * payload * self.attempted / took

    def met(self, payload: int, duration: float) -> bool | None:
        """Did it keep its schedule (None: rate max, nothing was scheduled)?"""
        if self.rate == "max":
            return None
        rate = float(self.rate)
        if self.pattern == "cbr" and self.sent_all_in_time(payload, duration):
            return True
        tolerance = MET_TOLERANCE
        if self.pattern == "poisson":
            expected = rate * float(duration) / (8.0 * payload)
            tolerance = max(tolerance, 3.0 / expected**0.5) if expected > 0 else 1.0
        return self.achieved_bps(payload, duration) >= (1 - tolerance) * rate


@dataclass(frozen=True)
class Receiver:
    """One receiving application as it was scheduled (lanloss-recv's ``scheduling``)."""

    max_stall_s: float  # longest off the CPU while datagrams waited in its socket
    buffer_s: float  # how long its socket buffer lasts at its offered rate
    # off-CPU time its recv_cpu quota explains (a CFS quota throttles the reader for up to
    # period x (1 - share)); None: the quota is a scheduling class (SCHED_IDLE) that stalls
    # it whenever anything else runs, so a stall cannot be told from the quota
    explained_s: float | None = 0.0
    run_delay_s: float | None = None  # its run-queue delay over the run
    nivcsw: int | None = None  # its involuntary context switches
    socket_drops: int | None = None  # its sockets' drops (/proc/net/udp); None: unknown

    @property
    def stalled(self) -> bool | None:
        """Kept off the CPU, beyond what its quota explains, for longer than its socket
        buffer lasts, and its socket overflowed: the receiver was not running while its
        socket overflowed, which no host model describes (None: not judged). A stall with
        no overflow lost nothing (the buffer estimate is a bound), so it does not count."""
        if self.explained_s is None:
            return None
        if self.socket_drops == 0:
            return False
        return self.max_stall_s - self.explained_s > self.buffer_s


RECEIVER_KEYS = (
    "max_recv_stall_s",
    "recv_buffer_s",
    "recv_stalled",
    "recv_run_delay_s",
    "recv_nivcsw",
)


def receiver_totals(receivers: Mapping[Any, Receiver] | None) -> dict[str, Any]:
    """The totals' receiver keys: the longest stall and the shortest buffer over receivers,
    whether one stalled (null if none did and one was not judged), and the sums; all null
    when nothing measured the receivers."""
    if not receivers:
        return dict.fromkeys(RECEIVER_KEYS)
    rs = list(receivers.values())
    verdicts = [r.stalled for r in rs]
    delays = [r.run_delay_s for r in rs]
    switches = [r.nivcsw for r in rs]
    return {
        "max_recv_stall_s": max(r.max_stall_s for r in rs),
        "recv_buffer_s": min(r.buffer_s for r in rs),
        "recv_stalled": True if True in verdicts else (None if None in verdicts else False),
        "recv_run_delay_s": None if None in delays else sum(delays),  # type: ignore[arg-type]
        "recv_nivcsw": None if None in switches else sum(switches),  # type: ignore[arg-type]
    }


def run_totals(
    flows: Iterable[Mapping[str, Any]],
    streams: Mapping[Any, Stream],
    payload: int,
    duration: float,
    receivers: Mapping[Any, Receiver] | None = None,
) -> dict[str, Any]:
    """The record's totals from its flows (each names its ``stream``), streams and, where
    they were measured, receivers."""
    flows = list(flows)
    offered = 0.0
    for f in flows:
        st = streams[f["stream"]]
        offered += st.achieved_bps(payload, duration) if st.rate == "max" else float(st.rate)
    sent = sum(int(f["sent"]) for f in flows)
    received = sum(int(f["received"]) for f in flows)
    verdicts = [st.met(payload, duration) for st in streams.values()]
    scheduled = [v for v in verdicts if v is not None]
    return {
        "offered_bps": offered,
        "offered_pps": offered / (8.0 * payload) if payload else 0.0,
        "sent": sent,
        "received": received,
        "loss": (1.0 - received / sent) if sent else 0.0,
        "goodput_bps": float(sum(float(f.get("goodput_bps") or 0.0) for f in flows)),
        "achieved_send_bps": sum(st.achieved_bps(payload, duration) for st in streams.values()),
        "offered_met": all(scheduled) if scheduled else None,
        "max_late_s": max((st.max_late_s for st in streams.values()), default=0.0),
        "max_burst_datagrams": max(
            (st.burst_datagrams(payload) for st in streams.values()), default=0.0
        ),
        **receiver_totals(receivers),
    }


def late_streams(streams: Mapping[Any, Stream], payload: int, duration: float) -> list[str]:
    """Streams that missed their schedule, as 'name: achieved of scheduled' lines."""
    out = []
    for name, st in streams.items():
        if st.met(payload, duration) is False:
            out.append(
                f"{name}: sent {st.achieved_bps(payload, duration) / 1e6:.3f} Mbit/s of "
                f"{float(st.rate) / 1e6:.3f} offered"
            )
    return out
