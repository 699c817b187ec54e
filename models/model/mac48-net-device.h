// SPDX-License-Identifier: GPL-2.0-only
/*
 * What lanloss's NetDevices share: a MAC-48 address on an 802 LAN.
 */
#ifndef LANLOSS_MAC48_NET_DEVICE_H
#define LANLOSS_MAC48_NET_DEVICE_H

#include "ns3/mac48-address.h"
#include "ns3/net-device.h"

namespace ns3
{

class Node;

/**
 * @ingroup lanloss
 * The NetDevice part that an Ethernet port (EthernetNetDevice) and the switch on
 * a switch node (EthernetSwitchNetDevice) share: the interface index, the node, a
 * MAC-48 address, the MTU it reports, and the 802 mapping of broadcast and IP
 * multicast to MAC addresses. Such a device is never point-to-point and sends
 * from any source address (SendFrom; Send: from its own). What differs (channel,
 * link state, MTU limits, ARP, receive callbacks, SendFrom) each subclass implements.
 */
class Mac48NetDevice : public NetDevice
{
  public:
    static TypeId GetTypeId();

    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    uint16_t GetMtu() const override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    /** SendFrom this device's own address. */
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

    Ptr<Node> m_node;
    Mac48Address m_address;
    uint16_t m_mtu = 1500; //!< MAC payload bytes; SetMtu (per subclass) says what is allowed
    uint32_t m_ifIndex = 0;
};

} // namespace ns3

#endif /* LANLOSS_MAC48_NET_DEVICE_H */
