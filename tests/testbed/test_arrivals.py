# SPDX-License-Identifier: GPL-2.0-only
"""A testbed flow's goodput and latency follow the simulator's rules (testbed/arrivals.py):
by hand on small logs, and against the simulator's own UdpFlowSink fed the same arrivals."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

import pytest

from lanloss.testbed import arrivals, traffic
from lanloss.testbed.arrivals import Arrival

MS = 1_000_000  # ns


def test_goodput_counts_first_arrivals_in_the_window_after_the_start():
    # start 1 ms; warmup 2 ms, duration 10 ms: the window is [3 ms, 11 ms)
    log = [
        Arrival(0, 1 * MS, 2 * MS, 1000),  # before the window
        Arrival(1, 1 * MS, 3 * MS, 1000),  # its first instant: in
        Arrival(1, 1 * MS, 4 * MS, 1000),  # a duplicate: not counted
        Arrival(2, 1 * MS, 11 * MS - 1, 500),  # its last nanosecond: in
        Arrival(3, 1 * MS, 11 * MS, 1000),  # its end: out
    ]
    stats = arrivals.flow_stats(log, 1 * MS, warmup=0.002, duration=0.010)
    assert stats is not None
    assert stats.goodput_bps == 8 * 1500 / 0.008


def test_without_a_shared_clock_the_first_arrival_stands_for_the_start():
    log = [Arrival(0, 0, 5 * MS, 100), Arrival(1, 0, 6 * MS, 100), Arrival(2, 0, 7 * MS, 100)]
    stats = arrivals.flow_stats(log, None, warmup=0.001, duration=0.002)  # [6 ms, 7 ms)
    assert stats is not None and stats.goodput_bps == 8 * 100 / 0.001
    assert stats.latency_us == {"p50": None, "p99": None, "max": None}  # no send times


def test_latency_percentiles_are_nearest_rank():
    # 200 datagrams with latencies 1..200 us, shuffled, and a duplicate of the slowest
    rng = random.Random(7)
    order = list(range(1, 201))
    rng.shuffle(order)
    log = [Arrival(seq, 1000, 1000 + us * 1000, 10) for seq, us in enumerate(order)]
    log.append(Arrival(order.index(200), 0, 10**9, 10))  # duplicate: ignored
    lat = arrivals.latency_us(arrivals.first_arrivals(log))
    assert lat == {"p50": 100.0, "p99": 198.0, "max": 200.0}  # ceil(0.5 n), ceil(0.99 n)
    assert arrivals.nearest_rank([4.0], 0.99) == 4.0
    assert arrivals.nearest_rank([1.0, 2.0, 3.0], 0.5) == 2.0


def test_no_records_no_stats():
    assert arrivals.flow_stats([], 0, 0.1, 1.0) is None


def test_the_log_record_is_read_from_wire_h():
    assert traffic.LOG_FIELDS == ("seq", "tx_ns", "rx_ns", "flow", "len")
    assert traffic.LOG_RECORD.format == "<QQQII" and traffic.LOG_RECORD.size == 32
    data = traffic.LOG_RECORD.pack(5, 10, 20, 3, 1472) + traffic.LOG_RECORD.pack(6, 11, 21, 4, 9)
    assert traffic.parse_log(data + b"\0" * 7) == {  # a torn last record is left out
        3: [Arrival(5, 10, 20, 1472)],
        4: [Arrival(6, 11, 21, 9)],
    }


def test_a_log_table_that_does_not_fill_the_record_is_refused():
    text = traffic.WIRE_H.read_text()
    with pytest.raises(RuntimeError, match="flow at 26, expected 24"):
        traffic.log_record_layout(text.replace("offset 24  u32  flow", "offset 26  u32  flow"))
    with pytest.raises(RuntimeError, match="LL_LOG_REC"):
        traffic.log_record_layout(text.replace("#define LL_LOG_REC 32u", "#define LL_LOG_REC 40u"))


# The simulator's receiving application, UdpFlowSink, fed datagrams over a node's loopback
# at chosen read times, each tagged with its flow, seq and send time (FlowSeqTag); prints
# its GetFlowStats. Loopback delivers at the send instant, so the sink reads each datagram
# at the time it is sent here.
SINK = r"""
import json, sys
from ns import ns
import cppyy

cppyy.cppdef('''
namespace lltest {
using namespace ns3;
void SendAt(Ptr<Socket> s, int64_t at_ns, uint32_t flow, uint64_t seq, int64_t tx_ns,
            uint32_t len) {
  Simulator::Schedule(NanoSeconds(at_ns), [=]() {
    Ptr<Packet> p = Create<Packet>(len);
    p->AddPacketTag(FlowSeqTag(flow, seq, NanoSeconds(tx_ns)));
    s->Send(p);
  });
}
}
''')
job = json.load(sys.stdin)
node = ns.CreateObject[ns.Node]()
ns.InternetStackHelper().Install(node)
sink = ns.CreateObject[ns.UdpFlowSink]()
local = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 5001).ConvertTo()
sink.SetAttribute("Local", ns.AddressValue(local))
sink.SetAttribute("WindowStart", ns.TimeValue(ns.NanoSeconds(job["window"][0])))
sink.SetAttribute("WindowEnd", ns.TimeValue(ns.NanoSeconds(job["window"][1])))
node.AddApplication(sink)
sink.SetStartTime(ns.Seconds(0))
sock = ns.Socket.CreateSocket(node, ns.UdpSocketFactory.GetTypeId())
sock.Connect(ns.InetSocketAddress(ns.Ipv4Address("127.0.0.1"), 5001).ConvertTo())
for seq, tx_ns, rx_ns, length in job["log"]:
    cppyy.gbl.lltest.SendAt(sock, rx_ns, job["flow"], seq, tx_ns, length)
ns.Simulator.Stop(ns.NanoSeconds(job["window"][1] + 10**9))
ns.Simulator.Run()
s = sink.GetFlowStats(job["flow"], job["sent"])
print(json.dumps({"received": s.received, "duplicated": s.duplicated,
                  "goodput_bps": s.goodputBps, "p50": s.latencyP50Us,
                  "p99": s.latencyP99Us, "max": s.latencyMaxUs}))
"""


@pytest.mark.slow
def test_the_simulator_gives_the_same_numbers_for_the_same_arrivals(built):
    """One set of arrivals (duplicates, reordering, a loss, times around both window edges)
    into the simulator's UdpFlowSink and into the testbed's rules: equal results."""
    rng = random.Random(18)
    start, warmup, duration = 2 * MS, 0.003, 0.020
    window = [start + 3 * MS, start + 20 * MS]  # the sink's WindowStart and WindowEnd
    log, t = [], start
    for seq in range(400):
        t += rng.randrange(20_000, 90_000)  # reads 20-90 us apart
        if seq == 57:
            continue  # lost
        log.append(Arrival(seq, t - rng.randrange(5_000, 400_000), t, rng.choice([64, 1472])))
    for k, first in enumerate([log[10], log[200], log[-1]]):  # duplicates, read later
        log.append(Arrival(first.seq, first.tx_ns, t + k + 1, first.length))
    log.append(Arrival(1000, start, window[0] - 1, 1000))  # the window's start, ns apart
    log.append(Arrival(1001, start, window[0], 1000))
    log.append(Arrival(1002, start, window[1] - 1, 1000))  # and its end
    log.append(Arrival(1003, start, window[1], 1000))
    log.sort(key=lambda a: a.rx_ns)  # the order the application reads them
    job = {"flow": 9, "sent": 1004, "window": window, "log": [list(vars(a).values()) for a in log]}
    proc = subprocess.run(
        [sys.executable, "-c", SINK],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    sim = json.loads(proc.stdout.strip().splitlines()[-1])

    bed = arrivals.flow_stats(log, start, warmup, duration)
    assert bed is not None
    assert (sim["received"], sim["duplicated"]) == (399 + 4, 3)
    assert bed.goodput_bps == pytest.approx(sim["goodput_bps"], rel=1e-12)
    assert bed.latency_us == {"p50": sim["p50"], "p99": sim["p99"], "max": sim["max"]}
    assert not math.isnan(bed.goodput_bps) and bed.goodput_bps > 0
