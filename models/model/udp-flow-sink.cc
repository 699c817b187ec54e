// SPDX-License-Identifier: GPL-2.0-only
#include "udp-flow-sink.h"

#include "datagram-id.h"
#include "udp-fast-path.h"
#include "udp-flow-source.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/udp-socket.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UdpFlowSink");
NS_OBJECT_ENSURE_REGISTERED(UdpFlowSink);

TypeId
UdpFlowSink::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UdpFlowSink")
            .SetParent<Application>()
            .SetGroupName("Lanloss")
            .AddConstructor<UdpFlowSink>()
            .AddAttribute("Local",
                          "Address to bind: an InetSocketAddress, normally "
                          "Ipv4Address::GetAny() and the port.",
                          AddressValue(InetSocketAddress(Ipv4Address::GetAny(), 5201)),
                          MakeAddressAccessor(&UdpFlowSink::m_local),
                          MakeAddressChecker())
            .AddAttribute("Group",
                          "IPv4 multicast group to join; 0.0.0.0 = none.",
                          Ipv4AddressValue(Ipv4Address::GetAny()),
                          MakeIpv4AddressAccessor(&UdpFlowSink::m_group),
                          MakeIpv4AddressChecker())
            .AddAttribute("WindowStart",
                          "Start of the goodput window (simulation time, inclusive).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&UdpFlowSink::m_windowStart),
                          MakeTimeChecker())
            .AddAttribute("WindowEnd",
                          "End of the goodput window (simulation time, exclusive); "
                          "goodput is NaN unless WindowEnd > WindowStart.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&UdpFlowSink::m_windowEnd),
                          MakeTimeChecker())
            .AddAttribute("RcvBufSize",
                          "Socket receive buffer in bytes (large: an ideal reader never "
                          "drops).",
                          UintegerValue(1U << 30),
                          MakeUintegerAccessor(&UdpFlowSink::m_rcvBufSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("FastPath",
                          "Take single-frame datagrams to Local's port from the node's "
                          "UdpFastPath, around ns-3's IPv4 and UDP objects (the same "
                          "datagrams at the same times, but no IPv4 trace sees them); only "
                          "with Local at any address, and not where checksums are on.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&UdpFlowSink::m_fastPath),
                          MakeBooleanChecker())
            .AddTraceSource("Rx",
                            "A datagram was read from the socket (packet, source address).",
                            MakeTraceSourceAccessor(&UdpFlowSink::m_rxTrace),
                            "ns3::Packet::AddressTracedCallback");
    return tid;
}

UdpFlowSink::UdpFlowSink()
    : m_group(Ipv4Address::GetAny()),
      m_rcvBufSize(1U << 30),
      m_fastPath(false),
      m_totalReceived(0),
      m_unidentified(0)
{
    NS_LOG_FUNCTION(this);
}

UdpFlowSink::~UdpFlowSink() = default;

void
UdpFlowSink::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_socket = nullptr;
    Application::DoDispose();
}

void
UdpFlowSink::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_UNLESS(InetSocketAddress::IsMatchingType(m_local),
                        "UdpFlowSink: Local must be an InetSocketAddress");
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    m_socket->SetAttribute("RcvBufSize", UintegerValue(m_rcvBufSize));
    NS_ABORT_MSG_IF(m_socket->Bind(m_local) == -1, "UdpFlowSink: Bind failed");
    if (m_group != Ipv4Address::GetAny())
    {
        NS_ABORT_MSG_UNLESS(m_group.IsMulticast(), "UdpFlowSink: Group is not multicast");
        Ipv4Address local = InetSocketAddress::ConvertFrom(m_local).GetIpv4();
        if (local != Ipv4Address::GetAny() && local != m_group)
        {
            NS_LOG_WARN("bound to " << local << ": datagrams to " << m_group
                                    << " will not match this socket");
        }
        Ptr<UdpSocket> udp = DynamicCast<UdpSocket>(m_socket);
        NS_ABORT_MSG_UNLESS(udp, "UdpFlowSink: not a UdpSocket");
        udp->MulticastJoinGroup(0, m_group);
    }
    m_socket->SetRecvCallback(MakeCallback(&UdpFlowSink::HandleRead, this));
    // The fast path stands for the stack only where the stack would check nothing more:
    // no checksums, and a socket bound to any address (the fast path matches ports only).
    const bool anyAddress =
        InetSocketAddress::ConvertFrom(m_local).GetIpv4() == Ipv4Address::GetAny();
    if (m_fastPath && anyAddress && !Node::ChecksumEnabled())
    {
        m_fastPathPort = InetSocketAddress::ConvertFrom(m_local).GetPort();
        UdpFastPath::Of(GetNode())->Listen(m_fastPathPort,
                                           MakeCallback(&UdpFlowSink::Read, this));
    }
}

void
UdpFlowSink::StopApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->Close();
    }
    if (m_fastPathPort != 0)
    {
        UdpFastPath::Of(GetNode())->Unlisten(m_fastPathPort);
        m_fastPathPort = 0;
    }
}

void
UdpFlowSink::HandleRead(Ptr<Socket> socket)
{
    // Drain the socket: several datagrams may be waiting after one notification.
    Address from;
    while (Ptr<Packet> packet = socket->RecvFrom(from))
    {
        Read(packet, from);
    }
}

void
UdpFlowSink::Read(Ptr<Packet> packet, const Address& from)
{
    ++m_totalReceived;
    m_rxTrace(packet, from);
    Account(packet);
}

void
UdpFlowSink::Account(Ptr<Packet> packet)
{
    DatagramId id;
    if (!IdentifyDatagram(packet, PacketStart::PAYLOAD, id))
    {
        ++m_unidentified;
        return;
    }
    const uint64_t seq = id.seq;
    Flow& f = m_flows[id.flow];
    ++f.arrivals;
    if (seq >= f.seen.size())
    {
        f.seen.resize(std::max<uint64_t>(seq + 1, 2 * f.seen.size()), false);
    }
    if (f.seen[seq])
    {
        ++f.duplicated;
        return;
    }
    f.seen[seq] = true;
    if (f.any && seq < f.highest)
    {
        ++f.reordered;
    }
    if (!f.any || seq > f.highest)
    {
        f.highest = seq;
        f.any = true;
    }
    const Time now = Simulator::Now();
    f.bytes += packet->GetSize();
    if (now >= m_windowStart && now < m_windowEnd)
    {
        f.windowBytes += packet->GetSize();
    }
    f.latencyUs.push_back((now - id.sent).GetNanoSeconds() / 1000.0);
}

// ---------------------------------------------------------------- results

std::vector<uint32_t>
UdpFlowSink::GetFlowIds() const
{
    std::vector<uint32_t> ids;
    ids.reserve(m_flows.size());
    for (const auto& [id, flow] : m_flows)
    {
        ids.push_back(id);
    }
    return ids;
}

std::vector<uint64_t>
UdpFlowSink::MissingSeqs(uint32_t flow, uint64_t sent) const
{
    std::vector<uint64_t> missing;
    auto it = m_flows.find(flow);
    for (uint64_t seq = 0; seq < sent; ++seq)
    {
        if (it == m_flows.end() || seq >= it->second.seen.size() || !it->second.seen[seq])
        {
            missing.push_back(seq);
        }
    }
    return missing;
}

/** Nearest-rank percentile of sorted @p v (0 < p <= 1). */
static double
NearestRank(const std::vector<double>& v, double p)
{
    auto rank = static_cast<std::size_t>(std::ceil(p * v.size()));
    return v[std::max<std::size_t>(rank, 1) - 1];
}

UdpFlowSink::FlowStats::FlowStats(uint64_t sentSeqs)
    : sent(sentSeqs),
      received(0),
      duplicated(0),
      reordered(0),
      lost(0),
      bytes(0),
      goodputBps(std::numeric_limits<double>::quiet_NaN()),
      latencyP50Us(std::numeric_limits<double>::quiet_NaN()),
      latencyP99Us(std::numeric_limits<double>::quiet_NaN()),
      latencyMaxUs(std::numeric_limits<double>::quiet_NaN()),
      lossRunCount(0),
      lossRunMean(0.0),
      lossRunMax(0)
{
}

UdpFlowSink::FlowStats
UdpFlowSink::GetFlowStats(uint32_t flow, uint64_t sent) const
{
    FlowStats s(sent);
    const Flow empty;
    auto it = m_flows.find(flow);
    const Flow& f = (it == m_flows.end()) ? empty : it->second;

    s.duplicated = f.duplicated;
    s.reordered = f.reordered;
    s.bytes = f.bytes;
    if (m_windowEnd > m_windowStart)
    {
        s.goodputBps = f.windowBytes * 8.0 / (m_windowEnd - m_windowStart).GetSeconds();
    }
    if (!f.latencyUs.empty())
    {
        std::vector<double> sorted = f.latencyUs;
        std::sort(sorted.begin(), sorted.end());
        s.latencyP50Us = NearestRank(sorted, 0.50);
        s.latencyP99Us = NearestRank(sorted, 0.99);
        s.latencyMaxUs = sorted.back();
    }

    uint64_t run = 0;
    uint64_t runTotal = 0;
    for (uint64_t seq = 0; seq <= sent; ++seq)
    {
        // seq == sent closes a run that reaches the end
        bool missing = seq < sent && (seq >= f.seen.size() || !f.seen[seq]);
        if (missing)
        {
            ++run;
            continue;
        }
        if (seq < sent)
        {
            ++s.received;
        }
        if (run > 0)
        {
            ++s.lossRunCount;
            runTotal += run;
            s.lossRunMax = std::max(s.lossRunMax, run);
            run = 0;
        }
    }
    s.lost = sent - s.received;
    if (s.lossRunCount > 0)
    {
        s.lossRunMean = static_cast<double>(runTotal) / s.lossRunCount;
    }
    return s;
}

uint64_t
UdpFlowSink::GetTotalReceived() const
{
    return m_totalReceived;
}

uint64_t
UdpFlowSink::GetUnidentified() const
{
    return m_unidentified;
}

Ptr<Socket>
UdpFlowSink::GetSocket() const
{
    return m_socket;
}

} // namespace ns3
