# SPDX-License-Identifier: GPL-2.0-only
"""A testbed flow's goodput and latency from lanloss-recv's per-packet log, by the
simulator's rules.

The rules are the simulator's receiving application's (UdpFlowSink,
models/model/udp-flow-sink.cc), so that the two sources give the same numbers for the
same arrivals (tests/testbed/test_arrivals.py feeds one set of arrivals to both):

* a datagram counts once: the first arrival of its seq; a later one is a duplicate and
  counts for neither goodput nor latency;
* goodput: 8 x the payload bytes arriving in [start + warmup, start + duration), over
  duration - warmup (times in whole nanoseconds, as ns-3 keeps them). ``start`` is when
  the traffic starts: in the simulator its sources' start; on the testbed the sender's
  first send when sender and receiver share one CLOCK_MONOTONIC, else (no common clock)
  the flow's first arrival;
* latency: arrival minus send time of each datagram that carries a send time, in µs;
  p50 and p99 nearest-rank (the ceil(p n)-th smallest, at least the first), max the
  largest.

Arrival times are when the application reads a datagram, on both sources.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from lanloss.options import whole_ns

NO_TX = 0  # a log record's tx_ns when the datagram carried no send time (wire.h)


@dataclass(frozen=True)
class Arrival:
    """One per-packet log record of a flow (testbed/tools/wire.h)."""

    seq: int
    tx_ns: int  # NO_TX: no send time
    rx_ns: int
    length: int  # payload bytes


def first_arrivals(records: Iterable[Arrival]) -> list[Arrival]:
    """Each seq's first arrival, in arrival order (the log's order is the reads')."""
    seen: set[int] = set()
    out = []
    for a in records:
        if a.seq not in seen:
            seen.add(a.seq)
            out.append(a)
    return out


def goodput_bps(arrivals: list[Arrival], start_ns: int, warmup: float, duration: float) -> float:
    """Payload bit/s in [start + warmup, start + duration) (NaN for an empty window)."""
    t0, t1 = start_ns + whole_ns(warmup), start_ns + whole_ns(duration)
    if t1 <= t0:
        return math.nan
    window_bytes = sum(a.length for a in arrivals if t0 <= a.rx_ns < t1)
    return window_bytes * 8.0 / ((t1 - t0) / 1e9)


def nearest_rank(ordered: list[float], p: float) -> float:
    """The nearest-rank p-quantile (0 < p <= 1) of an ascending list."""
    return ordered[max(math.ceil(p * len(ordered)), 1) - 1]


def latency_us(arrivals: list[Arrival]) -> dict[str, float | None]:
    """p50, p99 and max of arrival - send time in µs (None without any send time)."""
    ordered = sorted((a.rx_ns - a.tx_ns) / 1000.0 for a in arrivals if a.tx_ns != NO_TX)
    if not ordered:
        return {"p50": None, "p99": None, "max": None}
    return {
        "p50": nearest_rank(ordered, 0.50),
        "p99": nearest_rank(ordered, 0.99),
        "max": ordered[-1],
    }


@dataclass(frozen=True)
class FlowStats:
    goodput_bps: float
    latency_us: dict[str, float | None]


def flow_stats(
    records: Iterable[Arrival], start_ns: int | None, warmup: float, duration: float
) -> FlowStats | None:
    """Goodput and latency of one flow's log records; start_ns None: no clock shared with
    the sender (the first arrival stands for the start). None without any record."""
    arrivals = first_arrivals(records)
    if not arrivals:
        return None
    start = min(a.rx_ns for a in arrivals) if start_ns is None else start_ns
    return FlowStats(goodput_bps(arrivals, start, warmup, duration), latency_us(arrivals))
