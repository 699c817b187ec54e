// SPDX-License-Identifier: GPL-2.0-only
/*
 * HostRxPath, the kernel's half: softirq and NAPI polls with their budget, ksoftirqd,
 * RPS and the per-CPU backlog, IP reassembly and UDP delivery to the sockets. The NIC's
 * half is host-rx-nic.cc; construction and state are host-rx-path.cc.
 */
#include "ethernet-net-device.h"
#include "ethernet-wire.h"
#include "host-cpu.h"
#include "host-rx-path.h"
#include "host-socket.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostRxKernel");

namespace
{

constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
constexpr uint8_t IPPROTO_UDP_NUMBER = 17;

} // namespace

// ---------------------------------------------------------------- softirq

uint32_t
HostRxPath::SoftirqContext(uint32_t core) const
{
    const Softnet& sd = m_softnet[core];
    return sd.inKsoftirqd ? sd.ksoftirqd : m_cpu->SoftIrqContext(core);
}

void
HostRxPath::NapiSchedule(uint32_t core, Napi napi)
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
HostRxPath::RaiseSoftirq(uint32_t core)
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
HostRxPath::NetRxAction(uint32_t core)
{
    Softnet& sd = m_softnet[core];
    sd.budget = m_netdevBudget;
    sd.runStart = Simulator::Now();
    ++sd.runs;
    ++m_stats.softirqRuns;
    NextPoll(core);
}

void
HostRxPath::NextPoll(uint32_t core)
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
HostRxPath::Step(uint32_t core)
{
    Softnet& sd = m_softnet[core];
    if (sd.current == NAPI_NIC)
    {
        // e1000_clean_rx_irq: while a descriptor is done and work < budget
        if (sd.work >= m_napiWeight || m_ring.empty())
        {
            PollEnd(core, sd.work < m_napiWeight);
            return;
        }
        sd.inflight = std::move(m_ring.front());
        m_ring.pop_front();
        const int32_t target = RpsTarget(sd.inflight);
        sd.inflightToBacklog = target >= 0;
        sd.inflightTarget = target >= 0 ? uint32_t(target) : core;
        const Time cost = m_driverCost + (sd.inflightToBacklog ? Seconds(0) : m_stackCost);
        m_cpu->Submit(SoftirqContext(core), cost, HostCpu::SOFTIRQ_WORK, sd.jobDone);
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
HostRxPath::JobDone(uint32_t core)
{
    Softnet& sd = m_softnet[core];
    HostRxFrame f = std::move(sd.inflight);
    sd.inflight = HostRxFrame();
    ++sd.work;
    if (sd.current == NAPI_NIC)
    {
        if (++m_cleaned >= m_rxBufferWrite)
        {
            ReturnDescriptors();
        }
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
HostRxPath::PollEnd(uint32_t core, bool complete)
{
    Softnet& sd = m_softnet[core];
    NS_ASSERT(!sd.pollList.empty() && sd.pollList.front() == sd.current);
    sd.pollList.pop_front();
    if (sd.current == NAPI_NIC)
    {
        ReturnDescriptors(); // e1000_alloc_rx_buffers at the end of every clean
        if (complete)
        {
            // napi_complete_done, e1000_irq_enable: frames that came meanwhile interrupt now
            sd.nicScheduled = false;
            m_irqEnabled = true;
            MaybeInterrupt();
        }
        else
        {
            sd.pollList.push_back(NAPI_NIC); // weight used up: polled again (list_move_tail)
        }
    }
    else
    {
        if (complete)
        {
            sd.backlogScheduled = false;
        }
        else
        {
            sd.pollList.push_back(NAPI_BACKLOG);
        }
    }
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
HostRxPath::ReturnDescriptors()
{
    if (m_cleaned == 0)
    {
        return;
    }
    m_hwFree += m_cleaned;
    m_cleaned = 0;
    TryDma();
}

// ---------------------------------------------------------------- RPS, IP, UDP

int32_t
HostRxPath::RpsTarget(const HostRxFrame& frame) const
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
HostRxPath::EnqueueBacklog(uint32_t core, HostRxFrame frame)
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
HostRxPath::StackReceive(HostRxFrame frame)
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
HostRxPath::DatagramReady(HostDatagram datagram)
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
            it->second.Pick()->Enqueue(std::move(datagram));
            return;
        }
    }
    DeliverDatagram(datagram);
}

void
HostRxPath::DeliverDatagram(const HostDatagram& datagram)
{
    for (const HostRxFrame& f : datagram.frames)
    {
        DeliverFrame(f);
    }
}

void
HostRxPath::DeliverFrame(const HostRxFrame& frame)
{
    ++m_stats.framesDelivered;
    m_device->DeliverUp(frame.packet, frame.protocol, frame.source, frame.destination, frame.type);
}

void
HostRxPath::ReassemblyTimeout(const HostRxFrame& frame)
{
    ++m_stats.reassemblyDrops;
    m_reassemblyDropTrace(frame.packet);
}

} // namespace ns3
