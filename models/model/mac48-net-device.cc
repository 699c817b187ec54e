// SPDX-License-Identifier: GPL-2.0-only
#include "mac48-net-device.h"

#include "ethernet-wire.h"
#include "udp-fast-path.h"

#include "ns3/node.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(Mac48NetDevice);

TypeId
Mac48NetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Mac48NetDevice").SetParent<NetDevice>().SetGroupName("Lanloss");
    return tid;
}

void
Mac48NetDevice::DoDispose()
{
    m_node = nullptr;
    m_rxCallback = ReceiveCallback();
    m_promiscCallback = PromiscReceiveCallback();
    m_udpFastPath = nullptr;
    NetDevice::DoDispose();
}

void
Mac48NetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
Mac48NetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

void
Mac48NetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
Mac48NetDevice::GetAddress() const
{
    return m_address;
}

bool
Mac48NetDevice::SetMtu(const uint16_t mtu)
{
    if (mtu < 68 || mtu > ethernet::MAX_JUMBO_MTU)
    {
        return false;
    }
    m_mtu = mtu;
    return true;
}

uint16_t
Mac48NetDevice::GetMtu() const
{
    return m_mtu;
}

bool
Mac48NetDevice::IsBroadcast() const
{
    return true;
}

Address
Mac48NetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
Mac48NetDevice::IsMulticast() const
{
    return true;
}

Address
Mac48NetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
Mac48NetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
Mac48NetDevice::IsPointToPoint() const
{
    return false; // a switched LAN: MAC addresses and ARP matter
}

bool
Mac48NetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    return SendFrom(packet, m_address, dest, protocolNumber);
}

Ptr<Node>
Mac48NetDevice::GetNode() const
{
    return m_node;
}

void
Mac48NetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
Mac48NetDevice::SupportsSendFrom() const
{
    return true;
}

bool
Mac48NetDevice::SendFrom(Ptr<Packet> packet,
                         const Address& source,
                         const Address& dest,
                         uint16_t protocolNumber)
{
    return SendFrame(packet,
                     Mac48Address::ConvertFrom(source),
                     Mac48Address::ConvertFrom(dest),
                     protocolNumber);
}

void
Mac48NetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

void
Mac48NetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
Mac48NetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

void
Mac48NetDevice::SetUdpFastPath(Ptr<UdpFastPath> path)
{
    m_udpFastPath = path;
}

void
Mac48NetDevice::NotifyLinkUp()
{
    m_linkChangeCallbacks();
}

void
Mac48NetDevice::HandUp(Ptr<Packet> packet,
                       uint16_t protocol,
                       Mac48Address source,
                       Mac48Address destination,
                       PacketType type)
{
    if (!m_promiscCallback.IsNull())
    {
        m_promiscCallback(this, packet, protocol, source, destination, type);
    }
    else if (m_udpFastPath && type != PACKET_OTHERHOST && protocol == ethernet::ETHERTYPE_IPV4 &&
             m_udpFastPath->Deliver(packet))
    {
        return;
    }
    if (type != PACKET_OTHERHOST && !m_rxCallback.IsNull())
    {
        m_rxCallback(this, packet, protocol, source);
    }
}

} // namespace ns3
