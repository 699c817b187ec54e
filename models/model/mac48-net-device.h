// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
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
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * Set the interface index the node gave this device (Node::AddDevice does it).
     * @param index the index of this device on its node
     */
    void SetIfIndex(const uint32_t index) override;
    /** @return the index of this device on its node */
    uint32_t GetIfIndex() const override;
    /**
     * Set the device's own MAC address (the source of Send, the address ARP answers for).
     * @param address a Mac48Address (converted; anything else is a programming error)
     */
    void SetAddress(Address address) override;
    /** @return the device's own MAC-48 address */
    Address GetAddress() const override;
    /** @return the MTU in bytes: the largest MAC payload (1500 unless SetMtu changed it) */
    uint16_t GetMtu() const override;
    /** @return true: an 802 LAN has a broadcast address */
    bool IsBroadcast() const override;
    /** @return the broadcast address ff:ff:ff:ff:ff:ff */
    Address GetBroadcast() const override;
    /** @return true: IP multicast maps to MAC multicast addresses */
    bool IsMulticast() const override;
    /**
     * The MAC address of an IPv4 multicast group (RFC 1112: 01-00-5E and the group's low
     * 23 bits).
     * @param multicastGroup the IPv4 group
     * @return its MAC-48 multicast address
     */
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    /**
     * The MAC address of an IPv6 multicast group (RFC 2464: 33-33 and the group's low 32
     * bits).
     * @param addr the IPv6 group
     * @return its MAC-48 multicast address
     */
    Address GetMulticast(Ipv6Address addr) const override;
    /** @return false: a switched LAN, where MAC addresses and ARP matter */
    bool IsPointToPoint() const override;
    /**
     * SendFrom this device's own address.
     * @param packet the MAC payload (the MAC header is added by SendFrom)
     * @param dest the destination MAC address
     * @param protocolNumber the EtherType
     * @return what SendFrom returns: false if the frame was dropped
     */
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    /** @return the node this device is on */
    Ptr<Node> GetNode() const override;
    /**
     * Put the device on a node (Node::AddDevice does it).
     * @param node the node
     */
    void SetNode(Ptr<Node> node) override;
    /** @return true: SendFrom accepts any source address (switches and bridges need it) */
    bool SupportsSendFrom() const override;

  protected:
    /** Release the node. */
    void DoDispose() override;

    Ptr<Node> m_node;       //!< the node this device is on
    Mac48Address m_address; //!< the device's own MAC address
    uint16_t m_mtu = 1500; //!< MAC payload bytes; SetMtu (per subclass) says what is allowed
    uint32_t m_ifIndex = 0; //!< the index of this device on its node
};

} // namespace ns3

#endif /* LANLOSS_MAC48_NET_DEVICE_H */
