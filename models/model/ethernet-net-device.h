// SPDX-License-Identifier: GPL-2.0-only
/*
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

    enum TxState
    {
        READY,
        TRANSMITTING,
        GAP,
    };

    /**
     * A PAUSE frame sent or received.
     * @param quanta its pause_time in quanta of 512 bit times (0: XON)
     */
    typedef void (*PauseTracedCallback)(uint16_t quanta);

    static TypeId GetTypeId();

    EthernetNetDevice();
    ~EthernetNetDevice() override;

    /** Connect to one end of a link. */
    bool Attach(Ptr<EthernetChannel> channel);

    /** Called by the channel when the last bit of @p frame has arrived. */
    void Receive(Ptr<Packet> frame);

    void SetDataRate(DataRate rate);
    DataRate GetDataRate() const;

    void SetQueue(Ptr<Queue<Packet>> queue);
    Ptr<Queue<Packet>> GetQueue() const;

    /** Whether a received PAUSE is honoured (802.3x receive flow control). */
    void SetFlowControl(bool enabled);
    bool GetFlowControl() const;

    /**
     * Send a MAC Control PAUSE with @p quanta (0 = XON). It goes ahead of queued
     * data and is sent even while this transmitter is itself paused; a PAUSE
     * still waiting to be sent is replaced by the newer value.
     */
    void SendPause(uint16_t quanta);

    /** True while a received PAUSE holds this transmitter. */
    bool IsPaused() const;
    /** Total time this transmitter has been held by PAUSE (up to now). */
    Time GetPausedTime() const;
    uint64_t GetPauseFramesSent() const;
    /** Data frames (not MAC Control) this device has put on its link. */
    uint64_t GetDataFramesSent() const;
    uint64_t GetPauseFramesReceived() const;

    TxState GetTxState() const;
    /** Nothing queued, nothing being sent. */
    bool IsIdle() const;
    /** Whether @p bytes more frame bytes fit in the transmit queue now. */
    bool HasRoomFor(uint32_t bytes) const;

    /**
     * Make this device port @p index of @p sw (EthernetSwitchNetDevice::AddPort does it).
     * A switch relays frames, not packets: received data frames go to the switch whole
     * (MAC header on, padding kept) without a trip through the node's protocol handlers,
     * and the switch hands them back to an egress port with EnqueueFrame. MacRx and MacTx
     * of a switch port therefore carry whole frames.
     */
    void SetSwitchPort(Ptr<EthernetSwitchNetDevice> sw, uint32_t index);
    /** Queue a whole frame (MAC header on, padded) for transmission. @return false if dropped */
    bool EnqueueFrame(Ptr<Packet> frame);
    /** Whether this device is a switch port (SetSwitchPort). */
    bool IsSwitchPort() const;

    /** Put a host receive model between the MAC and the stack (null = ideal host). */
    void SetRxPath(Ptr<EthernetRxPath> path);
    Ptr<EthernetRxPath> GetRxPath() const;
    /** Hand a frame the receive path has processed to the stack (callbacks, MacRx trace). */
    void DeliverUp(Ptr<Packet> packet,
                   uint16_t protocol,
                   Mac48Address source,
                   Mac48Address destination,
                   PacketType type);

    // NetDevice (the rest: Mac48NetDevice)
    Ptr<Channel> GetChannel() const override;
    /** 68 (IPv4's minimum) to 9216 (jumbo frames); false, and unchanged, outside. */
    bool SetMtu(const uint16_t mtu) override;
    /** Up once attached to a channel. */
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBridge() const override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;

  protected:
    void DoDispose() override;

  private:
    void TryTransmit();
    void StartTransmission(Ptr<Packet> frame);
    void TransmitComplete();
    bool SendFrame(Ptr<Packet> packet, Mac48Address source, Mac48Address dest, uint16_t protocol);
    bool Offer(Ptr<Packet> frame);
    void StartData(Ptr<Packet> frame);
    void ApplyDeferredPause();
    void HandlePause(uint16_t quanta);
    void ApplyPause(uint16_t quanta);
    void PauseExpired();
    void ClosePauseInterval();

    Ptr<EthernetChannel> m_channel;
    Ptr<EthernetRxPath> m_rxPath;
    Ptr<EthernetSwitchNetDevice> m_switch; //!< set on switch ports
    uint32_t m_switchPort;
    Ptr<Queue<Packet>> m_queue;
    Ptr<ErrorModel> m_receiveErrorModel;
    DataRate m_bps;
    bool m_flowControl;
    PauseTimerStart m_pauseTimerStart;

    Ptr<Packet> m_currentFrame; //!< the frame in flight (kept only for PhyTxEnd)
    Time m_txEnd;               //!< end of the last frame started
    Time m_gapEnd;              //!< end of its IFG: the transmitter is free from then on
    EventId m_readyEvent;       //!< wakes the transmitter at m_gapEnd for a waiting frame

    Time m_pauseEnd;     //!< no data frame may start before this
    Time m_pauseStart;   //!< start of the current pause interval
    Time m_pausedTotal;  //!< closed pause intervals
    EventId m_pauseEvent;
    int32_t m_deferredQuanta; //!< PAUSE_AFTER_FRAME: quanta waiting for the frame to end
    uint64_t m_pauseSent;
    uint64_t m_dataFramesSent;
    uint64_t m_pauseReceived;
    Ptr<Packet> m_pendingPause; //!< MAC Control frame to send before any data
    uint16_t m_pendingPauseQuanta;

    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;
    TracedCallback<> m_linkChangeCallbacks;

    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    TracedCallback<Ptr<const Packet>> m_macTxDropTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxEndTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxEndTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace;
    TracedCallback<Ptr<const Packet>> m_promiscSnifferTrace;
    TracedCallback<uint16_t> m_pauseTxTrace;
    TracedCallback<uint16_t> m_pauseRxTrace;
};

} // namespace ns3

#endif /* LANLOSS_ETHERNET_NET_DEVICE_H */
