/*
 * lanloss-sim: one simulation point of a switched Ethernet LAN carrying UDP
 * flows, written as the scenario part of a lanloss run record (JSON).
 *
 *   build/bin/lanloss-sim --edge_rate=100Mbps --payload=1472 --rate=50Mbps --out=run.json
 *
 * Flags are the shared vocabulary (lanloss/options.py); `lanloss sim run`
 * validates them, calls this program and completes the record (params, env).
 */
#include "json-writer.h"
#include "scenario-options.h"
#include "scenario-report.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/lanloss-module.h"
#include "ns3/network-module.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>

using namespace ns3;
using namespace lanloss;

namespace
{

constexpr uint16_t SINK_PORT = 5001;

LanSpec
MakeSpec(const ScenarioOptions& o)
{
    if (o.topology == "star")
    {
        return LanSpec::Star(o.senders, o.receivers, o.edgeRate, o.senderRate, o.linkDelay);
    }
    if (o.topology == "two-tier")
    {
        return LanSpec::TwoTier(o.senders,
                                o.receivers,
                                o.edgeSwitches,
                                o.edgeRate,
                                o.senderRate,
                                o.backboneRate,
                                o.linkDelay);
    }
    if (o.topology == "two-site")
    {
        return LanSpec::TwoSite(o.senders,
                                o.receivers,
                                o.edgeRate,
                                o.senderRate,
                                o.backboneRate,
                                o.linkDelay,
                                o.wanDelay);
    }
    return LanSpec::FromFile(o.topology);
}

void
SocketFailure(Ptr<LossAccountant> acc, Ptr<const Packet> packet)
{
    acc->Record(LossAccountant::SENDER_SOCKET, packet);
}

/** Stop once the sources are done and every queue and cable is empty. */
void
StopWhenDrained(const LanBuilder* lan)
{
    for (const auto& [name, dev] : lan->NamedPorts())
    {
        auto ch = DynamicCast<EthernetChannel>(dev->GetChannel());
        if (!dev->IsIdle() || (ch && ch->GetFramesInFlight() > 0))
        {
            Simulator::Schedule(MicroSeconds(100), &StopWhenDrained, lan);
            return;
        }
    }
    Simulator::Stop();
}

} // namespace

int
main(int argc, char* argv[])
{
    ScenarioOptions o = ParseOptions(argc, argv);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(o.seed);
    // The ideal host's socket never overflows (the host model is a later layer).
    Config::SetDefault("ns3::UdpSocket::RcvBufSize", UintegerValue(0xFFFFFFFF));

    LanSpec spec;
    LanBuilder lan;
    try
    {
        spec = MakeSpec(o);
        lan.SetMtu(o.mtu);
        lan.SetHostQueueBytes(o.txQueue);
        lan.SetPause(o.pause);
        lan.SetSwitchAttribute("EgressBufferBytes", UintegerValue(o.switchBuffer));
        lan.SetSwitchAttribute("SharedPoolBytes", UintegerValue(o.switchPool));
        lan.SetSwitchAttribute("PauseStyle", StringValue(o.pauseStyle == "xon" ? "Xon" : "Timed"));
        lan.SetSwitchAttribute("PauseQuanta", UintegerValue(o.pauseQuanta));
        lan.Build(spec);
    }
    catch (const LanSpecError& e)
    {
        std::cerr << "lanloss-sim: error: topology: " << e.what() << std::endl;
        return 2;
    }

    Ptr<LossAccountant> accountant = Create<LossAccountant>();
    for (const auto& name : lan.HostNames())
    {
        accountant->WatchHostDevice(lan.GetHostDevice(name));
        accountant->WatchIpv4(lan.GetHost(name));
    }
    for (const auto& sw : lan.GetSwitches())
    {
        accountant->WatchSwitch(sw);
    }

    const Time start = lan.StartTime();
    const Time stop = start + o.duration;
    ScenarioRun run;
    run.options = o;
    run.accountant = accountant;
    run.lan = &lan;
    run.trafficStart = start;

    for (const auto& f : spec.flows)
    {
        if (run.sinks.count(f.to))
        {
            continue;
        }
        Ptr<UdpFlowSink> sink = CreateObject<UdpFlowSink>();
        sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), SINK_PORT)));
        sink->SetAttribute("WindowStart", TimeValue(start + o.warmup));
        sink->SetAttribute("WindowEnd", TimeValue(stop));
        lan.GetHost(f.to)->AddApplication(sink);
        sink->SetStartTime(Seconds(0));
        run.sinks[f.to] = sink;
    }
    int64_t stream = 1;
    for (uint32_t k = 0; k < spec.flows.size(); ++k)
    {
        const auto& f = spec.flows[k];
        DataRate rate = f.rate.GetBitRate() > 0 ? f.rate : o.rate;
        bool maxRate = f.rate.GetBitRate() > 0 ? false : o.maxRate;
        Ptr<UdpFlowSource> src = CreateObject<UdpFlowSource>();
        src->SetAttribute("Remote",
                          AddressValue(InetSocketAddress(lan.GetHostAddress(f.to), SINK_PORT)));
        src->SetAttribute("PayloadSize", UintegerValue(o.payload));
        if (!maxRate)
        {
            src->SetAttribute("DataRate", DataRateValue(rate));
        }
        src->SetAttribute("MaxRate", BooleanValue(maxRate));
        src->SetAttribute("Pattern", StringValue(o.pattern));
        src->SetAttribute("FlowId", UintegerValue(k));
        src->SetAttribute("Blocking", BooleanValue(o.blocking));
        src->SetAttribute("Device", PointerValue(lan.GetHostDevice(f.from)));
        src->SetAttribute("Mtu", UintegerValue(o.mtu));
        stream += src->AssignStreams(stream);
        src->TraceConnectWithoutContext("TxFailure", MakeBoundCallback(&SocketFailure, accountant));
        lan.GetHost(f.from)->AddApplication(src);
        src->SetStartTime(start);
        src->SetStopTime(stop);
        run.flows.push_back({f.from, f.to, k, maxRate ? DataRate(0) : rate, src});
    }

    if (!o.pcap.empty())
    {
        lan.Links().EnablePcapAll(o.pcap, true);
    }

    Simulator::Schedule(stop, &StopWhenDrained, &lan);
    Simulator::Stop(stop + Seconds(60)); // guard: a LAN that never drains is a bug
    auto wall0 = std::chrono::steady_clock::now();
    Simulator::Run();
    run.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    run.simulatedSeconds = Simulator::Now().GetSeconds();
    run.events = Simulator::GetEventCount();

    if (o.out.empty())
    {
        WriteReport(std::cout, run);
    }
    else
    {
        std::ofstream file(o.out);
        WriteReport(file, run);
        if (!file)
        {
            std::cerr << "lanloss-sim: error: out: cannot write '" << o.out << "'" << std::endl;
            return 1;
        }
    }
    Simulator::Destroy();
    return 0;
}
