// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * What lanloss's NetDevices share: a MAC-48 address on an 802 LAN.
 */
#ifndef LANLOSS_MAC48_NET_DEVICE_H
#define LANLOSS_MAC48_NET_DEVICE_H

#include "udp-fast-path.h"

#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class Node;

/**
 * @ingroup lanloss
 * The NetDevice part that an Ethernet port (EthernetNetDevice) and the switch on
 * a switch node (EthernetSwitchNetDevice) share: the interface index, the node, a
 * MAC-48 address, the MTU it reports and its 802.3 limits, the 802 mapping of
 * broadcast and IP multicast to MAC addresses, the stack's receive and link-change
 * callbacks. Such a device is never point-to-point and sends from any source address
 * (SendFrom; Send: from its own). What differs (channel, link state, bridging, ARP,
 * what becomes of a frame sent: SendFrame) each subclass implements.
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
    /**
     * Set the MTU, the largest MAC payload: 68 (IPv4's minimum) to 9216 (jumbo frames);
     * false, and unchanged, outside.
     * @param mtu the MTU in bytes
     * @return whether it was set
     */
    bool SetMtu(const uint16_t mtu) override;
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
    /**
     * Send @p packet as a frame from @p source to @p dest (SendFrame): a port adds the MAC
     * header, pads and queues it; the switch forwards or floods it like a received frame.
     * @param packet the MAC payload
     * @param source the source MAC address (any: SupportsSendFrom)
     * @param dest the destination MAC address
     * @param protocolNumber the EtherType
     * @return what SendFrame returns: false if the frame was dropped
     */
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    /**
     * @param callback called when the link comes up (NotifyLinkUp; a switch's never changes)
     */
    void AddLinkChangeCallback(Callback<void> callback) override;
    /**
     * @param cb called with every data frame handed up for this host, not for another host
     *        (HandUp; a switch hands nothing up)
     */
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    /**
     * @param cb called with every data frame handed up, whatever its destination (HandUp;
     *        a switch hands nothing up)
     */
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    /**
     * @param path the node's UdpFastPath: a frame handed up is offered to it first, unless
     *        a promiscuous receiver is set (null: every frame goes to the stack)
     */
    void SetUdpFastPath(Ptr<UdpFastPath> path);

  protected:
    /** Release the node and the callbacks. */
    void DoDispose() override;

    /**
     * Send a MAC payload as a frame (SendFrom, Send).
     * @param packet the MAC payload; the MAC header is added by the implementation
     * @param source the source MAC address
     * @param dest the destination MAC address
     * @param protocolNumber the EtherType
     * @return false if the frame was dropped
     */
    virtual bool SendFrame(Ptr<Packet> packet,
                           Mac48Address source,
                           Mac48Address dest,
                           uint16_t protocolNumber) = 0;
    /** The link came up: run the link-change callbacks. */
    void NotifyLinkUp();
    /**
     * Hand a received frame's payload to the stack: the promiscuous callback, and the
     * receive callback unless it is for another host. With no promiscuous callback, an
     * IPv4 frame for this host goes to the node's UdpFastPath first.
     * @param packet the MAC payload (MAC header removed, padding kept)
     * @param protocol the EtherType
     * @param source the frame's source MAC address
     * @param destination the frame's destination MAC address
     * @param type host, broadcast, multicast or other host
     */
    void HandUp(Ptr<Packet> packet,
                uint16_t protocol,
                Mac48Address source,
                Mac48Address destination,
                PacketType type);

    Ptr<Node> m_node;       //!< the node this device is on
    Mac48Address m_address; //!< the device's own MAC address
    uint16_t m_mtu = 1500; //!< MAC payload bytes (SetMtu, or a subclass's Mtu attribute)
    uint32_t m_ifIndex = 0; //!< the index of this device on its node

  private:
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;
    Ptr<UdpFastPath> m_udpFastPath;
    TracedCallback<> m_linkChangeCallbacks;
};

} // namespace ns3

#endif /* LANLOSS_MAC48_NET_DEVICE_H */
