// SPDX-License-Identifier: GPL-2.0-only
#include "mac48-net-device.h"

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

} // namespace ns3
