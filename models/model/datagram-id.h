// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * Which datagram of which flow a packet belongs to, at any layer it is seen.
 */
#ifndef LANLOSS_DATAGRAM_ID_H
#define LANLOSS_DATAGRAM_ID_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

class Packet;

/** @ingroup lanloss Where a packet's bytes start, as the trace source that gives it. */
enum class PacketStart
{
    ETHERNET, //!< a frame: the MAC header first (EtherType 0x0800, or 0x8100 then 0x0800)
    IPV4,     //!< an IPv4 packet or fragment: the IPv4 header first
    PAYLOAD,  //!< a UDP payload: UdpFlowSource's header first
};

/** @ingroup lanloss A datagram's name: its flow, its sequence number, when it was sent. */
struct DatagramId
{
    uint32_t flow = 0; //!< the flow id (UdpFlowSource FlowId)
    uint64_t seq = 0;  //!< the datagram's sequence number in its flow
    Time sent;         //!< when the sender handed it to its socket
};

/**
 * @ingroup lanloss
 * The datagram @p packet belongs to: its FlowSeqTag where it has one, else the payload
 * header UdpFlowSource wrote (seq, send time, flow, magic), read through the headers
 * @p start names. A source tags exactly the datagrams whose bytes cannot name every frame of
 * them: a fragmented datagram (its later fragments carry no header) and a payload shorter
 * than the full header. A frame of anything else (ARP, PAUSE, TCP, another
 * application's UDP, a later fragment without a tag) names no datagram.
 * @param packet the packet, frame or payload
 * @param start where its bytes start
 * @param id where the name is put
 * @return whether @p packet names a datagram
 */
bool IdentifyDatagram(Ptr<const Packet> packet, PacketStart start, DatagramId& id);

} // namespace ns3

#endif // LANLOSS_DATAGRAM_ID_H
