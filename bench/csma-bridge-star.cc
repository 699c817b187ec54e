// SPDX-License-Identifier: GPL-2.0-only
/*
 * csma-bridge-star: the reference half of the simulator-speed benchmark
 * (bench/sim_speed.py). The same star LAN and UDP traffic as
 *
 *   lanloss-sim --topology=star --senders=8 --receivers=1 \
 *               --sender_rate=100Mbps --edge_rate=1Gbps ...
 *
 * built from ns-3's own devices instead of lanloss's: one switch node with a
 * BridgeNetDevice over CsmaNetDevice ports, every host on its own two-device
 * CsmaChannel (host + switch port). Prints one JSON line ("frames": frames
 * the receiver's device passed up, ARP included):
 *
 *   {"model": "csma-bridge", "packets": ..., "frames": ..., "events": ...,
 *    "sim_s": ..., "wall_s": ..., "pps_wall": ...}
 *
 * wall_s times Simulator::Run() only, as lanloss-sim's timing.sim_wall_s does,
 * so process start-up and topology construction cost neither side anything.
 */
#include "ns3/applications-module.h"
#include "ns3/lanloss-wire-format.h"
#include "ns3/bridge-module.h"
#include "ns3/core-module.h"
#include "ns3/csma-module.h"
#include "ns3/internet-module.h"
#include "ns3/lanloss-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// Mirrors lanloss-sim and LanBuilder so both programs carry identical traffic.
constexpr uint16_t SINK_PORT = LANLOSS_PORT; // lanloss-sim's SINK_PORT
constexpr uint32_t QUEUE_BYTES = 1048576; // lanloss-sim's default --tx_queue

uint64_t g_framesDelivered = 0;

/**
 * Announce @p dev's address (LanBuilder::SendGratuitousArp). The bridge must
 * learn every host before the traffic starts: a receiver that never sends
 * would otherwise be unknown and every datagram flooded onto the senders'
 * half-duplex segments, where it collides with their own frames.
 */
void
SendGratuitousArp(Ptr<NetDevice> dev, Ipv4Address address)
{
    ArpHeader arp;
    arp.SetRequest(dev->GetAddress(), address, dev->GetBroadcast(), address);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(arp);
    dev->Send(p, dev->GetBroadcast(), ArpL3Protocol::PROT_NUMBER);
}

/** Stop once every queue is empty and every segment idle (as lanloss-sim). */
void
StopWhenDrained(const NetDeviceContainer* devices)
{
    for (uint32_t i = 0; i < devices->GetN(); ++i)
    {
        auto dev = DynamicCast<CsmaNetDevice>(devices->Get(i));
        auto ch = DynamicCast<CsmaChannel>(dev->GetChannel());
        if (!dev->GetQueue()->IsEmpty() || ch->IsBusy())
        {
            Simulator::Schedule(MicroSeconds(100), &StopWhenDrained, devices);
            return;
        }
    }
    Simulator::Stop();
}

void
CountFrame(Ptr<const Packet>)
{
    ++g_framesDelivered;
}

/** One two-device CSMA segment: @p host and a new port on @p sw at @p rate. */
NetDeviceContainer
Cable(CsmaHelper& csma, Ptr<Node> host, Ptr<Node> sw, DataRate rate)
{
    csma.SetChannelAttribute("DataRate", DataRateValue(rate));
    return csma.Install(NodeContainer(host, sw));
}

/** The command line: the star and its traffic. */
struct BenchOptions
{
    uint32_t senders = 8;
    uint32_t payload = 1472;
    std::string rate = "86137841bps"; // 0.9 x the 100M closed-form goodput at 1472 B
    std::string duration = "1s";
    std::string senderRate = "100Mbps";
    std::string edgeRate = "1Gbps";
    // Not lanloss-sim's 1 us: a CsmaChannel stays busy for the propagation
    // delay after every frame (the carrier must clear the bus), so 1 us would
    // cut the 1 Gbit/s segment to ~505k frames/s of 64 B datagrams, below the
    // 692k/s offered, and the run would measure drops instead of forwarding.
    // The delay changes no event count, only when events happen.
    std::string linkDelay = "0s";
};

BenchOptions
ParseOptions(int argc, char* argv[])
{
    BenchOptions o;
    CommandLine cmd("csma-bridge-star");
    cmd.Usage("The lanloss star benchmark scenario on ns-3's CsmaNetDevice + "
              "BridgeNetDevice.");
    cmd.AddValue("senders", "sending hosts", o.senders);
    cmd.AddValue("payload", "UDP payload bytes", o.payload);
    cmd.AddValue("rate", "offered payload bit rate per sender (cbr)", o.rate);
    cmd.AddValue("duration", "traffic duration", o.duration);
    cmd.AddValue("sender_rate", "link speed of the senders' segments", o.senderRate);
    cmd.AddValue("edge_rate", "link speed of the receiver's segment", o.edgeRate);
    cmd.AddValue("link_delay", "propagation delay of every segment", o.linkDelay);
    cmd.Parse(argc, argv);
    return o;
}

/** The star: hosts s0..sN-1 and r0 (last), each cabled to one bridge node. */
struct Star
{
    NodeContainer hosts;
    NetDeviceContainer hostDevices;
    NetDeviceContainer switchPorts;
    Ipv4InterfaceContainer ifc;
};

Star
BuildStar(const BenchOptions& o, Time delay)
{
    Star star;
    // Node order as LanBuilder::Build for LanSpec::Star: switch, s0..sN-1, r0.
    Ptr<Node> swNode = CreateObject<Node>();
    star.hosts.Create(o.senders + 1);

    CsmaHelper csma;
    csma.SetChannelAttribute("Delay", TimeValue(delay));
    // Same IP path on both sides: EthernetNetDevice has no
    // NetDeviceQueueInterface, so Ipv4AddressHelper::Assign gives lanloss hosts
    // no queue disc; without flow control it gives CSMA hosts none either, and
    // CSMA does not pay for a pfifo/fq-codel stage that lanloss skips.
    csma.DisableFlowControl();
    // lanloss gives host NICs a 1 MiB queue; the same here (and on switch ports,
    // where the offered load never builds a queue anyway) so neither side drops.
    csma.SetQueue("ns3::DropTailQueue<Packet>",
                  "MaxSize",
                  QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, QUEUE_BYTES)));
    for (uint32_t i = 0; i <= o.senders; ++i)
    {
        DataRate linkRate(i < o.senders ? o.senderRate : o.edgeRate);
        NetDeviceContainer pair = Cable(csma, star.hosts.Get(i), swNode, linkRate);
        star.hostDevices.Add(pair.Get(0));
        star.switchPorts.Add(pair.Get(1));
    }
    BridgeHelper bridge;
    bridge.Install(swNode, star.switchPorts);

    InternetStackHelper stack;
    stack.Install(star.hosts);
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.0.0");
    star.ifc = addresses.Assign(star.hostDevices);
    return star;
}

/**
 * Permanent ARP entries (LanBuilder::PopulateArp): no datagram waits on ARP; and every
 * host's gratuitous ARP at 0 s, so that the bridge learns it.
 */
void
PopulateArp(const Star& star)
{
    const NodeContainer& hosts = star.hosts;
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        Ptr<Ipv4L3Protocol> ip = hosts.Get(i)->GetObject<Ipv4L3Protocol>();
        int32_t ifIndex = ip->GetInterfaceForDevice(star.hostDevices.Get(i));
        Ptr<ArpCache> cache = ip->GetInterface(ifIndex)->GetArpCache();
        for (uint32_t j = 0; j < hosts.GetN(); ++j)
        {
            if (j != i)
            {
                ArpCache::Entry* entry = cache->Add(star.ifc.GetAddress(j));
                entry->SetMacAddress(star.hostDevices.Get(j)->GetAddress());
                entry->MarkPermanent();
            }
        }
    }
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        Simulator::ScheduleWithContext(hosts.Get(i)->GetId(),
                                       Seconds(0),
                                       &SendGratuitousArp,
                                       star.hostDevices.Get(i),
                                       star.ifc.GetAddress(i));
    }
}

/** The receiver's sink, counting goodput from @p start + warm-up to @p stop. */
Ptr<UdpFlowSink>
InstallSink(const BenchOptions& o, const Star& star, Time start, Time stop)
{
    Ptr<UdpFlowSink> sink = CreateObject<UdpFlowSink>();
    sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), SINK_PORT)));
    // sim_speed.py's --warmup for lanloss-sim; the window only shapes goodput
    const Time warmup = std::min(Seconds(0.1), Time(o.duration) / 10);
    sink->SetAttribute("WindowStart", TimeValue(start + warmup));
    sink->SetAttribute("WindowEnd", TimeValue(stop));
    star.hosts.Get(o.senders)->AddApplication(sink);
    sink->SetStartTime(Seconds(0));
    return sink;
}

/** One paced (cbr) UdpFlowSource on each sender, sending to the receiver. */
std::vector<Ptr<UdpFlowSource>>
InstallSources(const BenchOptions& o, const Star& star, Time start, Time stop)
{
    std::vector<Ptr<UdpFlowSource>> sources;
    int64_t stream = 1;
    for (uint32_t k = 0; k < o.senders; ++k)
    {
        Ptr<UdpFlowSource> src = CreateObject<UdpFlowSource>();
        const InetSocketAddress receiver(star.ifc.GetAddress(o.senders), SINK_PORT);
        src->SetAttribute("Remote", AddressValue(receiver));
        src->SetAttribute("PayloadSize", UintegerValue(o.payload));
        src->SetAttribute("DataRate", DataRateValue(DataRate(o.rate)));
        src->SetAttribute("MaxRate", BooleanValue(false));
        src->SetAttribute("Pattern", StringValue("cbr"));
        src->SetAttribute("FlowId", UintegerValue(k));
        // Blocking needs an EthernetNetDevice; off, as in the lanloss run.
        src->SetAttribute("Blocking", BooleanValue(false));
        src->SetAttribute("Mtu", UintegerValue(1500));
        stream += src->AssignStreams(stream);
        star.hosts.Get(k)->AddApplication(src);
        src->SetStartTime(start);
        src->SetStopTime(stop);
        sources.push_back(src);
    }
    return sources;
}

/** The result line (see the file comment). */
void
PrintResult(const BenchOptions& o,
            uint64_t sent,
            uint64_t packets,
            uint64_t events,
            double simSeconds,
            double wall)
{
    char line[512];
    std::snprintf(line,
                  sizeof(line),
                  "{\"model\": \"csma-bridge\", \"senders\": %u, \"payload\": %u, "
                  "\"sent\": %llu, \"packets\": %llu, \"frames\": %llu, \"events\": %llu, "
                  "\"sim_s\": %.9f, \"wall_s\": %.6f, \"pps_wall\": %.1f}",
                  o.senders,
                  o.payload,
                  static_cast<unsigned long long>(sent),
                  static_cast<unsigned long long>(packets),
                  static_cast<unsigned long long>(g_framesDelivered),
                  static_cast<unsigned long long>(events),
                  simSeconds,
                  wall,
                  wall > 0 ? packets / wall : 0.0);
    std::cout << line << std::endl;
}

} // namespace

int
main(int argc, char* argv[])
{
    const BenchOptions o = ParseOptions(argc, argv);
    const Time delay(o.linkDelay);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    // As lanloss-sim: the ideal host's socket never overflows.
    Config::SetDefault("ns3::UdpSocket::RcvBufSize", UintegerValue(0xFFFFFFFF));

    const Star star = BuildStar(o, delay);
    PopulateArp(star);
    star.hostDevices.Get(o.senders)
        ->TraceConnectWithoutContext("MacRx", MakeCallback(&CountFrame));

    // LanBuilder::StartTime(): 1 ms + 4 * the longest cable delay.
    const Time start = MilliSeconds(1) + 4 * delay;
    const Time stop = start + Time(o.duration);
    Ptr<UdpFlowSink> sink = InstallSink(o, star, start, stop);
    const std::vector<Ptr<UdpFlowSource>> sources = InstallSources(o, star, start, stop);

    NetDeviceContainer allDevices(star.hostDevices, star.switchPorts);
    Simulator::Schedule(stop, &StopWhenDrained, &allDevices);
    Simulator::Stop(stop + Seconds(60)); // guard: a LAN that never drains is a bug
    auto wall0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    uint64_t sent = 0;
    for (const auto& src : sources)
    {
        sent += src->GetSent();
    }
    PrintResult(o,
                sent,
                sink->GetTotalReceived(),
                Simulator::GetEventCount(),
                Simulator::Now().GetSeconds(),
                wall);
    Simulator::Destroy();
    return 0;
}
