// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A received frame as the host receive path carries it, and a reassembled datagram.
 */
#ifndef LANLOSS_HOST_DATAGRAM_H
#define LANLOSS_HOST_DATAGRAM_H

#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/packet.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup lanloss
 * One received frame on its way through a HostRxPath (an sk_buff): what
 * EthernetNetDevice::DeliverUp needs, plus what the host charges for it.
 */
struct HostRxFrame
{
    Ptr<Packet> packet; //!< MAC payload (IPv4 header on), padding kept, tags kept
    uint16_t protocol = 0;                               //!< EtherType
    Mac48Address source;                                 //!< the frame's source MAC address
    Mac48Address destination;                            //!< its destination MAC address
    NetDevice::PacketType type = NetDevice::PACKET_HOST; //!< host, broadcast or multicast
    uint32_t fifoBytes = 0; //!< bytes it takes in the NIC FIFO: MAC header to FCS
    uint32_t truesize = 0;  //!< skb->truesize: bytes charged to a socket for it
};

/**
 * @ingroup lanloss
 * A complete UDP datagram (one frame, or every IPv4 fragment in offset order)
 * ready for a socket. As after ip_frag_reasm(), its truesize is the sum of
 * its fragments' truesizes.
 */
struct HostDatagram
{
    std::vector<HostRxFrame> frames; //!< the datagram's frames, in IPv4 offset order
    uint32_t truesize = 0;           //!< bytes charged to the socket: sum of the frames'
    uint16_t port = 0;         //!< UDP destination port
    uint32_t payloadBytes = 0; //!< UDP payload (what recvmsg copies to user space)
};

} // namespace ns3

#endif /* LANLOSS_HOST_DATAGRAM_H */
