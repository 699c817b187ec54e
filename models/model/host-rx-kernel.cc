// SPDX-License-Identifier: GPL-2.0-only
/*
 * HostRxKernel: softirq and NAPI polls with their budget, ksoftirqd, RPS and the per-CPU
 * backlog, IP reassembly and UDP delivery to the sockets.
 */
#include "host-rx-kernel.h"

#include "ethernet-net-device.h"
#include "ethernet-wire.h"
#include "host-cpu.h"
#include "host-rx-nic.h"
#include "host-socket.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostRxKernel");
NS_OBJECT_ENSURE_REGISTERED(HostRxKernel);

using ethernet::ETHERTYPE_IPV4;
using ethernet::IPPROTO_UDP_NUMBER;

TypeId
HostRxKernel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostRxKernel")
            .SetParent<Object>()
            .SetGroupName("Lanloss")
            .AddConstructor<HostRxKernel>()
            // ---- CPU costs
            .AddAttribute("DriverCost",
                          "Softirq CPU time (s) per frame in the driver poll "
                          "(e1000_clean_rx_irq: descriptor, skb, copybreak copy, "
                          "eth_type_trans, netif_receive_skb entry, RPS steering).",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&HostRxKernel::m_driverCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("StackCost",
                          "Softirq CPU time (s) per frame in IP and UDP (ip_rcv, ip_defrag, "
                          "udp_rcv, socket lookup, enqueue and wake-up).",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&HostRxKernel::m_stackCost),
                          MakeTimeChecker(Seconds(0)))
            // ---- softirq
            .AddAttribute("NapiWeight",
                          "Frames per NAPI poll of the NIC (NAPI_POLL_WEIGHT = 64).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&HostRxKernel::m_napiWeight),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NetdevBudget",
                          "Packets per net_rx_action run (net.core.netdev_budget = 300).",
                          UintegerValue(300),
                          MakeUintegerAccessor(&HostRxKernel::m_netdevBudget),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NetdevBudgetUsecs",
                          "Time (s) limit of a net_rx_action run (net.core.netdev_budget_usecs "
                          "= 2000 us).",
                          TimeValue(MicroSeconds(2000)),
                          MakeTimeAccessor(&HostRxKernel::m_netdevBudgetTime),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("MaxSoftirqRestart",
                          "net_rx_action runs one __do_softirq may make before handing the "
                          "work to ksoftirqd (MAX_SOFTIRQ_RESTART = 10).",
                          UintegerValue(10),
                          MakeUintegerAccessor(&HostRxKernel::m_maxSoftirqRestart),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxSoftirqTime",
                          "Time (s) after which __do_softirq hands the work to ksoftirqd "
                          "(MAX_SOFTIRQ_TIME = 2 ms).",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&HostRxKernel::m_maxSoftirqTime),
                          MakeTimeChecker(MicroSeconds(1)))
            // ---- RPS and backlog
            .AddAttribute("RpsCpus",
                          "Receive Packet Steering: bit mask of the cores whose backlog a "
                          "frame may be queued to (rps_cpus); 0 = no RPS, no backlog.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HostRxKernel::m_rpsCpus),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BacklogSize",
                          "net.core.netdev_max_backlog: a frame is dropped when the backlog "
                          "input queue already holds more than this (1000).",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&HostRxKernel::m_backlogSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DevWeight",
                          "Frames per process_backlog poll (net.core.dev_weight = 64).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&HostRxKernel::m_devWeight),
                          MakeUintegerChecker<uint32_t>(1))
            // ---- IP
            .AddAttribute("ReassemblyTimeout",
                          "Time (s) an incomplete IPv4 datagram is kept (net.ipv4.ipfrag_time "
                          "= 30 s).",
                          TimeValue(Seconds(30)),
                          MakeTimeAccessor(&HostRxKernel::m_reassemblyTimeout),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddTraceSource("BacklogDrop",
                            "RPS: the target core's backlog was full (softnet_stat dropped): "
                            "backlog.",
                            MakeTraceSourceAccessor(&HostRxKernel::m_backlogDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("ReassemblyDrop",
                            "A held IPv4 fragment was dropped by the reassembly timer: "
                            "reassembly.",
                            MakeTraceSourceAccessor(&HostRxKernel::m_reassemblyDropTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

HostRxKernel::HostRxKernel()
    : m_napiWeight(64),
      m_netdevBudget(300),
      m_netdevBudgetTime(MicroSeconds(2000)),
      m_maxSoftirqRestart(10),
      m_maxSoftirqTime(MilliSeconds(2)),
      m_driverCost(MicroSeconds(2)),
      m_stackCost(MicroSeconds(2)),
      m_rpsCpus(0),
      m_backlogSize(1000),
      m_devWeight(64),
      m_reassemblyTimeout(Seconds(30)),
      m_attached(false)
{
    NS_LOG_FUNCTION(this);
}

HostRxKernel::~HostRxKernel() = default;

void
HostRxKernel::DoDispose()
{
    m_defrag.Clear();
    m_softnet.clear();
    for (auto& [port, group] : m_sockets)
    {
        for (auto& socket : group.sockets)
        {
            socket->Dispose();
        }
    }
    m_sockets.clear();
    m_device = nullptr;
    m_cpu = nullptr;
    m_nic = nullptr;
    Object::DoDispose();
}

// ---------------------------------------------------------------- sockets, attaching

void
HostRxKernel::AddSocket(Ptr<HostSocket> socket)
{
    const uint16_t port = socket->GetPort();
    PortSockets& group = m_sockets[port];
    if (!group.sockets.empty())
    {
        NS_ABORT_MSG_UNLESS(socket->IsReusePort() && group.sockets.front()->IsReusePort(),
                            "HostRxKernel: two HostSockets on port "
                                << port << " without ReusePort on both");
    }
    group.sockets.push_back(socket);
    if (m_attached)
    {
        AttachSocket(socket);
    }
}

void
HostRxKernel::AttachSocket(const Ptr<HostSocket>& socket)
{
    socket->Attach(m_cpu, MakeCallback(&HostRxKernel::DeliverDatagram, this), NodeId());
}

uint32_t
HostRxKernel::NodeId() const
{
    Ptr<Node> node = m_device ? m_device->GetNode() : nullptr;
    return node ? node->GetId() : Simulator::GetContext();
}

Ptr<HostSocket>
HostRxKernel::GetSocket(uint16_t port) const
{
    auto it = m_sockets.find(port);
    return it == m_sockets.end() ? nullptr : it->second.sockets.front();
}

std::vector<Ptr<HostSocket>>
HostRxKernel::GetSockets(uint16_t port) const
{
    auto it = m_sockets.find(port);
    return it == m_sockets.end() ? std::vector<Ptr<HostSocket>>{} : it->second.sockets;
}

HostSocket*
HostRxKernel::PortSockets::Pick()
{
    if (sockets.size() == 1)
    {
        return PeekPointer(sockets.front());
    }
    HostSocket* s = PeekPointer(sockets[next]);
    next = (next + 1) % sockets.size();
    return s;
}

void
HostRxKernel::Attach(Ptr<EthernetNetDevice> device, Ptr<HostCpu> cpu, Ptr<HostRxNic> nic)
{
    NS_ABORT_MSG_IF(m_attached, "HostRxKernel: attached twice");
    m_device = device;
    m_cpu = cpu;
    m_nic = nic;
    m_attached = true;
    m_softnet.assign(m_cpu->GetNCores(), Softnet{});
    for (uint32_t c = 0; c < m_softnet.size(); ++c)
    {
        m_softnet[c].ksoftirqd = m_cpu->CreateThread(c, "ksoftirqd/" + std::to_string(c));
        m_softnet[c].jobDone = MakeCallback(&HostRxKernel::JobDone, this, c);
    }
    m_rpsList.clear();
    for (uint32_t c = 0; c < m_softnet.size() && c < 64; ++c)
    {
        if (m_rpsCpus & (uint64_t(1) << c))
        {
            m_rpsList.push_back(c);
        }
    }
    NS_ABORT_MSG_IF(m_rpsCpus != 0 && m_rpsList.empty(),
                    "HostRxKernel: RpsCpus names no core of the host");
    m_defrag.SetTimeout(m_reassemblyTimeout);
    m_defrag.SetDropCallback(MakeCallback(&HostRxKernel::ReassemblyTimeout, this));
    for (auto& [port, group] : m_sockets)
    {
        for (auto& socket : group.sockets)
        {
            AttachSocket(socket);
        }
    }
}

void
HostRxKernel::ScheduleNicPoll()
{
    NapiSchedule(HostRxNic::IRQ_CORE, NAPI_NIC);
}

HostRxKernel::Stats
HostRxKernel::GetStats() const
{
    Stats s = m_stats;
    s.reassemblyTimeouts = m_defrag.GetTimeouts();
    return s;
}

uint32_t
HostRxKernel::GetFramesInFlight() const
{
    uint32_t n = m_defrag.GetFragmentsHeld();
    for (const Softnet& sd : m_softnet)
    {
        n += sd.input.size() + sd.process.size() + (sd.inflight.packet ? 1 : 0);
    }
    return n;
}

uint32_t
HostRxKernel::GetFramesReassembling() const
{
    return m_defrag.GetFragmentsHeld();
}

// ---------------------------------------------------------------- softirq

uint32_t
HostRxKernel::SoftirqContext(uint32_t core) const
{
    const Softnet& sd = m_softnet[core];
    return sd.inKsoftirqd ? sd.ksoftirqd : m_cpu->SoftIrqContext(core);
}

void
HostRxKernel::NapiSchedule(uint32_t core, Napi napi)
{
    Softnet& sd = m_softnet[core];
    bool& scheduled = napi == NAPI_NIC ? sd.nicScheduled : sd.backlogScheduled;
    if (scheduled)
    {
        return;
    }
    scheduled = true;
    sd.pollList.push_back(napi);
    RaiseSoftirq(core);
}

void
HostRxKernel::RaiseSoftirq(uint32_t core)
{
    Softnet& sd = m_softnet[core];
    if (sd.active)
    {
        return; // the running net_rx_action (or ksoftirqd) will find it on the poll list
    }
    sd.active = true;
    sd.inKsoftirqd = false;
    sd.runs = 0;
    sd.doStart = Simulator::Now();
    NetRxAction(core);
}

void
HostRxKernel::NetRxAction(uint32_t core)
{
    Softnet& sd = m_softnet[core];
    sd.budget = m_netdevBudget;
    sd.runStart = Simulator::Now();
    ++sd.runs;
    ++m_stats.softirqRuns;
    NextPoll(core);
}

void
HostRxKernel::NextPoll(uint32_t core)
{
    Softnet& sd = m_softnet[core];
    if (sd.pollList.empty())
    {
        sd.active = false;
        sd.inKsoftirqd = false;
        return;
    }
    sd.current = sd.pollList.front();
    sd.work = 0;
    ++(sd.current == NAPI_NIC ? m_stats.polls : m_stats.backlogPolls);
    Step(core);
}

void
HostRxKernel::StepNicPoll(uint32_t core)
{
    Softnet& sd = m_softnet[core];
    // e1000_clean_rx_irq: while a descriptor is done and work < budget
    if (sd.work >= m_napiWeight || !m_nic->HasRingFrame())
    {
        PollEnd(core, sd.work < m_napiWeight);
        return;
    }
    sd.inflight = m_nic->TakeRingFrame();
    const int32_t target = RpsTarget(sd.inflight);
    sd.inflightToBacklog = target >= 0;
    sd.inflightTarget = target >= 0 ? uint32_t(target) : core;
    const Time cost = m_driverCost + (sd.inflightToBacklog ? Seconds(0) : m_stackCost);
    m_cpu->Submit(SoftirqContext(core), cost, HostCpu::SOFTIRQ_WORK, sd.jobDone);
}

void
HostRxKernel::Step(uint32_t core)
{
    Softnet& sd = m_softnet[core];
    if (sd.current == NAPI_NIC)
    {
        StepNicPoll(core);
        return;
    }
    // process_backlog
    if (sd.process.empty())
    {
        if (sd.input.empty())
        {
            PollEnd(core, true);
            return;
        }
        while (!sd.input.empty())
        {
            sd.process.push_back(std::move(sd.input.front()));
            sd.input.pop_front();
        }
    }
    sd.inflight = std::move(sd.process.front());
    sd.process.pop_front();
    sd.inflightToBacklog = false;
    m_cpu->Submit(SoftirqContext(core), m_stackCost, HostCpu::SOFTIRQ_WORK, sd.jobDone);
}

void
HostRxKernel::JobDone(uint32_t core)
{
    Softnet& sd = m_softnet[core];
    HostRxFrame f = std::move(sd.inflight);
    sd.inflight = HostRxFrame();
    ++sd.work;
    m_stackCore = core; // IP and UDP of this frame ran here (the socket lock's taker)
    if (sd.current == NAPI_NIC)
    {
        m_nic->CleanedDescriptor();
        if (sd.inflightToBacklog)
        {
            EnqueueBacklog(sd.inflightTarget, std::move(f));
        }
        else
        {
            StackReceive(std::move(f));
        }
        Step(core);
        return;
    }
    StackReceive(std::move(f));
    if (sd.work >= m_devWeight)
    {
        PollEnd(core, false); // quota used: process_backlog returns with the NAPI still scheduled
        return;
    }
    Step(core);
}

void
HostRxKernel::PollEnd(uint32_t core, bool complete)
{
    Softnet& sd = m_softnet[core];
    NS_ASSERT(!sd.pollList.empty() && sd.pollList.front() == sd.current);
    if (sd.current == NAPI_NIC)
    {
        m_stats.emptyPolls += sd.work == 0;
        m_stats.singlePolls += sd.work == 1;
        const bool burst = sd.work >= BURST_POLL_FRAMES;
        m_stats.burstPolls += burst;
        m_stats.burstPollFrames += burst ? sd.work : 0;
    }
    sd.pollList.pop_front();
    EndNapi(sd, complete);
    sd.budget -= sd.work;
    if (sd.pollList.empty())
    {
        sd.active = false;
        sd.inKsoftirqd = false;
        return;
    }
    const Time now = Simulator::Now();
    if (sd.budget <= 0 || now - sd.runStart >= m_netdevBudgetTime)
    {
        // net_rx_action: time_squeeze++, re-raise NET_RX
        ++m_stats.timeSqueeze;
        if (!sd.inKsoftirqd &&
            !(sd.runs < m_maxSoftirqRestart && now - sd.doStart < m_maxSoftirqTime))
        {
            // __do_softirq gives up: wakeup_softirqd()
            sd.inKsoftirqd = true;
            ++m_stats.ksoftirqdWakeups;
        }
        NetRxAction(core);
        return;
    }
    NextPoll(core);
}

void
HostRxKernel::EndNapi(Softnet& sd, bool complete)
{
    if (sd.current == NAPI_NIC)
    {
        m_nic->ReturnDescriptors(); // e1000_alloc_rx_buffers at the end of every clean
        if (complete)
        {
            // napi_complete_done, e1000_irq_enable: frames that came meanwhile interrupt now
            sd.nicScheduled = false;
            m_nic->EnableInterrupt();
        }
        else
        {
            sd.pollList.push_back(NAPI_NIC); // weight used up: polled again (list_move_tail)
        }
        return;
    }
    if (complete)
    {
        sd.backlogScheduled = false;
    }
    else
    {
        sd.pollList.push_back(NAPI_BACKLOG);
    }
}

// ---------------------------------------------------------------- RPS, IP, UDP

int32_t
HostRxKernel::RpsTarget(const HostRxFrame& frame) const
{
    if (m_rpsList.empty() || frame.protocol != ETHERTYPE_IPV4)
    {
        return -1; // no RPS, or no flow hash (get_rps_cpu: hash 0 -> this CPU)
    }
    Ipv4Header ip;
    frame.packet->PeekHeader(ip);
    // The flow dissector hashes addresses and protocol, and the ports unless the
    // packet is a fragment; reciprocal_scale picks the core.
    uint32_t h = ip.GetSource().Get() * 0x9E3779B1u;
    h ^= ip.GetDestination().Get() + 0x7F4A7C15u + (h << 6) + (h >> 2);
    h ^= ip.GetProtocol() + 0x165667B1u + (h << 6) + (h >> 2);
    if (ip.GetFragmentOffset() == 0 && ip.IsLastFragment() &&
        ip.GetProtocol() == IPPROTO_UDP_NUMBER)
    {
        Ptr<Packet> copy = frame.packet->Copy();
        copy->RemoveHeader(ip);
        UdpHeader udp;
        copy->PeekHeader(udp);
        h ^= ((uint32_t(udp.GetSourcePort()) << 16) | udp.GetDestinationPort()) + 0x27D4EB2Fu +
             (h << 6) + (h >> 2);
    }
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    return m_rpsList[(uint64_t(h) * m_rpsList.size()) >> 32];
}

void
HostRxKernel::EnqueueBacklog(uint32_t core, HostRxFrame frame)
{
    Softnet& sd = m_softnet[core];
    // enqueue_to_backlog: accepted while qlen <= netdev_max_backlog
    if (sd.input.size() > m_backlogSize)
    {
        ++m_stats.backlogDrops;
        m_backlogDropTrace(frame.packet);
        return;
    }
    sd.input.push_back(std::move(frame));
    NapiSchedule(core, NAPI_BACKLOG);
}

void
HostRxKernel::StackReceive(HostRxFrame frame)
{
    ++m_stats.framesToStack;
    if (frame.protocol != ETHERTYPE_IPV4)
    {
        DeliverFrame(frame);
        return;
    }
    Ipv4Header ip;
    frame.packet->PeekHeader(ip);
    HostDatagram d;
    if (ip.GetFragmentOffset() != 0 || !ip.IsLastFragment())
    {
        if (m_defrag.Add(frame, ip, d))
        {
            DatagramReady(std::move(d));
        }
        return;
    }
    d.truesize = frame.truesize;
    d.frames.push_back(std::move(frame));
    DatagramReady(std::move(d));
}

void
HostRxKernel::DatagramReady(HostDatagram datagram)
{
    const HostRxFrame& first = datagram.frames.front();
    Ipv4Header ip;
    Ptr<Packet> copy = first.packet->Copy();
    copy->RemoveHeader(ip);
    if (ip.GetProtocol() == IPPROTO_UDP_NUMBER && !m_sockets.empty())
    {
        UdpHeader udp;
        copy->PeekHeader(udp);
        auto it = m_sockets.find(udp.GetDestinationPort());
        if (it != m_sockets.end())
        {
            datagram.port = udp.GetDestinationPort();
            uint32_t ipPayload = ip.GetPayloadSize();
            for (std::size_t k = 1; k < datagram.frames.size(); ++k)
            {
                Ipv4Header fragment;
                datagram.frames[k].packet->PeekHeader(fragment);
                ipPayload += fragment.GetPayloadSize();
            }
            datagram.payloadBytes = ipPayload - std::min<uint32_t>(ipPayload, 8); // UDP header
            ++m_stats.datagramsToSockets;
            it->second.Pick()->Enqueue(std::move(datagram), m_stackCore);
            return;
        }
    }
    DeliverDatagram(datagram);
}

void
HostRxKernel::DeliverDatagram(const HostDatagram& datagram)
{
    for (const HostRxFrame& f : datagram.frames)
    {
        DeliverFrame(f);
    }
}

void
HostRxKernel::DeliverFrame(const HostRxFrame& frame)
{
    ++m_stats.framesDelivered;
    m_device->DeliverUp(frame.packet, frame.protocol, frame.source, frame.destination, frame.type);
}

void
HostRxKernel::ReassemblyTimeout(const HostRxFrame& frame)
{
    ++m_stats.reassemblyDrops;
    m_reassemblyDropTrace(frame.packet);
}

} // namespace ns3
