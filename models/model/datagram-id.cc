// SPDX-License-Identifier: GPL-2.0-only
#include "datagram-id.h"

#include "ethernet-wire.h"
#include "flow-seq-tag.h"
#include "udp-flow-source.h"

#include "ns3/packet.h"

#include <array>

namespace ns3
{

namespace
{

constexpr uint16_t ETHERTYPE_VLAN = 0x8100;
constexpr uint32_t VLAN_TAG_BYTES = 4;
constexpr uint32_t IPV4_MAX_HEADER_BYTES = 60;
constexpr uint32_t UDP_HEADER_BYTES = 8;
// The most bytes before the end of the payload header, from each start.
constexpr uint32_t MOST_FROM_IPV4 =
    IPV4_MAX_HEADER_BYTES + UDP_HEADER_BYTES + UdpFlowSource::HEADER_BYTES;
constexpr uint32_t MOST_BYTES = ethernet::MAC_HEADER_BYTES + VLAN_TAG_BYTES + MOST_FROM_IPV4;

uint32_t
MostBytes(PacketStart start)
{
    switch (start)
    {
    case PacketStart::PAYLOAD:
        return UdpFlowSource::HEADER_BYTES;
    case PacketStart::IPV4:
        return MOST_FROM_IPV4;
    default:
        return MOST_BYTES;
    }
}

uint16_t
Be16(const uint8_t* p)
{
    return static_cast<uint16_t>(p[0] << 8 | p[1]);
}

/** Past the MAC header of a frame of @p n bytes to its IPv4 header; false if not IPv4. */
bool
SkipMac(const uint8_t* buf, uint32_t n, uint32_t& at)
{
    if (n < ethernet::MAC_HEADER_BYTES)
    {
        return false;
    }
    at = ethernet::MAC_HEADER_BYTES;
    uint16_t type = Be16(buf + 12);
    if (type == ETHERTYPE_VLAN)
    {
        if (n < at + VLAN_TAG_BYTES)
        {
            return false;
        }
        type = Be16(buf + 16);
        at += VLAN_TAG_BYTES;
    }
    return type == ethernet::ETHERTYPE_IPV4;
}

/** Past the IPv4 and UDP headers at @p at to the UDP payload; false unless the packet
 *  is UDP and its first (or only) fragment. */
bool
SkipIpv4Udp(const uint8_t* buf, uint32_t n, uint32_t& at)
{
    if (n < at + 20)
    {
        return false;
    }
    const uint8_t versionIhl = buf[at];
    const uint32_t ihl = (versionIhl & 0x0F) * 4u;
    const uint16_t fragmentOffset = Be16(buf + at + 6) & 0x1FFF;
    if ((versionIhl >> 4) != 4 || ihl < 20 || buf[at + 9] != ethernet::IPPROTO_UDP_NUMBER ||
        fragmentOffset != 0)
    {
        return false;
    }
    at += ihl + UDP_HEADER_BYTES;
    return true;
}

} // namespace

bool
IdentifyDatagram(Ptr<const Packet> packet, PacketStart start, DatagramId& id)
{
    FlowSeqTag tag;
    if (packet->PeekPacketTag(tag))
    {
        id = DatagramId{tag.GetFlowId(), tag.GetSeq(), tag.GetSendTime()};
        return true;
    }
    std::array<uint8_t, MOST_BYTES> buf;
    const uint32_t n = packet->CopyData(buf.data(), MostBytes(start));
    uint32_t at = 0;
    if (start == PacketStart::ETHERNET && !SkipMac(buf.data(), n, at))
    {
        return false;
    }
    if (start != PacketStart::PAYLOAD && !SkipIpv4Udp(buf.data(), n, at))
    {
        return false;
    }
    UdpFlowSource::WireHeader h;
    if (n < at + UdpFlowSource::HEADER_BYTES || !UdpFlowSource::ParseHeader(buf.data() + at, h))
    {
        return false;
    }
    id = DatagramId{h.flow, h.seq, NanoSeconds(static_cast<int64_t>(h.txNs))};
    return true;
}

} // namespace ns3
