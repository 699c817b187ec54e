// SPDX-License-Identifier: GPL-2.0-only
#include "udp-fast-path.h"

#include "ethernet-net-device.h"
#include "ethernet-wire.h"

#include "ns3/arp-cache.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/socket.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UdpFastPath);

namespace
{

constexpr uint32_t IPV4_HEADER_BYTES = 20; //!< no options: the only header the stack writes
constexpr uint32_t UDP_HEADER_BYTES = 8;
constexpr uint8_t IPV4_NO_OPTIONS = 0x45;     //!< version 4, header of 5 words
constexpr uint16_t MORE_FRAGMENTS_OR_OFFSET = 0x3fff;

uint16_t
Read16(const uint8_t* p)
{
    return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

uint32_t
Read32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

} // namespace

// ---------------------------------------------------------------- receive

TypeId
UdpFastPath::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UdpFastPath").SetParent<Object>().SetGroupName("Lanloss");
    return tid;
}

Ptr<UdpFastPath>
UdpFastPath::Of(Ptr<Node> node)
{
    Ptr<UdpFastPath> path = node->GetObject<UdpFastPath>();
    if (path)
    {
        return path;
    }
    path = CreateObject<UdpFastPath>();
    Ptr<Ipv4> ip = node->GetObject<Ipv4>();
    for (uint32_t i = 0; ip && i < ip->GetNInterfaces(); ++i)
    {
        for (uint32_t a = 0; a < ip->GetNAddresses(i); ++a)
        {
            path->m_local.push_back(ip->GetAddress(i, a).GetLocal().Get());
        }
    }
    node->AggregateObject(path);
    for (uint32_t d = 0; d < node->GetNDevices(); ++d)
    {
        if (Ptr<Mac48NetDevice> device = DynamicCast<Mac48NetDevice>(node->GetDevice(d)))
        {
            device->SetUdpFastPath(path);
        }
    }
    return path;
}

void
UdpFastPath::Listen(uint16_t port, Listener listener)
{
    Unlisten(port);
    m_listeners.emplace_back(port, listener);
}

void
UdpFastPath::Unlisten(uint16_t port)
{
    m_listeners.erase(std::remove_if(m_listeners.begin(),
                                     m_listeners.end(),
                                     [port](const auto& l) { return l.first == port; }),
                      m_listeners.end());
}

const UdpFastPath::Listener*
UdpFastPath::Find(uint16_t port) const
{
    for (const auto& [p, listener] : m_listeners)
    {
        if (p == port)
        {
            return &listener;
        }
    }
    return nullptr;
}

bool
UdpFastPath::Deliver(Ptr<const Packet> packet)
{
    constexpr uint32_t HEADERS = IPV4_HEADER_BYTES + UDP_HEADER_BYTES;
    if (m_listeners.empty() || packet->GetSize() < HEADERS)
    {
        return false;
    }
    uint8_t h[HEADERS];
    packet->CopyData(h, HEADERS);
    const uint16_t total = Read16(h + 2);
    if (h[0] != IPV4_NO_OPTIONS || (Read16(h + 6) & MORE_FRAGMENTS_OR_OFFSET) != 0 ||
        h[9] != ethernet::IPPROTO_UDP_NUMBER || total < HEADERS || total > packet->GetSize())
    {
        return false;
    }
    const uint32_t destination = Read32(h + 16);
    if (!Ipv4Address(destination).IsMulticast() &&
        std::find(m_local.begin(), m_local.end(), destination) == m_local.end())
    {
        return false;
    }
    const Listener* listener = Find(Read16(h + 22));
    if (!listener)
    {
        return false;
    }
    // What Ipv4L3Protocol and UdpL4Protocol leave: the payload, the frame's padding cut.
    Ptr<Packet> payload = packet->Copy();
    payload->RemoveAtStart(HEADERS);
    if (payload->GetSize() > total - HEADERS)
    {
        payload->RemoveAtEnd(payload->GetSize() - (total - HEADERS));
    }
    ++m_delivered;
    (*listener)(payload, InetSocketAddress(Ipv4Address(Read32(h + 12)), Read16(h + 20)));
    return true;
}

uint64_t
UdpFastPath::GetDelivered() const
{
    return m_delivered;
}

void
UdpFastPath::DoDispose()
{
    m_listeners.clear();
    Object::DoDispose();
}

// ---------------------------------------------------------------- send

bool
UdpFastSender::Prepare(Ptr<Socket> socket,
                       Ptr<EthernetNetDevice> device,
                       const Address& remote,
                       uint8_t multicastTtl)
{
    m_ready = false;
    if (Node::ChecksumEnabled() || !device || !InetSocketAddress::IsMatchingType(remote))
    {
        return false;
    }
    Ptr<Ipv4L3Protocol> ip = device->GetNode()->GetObject<Ipv4L3Protocol>();
    Address local;
    if (!ip || socket->GetSockName(local) != 0 || !InetSocketAddress::IsMatchingType(local))
    {
        return false;
    }
    const int32_t iface = ip->GetInterfaceForDevice(device);
    if (iface < 0 || ip->GetNAddresses(iface) == 0)
    {
        return false;
    }
    UintegerValue defaultTtl;
    ip->GetAttribute("DefaultTtl", defaultTtl);
    const InetSocketAddress to = InetSocketAddress::ConvertFrom(remote);
    m_destination = to.GetIpv4();
    if (m_destination.IsMulticast())
    {
        // Ipv4Interface::Send maps the group to its MAC address; UdpSocketImpl gives a
        // multicast datagram the socket's IpMulticastTtl (0: the default TTL).
        m_destinationMac = Mac48Address::ConvertFrom(device->GetMulticast(m_destination));
        m_ttl = multicastTtl != 0 ? multicastTtl : defaultTtl.Get();
    }
    else
    {
        // Only an address ARP will never ask for again (a permanent entry, or one
        // NeighborCacheHelper filled in): a dynamic entry can expire, and then the stack
        // would send an ARP request first.
        ArpCache::Entry* entry = ip->GetInterface(iface)->GetArpCache()->Lookup(m_destination);
        if (!entry || !(entry->IsPermanent() || entry->IsAutoGenerated()))
        {
            return false;
        }
        m_destinationMac = Mac48Address::ConvertFrom(entry->GetMacAddress());
        m_ttl = defaultTtl.Get();
    }
    m_source = ip->GetAddress(iface, 0).GetLocal();
    m_sourcePort = InetSocketAddress::ConvertFrom(local).GetPort();
    m_destinationPort = to.GetPort();
    m_device = device;
    m_ready = true;
    return true;
}

bool
UdpFastSender::IsReady() const
{
    return m_ready;
}

void
UdpFastSender::Send(Ptr<Packet> payload)
{
    UdpHeader udp;
    udp.SetSourcePort(m_sourcePort);
    udp.SetDestinationPort(m_destinationPort);
    payload->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(m_source);
    ip.SetDestination(m_destination);
    ip.SetProtocol(ethernet::IPPROTO_UDP_NUMBER);
    ip.SetPayloadSize(payload->GetSize());
    ip.SetTtl(m_ttl);
    ip.SetTos(0);
    ip.SetMayFragment();
    ip.SetIdentification(m_identification++);
    payload->AddHeader(ip);
    m_device->Send(payload, m_destinationMac, ethernet::ETHERTYPE_IPV4);
}

} // namespace ns3
