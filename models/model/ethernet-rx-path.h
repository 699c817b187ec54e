// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The hook between an EthernetNetDevice's MAC and the host's protocol stack.
 */
#ifndef LANLOSS_ETHERNET_RX_PATH_H
#define LANLOSS_ETHERNET_RX_PATH_H

#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/object.h"
#include "ns3/packet.h"

namespace ns3
{

class EthernetNetDevice;

/**
 * @ingroup lanloss
 * A receive path a host can put between its NIC's MAC and the stack (the NIC
 * FIFO, RX ring, interrupts, CPU of a host model). Without one the device hands
 * every frame up at once (an ideal host). With one, the device gives it each
 * data frame addressed to the host, and the path calls
 * EthernetNetDevice::DeliverUp when (and if) the frame reaches the stack.
 */
class EthernetRxPath : public Object
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * Called once by EthernetNetDevice::SetRxPath.
     * @param device the device whose received frames this path takes
     */
    virtual void Attach(Ptr<EthernetNetDevice> device) = 0;

    /**
     * A data frame for this host (MAC header removed, padding kept).
     * @param packet the MAC payload
     * @param protocol the EtherType
     * @param source the frame's source MAC address
     * @param destination the frame's destination MAC address
     * @param type host, broadcast or multicast
     */
    virtual void Receive(Ptr<Packet> packet,
                         uint16_t protocol,
                         Mac48Address source,
                         Mac48Address destination,
                         NetDevice::PacketType type) = 0;
};

} // namespace ns3

#endif /* LANLOSS_ETHERNET_RX_PATH_H */
