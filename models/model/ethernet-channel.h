// SPDX-License-Identifier: GPL-2.0-only
/*
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
    static TypeId GetTypeId();

    EthernetChannel();

    /** Attach one end; a third Attach is a programming error. */
    void Attach(Ptr<EthernetNetDevice> device);

    /**
     * Put a frame on the wire from @p src. @p txTime is the frame's
     * serialisation time (preamble to FCS) at the sender's rate.
     */
    void TransmitStart(Ptr<const Packet> frame, Ptr<EthernetNetDevice> src, Time txTime);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    Ptr<EthernetNetDevice> GetEthernetDevice(std::size_t i) const;
    Ptr<EthernetNetDevice> GetPeer(Ptr<const EthernetNetDevice> device) const;

    Time GetDelay() const;

    /** Frames put on the wire and not yet delivered (both directions). */
    uint32_t GetFramesInFlight() const;

  private:
    void Deliver(Ptr<EthernetNetDevice> dst, Ptr<Packet> frame);

    Time m_delay;
    std::array<Ptr<EthernetNetDevice>, 2> m_devices;
    std::size_t m_nDevices;
    uint32_t m_inFlight;
};

} // namespace ns3

#endif /* LANLOSS_ETHERNET_CHANNEL_H */
