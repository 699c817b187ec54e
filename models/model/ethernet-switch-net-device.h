// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A store-and-forward Ethernet switch with per-port buffers and 802.3x PAUSE.
 */
#ifndef LANLOSS_ETHERNET_SWITCH_NET_DEVICE_H
#define LANLOSS_ETHERNET_SWITCH_NET_DEVICE_H

#include "mac48-net-device.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

namespace ns3
{

class EthernetNetDevice;
class Node;

/**
 * @ingroup lanloss
 * An Ethernet switch on a node whose ports are EthernetNetDevices (like
 * BridgeNetDevice, but with the buffer and flow-control behaviour of a real
 * switch).
 *
 * Forwarding: store-and-forward (ports hand up whole frames); source MAC
 * learning with ageing; broadcast, multicast (no IGMP snooping) and unknown
 * unicast are flooded to every port but the one they came from. MAC Control
 * frames end in the port MAC and are never forwarded. An optional station
 * locator (SetStationLocator) stands for every host having announced itself at
 * t = 0: a destination not yet learned is looked up there, as if it had been
 * learned at t = 0, so it ages out at AgeingTime like a learned entry would.
 *
 * Buffers: every frame admitted to an egress port occupies its size (header
 * to FCS, padded to 64 bytes) in that port's egress buffer until it starts on
 * the wire. A frame that would exceed EgressBufferBytes, or the optional
 * SharedPoolBytes summed over all ports, is dropped (trace EgressDrop).
 *
 * Flow control (PauseEnabled): bytes are also charged to the ingress port they
 * came in on. When an ingress port's bytes reach its XOFF threshold the switch
 * sends PAUSE out of that port; below XON it releases it (style Xon: an
 * explicit PAUSE 0; style Timed: it stops refreshing the timed PAUSE, which
 * it otherwise re-sends every half pause time). Headroom above XOFF covers what
 * can still arrive after the decision: the frame arriving, the frame our
 * PAUSE may wait behind, the frame the peer finishes, the PAUSE itself and the
 * cable's round trip (not HPCC's 3xBDP, which omits the frame terms). A frame
 * beyond XOFF+headroom is dropped at ingress (trace IngressDrop); with the
 * derived thresholds that never happens to a conforming peer. PAUSE stops a
 * whole link, so a paused fast ingress stalls traffic to every egress
 * (head-of-line blocking) — as it does in real switches.
 */
class EthernetSwitchNetDevice : public Mac48NetDevice
{
  public:
    /** How the switch releases a peer it paused (attribute PauseStyle). */
    enum PauseStyle
    {
        PAUSE_XON,   //!< XOFF with PauseQuanta, explicit XON (pause_time 0) below XON
        PAUSE_TIMED, //!< PAUSE with PauseQuanta refreshed every half pause time, no XON
    };

    /** A port's buffers, drops and flow control, as the switch keeps them (GetPortState). */
    struct PortState
    {
        /** Bytes waiting in the port's egress buffer (frames header to FCS, padded). */
        uint32_t egressBytes = 0;
        /** Bytes of frames that came in on the port and have not yet left the switch. */
        uint32_t ingressBytes = 0;
        /** Frames dropped at the port's egress buffer or the shared pool (EgressDrop). */
        uint64_t egressDrops = 0;
        /** Frames dropped at the port's ingress beyond XOFF + headroom (IngressDrop). */
        uint64_t ingressDrops = 0;
        /** Ingress bytes at which the switch pauses the port's peer: XoffThreshold, or
         *  EgressBufferBytes - headroom when that is 0. */
        uint32_t xoff = 0;
        /** Ingress bytes at or below which the peer is released: XonThreshold (at most
         *  XOFF), or XOFF / 2 when that is 0. */
        uint32_t xon = 0;
        /** The port's PAUSE headroom in bytes (PauseHeadroom of its link). */
        uint32_t headroom = 0;
        /** True while the switch holds the port's peer paused. */
        bool holdingPeer = false;
    };

    /**
     * A frame dropped at a port.
     * @param frame the frame with its MAC header and padding, without FCS
     * @param port the port's index (egress for EgressDrop, ingress for IngressDrop)
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> frame, uint32_t port);
    /**
     * One copy of a flooded frame dropped at ingress.
     * @param frame the frame with its MAC header and padding, without FCS
     * @param ingress the ingress port's index
     * @param egress the egress port the copy was for
     */
    typedef void (*CopyDropTracedCallback)(Ptr<const Packet> frame,
                                           uint32_t ingress,
                                           uint32_t egress);
    /**
     * The switch sent a PAUSE frame.
     * @param port the port's index
     * @param quanta its pause_time (0: XON)
     */
    typedef void (*PauseTracedCallback)(uint32_t port, uint16_t quanta);

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A switch with no ports, PAUSE off, an empty learning table. */
    EthernetSwitchNetDevice();
    ~EthernetSwitchNetDevice() override;

    /**
     * Add a port; the switch must already be on a node (Node::AddDevice), and the port on
     * the same node. The port's own queue limit is lifted (the switch admits frames
     * itself), its flow control follows PauseEnabled, and its XOFF, XON and headroom are
     * computed from its link.
     * @param port the device, numbered in the order added (0, 1, ...)
     */
    void AddPort(Ptr<EthernetNetDevice> port);
    /**
     * A data frame (MAC header on, padded) received on port @p in: learn its source,
     * forward or flood it. Called by the port device (EthernetNetDevice::SetSwitchPort).
     * @param in the ingress port's index
     * @param frame the frame without FCS
     * @param src its source MAC address (learned on @p in)
     * @param dst its destination MAC address
     */
    void ReceiveFrame(uint32_t in, Ptr<Packet> frame, Mac48Address src, Mac48Address dst);
    /**
     * The port a frame for a MAC address leaves by, as learned at t = 0 (or
     * 0xFFFFFFFF: unknown); consulted when the table has no entry for it.
     */
    typedef Callback<uint32_t, Mac48Address> StationLocator;
    /**
     * Look destinations the table does not hold up in @p locator (StationDirectory),
     * as if every host had announced itself at t = 0.
     * @param locator the lookup; a null callback turns it off
     */
    void SetStationLocator(StationLocator locator);
    /** @return entries in the learning table (learned from frames or taken from the locator) */
    uint32_t GetNLearned() const;
    /** @return unicast frames flooded because their destination was unknown */
    uint64_t GetUnknownUnicastFloods() const;

    /**
     * The oldest frame admitted to egress port @p out has started to leave: free its
     * bytes in the port's egress buffer, the shared pool and its ingress port (which may
     * then release its peer: XON). Called by the port when the frame starts on the wire.
     * @param out the egress port's index
     */
    void FrameDeparted(uint32_t out);
    /** @return the number of ports */
    uint32_t GetNPorts() const;
    /**
     * @param index a port's index (0 .. GetNPorts() - 1)
     * @return the port's device
     */
    Ptr<EthernetNetDevice> GetPort(uint32_t index) const;

    /**
     * @param port a port's index (0 .. GetNPorts() - 1)
     * @return the port's buffer occupancy, drop counts and flow-control state now
     */
    const PortState& GetPortState(uint32_t port) const;
    /** @return bytes buffered in all egress ports together (what SharedPoolBytes limits) */
    uint32_t GetPoolBytes() const;

    /**
     * Buffer bytes a frame occupies: max(payload + 14, 60) + 4 (header to FCS, padded
     * to the 64-byte minimum).
     * @param macPayload the frame's MAC payload in bytes
     * @return the bytes it is charged
     */
    static uint32_t BufferBytes(uint32_t macPayload);
    /**
     * PAUSE headroom of a port whose link has @p mtu, @p rate and @p delay: the bytes
     * that can still arrive after the switch decides to send PAUSE (the arriving frame,
     * the frame our PAUSE waits behind, the frame the peer finishes, the PAUSE frame
     * and the data on the cable during the round trip). With PauseEnabled and derived
     * thresholds, EgressBufferBytes must be above it (XOFF = buffer - headroom).
     * @param mtu the link's MTU in bytes (a largest frame is MTU + 14 + FCS)
     * @param rate the link's rate in bit/s
     * @param delay the cable's one-way delay
     * @return 3 largest frame slots (IFG included) + a PAUSE frame's slot + 2 x delay x
     *         rate / 8, in bytes (saturated at UINT32_MAX)
     */
    static uint32_t PauseHeadroom(uint32_t mtu, DataRate rate, Time delay);

    // NetDevice (the rest: Mac48NetDevice). The switch has no channel of its own, is
    // always up, and hands nothing to the node's stack.
    /** @return null: the switch has no channel of its own (its ports do) */
    Ptr<Channel> GetChannel() const override;
    /** @return true: the switch is always up */
    bool IsLinkUp() const override;
    /** @return true */
    bool IsBridge() const override;
    /** @return false: the switch hands nothing to a stack */
    bool NeedsArp() const override;

  protected:
    /** Cancel the ports' PAUSE refresh timers and release the ports. */
    void DoDispose() override;
    /** Apply PauseEnabled to the ports and recompute their thresholds (attributes may
     *  have changed after AddPort). */
    void DoInitialize() override;

  private:
    static constexpr uint32_t NO_PORT = 0xFFFFFFFF;

    /**
     * A frame the switch itself originates (management traffic): MAC header added,
     * padded to 60 bytes, then forwarded or flooded like a received frame, with the same
     * egress admission but charged to no ingress port. Returns true (a drop at egress is
     * traced as EgressDrop).
     */
    bool SendFrame(Ptr<Packet> packet,
                   Mac48Address source,
                   Mac48Address dest,
                   uint16_t protocolNumber) override;

    /** A port: its device, its state, its PAUSE refresh timer and its egress FIFO. */
    struct Port : PortState
    {
        Ptr<EthernetNetDevice> device;
        EventId refresh;
        std::deque<std::pair<uint32_t, uint32_t>> queued; //!< (bytes, ingress port) FIFO
    };

    struct Learned
    {
        uint32_t port;
        Time expires;
    };

    /** A MAC address as a hash key: its six bytes as one number. */
    struct MacHash
    {
        std::size_t operator()(const Mac48Address& address) const
        {
            uint8_t bytes[6];
            address.CopyTo(bytes);
            uint64_t value = 0;
            for (uint8_t b : bytes)
            {
                value = (value << 8) | b;
            }
            return std::hash<uint64_t>{}(value);
        }
    };

    void Forward(uint32_t in, uint32_t out, Ptr<Packet> frame);
    void Distribute(uint32_t in, Ptr<Packet> frame, Mac48Address dst);
    void ComputeThresholds(Port& port);
    void CheckXoff(uint32_t in);
    void CheckXon(uint32_t in);
    /** PAUSE with PauseQuanta out of port @p in (timed style: and its refresh). */
    void SendXoff(uint32_t in);
    void RefreshPause(uint32_t in);
    uint32_t LookupPort(Mac48Address dst);

    std::vector<Port> m_ports;
    /** What the switch knows: a flat table, looked up twice per frame (source, destination). */
    std::unordered_map<Mac48Address, Learned, MacHash> m_learned;
    StationLocator m_locator;
    uint64_t m_unknownFloods;

    uint32_t m_egressBuffer;
    uint32_t m_sharedPool;
    uint32_t m_poolBytes;
    bool m_pauseEnabled;
    PauseStyle m_pauseStyle;
    uint16_t m_pauseQuanta;
    uint32_t m_xoffThreshold;
    uint32_t m_xonThreshold;
    Time m_ageing;

    TracedCallback<Ptr<const Packet>, uint32_t> m_egressDropTrace;
    TracedCallback<Ptr<const Packet>, uint32_t> m_ingressDropTrace;
    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t> m_ingressCopyDropTrace;
    TracedCallback<uint32_t, uint16_t> m_pauseSentTrace;
};

} // namespace ns3

#endif /* LANLOSS_ETHERNET_SWITCH_NET_DEVICE_H */
