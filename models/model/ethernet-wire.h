// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * IEEE 802.3 wire accounting shared by the lanloss Ethernet model.
 *
 * Constants are named after the standard so a reader can check them against
 * IEEE 802.3 clause 4 (MAC) and Annex 31B (PAUSE).
 */
#ifndef LANLOSS_ETHERNET_WIRE_H
#define LANLOSS_ETHERNET_WIRE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{
/**
 * @ingroup lanloss
 * IEEE 802.3 wire accounting: the sizes and times a frame occupies on the wire.
 */
namespace ethernet
{

constexpr uint32_t PREAMBLE_SFD_BYTES = 8;   //!< 7 preamble + 1 start frame delimiter
constexpr uint32_t MAC_HEADER_BYTES = 14;    //!< destination, source, EtherType/length
constexpr uint32_t FCS_BYTES = 4;            //!< frame check sequence (CRC-32)
constexpr uint32_t INTERFRAME_GAP_BITS = 96; //!< 12 byte times between frames
constexpr uint32_t MIN_FRAME_BYTES = 64;     //!< header to FCS; shorter frames are padded
constexpr uint32_t MIN_FRAME_NO_FCS = MIN_FRAME_BYTES - FCS_BYTES; //!< 60, as seen in pcap
constexpr uint32_t PAUSE_QUANTUM_BITS = 512; //!< one pause_time unit (Annex 31B.2)
constexpr uint16_t ETHERTYPE_MAC_CONTROL = 0x8808;    //!< EtherType of MAC Control frames (PAUSE)
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;           //!< EtherType of IPv4
constexpr uint8_t IPPROTO_UDP_NUMBER = 17;            //!< IPv4 protocol number of UDP
constexpr uint16_t MAC_CONTROL_OPCODE_PAUSE = 0x0001; //!< MAC Control opcode of PAUSE
constexpr uint32_t MAX_JUMBO_MTU = 9216; //!< largest MTU (MAC payload bytes) a device accepts

/**
 * Bytes a frame occupies on the wire, excluding the IFG: preamble+SFD, the
 * frame padded to the 64-byte minimum, FCS. @p frameNoFcs is the frame from the
 * destination address to the end of the MAC payload (what ns-3 and pcap carry).
 * @param frameNoFcs the frame's bytes without FCS
 * @return 8 + max(frameNoFcs + 4, 64) bytes
 */
inline uint32_t
FrameWireBytes(uint32_t frameNoFcs)
{
    return PREAMBLE_SFD_BYTES + std::max(frameNoFcs + FCS_BYTES, MIN_FRAME_BYTES);
}

/**
 * Wire bytes of one frame including the inter-frame gap that must follow it: the time
 * the frame holds its transmitter, in byte times.
 * @param frameNoFcs the frame's bytes without FCS
 * @return FrameWireBytes(frameNoFcs) + 12 bytes
 */
inline uint32_t
FrameSlotBytes(uint32_t frameNoFcs)
{
    return FrameWireBytes(frameNoFcs) + INTERFRAME_GAP_BITS / 8;
}

/**
 * Duration of one pause quantum (512 bit times) at @p rate.
 * @param rate the link's rate in bit/s
 * @return 64 byte times at @p rate
 */
inline Time
PauseQuantum(DataRate rate)
{
    return rate.CalculateBytesTxTime(PAUSE_QUANTUM_BITS / 8);
}

/**
 * Frames and queue bytes (frames without FCS, padded) of one UDP datagram of
 * @p payload bytes after IPv4 fragmentation at @p mtu. Mirrors analysis/wire.py.
 */
struct DatagramFrames
{
    uint32_t fragments;  //!< IPv4 fragments (= frames)
    uint32_t queueBytes; //!< sum of frame sizes without FCS, padding included
    uint32_t wireBytes;  //!< sum of wire bytes including IFG
};

/**
 * The frames of one UDP datagram: it fits in one frame when payload + 8 + 20 <= mtu;
 * otherwise every fragment but the last carries the largest multiple of 8 bytes that fits
 * in mtu - 20, and each frame is padded to 60 bytes without FCS.
 * @param payload the UDP payload in bytes
 * @param mtu the sender's MTU in bytes (IPv4 packet size limit)
 * @return the datagram's fragments, queue bytes and wire bytes
 */
inline DatagramFrames
UdpDatagramFrames(uint32_t payload, uint32_t mtu)
{
    const uint32_t ipHeader = 20;
    const uint32_t udp = payload + 8;
    DatagramFrames f{0, 0, 0};
    auto add = [&f](uint32_t ipBytes) {
        const uint32_t frame = std::max(ipBytes + MAC_HEADER_BYTES, MIN_FRAME_NO_FCS);
        f.fragments++;
        f.queueBytes += frame;
        f.wireBytes += FrameSlotBytes(frame);
    };
    if (udp + ipHeader <= mtu)
    {
        add(udp + ipHeader);
        return f;
    }
    const uint32_t perFragment = 8 * ((mtu - ipHeader) / 8);
    uint32_t left = udp;
    while (left > perFragment)
    {
        add(perFragment + ipHeader);
        left -= perFragment;
    }
    add(left + ipHeader);
    return f;
}

} // namespace ethernet
} // namespace ns3

#endif /* LANLOSS_ETHERNET_WIRE_H */
