// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A full-duplex Ethernet MAC + PHY with exact 802.3 wire timing and 802.3x PAUSE.
 */
#ifndef LANLOSS_ETHERNET_NET_DEVICE_H
#define LANLOSS_ETHERNET_NET_DEVICE_H

#include "mac48-net-device.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"


/**
 * @defgroup lanloss lanloss: switched Ethernet LANs and the hosts on them
 *
 * An ns-3 module for UDP loss in star-switched (and tree-switched) Ethernet LANs:
 *
 * - full-duplex links with exact wire accounting (IEEE 802.3 clause 4: preamble and SFD,
 *   padding to the 64-byte minimum, FCS, a 96-bit-time inter-frame gap after every
 *   frame): EthernetNetDevice, EthernetChannel, the constants of ethernet-wire.h;
 * - IEEE 802.3x PAUSE (Annex 31B), sent and honoured by hosts and switches:
 *   MacControlHeader;
 * - store-and-forward switches with per-port egress buffers, an optional shared pool and
 *   per-ingress XOFF/XON with headroom: EthernetSwitchNetDevice;
 * - a receiving Linux host (NIC FIFO, DMA, RX ring, interrupt moderation, NAPI and
 *   softirq, RPS backlog, IPv4 reassembly, truesize-charged socket buffers, reading
 *   processes on cores with IRQ > softirq > task priority): HostRxPath, HostRxNic,
 *   HostRxKernel, HostSocket, HostReader, HostCpu;
 * - sending hosts and measurement: UdpFlowSource, TcpFlowSource, UdpFlowSink,
 *   MessageEcho, EchoTimer, and LossAccountant, which attributes every lost datagram to
 *   the first point that dropped one of its frames;
 * - topologies and helpers: LanSpec, LanBuilder, EthernetHelper, EthernetSwitchHelper,
 *   HostReceiverHelper, StationDirectory.
 *
 * The model description is models/doc/lanloss.rst; the host model is
 * models/doc/host-model.rst.
 */

namespace ns3
{

class EthernetChannel;
class EthernetRxPath;
class EthernetSwitchNetDevice;
class ErrorModel;
class Node;

/**
 * @ingroup lanloss
 * Full-duplex Ethernet interface (not CSMA/CD, not PPP).
 *
 * Transmitter state machine (after INET's EthernetMac):
 *   READY -> TRANSMITTING (preamble .. FCS) -> GAP (96 bit times) -> READY.
 * PAUSE is orthogonal to it: a received PAUSE sets a pause timer; while it
 * runs no *data* frame starts, but the frame in flight finishes, and MAC
 * Control frames (our own PAUSE/XON) are still sent, ahead of queued data
 * (so a paused port can still pause its peer, unlike INET issue #69). The
 * timer is checked whenever the transmitter becomes READY, so a PAUSE that
 * arrives during the inter-frame gap is honoured (unlike INET issue #68).
 *
 * Frames carry the 14-byte MAC header and are padded to 60 bytes (the 64-byte
 * minimum without FCS, as a capture shows them); preamble+SFD and FCS are
 * accounted in the serialisation time, and the IFG after every frame.
 *
 * ReceiveErrorModel (optional, as on ns-3's CsmaNetDevice and
 * PointToPointNetDevice): a frame it marks as corrupt is discarded by the MAC
 * after its last bit arrived, as a NIC discards a frame with a bad FCS
 * (rx_crc_errors), and traced as PhyRxDrop; it never reaches the receive path.
 */
class EthernetNetDevice : public Mac48NetDevice
{
  public:
    /** When the pause timer starts if a PAUSE arrives while a frame is being sent. */
    enum PauseTimerStart
    {
        PAUSE_ON_RECEIPT,    //!< 802.3 Annex 31B: the timer starts on reception
        PAUSE_AFTER_FRAME,   //!< some MACs start it after the frame in flight
    };

    /** The transmitter's state (see the class description). */
    enum TxState
    {
        READY,        //!< free: the next frame may start now
        TRANSMITTING, //!< a frame is on the wire (preamble to FCS)
        GAP,          //!< the 96-bit-time inter-frame gap after a frame
    };

    /**
     * A PAUSE frame sent or received.
     * @param quanta its pause_time in quanta of 512 bit times (0: XON)
     */
    typedef void (*PauseTracedCallback)(uint16_t quanta);

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A device with no channel (link down), 100 Mbit/s, flow control off. */
    EthernetNetDevice();
    ~EthernetNetDevice() override;

    /**
     * Connect to one end of a link; the link comes up and the link-change callbacks run.
     * @param channel the link (a third device on it is a programming error)
     * @return true
     */
    bool Attach(Ptr<EthernetChannel> channel);

    /**
     * Called by the channel when the last bit of @p frame has arrived. A frame the
     * ReceiveErrorModel marks corrupt is discarded (PhyRxDrop); a PAUSE goes to the
     * transmitter's pause timer; a data frame goes to the switch (switch port), the
     * receive path (SetRxPath) or the stack.
     * @param frame the frame with its MAC header and padding, without FCS
     */
    void Receive(Ptr<Packet> frame);

    /**
     * Set the link speed (attribute DataRate); both ends of a link must use the same.
     * @param rate the line rate in bit/s
     */
    void SetDataRate(DataRate rate);
    /** @return the line rate in bit/s (attribute DataRate, default 100 Mbit/s) */
    DataRate GetDataRate() const;

    /**
     * Set the transmit queue of data frames (attribute TxQueue); its limit is normally in
     * bytes of frames without FCS, padding included (EthernetHelper::SetQueueBytes).
     * @param queue the queue
     */
    void SetQueue(Ptr<Queue<Packet>> queue);
    /** @return the transmit queue of data frames */
    Ptr<Queue<Packet>> GetQueue() const;

    /**
     * Whether a received PAUSE is honoured (802.3x receive flow control; attribute
     * FlowControl). Off: PAUSE frames are counted and traced, then discarded.
     * @param enabled honour PAUSE
     */
    void SetFlowControl(bool enabled);
    /** @return whether a received PAUSE is honoured (attribute FlowControl, default off) */
    bool GetFlowControl() const;

    /**
     * Send a MAC Control PAUSE with @p quanta (0 = XON). It goes ahead of queued
     * data and is sent even while this transmitter is itself paused; a PAUSE
     * still waiting to be sent is replaced by the newer value.
     * @param quanta the pause_time, in quanta of 512 bit times at this device's rate
     */
    void SendPause(uint16_t quanta);

    /** @return true while a received PAUSE holds this transmitter */
    bool IsPaused() const;
    /** @return total time this transmitter has been held by PAUSE (up to now) */
    Time GetPausedTime() const;
    /** @return PAUSE frames (XON included) this device has put on its link */
    uint64_t GetPauseFramesSent() const;
    /** @return data frames (not MAC Control) this device has put on its link */
    uint64_t GetDataFramesSent() const;
    /** @return PAUSE frames received, honoured or not */
    uint64_t GetPauseFramesReceived() const;

    /** @return the transmitter's state now */
    TxState GetTxState() const;
    /** @return true if nothing is queued and nothing is being sent */
    bool IsIdle() const;
    /**
     * Whether @p bytes more frame bytes fit in the transmit queue now (a queue limited in
     * packets: whether one more frame fits).
     * @param bytes frame bytes without FCS, padding included
     * @return true if they fit
     */
    bool HasRoomFor(uint32_t bytes) const;

    /**
     * Make this device port @p index of @p sw (EthernetSwitchNetDevice::AddPort does it).
     * A switch relays frames, not packets: received data frames go to the switch whole
     * (MAC header on, padding kept) without a trip through the node's protocol handlers,
     * and the switch hands them back to an egress port with EnqueueFrame. MacRx and MacTx
     * of a switch port therefore carry whole frames.
     * @param sw the switch
     * @param index this device's port number on @p sw
     */
    void SetSwitchPort(Ptr<EthernetSwitchNetDevice> sw, uint32_t index);
    /**
     * Queue a whole frame (MAC header on, padded) for transmission (MacTx); dropped
     * (MacTxDrop) if the transmit queue has no room.
     * @param frame the frame without FCS
     * @return false if dropped
     */
    bool EnqueueFrame(Ptr<Packet> frame);
    /**
     * Make a MAC payload a frame: add the MAC header and pad the frame to 60 bytes (the
     * 64-byte minimum without FCS).
     * @param packet the MAC payload; becomes the frame without FCS
     * @param source the source MAC address
     * @param dest the destination MAC address
     * @param protocol the EtherType
     */
    static void AddMacHeader(Ptr<Packet> packet,
                             Mac48Address source,
                             Mac48Address dest,
                             uint16_t protocol);
    /** @return whether this device is a switch port (SetSwitchPort) */
    bool IsSwitchPort() const;

    /**
     * Put a host receive model between the MAC and the stack (null = ideal host); the
     * path is attached to this device at once (EthernetRxPath::Attach).
     * @param path the receive path, or null
     */
    void SetRxPath(Ptr<EthernetRxPath> path);
    /** @return the receive path, or null (an ideal host) */
    Ptr<EthernetRxPath> GetRxPath() const;
    /**
     * Hand a frame the receive path has processed to the stack: the MacRx trace, the
     * promiscuous callback, and the receive callback unless it is for another host.
     * @param packet the MAC payload (MAC header removed, padding kept)
     * @param protocol the EtherType
     * @param source the frame's source MAC address
     * @param destination the frame's destination MAC address
     * @param type host, broadcast, multicast or other host
     */
    void DeliverUp(Ptr<Packet> packet,
                   uint16_t protocol,
                   Mac48Address source,
                   Mac48Address destination,
                   PacketType type);

    // NetDevice (the rest: Mac48NetDevice)
    /** @return the EthernetChannel this device is attached to, or null */
    Ptr<Channel> GetChannel() const override;
    /** @return true once attached to a channel (a link never goes down) */
    bool IsLinkUp() const override;
    /** @return false: a port is not a bridge (the switch device is the node's bridge) */
    bool IsBridge() const override;
    /** @return true: IPv4 resolves addresses on this device with ARP */
    bool NeedsArp() const override;

  protected:
    /** Release the channel, queue, receive path and switch; cancel the timers. */
    void DoDispose() override;

  private:
    void TryTransmit();
    void StartTransmission(Ptr<Packet> frame);
    void TransmitComplete();
    /**
     * Add the MAC header (source, destination, EtherType), pad to 60 bytes and queue the
     * frame (MacTx); dropped (MacTxDrop) if the transmit queue has no room. A frame that
     * finds the transmitter free and nothing waiting starts at once.
     */
    bool SendFrame(Ptr<Packet> packet,
                   Mac48Address source,
                   Mac48Address dest,
                   uint16_t protocolNumber) override;
    bool Offer(Ptr<Packet> frame);
    void StartData(Ptr<Packet> frame);
    void ApplyDeferredPause();
    void HandlePause(uint16_t quanta);
    void ApplyPause(uint16_t quanta);
    void PauseExpired();
    void ClosePauseInterval();

    // Members are grouped by the path that reads them, each group's members adjacent, so
    // that a frame brings in few cache lines of a device that has gone cold: a LAN of
    // thousands of hosts holds far more state than the caches. The receive path comes
    // first, next to the base class's receive callbacks and node.

    // receive path, every frame
    Ptr<EthernetChannel> m_channel;
    Ptr<EthernetRxPath> m_rxPath;
    Ptr<EthernetSwitchNetDevice> m_switch; //!< set on switch ports
    uint32_t m_switchPort;
    Ptr<ErrorModel> m_receiveErrorModel;
    TracedCallback<Ptr<const Packet>> m_phyRxEndTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
    TracedCallback<Ptr<const Packet>> m_promiscSnifferTrace;

    // transmit path, every frame
    Ptr<Queue<Packet>> m_queue;
    DataRate m_bps;
    bool m_flowControl;
    PauseTimerStart m_pauseTimerStart;
    Time m_pauseEnd;            //!< no data frame may start before this
    Ptr<Packet> m_currentFrame; //!< the frame in flight (kept only for PhyTxEnd)
    Time m_txEnd;               //!< end of the last frame started
    Time m_gapEnd;              //!< end of its IFG: the transmitter is free from then on
    EventId m_readyEvent;       //!< wakes the transmitter at m_gapEnd for a waiting frame
    uint64_t m_dataFramesSent;
    Ptr<Packet> m_pendingPause; //!< MAC Control frame to send before any data
    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxEndTrace;

    // drops and PAUSE
    Time m_pauseStart;  //!< start of the current pause interval
    Time m_pausedTotal; //!< closed pause intervals
    EventId m_pauseEvent;
    int32_t m_deferredQuanta; //!< PAUSE_AFTER_FRAME: quanta waiting for the frame to end
    uint64_t m_pauseSent;
    uint64_t m_pauseReceived;
    uint16_t m_pendingPauseQuanta;
    TracedCallback<Ptr<const Packet>> m_macTxDropTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace;
    TracedCallback<uint16_t> m_pauseTxTrace;
    TracedCallback<uint16_t> m_pauseRxTrace;
};

} // namespace ns3

#endif /* LANLOSS_ETHERNET_NET_DEVICE_H */
