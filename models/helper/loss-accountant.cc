// SPDX-License-Identifier: GPL-2.0-only
#include "loss-accountant.h"

#include "ns3/callback.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LossAccountant");

const char*
LossAccountant::PointName(Point p)
{
    static const char* names[N_POINTS] = {"sender_socket",
                                          "sender_queue",
                                          "switch_ingress",
                                          "switch_egress",
                                          "rx_error",
                                          "rx_fifo",
                                          "rx_ring",
                                          "backlog",
                                          "reassembly",
                                          "socket_rcvbuf"};
    return names[p];
}

uint64_t
LossAccountant::Key(uint32_t flow, uint64_t seq)
{
    NS_ASSERT_MSG(seq < (uint64_t(1) << 40), "sequence number beyond 2^40");
    return (uint64_t(flow) << 40) | seq;
}

PacketStart
LossAccountant::StartAt(Point p)
{
    // What each point's trace source gives: the payload a socket refused, the frames a
    // device or switch dropped, the IPv4 packets of the receiving host's model and stack.
    switch (p)
    {
    case SENDER_SOCKET:
        return PacketStart::PAYLOAD;
    case SENDER_QUEUE:
    case SWITCH_INGRESS:
    case SWITCH_EGRESS:
    case RX_ERROR:
        return PacketStart::ETHERNET;
    default:
        return PacketStart::IPV4;
    }
}

void
LossAccountant::Record(Point point, Ptr<const Packet> packet)
{
    ++m_frameDrops[point];
    DatagramId id;
    if (!IdentifyDatagram(packet, StartAt(point), id))
    {
        ++m_untagged;
        return;
    }
    m_first.emplace(Key(id.flow, id.seq), static_cast<uint8_t>(point));
}

void
LossAccountant::RecordDatagram(Point point, uint32_t flow, uint64_t seq)
{
    ++m_frameDrops[point];
    m_first.emplace(Key(flow, seq), static_cast<uint8_t>(point));
}

static void
HostQueueDrop(LossAccountant* acc, Ptr<const Packet> packet)
{
    acc->Record(LossAccountant::SENDER_QUEUE, packet);
}

void
LossAccountant::WatchHostDevice(Ptr<EthernetNetDevice> device)
{
    device->TraceConnectWithoutContext("MacTxDrop", MakeBoundCallback(&HostQueueDrop, this));
}

static void
SwitchIngressDrop(LossAccountant* acc, Ptr<const Packet> packet, uint32_t port)
{
    acc->Record(LossAccountant::SWITCH_INGRESS, packet);
}

static void
SwitchEgressDrop(LossAccountant* acc, Ptr<const Packet> packet, uint32_t port)
{
    acc->Record(LossAccountant::SWITCH_EGRESS, packet);
}

void
LossAccountant::WatchSwitch(Ptr<EthernetSwitchNetDevice> sw)
{
    sw->TraceConnectWithoutContext("IngressDrop", MakeBoundCallback(&SwitchIngressDrop, this));
    sw->TraceConnectWithoutContext("EgressDrop", MakeBoundCallback(&SwitchEgressDrop, this));
}

void
LossAccountant::BranchEgressDrop(const Branch* branch, Ptr<const Packet> packet, uint32_t out)
{
    if (branch->egressPorts.count(out))
    {
        branch->accountant->Record(SWITCH_EGRESS, packet);
    }
}

void
LossAccountant::BranchIngressDrop(const Branch* branch,
                                  Ptr<const Packet> packet,
                                  uint32_t in,
                                  uint32_t out)
{
    // Ingress admission is checked per copy (EthernetSwitchNetDevice::Forward): the copy
    // for another branch may have passed, so only the copy for this branch counts.
    if (branch->egressPorts.count(out))
    {
        branch->accountant->Record(SWITCH_INGRESS, packet);
    }
}

void
LossAccountant::WatchSwitchBranch(Ptr<EthernetSwitchNetDevice> sw, std::set<uint32_t> egressPorts)
{
    m_branches.push_back(std::make_unique<Branch>(Branch{this, std::move(egressPorts)}));
    const Branch* branch = m_branches.back().get();
    sw->TraceConnectWithoutContext("EgressDrop",
                                   MakeBoundCallback(&LossAccountant::BranchEgressDrop, branch));
    sw->TraceConnectWithoutContext("IngressCopyDrop",
                                   MakeBoundCallback(&LossAccountant::BranchIngressDrop, branch));
}

namespace
{

/** Per egress port of one switch, the accountants of the receivers behind it. */
struct BranchTable : public SimpleRefCount<BranchTable>
{
    std::vector<std::vector<Ptr<LossAccountant>>> byPort;
};

void
TableEgressDrop(Ptr<BranchTable> table, Ptr<const Packet> packet, uint32_t out)
{
    if (out < table->byPort.size())
    {
        for (const auto& acc : table->byPort[out])
        {
            acc->Record(LossAccountant::SWITCH_EGRESS, packet);
        }
    }
}

void
TableIngressDrop(Ptr<BranchTable> table, Ptr<const Packet> packet, uint32_t in, uint32_t out)
{
    // per copy, as BranchIngressDrop: only the receivers behind the copy's egress port
    if (out < table->byPort.size())
    {
        for (const auto& acc : table->byPort[out])
        {
            acc->Record(LossAccountant::SWITCH_INGRESS, packet);
        }
    }
}

} // namespace

void
LossAccountant::WatchSwitchBranches(
    Ptr<EthernetSwitchNetDevice> sw,
    const std::map<uint32_t, std::vector<Ptr<LossAccountant>>>& byPort)
{
    Ptr<BranchTable> table = Create<BranchTable>();
    table->byPort.resize(sw->GetNPorts());
    for (const auto& [port, accountants] : byPort)
    {
        NS_ABORT_MSG_UNLESS(port < sw->GetNPorts(), "no port " << port << " on the switch");
        table->byPort[port] = accountants;
    }
    sw->TraceConnectWithoutContext("EgressDrop", MakeBoundCallback(&TableEgressDrop, table));
    sw->TraceConnectWithoutContext("IngressCopyDrop",
                                   MakeBoundCallback(&TableIngressDrop, table));
}

static void
ReceiveError(LossAccountant* acc, Ptr<const Packet> frame)
{
    acc->Record(LossAccountant::RX_ERROR, frame);
}

void
LossAccountant::WatchReceiveErrors(Ptr<EthernetNetDevice> device)
{
    device->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&ReceiveError, this));
}

void
LossAccountant::Ipv4Drop(const Ipv4Header& header,
                         Ptr<const Packet> packet,
                         Ipv4L3Protocol::DropReason reason,
                         Ptr<Ipv4> ipv4,
                         uint32_t iface)
{
    if (reason == Ipv4L3Protocol::DROP_FRAGMENT_TIMEOUT)
    {
        Record(REASSEMBLY, packet);
        return;
    }
    ++m_otherIpv4;
    NS_LOG_WARN("unexpected IPv4 drop, reason " << reason);
}

void
LossAccountant::WatchIpv4(Ptr<Node> host)
{
    Ptr<Ipv4L3Protocol> ip = host->GetObject<Ipv4L3Protocol>();
    NS_ASSERT_MSG(ip, "WatchIpv4 on a node without IPv4");
    ip->TraceConnectWithoutContext("Drop", MakeCallback(&LossAccountant::Ipv4Drop, this));
}

LossAccountant::Attribution
LossAccountant::Attribute(uint32_t flow, const std::vector<uint64_t>& missingSeqs) const
{
    Attribution a;
    for (uint64_t seq : missingSeqs)
    {
        auto it = m_first.find(Key(flow, seq));
        if (it == m_first.end())
        {
            ++a.unexplained;
        }
        else
        {
            ++a.byPoint[it->second];
        }
    }
    return a;
}

const std::array<uint64_t, LossAccountant::N_POINTS>&
LossAccountant::FrameDrops() const
{
    return m_frameDrops;
}

uint64_t
LossAccountant::UntaggedDrops() const
{
    return m_untagged;
}

uint64_t
LossAccountant::OtherIpv4Drops() const
{
    return m_otherIpv4;
}

} // namespace ns3
