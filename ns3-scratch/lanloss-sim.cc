// SPDX-License-Identifier: GPL-2.0-only
/*
 * lanloss-sim: one simulation point of a switched Ethernet LAN carrying UDP
 * (unicast or multicast) or TCP flows to ideal or modelled receiving hosts,
 * written as the scenario part of a lanloss run record (JSON).
 *
 *   build/bin/lanloss-sim --edge_rate=100Mbps --payload=1472 --rate=50Mbps --out=run.json
 *
 * Flags are the shared vocabulary (lanloss/options.py); `lanloss sim run`
 * validates them, calls this program and completes the record (params, env).
 */
#include "json-writer.h"
#include "scenario-drain.h"
#include "scenario-hosts.h"
#include "scenario-multicast.h"
#include "scenario-options.h"
#include "scenario-report.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/lanloss-module.h"
#include "ns3/network-module.h"
#include "ns3/packet-sink.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <algorithm>
#include <map>
#include <memory>

using namespace ns3;
using namespace lanloss;

namespace
{

constexpr uint16_t SINK_PORT = LANLOSS_PORT;
const Ipv4Address GROUP(LANLOSS_GROUP); // the testbed's group too

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

void
SnapshotDataFrames(Ptr<EthernetNetDevice> device, uint64_t* baseline)
{
    *baseline = device->GetDataFramesSent();
}

void
TcpRx(TcpWindowBytes* window, Ptr<const Packet> packet, const Address& from)
{
    const Time now = Simulator::Now();
    if (now >= window->start && now <= window->end)
    {
        window->bytes += packet->GetSize();
    }
}

/** Stop once the sources are done and every queue, cable, host and connection is empty. */
void
StopWhenDrained(ScenarioRun* run)
{
    bool drained = ReceiverHostsDrained(run->hosts);
    for (const auto& [name, dev] : run->lan->NamedPorts())
    {
        auto ch = DynamicCast<EthernetChannel>(dev->GetChannel());
        drained = drained && dev->IsIdle() && !(ch && ch->GetFramesInFlight() > 0);
    }
    for (const auto& f : run->flows)
    {
        // TCP: an idle LAN may only be waiting for a retransmission timer.
        drained = drained && (!f.tcpSource || f.TcpReceived() >= f.tcpSource->GetBytes());
    }
    if (!drained)
    {
        const auto failed = std::find_if(run->flows.begin(), run->flows.end(), [](auto& f) {
            return f.tcpSource && f.tcpSource->HasFailed();
        });
        if (failed != run->flows.end())
        {
            // what the connection held is never delivered: no record can account for it
            run->failedFlow = failed->from + " -> " + failed->to;
            run->failedConnecting = !failed->tcpSource->IsConnected();
            Simulator::Stop();
            return;
        }
        const Time sinceStop = Simulator::Now() - (run->trafficStart + run->options.duration);
        Simulator::Schedule(DrainPollInterval(sinceStop, run->drainBound), &StopWhenDrained, run);
        return;
    }
    run->drained = true;
    Simulator::Stop();
}

/** The receiving hosts: each flow's destination (unicast), or every receiver (multicast). */
std::vector<std::string>
ReceiverNames(const ScenarioOptions& o, const LanSpec& spec)
{
    if (o.multicast)
    {
        return spec.HostsWithRole("receiver");
    }
    std::vector<std::string> names;
    for (const auto& f : spec.flows)
    {
        if (std::find(names.begin(), names.end(), f.to) == names.end())
        {
            names.push_back(f.to);
        }
    }
    return names;
}

} // namespace

/** One run of the scenario: 0, or 1 with one line on stderr (2: a flag refused). */
int
Run(const ScenarioOptions& o)
{
    const auto setup0 = std::chrono::steady_clock::now();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(o.seed);
    // The ns-3 socket behind the receiving application never overflows: an ideal host's
    // socket, or with the host model the one HostSocket hands read datagrams to.
    Config::SetDefault("ns3::UdpSocket::RcvBufSize", UintegerValue(0xFFFFFFFF));
    if (o.tcp)
    {
        // ns-3 TCP sends timestamps by default (12 option bytes): MSS = MTU - 20 - 20 - 12.
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(o.mtu - 52));
        // The receiver ACKs every segment. ns-3's classic Nagle holds a partial segment
        // while data is unacknowledged, and its delayed ACK waits for a second segment,
        // so a window of less than two segments (16 KiB at MTU 9000) would wait 200 ms
        // per window; Linux does not (Minshall's Nagle; it ACKs once more than one MSS
        // is pending: __tcp_ack_snd_check). ACKs travel the idle direction of the link.
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
        if (o.tcpWindow > 0)
        {
            // The window is the receiver's (ns-3 advertises its free RcvBufSize); the send
            // buffer holds twice that, as Linux doubles SO_SNDBUF, so it never limits first.
            Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(2 * o.tcpWindow));
            Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(o.tcpWindow));
        }
    }

    LanSpec spec;
    LanBuilder lan;
    try
    {
        spec = MakeSpec(o);
        if (o.printSpec)
        {
            // what lanloss.topology generates must be this (tests/sim/test_topology_spec.py)
            spec.Validate();
            std::cout << spec.ToText();
            return 0;
        }
        spec.Validate();
        CheckOptionsAgainstLan(o, spec);
        if (o.checkOnly)
        {
            return 0;
        }
        lan.SetMtu(o.mtu);
        lan.SetHostQueueBytes(o.txQueue);
        lan.SetPause(o.pause);
        lan.SetSwitchAttribute("EgressBufferBytes", UintegerValue(o.switchBuffer));
        lan.SetSwitchAttribute("SharedPoolBytes", UintegerValue(o.switchPool));
        lan.SetSwitchAttribute("PauseStyle", StringValue(o.pauseStyle == "xon" ? "Xon" : "Timed"));
        lan.SetSwitchAttribute("PauseQuanta", UintegerValue(o.pauseQuanta));
        lan.Build(spec);
        if (o.multicast &&
            (spec.HostsWithRole("sender").empty() || spec.HostsWithRole("receiver").empty()))
        {
            throw LanSpecError("multicast needs hosts with role sender and receiver");
        }
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

    const std::vector<std::string> receivers = ReceiverNames(o, spec);
    const std::vector<std::string> senders =
        o.multicast ? spec.HostsWithRole("sender") : std::vector<std::string>{};

    // Multicast: a frame is copied at every switch, so each receiver gets its own
    // accountant that sees only drops on its branches (and everything before the copy).
    std::map<std::string, Ptr<LossAccountant>> own;
    // per switch, per egress port: the members behind it (one subscription per switch)
    std::map<Ptr<EthernetSwitchNetDevice>, std::map<uint32_t, std::vector<Ptr<LossAccountant>>>>
        branches;
    if (o.multicast)
    {
        for (const auto& r : receivers)
        {
            Ptr<LossAccountant> acc = Create<LossAccountant>();
            for (const auto& s : senders)
            {
                acc->WatchHostDevice(lan.GetHostDevice(s));
            }
            for (const auto& [sw, port] : PortsTowards(spec, lan, r))
            {
                branches[sw][port].push_back(acc);
            }
            acc->WatchIpv4(lan.GetHost(r));
            own[r] = acc;
        }
        for (const auto& [sw, byPort] : branches)
        {
            LossAccountant::WatchSwitchBranches(sw, byPort);
        }
    }
    auto accountantOf = [&](const std::string& receiver) {
        return o.multicast ? own.at(receiver) : accountant;
    };

    // A receiving NIC that loses frames (bad FCS): the fragment-loss case.
    int64_t stream = 1;
    if (o.frameLoss > 0)
    {
        for (const auto& r : receivers)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(o.frameLoss);
            stream += em->AssignStreams(stream);
            lan.GetHostDevice(r)->SetAttribute("ReceiveErrorModel", PointerValue(em));
            accountant->WatchReceiveErrors(lan.GetHostDevice(r));
            if (o.multicast)
            {
                own[r]->WatchReceiveErrors(lan.GetHostDevice(r));
            }
        }
    }

    if (o.host != "ideal")
    {
        std::vector<Ptr<LossAccountant>> ownList;
        for (const auto& r : receivers)
        {
            if (o.multicast)
            {
                ownList.push_back(own[r]);
            }
        }
        run.hosts = InstallReceiverHosts(o, lan, receivers, SINK_PORT, start, accountant, ownList);
        Simulator::Schedule(start + o.warmup, &SnapshotCpu, &run.hosts, false);
        Simulator::Schedule(stop, &SnapshotCpu, &run.hosts, true);
    }

    for (const auto& r : receivers)
    {
        if (o.tcp)
        {
            continue; // TCP sinks are per flow, below
        }
        Ptr<UdpFlowSink> sink = CreateObject<UdpFlowSink>();
        sink->SetAttribute("Local",
                           AddressValue(InetSocketAddress(Ipv4Address::GetAny(), SINK_PORT)));
        if (o.multicast)
        {
            sink->SetAttribute("Group", Ipv4AddressValue(GROUP));
        }
        sink->SetAttribute("WindowStart", TimeValue(start + o.warmup));
        sink->SetAttribute("WindowEnd", TimeValue(stop));
        lan.GetHost(r)->AddApplication(sink);
        sink->SetStartTime(Seconds(0));
        run.sinks[r] = sink;
    }

    // The sending hosts: one UDP source per flow (unicast) or per group sender (multicast).
    struct Send
    {
        std::string from;
        std::vector<std::string> to;
        DataRate rate; //!< 0 = the run's rate
    };
    std::vector<Send> sends;
    if (o.multicast)
    {
        for (const auto& s : senders)
        {
            sends.push_back({s, receivers, DataRate(0)});
        }
    }
    else
    {
        for (const auto& f : spec.flows)
        {
            sends.push_back({f.from, {f.to}, f.rate});
        }
    }
    for (uint32_t k = 0; k < sends.size(); ++k)
    {
        const Send& send = sends[k];
        DataRate rate = send.rate.GetBitRate() > 0 ? send.rate : o.rate;
        bool maxRate = send.rate.GetBitRate() > 0 ? false : o.maxRate;
        Ptr<Node> node = lan.GetHost(send.from);
        if (!run.senderFrames.count(send.from))
        {
            run.senderFrames[send.from] = 0;
            // Data frames on the sender's link from the traffic start on (gratuitous ARPs,
            // when a LanBuilder sends them, go out at t = 0): a device counter, so no
            // per-frame trace costs time.
            Simulator::Schedule(start,
                                &SnapshotDataFrames,
                                lan.GetHostDevice(send.from),
                                &run.senderFrames[send.from]);
        }
        if (o.tcp)
        {
            const std::string& to = send.to.front();
            const uint16_t port = SINK_PORT + k; // one listening socket per connection
            auto window = std::make_shared<TcpWindowBytes>();
            window->start = start + o.warmup;
            window->end = stop;
            ScenarioFlow flow;
            const auto host = std::find_if(run.hosts.begin(), run.hosts.end(), [&](auto& h) {
                return h.name == to;
            });
            if (host != run.hosts.end())
            {
                // The host model: the application reads on the host's CPU.
                flow.tcpReader = InstallTcpReader(o, *host, lan.GetHost(to), port);
                flow.tcpReader->TraceConnectWithoutContext(
                    "Rx",
                    MakeBoundCallback(&TcpRx, window.get()));
            }
            else
            {
                Ptr<PacketSink> sink = CreateObject<PacketSink>();
                sink->SetAttribute("Local",
                                   AddressValue(InetSocketAddress(Ipv4Address::GetAny(), port)));
                sink->SetAttribute("Protocol", TypeIdValue(TcpSocketFactory::GetTypeId()));
                lan.GetHost(to)->AddApplication(sink);
                sink->SetStartTime(Seconds(0));
                sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&TcpRx, window.get()));
                flow.tcpSink = sink;
            }
            Ptr<TcpFlowSource> src = CreateObject<TcpFlowSource>();
            src->SetAttribute("Remote",
                              AddressValue(InetSocketAddress(lan.GetHostAddress(to), port)));
            src->SetAttribute("MessageSize", UintegerValue(o.payload));
            src->SetAttribute("MaxRate", BooleanValue(maxRate));
            src->SetAttribute("NoDelay", BooleanValue(!maxRate));
            src->SetAttribute("SendCost", TimeValue(o.sendCost));
            src->SetAttribute("SendByteCost", DoubleValue(o.sendByteCost));
            src->SetAttribute("SendPacketCost", DoubleValue(o.sendPacketCost));
            if (!maxRate)
            {
                src->SetAttribute("DataRate", DataRateValue(rate));
            }
            node->AddApplication(src);
            src->SetStartTime(start);
            src->SetStopTime(stop);
            flow.from = send.from;
            flow.to = to;
            flow.id = k;
            flow.rate = maxRate ? DataRate(0) : rate;
            flow.tcpSource = src;
            flow.tcpWindow = window;
            run.flows.push_back(flow);
            continue;
        }
        Ptr<UdpFlowSource> src = CreateObject<UdpFlowSource>();
        const Ipv4Address dst = o.multicast ? GROUP : lan.GetHostAddress(send.to.front());
        src->SetAttribute("Remote", AddressValue(InetSocketAddress(dst, SINK_PORT)));
        src->SetAttribute("PayloadSize", UintegerValue(o.payload));
        if (!maxRate)
        {
            src->SetAttribute("DataRate", DataRateValue(rate));
        }
        src->SetAttribute("MaxRate", BooleanValue(maxRate));
        src->SetAttribute("Pattern", StringValue(o.pattern));
        src->SetAttribute("FlowId", UintegerValue(k));
        src->SetAttribute("Seed", UintegerValue(o.seed)); // the testbed's departures too
        src->SetAttribute("Blocking", BooleanValue(o.blocking));
        src->SetAttribute("Device", PointerValue(lan.GetHostDevice(send.from)));
        src->SetAttribute("Mtu", UintegerValue(o.mtu));
        src->SetAttribute("SendCost", TimeValue(o.sendCost));
        src->SetAttribute("SendByteCost", DoubleValue(o.sendByteCost));
        src->SetAttribute("SendPacketCost", DoubleValue(o.sendPacketCost));
        stream += src->AssignStreams(stream);
        if (o.multicast)
        {
            // As a Linux host's route for 224.0.0.0/4 on its LAN interface.
            Ipv4StaticRoutingHelper().SetDefaultMulticastRoute(node, lan.GetHostDevice(send.from));
        }
        src->TraceConnectWithoutContext("TxFailure", MakeBoundCallback(&SocketFailure, accountant));
        for (const auto& to : send.to)
        {
            if (o.multicast)
            {
                // A failed send is lost for every member.
                src->TraceConnectWithoutContext("TxFailure",
                                                MakeBoundCallback(&SocketFailure, own.at(to)));
            }
            ScenarioFlow flow;
            flow.from = send.from;
            flow.to = to;
            flow.id = k;
            flow.rate = maxRate ? DataRate(0) : rate;
            flow.source = src;
            flow.accountant = accountantOf(to);
            run.flows.push_back(flow);
        }
        node->AddApplication(src);
        src->SetStartTime(start);
        src->SetStopTime(stop);
    }

    if (!o.pcap.empty())
    {
        // Nanosecond timestamps: a 64-byte frame lasts 0.67 us at 1 Gbit/s, so microseconds
        // would give frames of one burst the same time (tshark reads both formats).
        Config::SetDefault("ns3::PcapFileWrapper::NanosecMode", BooleanValue(true));
        lan.Links().EnablePcapAll(o.pcap, true);
    }

    // The run lasts until the LAN is empty; one that still holds traffic at the bound
    // the options imply is an error, not a record with queued packets counted as lost.
    const Time drainBound = DrainBound(o, spec, lan);
    run.drainBound = drainBound;
    Simulator::Schedule(stop, &StopWhenDrained, &run);
    Simulator::Stop(stop + drainBound);
    auto wall0 = std::chrono::steady_clock::now();
    run.setupSeconds = std::chrono::duration<double>(wall0 - setup0).count();
    Simulator::Run();
    run.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    run.simulatedSeconds = Simulator::Now().GetSeconds();
    run.events = Simulator::GetEventCount();
    if (!run.failedFlow.empty())
    {
        std::cerr << "lanloss-sim: error: TCP gave up the connection " << run.failedFlow
                  << (run.failedConnecting
                          ? " while opening it (ns-3's SYN retries, ConnCount, ran out)"
                          : " with data undelivered (ns-3's retransmissions, DataRetries, "
                            "ran out)")
                  << "; no record written" << std::endl;
        Simulator::Destroy();
        return 1;
    }
    if (!run.drained)
    {
        std::cerr << "lanloss-sim: error: the LAN still held traffic " << drainBound.GetSeconds()
                  << " s after the sources stopped, the longest these options allow for "
                     "draining it (scenario-drain.h); no record written"
                  << std::endl;
        Simulator::Destroy();
        return 1;
    }

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

int
main(int argc, char* argv[])
{
    // Every failure ends in one line and an exit status, never in std::terminate.
    ScenarioOptions o;
    try
    {
        o = ParseOptions(argc, argv);
    }
    catch (const std::exception& e)
    {
        std::cerr << "lanloss-sim: error: options: " << e.what() << std::endl;
        return 2;
    }
    try
    {
        return Run(o);
    }
    catch (const std::exception& e)
    {
        std::cerr << "lanloss-sim: error: " << e.what() << std::endl;
        return 1;
    }
    catch (...)
    {
        std::cerr << "lanloss-sim: error: an unknown exception ended the run" << std::endl;
        return 1;
    }
}
