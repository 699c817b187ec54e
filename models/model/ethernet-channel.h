// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A full-duplex point-to-point Ethernet link (one cable, two ends).
 */
#ifndef LANLOSS_ETHERNET_CHANNEL_H
#define LANLOSS_ETHERNET_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <array>

namespace ns3
{

class EthernetNetDevice;

/**
 * @ingroup lanloss
 * Full-duplex Ethernet link between exactly two EthernetNetDevices. Each
 * direction is independent (no carrier sense, no collisions, unlike
 * CsmaChannel); the channel only adds the propagation delay. A frame is handed
 * to the far end when its last bit arrives (store-and-forward receivers).
 */
class EthernetChannel : public Channel
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A cable with no ends attached yet. */
    EthernetChannel();

    /**
     * Attach one end; a third Attach is a programming error (EthernetNetDevice::Attach
     * calls it).
     * @param device the device at this end
     */
    void Attach(Ptr<EthernetNetDevice> device);

    /**
     * Put a frame on the wire from @p src: the peer receives it @p txTime + Delay from
     * now, when its last bit arrives. A switch port receives this very packet, a host its
     * own copy.
     * @param frame the frame with its MAC header and padding, without FCS
     * @param src the sending end
     * @param txTime the frame's serialisation time (preamble to FCS) at the sender's rate
     */
    void TransmitStart(Ptr<const Packet> frame, Ptr<EthernetNetDevice> src, Time txTime);

    /** @return the number of ends attached (0, 1 or 2) */
    std::size_t GetNDevices() const override;
    /**
     * @param i the end, 0 or 1 in the order attached
     * @return the device at end @p i
     */
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    /**
     * @param i the end, 0 or 1 in the order attached
     * @return the device at end @p i
     */
    Ptr<EthernetNetDevice> GetEthernetDevice(std::size_t i) const;
    /**
     * @param device one end of this link
     * @return the other end, or null while only one end is attached
     */
    Ptr<EthernetNetDevice> GetPeer(Ptr<const EthernetNetDevice> device) const;

    /** @return the one-way propagation delay of the cable (attribute Delay, default 1 us) */
    Time GetDelay() const;

    /** @return frames put on the wire and not yet delivered (both directions) */
    uint32_t GetFramesInFlight() const;

  private:
    class FrameArrival;

    /**
     * Hand @p frame to @p dst, when its last bit arrives (TransmitStart's event).
     * @param dst the receiving end
     * @param frame the frame as it was put on the wire
     */
    void Deliver(Ptr<EthernetNetDevice> dst, Ptr<const Packet> frame);

    static constexpr uint32_t UNKNOWN_CONTEXT = 0xffffffff; //!< before the end's first frame

    Time m_delay;
    std::array<Ptr<EthernetNetDevice>, 2> m_devices;
    std::array<uint32_t, 2> m_context; //!< each end's node id: the simulator's event context
    std::size_t m_nDevices;
    uint32_t m_inFlight;
};

} // namespace ns3

#endif /* LANLOSS_ETHERNET_CHANNEL_H */
