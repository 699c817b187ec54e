// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lanloss module from C++: a 1 Gbit/s server sends 300 Mbit/s of UDP to a
 * client on a 100 Mbit/s switch port, with or without IEEE 802.3x PAUSE, and
 * prints where the excess was lost.
 *
 *   build/bin/lanloss-star-example --pause=1
 */
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/lanloss-module.h"
#include "ns3/network-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    bool pause = false;
    double duration = 0.2;
    CommandLine cmd(__FILE__);
    cmd.AddValue("pause", "enable IEEE 802.3x PAUSE", pause);
    cmd.AddValue("duration", "seconds of traffic", duration);
    cmd.Parse(argc, argv);

    LanSpec spec = LanSpec::Star(1, 1, DataRate("100Mbps"), DataRate("1Gbps"), MicroSeconds(1));
    LanBuilder lan;
    lan.SetPause(pause);
    lan.Build(spec);

    Ptr<LossAccountant> accountant = Create<LossAccountant>();
    accountant->WatchHostDevice(lan.GetHostDevice("s1"));
    for (auto sw : lan.GetSwitches())
    {
        accountant->WatchSwitch(sw);
    }

    Time start = lan.StartTime();
    Time stop = start + Seconds(duration);
    Ptr<UdpFlowSink> sink = CreateObject<UdpFlowSink>();
    sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), 5001)));
    sink->SetAttribute("WindowStart", TimeValue(start + MilliSeconds(20)));
    sink->SetAttribute("WindowEnd", TimeValue(stop));
    lan.GetHost("r1")->AddApplication(sink);

    Ptr<UdpFlowSource> source = CreateObject<UdpFlowSource>();
    source->SetAttribute("Remote", AddressValue(InetSocketAddress(lan.GetHostAddress("r1"), 5001)));
    source->SetAttribute("PayloadSize", UintegerValue(1472));
    source->SetAttribute("DataRate", DataRateValue(DataRate("300Mbps")));
    source->SetAttribute("Device", PointerValue(lan.GetHostDevice("s1")));
    lan.GetHost("s1")->AddApplication(source);
    source->SetStartTime(start);
    source->SetStopTime(stop);

    Simulator::Stop(stop + MilliSeconds(100));
    Simulator::Run();

    uint64_t sent = source->GetSent() + source->GetSendFailures();
    UdpFlowSink::FlowStats stats = sink->GetFlowStats(0, sent);
    LossAccountant::Attribution drops = accountant->Attribute(0, sink->MissingSeqs(0, sent));
    std::cout << "pause " << (pause ? "on" : "off") << ": sent " << sent << ", received "
              << stats.received << ", goodput " << stats.goodputBps / 1e6 << " Mbit/s\n";
    for (int p = 0; p < LossAccountant::N_POINTS; ++p)
    {
        if (drops.byPoint[p] > 0)
        {
            std::cout << "  dropped at " << LossAccountant::PointName(LossAccountant::Point(p))
                      << ": " << drops.byPoint[p] << "\n";
        }
    }
    std::cout << "  PAUSE frames received by the server: "
              << lan.GetHostDevice("s1")->GetPauseFramesReceived() << "\n";
    Simulator::Destroy();
    return 0;
}
