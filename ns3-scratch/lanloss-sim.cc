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
#include "scenario-flags.h"
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
#include <optional>

using namespace ns3;
using namespace lanloss;

namespace
{

constexpr uint16_t SINK_PORT = LANLOSS_PORT;
constexpr uint16_t ECHO_PORT = 8888; //!< seed 003's timing port on the sender (option echo)
const Ipv4Address GROUP(LANLOSS_GROUP); // the testbed's group too

static_assert(flags::topology::COUNT == 3,
              "a topology of lanloss/options.py (TOPOLOGIES) has no LanSpec builder in MakeSpec");

/** The LAN of a named topology (lanloss.options.TOPOLOGIES), else of a topology file. */
LanSpec
MakeSpec(const ScenarioOptions& o)
{
    if (o.topology == flags::topology::STAR)
    {
        return LanSpec::Star(o.senders, o.receivers, o.edgeRate, o.senderRate, o.linkDelay);
    }
    if (o.topology == flags::topology::TWO_TIER)
    {
        return LanSpec::TwoTier(o.senders,
                                o.receivers,
                                o.edgeSwitches,
                                o.edgeRate,
                                o.senderRate,
                                o.backboneRate,
                                o.linkDelay);
    }
    if (o.topology == flags::topology::TWO_SITE)
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
        drained = drained && f.EchoIdle();
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

/** Everything one run builds, in the order Run builds it. */
struct Scenario
{
    explicit Scenario(const ScenarioOptions& options)
        : o(options)
    {
    }

    const ScenarioOptions& o;
    LanSpec spec;
    LanBuilder lan;
    ScenarioRun run;
    Time start; //!< the traffic's start
    Time stop;  //!< and its end
    std::vector<std::string> receivers;
    std::vector<std::string> senders; //!< multicast: the group's senders (unicast: none)
    //! multicast: each receiver's own accountant, seeing only drops on its branches
    std::map<std::string, Ptr<LossAccountant>> own;
    int64_t stream = 1; //!< the next random stream to assign

    /** The accountant that attributes @p receiver's losses. */
    Ptr<LossAccountant> AccountantOf(const std::string& receiver) const
    {
        return o.multicast ? own.at(receiver) : run.accountant;
    }
};

/** One flow's sender: one UDP source per flow (unicast) or per group sender (multicast). */
struct Send
{
    std::string from;
    std::vector<std::string> to;
    DataRate rate; //!< 0 = the run's rate
};

/** The seed and the ns-3 defaults the run's sockets take. */
void
ConfigureDefaults(const ScenarioOptions& o)
{
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(o.seed);
    // The ns-3 socket behind the receiving application never overflows: an ideal host's
    // socket, or with the host model the one HostSocket hands read datagrams to.
    Config::SetDefault("ns3::UdpSocket::RcvBufSize", UintegerValue(0xFFFFFFFF));
    if (!o.tcp)
    {
        return;
    }
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

/** The LAN of the options, built; or the exit status if the run ends here (print_spec,
 *  check, a topology or flag the LAN refuses). */
std::optional<int>
BuildLan(Scenario& s)
{
    const ScenarioOptions& o = s.o;
    try
    {
        s.spec = MakeSpec(o);
        // print_spec: what lanloss.topology generates must be this
        // (tests/sim/test_topology_spec.py)
        s.spec.Validate();
        if (o.printSpec)
        {
            std::cout << s.spec.ToText();
            return 0;
        }
        CheckOptionsAgainstLan(o, s.spec);
        if (o.checkOnly)
        {
            return 0;
        }
        s.lan.SetMtu(o.mtu);
        s.lan.SetHostQueueBytes(o.txQueue);
        s.lan.SetPause(o.pause);
        s.lan.SetSwitchAttribute("EgressBufferBytes", UintegerValue(o.switchBuffer));
        s.lan.SetSwitchAttribute("SharedPoolBytes", UintegerValue(o.switchPool));
        s.lan.SetSwitchAttribute("PauseStyle",
                                 StringValue(o.pauseStyle == "xon" ? "Xon" : "Timed"));
        s.lan.SetSwitchAttribute("PauseQuanta", UintegerValue(o.pauseQuanta));
        s.lan.Build(s.spec);
        if (o.multicast && (s.spec.HostsWithRole("sender").empty() ||
                            s.spec.HostsWithRole("receiver").empty()))
        {
            throw LanSpecError("multicast needs hosts with role sender and receiver");
        }
    }
    catch (const LanSpecError& e)
    {
        std::cerr << "lanloss-sim: error: topology: " << e.what() << std::endl;
        return 2;
    }
    return std::nullopt;
}

/** The run's accountant, watching every host and switch; the run's frame. */
void
StartRun(Scenario& s)
{
    Ptr<LossAccountant> accountant = Create<LossAccountant>();
    for (const auto& name : s.lan.HostNames())
    {
        accountant->WatchHostDevice(s.lan.GetHostDevice(name));
        accountant->WatchIpv4(s.lan.GetHost(name));
    }
    for (const auto& sw : s.lan.GetSwitches())
    {
        accountant->WatchSwitch(sw);
    }
    s.start = s.lan.StartTime();
    s.stop = s.start + s.o.duration;
    s.run.options = s.o;
    s.run.accountant = accountant;
    s.run.lan = &s.lan;
    s.run.trafficStart = s.start;
    s.receivers = ReceiverNames(s.o, s.spec);
    if (s.o.multicast)
    {
        s.senders = s.spec.HostsWithRole("sender");
    }
}

/** Multicast: a frame is copied at every switch, so each receiver gets its own
 *  accountant that sees only drops on its branches (and everything before the copy). */
void
AddMemberAccountants(Scenario& s)
{
    // per switch, per egress port: the members behind it (one subscription per switch)
    std::map<Ptr<EthernetSwitchNetDevice>, std::map<uint32_t, std::vector<Ptr<LossAccountant>>>>
        branches;
    for (const auto& r : s.receivers)
    {
        Ptr<LossAccountant> acc = Create<LossAccountant>();
        for (const auto& sender : s.senders)
        {
            acc->WatchHostDevice(s.lan.GetHostDevice(sender));
        }
        for (const auto& [sw, port] : PortsTowards(s.spec, s.lan, r))
        {
            branches[sw][port].push_back(acc);
        }
        acc->WatchIpv4(s.lan.GetHost(r));
        s.own[r] = acc;
    }
    for (const auto& [sw, byPort] : branches)
    {
        LossAccountant::WatchSwitchBranches(sw, byPort);
    }
}

/** A receiving NIC that loses frames (bad FCS): the fragment-loss case. */
void
InstallFrameLoss(Scenario& s)
{
    for (const auto& r : s.receivers)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(s.o.frameLoss);
        s.stream += em->AssignStreams(s.stream);
        s.lan.GetHostDevice(r)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        s.run.accountant->WatchReceiveErrors(s.lan.GetHostDevice(r));
        if (s.o.multicast)
        {
            s.own[r]->WatchReceiveErrors(s.lan.GetHostDevice(r));
        }
    }
}

/** The host model on every receiver, its CPU shares snapshot at the goodput window. */
void
InstallHosts(Scenario& s)
{
    std::vector<Ptr<LossAccountant>> ownList;
    for (const auto& r : s.receivers)
    {
        if (s.o.multicast)
        {
            ownList.push_back(s.own[r]);
        }
    }
    s.run.hosts =
        InstallReceiverHosts(s.o, s.lan, s.receivers, SINK_PORT, s.start, s.run.accountant, ownList);
    Simulator::Schedule(s.start + s.o.warmup, &SnapshotCpu, &s.run.hosts, false);
    Simulator::Schedule(s.stop, &SnapshotCpu, &s.run.hosts, true);
}

/** The UDP receiving application of every receiver (TCP's are per flow). */
void
InstallUdpSinks(Scenario& s)
{
    for (const auto& r : s.receivers)
    {
        Ptr<UdpFlowSink> sink = CreateObject<UdpFlowSink>();
        sink->SetAttribute("Local",
                           AddressValue(InetSocketAddress(Ipv4Address::GetAny(), SINK_PORT)));
        if (s.o.multicast)
        {
            sink->SetAttribute("Group", Ipv4AddressValue(GROUP));
        }
        sink->SetAttribute("WindowStart", TimeValue(s.start + s.o.warmup));
        sink->SetAttribute("WindowEnd", TimeValue(s.stop));
        sink->SetAttribute("FastPath", BooleanValue(s.o.udpFastPath));
        s.lan.GetHost(r)->AddApplication(sink);
        sink->SetStartTime(Seconds(0));
        s.run.sinks[r] = sink;
    }
}

std::vector<Send>
PlanSends(const Scenario& s)
{
    std::vector<Send> sends;
    if (s.o.multicast)
    {
        for (const auto& sender : s.senders)
        {
            sends.push_back({sender, s.receivers, DataRate(0)});
        }
        return sends;
    }
    for (const auto& f : s.spec.flows)
    {
        sends.push_back({f.from, {f.to}, f.rate});
    }
    return sends;
}

/** Data frames on the sender's link from the traffic start on (gratuitous ARPs, when a
 *  LanBuilder sends them, go out at t = 0): a device counter, so no per-frame trace costs
 *  time. Once per sending host. */
void
CountSenderFrames(Scenario& s, const std::string& sender)
{
    if (s.run.senderFrames.count(sender))
    {
        return;
    }
    s.run.senderFrames[sender] = 0;
    Simulator::Schedule(s.start,
                        &SnapshotDataFrames,
                        s.lan.GetHostDevice(sender),
                        &s.run.senderFrames[sender]);
}

/** The TCP receiving application of flow @p k: on the host's CPU with the host model,
 *  else ns-3's PacketSink; both count the bytes read inside the goodput window. */
void
InstallTcpReceiver(Scenario& s, const std::string& to, uint16_t port, ScenarioFlow& flow)
{
    TcpWindowBytes* window = flow.tcpWindow.get();
    const auto host = std::find_if(s.run.hosts.begin(), s.run.hosts.end(), [&](auto& h) {
        return h.name == to;
    });
    if (host != s.run.hosts.end())
    {
        flow.tcpReader = InstallTcpReader(s.o, *host, s.lan.GetHost(to), port);
        flow.tcpReader->TraceConnectWithoutContext("Rx", MakeBoundCallback(&TcpRx, window));
        return;
    }
    Ptr<PacketSink> sink = CreateObject<PacketSink>();
    sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), port)));
    sink->SetAttribute("Protocol", TypeIdValue(TcpSocketFactory::GetTypeId()));
    s.lan.GetHost(to)->AddApplication(sink);
    sink->SetStartTime(Seconds(0));
    sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&TcpRx, window));
    flow.tcpSink = sink;
}

/** Option echo for flow @p k (seed 003's timing): the receiving host's echo thread, fed by
 *  the receiving application's reads, and the sender's timing thread on port ECHO_PORT + k,
 *  which looks each message's stamp up in the source. */
template <typename Source>
void
InstallEcho(Scenario& s, ScenarioFlow& flow, Ptr<Source> src, uint32_t messageSize)
{
    const ScenarioOptions& o = s.o;
    src->KeepStamps();
    const uint16_t port = ECHO_PORT + flow.id;
    Ptr<EchoTimer> timer = CreateObject<EchoTimer>();
    timer->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), port)));
    timer->SetAttribute("ReceiveCost", TimeValue(o.echoRecvCost));
    timer->SetAttribute("WindowStart", TimeValue(s.start + o.warmup));
    timer->SetAttribute("WindowEnd", TimeValue(s.stop));
    timer->SetStampSource(MakeCallback(&Source::GetStamp, src));
    s.lan.GetHost(flow.from)->AddApplication(timer);
    timer->SetStartTime(Seconds(0));
    // A thread of its own, beside the reader (the reader's core: InstallTcpReader).
    const HostValues& v = o.hostValues;
    const uint32_t readerCore = v.cores == 1 || v.readersOnEveryCore ? 0 : 1;
    Ptr<MessageEcho> echo = CreateObject<MessageEcho>();
    echo->SetAttribute(
        "Remote",
        AddressValue(InetSocketAddress(s.lan.GetHostAddress(flow.from), port)));
    echo->SetAttribute("Cost", TimeValue(o.echoCost));
    echo->SetAttribute("Core", UintegerValue(std::min(readerCore + 1, v.cores - 1)));
    echo->SetAttribute("MessageSize", UintegerValue(messageSize));
    echo->SetAttribute("FlowId", UintegerValue(flow.id));
    s.lan.GetHost(flow.to)->AddApplication(echo);
    echo->SetStartTime(Seconds(0));
    flow.echo = echo;
    flow.echoTimer = timer;
}

/** Flow @p k over TCP: a connection of its own (one listening socket each). */
void
InstallTcpFlow(Scenario& s, const Send& send, uint32_t k, DataRate rate, bool maxRate)
{
    const ScenarioOptions& o = s.o;
    const std::string& to = send.to.front();
    const uint16_t port = SINK_PORT + k;
    ScenarioFlow flow;
    flow.tcpWindow = std::make_shared<TcpWindowBytes>();
    flow.tcpWindow->start = s.start + o.warmup;
    flow.tcpWindow->end = s.stop;
    InstallTcpReceiver(s, to, port, flow);
    Ptr<TcpFlowSource> src = CreateObject<TcpFlowSource>();
    src->SetAttribute("Remote", AddressValue(InetSocketAddress(s.lan.GetHostAddress(to), port)));
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
    s.lan.GetHost(send.from)->AddApplication(src);
    src->SetStartTime(s.start);
    src->SetStopTime(s.stop);
    flow.from = send.from;
    flow.to = to;
    flow.id = k;
    flow.rate = maxRate ? DataRate(0) : rate;
    flow.tcpSource = src;
    if (o.echo)
    {
        InstallEcho(s, flow, src, o.payload);
        flow.tcpReader->TraceConnectWithoutContext(
            "Rx",
            MakeCallback(&MessageEcho::Read, flow.echo));
    }
    s.run.flows.push_back(flow);
}

/** Flow @p k over UDP: one source, a flow of the record per destination (multicast: per
 *  member). */
void
InstallUdpFlow(Scenario& s, const Send& send, uint32_t k, DataRate rate, bool maxRate)
{
    const ScenarioOptions& o = s.o;
    Ptr<Node> node = s.lan.GetHost(send.from);
    Ptr<UdpFlowSource> src = CreateObject<UdpFlowSource>();
    const Ipv4Address dst = o.multicast ? GROUP : s.lan.GetHostAddress(send.to.front());
    src->SetAttribute("Remote", AddressValue(InetSocketAddress(dst, SINK_PORT)));
    src->SetAttribute("PayloadSize", UintegerValue(o.payload));
    if (!maxRate)
    {
        src->SetAttribute("DataRate", DataRateValue(rate));
    }
    src->SetAttribute("MaxRate", BooleanValue(maxRate));
    src->SetAttribute("Pattern", StringValue(o.pattern));
    src->SetAttribute("StartBurst", UintegerValue(o.startBurst));
    src->SetAttribute("FlowId", UintegerValue(k));
    src->SetAttribute("Seed", UintegerValue(o.seed)); // the testbed's departures too
    src->SetAttribute("Blocking", BooleanValue(o.blocking));
    src->SetAttribute("Device", PointerValue(s.lan.GetHostDevice(send.from)));
    src->SetAttribute("FastPath", BooleanValue(o.udpFastPath));
    src->SetAttribute("Mtu", UintegerValue(o.mtu));
    src->SetAttribute("SendCost", TimeValue(o.sendCost));
    src->SetAttribute("SendByteCost", DoubleValue(o.sendByteCost));
    src->SetAttribute("SendPacketCost", DoubleValue(o.sendPacketCost));
    s.stream += src->AssignStreams(s.stream);
    if (o.multicast)
    {
        // As a Linux host's route for 224.0.0.0/4 on its LAN interface.
        Ipv4StaticRoutingHelper().SetDefaultMulticastRoute(node, s.lan.GetHostDevice(send.from));
    }
    src->TraceConnectWithoutContext("TxFailure",
                                    MakeBoundCallback(&SocketFailure, s.run.accountant));
    for (const auto& to : send.to)
    {
        if (o.multicast)
        {
            // A failed send is lost for every member.
            src->TraceConnectWithoutContext("TxFailure",
                                            MakeBoundCallback(&SocketFailure, s.own.at(to)));
        }
        ScenarioFlow flow;
        flow.from = send.from;
        flow.to = to;
        flow.id = k;
        flow.rate = maxRate ? DataRate(0) : rate;
        flow.source = src;
        flow.accountant = s.AccountantOf(to);
        if (o.echo)
        {
            InstallEcho(s, flow, src, 0);
            s.run.sinks.at(to)->TraceConnectWithoutContext(
                "Rx",
                MakeCallback(&MessageEcho::Read, flow.echo));
        }
        s.run.flows.push_back(flow);
    }
    node->AddApplication(src);
    src->SetStartTime(s.start);
    src->SetStopTime(s.stop);
}

/** Every sender's source; a flow's own rate (topology file) overrides the run's. */
void
InstallSources(Scenario& s)
{
    const std::vector<Send> sends = PlanSends(s);
    for (uint32_t k = 0; k < sends.size(); ++k)
    {
        const Send& send = sends[k];
        const bool ownRate = send.rate.GetBitRate() > 0;
        const DataRate rate = ownRate ? send.rate : s.o.rate;
        const bool maxRate = ownRate ? false : s.o.maxRate;
        CountSenderFrames(s, send.from);
        if (s.o.tcp)
        {
            InstallTcpFlow(s, send, k, rate, maxRate);
        }
        else
        {
            InstallUdpFlow(s, send, k, rate, maxRate);
        }
    }
}

void
EnablePcap(Scenario& s)
{
    // Nanosecond timestamps: a 64-byte frame lasts 0.67 us at 1 Gbit/s, so microseconds
    // would give frames of one burst the same time (tshark reads both formats).
    Config::SetDefault("ns3::PcapFileWrapper::NanosecMode", BooleanValue(true));
    s.lan.Links().EnablePcapAll(s.o.pcap, true);
}

/** Run until the LAN is empty; one that still holds traffic at the bound the options
 *  imply is an error, not a record with queued packets counted as lost. 0, or 1 with
 *  one line on stderr. */
int
RunUntilDrained(Scenario& s, std::chrono::steady_clock::time_point setup0)
{
    ScenarioRun& run = s.run;
    run.drainBound = DrainBound(s.o, s.spec, s.lan);
    Simulator::Schedule(s.stop, &StopWhenDrained, &run);
    Simulator::Stop(s.stop + run.drainBound);
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
        return 1;
    }
    if (!run.drained)
    {
        std::cerr << "lanloss-sim: error: the LAN still held traffic "
                  << run.drainBound.GetSeconds()
                  << " s after the sources stopped, the longest these options allow for "
                     "draining it (scenario-drain.h); no record written"
                  << std::endl;
        return 1;
    }
    return 0;
}

/** The record to --out, or stdout: 0, or 1 with one line on stderr. */
int
WriteRecord(const ScenarioRun& run)
{
    const std::string& out = run.options.out;
    if (out.empty())
    {
        WriteReport(std::cout, run);
        return 0;
    }
    std::ofstream file(out);
    WriteReport(file, run);
    if (!file)
    {
        std::cerr << "lanloss-sim: error: out: cannot write '" << out << "'" << std::endl;
        return 1;
    }
    return 0;
}

} // namespace

/** One run of the scenario: 0, or 1 with one line on stderr (2: a flag refused). */
int
Run(const ScenarioOptions& o)
{
    const auto setup0 = std::chrono::steady_clock::now();
    ConfigureDefaults(o);
    Scenario s(o);
    if (const std::optional<int> ended = BuildLan(s))
    {
        return *ended;
    }
    StartRun(s);
    if (o.multicast)
    {
        AddMemberAccountants(s);
    }
    if (o.frameLoss > 0)
    {
        InstallFrameLoss(s);
    }
    if (o.host != "ideal")
    {
        InstallHosts(s);
    }
    if (!o.tcp)
    {
        InstallUdpSinks(s);
    }
    InstallSources(s);
    if (!o.pcap.empty())
    {
        EnablePcap(s);
    }
    int status = RunUntilDrained(s, setup0);
    if (status == 0)
    {
        status = WriteRecord(s.run);
    }
    Simulator::Destroy();
    return status;
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
