# SPDX-License-Identifier: GPL-2.0-only
"""Build a small switched LAN with the lanloss helpers from ns-3's Python bindings.

A 1 Gbit/s server sends 300 Mbit/s of 1472-byte UDP datagrams to a client on a
100 Mbit/s port. Without 802.3x the switch's egress buffer overflows; with it
the switch pauses the server's link and the excess stays in the server's own
transmit queue. Run:  .venv/bin/python models/examples/lanloss-star.py [--pause]
(`make build` installs the lanloss module into the ns-3 wheel so `ns` finds it.)
"""

import argparse
import json

from ns import ns


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pause", action="store_true", help="enable IEEE 802.3x PAUSE")
    parser.add_argument("--duration", type=float, default=0.2, help="seconds of traffic")
    args = parser.parse_args()

    spec = ns.LanSpec.Star(1, 1, ns.DataRate("100Mbps"), ns.DataRate("1Gbps"), ns.MicroSeconds(1))
    lan = ns.LanBuilder()
    lan.SetPause(args.pause)
    lan.Build(spec)

    accountant = ns.Create[ns.LossAccountant]()
    for name in lan.HostNames():
        accountant.WatchHostDevice(lan.GetHostDevice(name))
    for sw in lan.GetSwitches():
        accountant.WatchSwitch(sw)

    start = lan.StartTime()
    stop = start + ns.Seconds(args.duration)
    sink = ns.CreateObject[ns.UdpFlowSink]()
    sink.SetAttribute(
        "Local", ns.AddressValue(ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 5001).ConvertTo())
    )
    sink.SetAttribute("WindowStart", ns.TimeValue(start + ns.MilliSeconds(20)))
    sink.SetAttribute("WindowEnd", ns.TimeValue(stop))
    lan.GetHost("r1").AddApplication(sink)

    source = ns.CreateObject[ns.UdpFlowSource]()
    remote = ns.InetSocketAddress(lan.GetHostAddress("r1"), 5001).ConvertTo()
    source.SetAttribute("Remote", ns.AddressValue(remote))
    source.SetAttribute("PayloadSize", ns.UintegerValue(1472))
    source.SetAttribute("DataRate", ns.DataRateValue(ns.DataRate("300Mbps")))
    source.SetAttribute("Device", ns.PointerValue(lan.GetHostDevice("s1")))
    lan.GetHost("s1").AddApplication(source)
    source.SetStartTime(start)
    source.SetStopTime(stop)

    ns.Simulator.Stop(stop + ns.MilliSeconds(100))
    ns.Simulator.Run()

    sent = source.GetSent() + source.GetSendFailures()
    stats = sink.GetFlowStats(0, sent)
    drops = accountant.Attribute(0, sink.MissingSeqs(0, sent))
    result = {
        "pause": args.pause,
        "sent": int(sent),
        "received": int(stats.received),
        "goodput_mbps": round(float(stats.goodputBps) / 1e6, 3),
        "drops": {
            ns.LossAccountant.PointName(p): int(drops.byPoint[p])
            for p in range(int(ns.LossAccountant.N_POINTS))
        },
        "unexplained": int(drops.unexplained),
        "pause_frames_received_by_server": int(lan.GetHostDevice("s1").GetPauseFramesReceived()),
    }
    ns.Simulator.Destroy()
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
