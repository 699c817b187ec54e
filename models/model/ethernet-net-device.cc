// SPDX-License-Identifier: GPL-2.0-only
#include "ethernet-net-device.h"

#include "ethernet-channel.h"
#include "ethernet-rx-path.h"
#include "ethernet-switch-net-device.h"
#include "ethernet-wire.h"
#include "lanloss-ns3-compat.h"
#include "mac-control-header.h"

#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <array>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EthernetNetDevice");
NS_OBJECT_ENSURE_REGISTERED(EthernetNetDevice);

namespace
{

/**
 * DataRate::CalculateBytesTxTime(@p bytes) at @p rate, remembered.
 *
 * It divides in 128-bit fixed point (int64x64_t::Udiv, ~900 instructions), and
 * every frame needs it twice (the frame, then the IFG): 6.5% of a whole
 * lanloss-sim run (bench/sim_speed.py). A LAN has few distinct (rate, frame
 * size) pairs, so a small direct-mapped table hits almost always; a miss calls
 * the same function, so every time is bit-identical to computing it afresh.
 */
Time
TxTime(const DataRate& rate, uint32_t bytes)
{
    struct Entry
    {
        uint64_t bps;
        uint32_t bytes;
        bool used;
        Time::Unit resolution; // steps are only valid at the resolution they were taken in
        int64_t steps;         // not a Time: a static Time would be tracked by Time::Mark
    };

    static thread_local std::array<Entry, 256> cache{};
    const uint64_t bps = rate.GetBitRate();
    const Time::Unit resolution = Time::GetResolution();
    Entry& e = cache[((bps ^ (uint64_t(bytes) << 32)) * 0x9E3779B97F4A7C15ULL) >> 56];
    if (!e.used || e.bps != bps || e.bytes != bytes || e.resolution != resolution)
    {
        e = Entry{bps, bytes, true, resolution, rate.CalculateBytesTxTime(bytes).GetTimeStep()};
    }
    return TimeStep(e.steps);
}

} // namespace

TypeId
EthernetNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EthernetNetDevice")
            .SetParent<Mac48NetDevice>()
            .SetGroupName("Lanloss")
            .AddConstructor<EthernetNetDevice>()
            .AddAttribute("Address",
                          "The MAC address of this device.",
                          Mac48AddressValue(Mac48Address("ff:ff:ff:ff:ff:ff")),
                          MakeMac48AddressAccessor(&EthernetNetDevice::m_address),
                          MakeMac48AddressChecker())
            .AddAttribute("DataRate",
                          "Link speed in bit/s (both ends of a link must agree).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&EthernetNetDevice::m_bps),
                          MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest MAC payload in bytes (1500; up to 9216 for jumbo frames).",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&EthernetNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>(68, ethernet::MAX_JUMBO_MTU))
            .AddAttribute("TxQueue",
                          "Transmit queue of data frames (limit in bytes).",
                          PointerValue(),
                          MakePointerAccessor(&EthernetNetDevice::m_queue),
                          MakePointerChecker<Queue<Packet>>())
            .AddAttribute("FlowControl",
                          "Honour received IEEE 802.3x PAUSE frames.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&EthernetNetDevice::m_flowControl),
                          MakeBooleanChecker())
            .AddAttribute("PauseTimerStart",
                          "When a PAUSE received during a transmission starts its timer.",
                          EnumValue(PAUSE_ON_RECEIPT),
                          lanloss_compat::MakeEnumAccessor<PauseTimerStart>(
                              &EthernetNetDevice::m_pauseTimerStart),
                          MakeEnumChecker(PAUSE_ON_RECEIPT,
                                          "OnReceipt",
                                          PAUSE_AFTER_FRAME,
                                          "AfterFrame"))
            .AddAttribute("ReceiveErrorModel",
                          "Marks received frames as corrupt (bad FCS): the MAC discards them "
                          "(PhyRxDrop). None by default.",
                          PointerValue(),
                          MakePointerAccessor(&EthernetNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("MacTx",
                            "A packet from the upper layer was accepted for transmission.",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_macTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacTxDrop",
                            "A frame was dropped because the transmit queue was full.",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_macTxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A data frame was received and passed up.",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxBegin",
                            "A frame (data or MAC Control) started on the wire.",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_phyTxBeginTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxEnd",
                            "The last bit (FCS) of a frame left the transmitter.",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_phyTxEndTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxEnd",
                            "The last bit of a frame arrived.",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_phyRxEndTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxDrop",
                            "A received frame was discarded as corrupt (ReceiveErrorModel).",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_phyRxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PromiscSniffer",
                            "Every frame sent or received, with its MAC header (for pcap).",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_promiscSnifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PauseTx",
                            "A PAUSE frame was put on the wire (argument: pause_time quanta).",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_pauseTxTrace),
                            "ns3::EthernetNetDevice::PauseTracedCallback")
            .AddTraceSource("PauseRx",
                            "A PAUSE frame arrived (argument: pause_time quanta).",
                            MakeTraceSourceAccessor(&EthernetNetDevice::m_pauseRxTrace),
                            "ns3::EthernetNetDevice::PauseTracedCallback");
    return tid;
}

EthernetNetDevice::EthernetNetDevice()
    : m_switchPort(0),
      m_bps(DataRate("100Mbps")),
      m_flowControl(false),
      m_pauseTimerStart(PAUSE_ON_RECEIPT),
      m_pauseEnd(Seconds(0)),
      m_dataFramesSent(0),
      m_pauseStart(Seconds(0)),
      m_pausedTotal(Seconds(0)),
      m_deferredQuanta(-1),
      m_pauseSent(0),
      m_pauseReceived(0),
      m_pendingPauseQuanta(0)
{
    // A default queue so the device works without a helper: 1 MiB of frames.
    m_queue = CreateObject<DropTailQueue<Packet>>();
    m_queue->SetMaxSize(QueueSize("1048576B"));
}

EthernetNetDevice::~EthernetNetDevice() = default;

void
EthernetNetDevice::DoDispose()
{
    m_channel = nullptr;
    m_rxPath = nullptr;
    m_switch = nullptr;
    m_queue = nullptr;
    m_receiveErrorModel = nullptr;
    m_pendingPause = nullptr;
    m_currentFrame = nullptr;
    m_readyEvent.Cancel();
    m_pauseEvent.Cancel();
    Mac48NetDevice::DoDispose();
}

bool
EthernetNetDevice::Attach(Ptr<EthernetChannel> channel)
{
    m_channel = channel;
    m_channel->Attach(this);
    NotifyLinkUp();
    return true;
}

void
EthernetNetDevice::SetDataRate(DataRate rate)
{
    m_bps = rate;
}

DataRate
EthernetNetDevice::GetDataRate() const
{
    return m_bps;
}

void
EthernetNetDevice::SetQueue(Ptr<Queue<Packet>> queue)
{
    m_queue = queue;
}

Ptr<Queue<Packet>>
EthernetNetDevice::GetQueue() const
{
    return m_queue;
}

void
EthernetNetDevice::SetFlowControl(bool enabled)
{
    m_flowControl = enabled;
}

bool
EthernetNetDevice::GetFlowControl() const
{
    return m_flowControl;
}

// ---------------------------------------------------------------- transmit

bool
EthernetNetDevice::SendFrame(Ptr<Packet> packet,
                             Mac48Address source,
                             Mac48Address dest,
                             uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << source << dest << protocolNumber);
    m_macTxTrace(packet);
    AddMacHeader(packet, source, dest, protocolNumber);
    return Offer(packet);
}

void
EthernetNetDevice::AddMacHeader(Ptr<Packet> packet,
                                Mac48Address source,
                                Mac48Address dest,
                                uint16_t protocol)
{
    EthernetHeader header(false);
    header.SetSource(source);
    header.SetDestination(dest);
    header.SetLengthType(protocol);
    packet->AddHeader(header);
    if (packet->GetSize() < ethernet::MIN_FRAME_NO_FCS)
    {
        // Zeros, as a NIC pads (Packet::AddPaddingAtEnd leaves whatever its buffer held).
        packet->AddAtEnd(Create<Packet>(ethernet::MIN_FRAME_NO_FCS - packet->GetSize()));
    }
}

bool
EthernetNetDevice::EnqueueFrame(Ptr<Packet> frame)
{
    m_macTxTrace(frame);
    return Offer(frame);
}

bool
EthernetNetDevice::Offer(Ptr<Packet> frame)
{
    // A frame that finds the transmitter free and nothing waiting starts at once (as
    // a qdisc bypasses an empty queue): the queue and its traces see the frames that wait.
    if (m_channel && m_queue->IsEmpty() && !m_pendingPause && !IsPaused() &&
        Simulator::Now() >= m_gapEnd)
    {
        StartData(frame);
        return true;
    }
    if (!m_queue->Enqueue(frame))
    {
        m_macTxDropTrace(frame);
        return false;
    }
    TryTransmit();
    return true;
}

void
EthernetNetDevice::SetSwitchPort(Ptr<EthernetSwitchNetDevice> sw, uint32_t index)
{
    m_switch = sw;
    m_switchPort = index;
}

bool
EthernetNetDevice::IsSwitchPort() const
{
    return m_switch != nullptr;
}

void
EthernetNetDevice::SendPause(uint16_t quanta)
{
    NS_LOG_FUNCTION(this << quanta);
    // Only the newest pause_time matters to the peer: replace one still waiting.
    Ptr<Packet> frame = Create<Packet>();
    MacControlHeader control;
    control.SetPauseTime(quanta);
    frame->AddHeader(control);
    EthernetHeader header(false);
    header.SetSource(m_address);
    header.SetDestination(MacControlHeader::PauseDestination());
    header.SetLengthType(ethernet::ETHERTYPE_MAC_CONTROL);
    frame->AddHeader(header);
    m_pendingPause = frame;
    m_pendingPauseQuanta = quanta;
    TryTransmit();
}

void
EthernetNetDevice::TryTransmit()
{
    if (!m_channel)
    {
        return;
    }
    Time now = Simulator::Now();
    if (now < m_gapEnd)
    {
        // Busy (frame or IFG): wake up when the IFG ends, if anything is waiting.
        if ((m_pendingPause || !m_queue->IsEmpty()) && m_readyEvent.IsExpired())
        {
            m_readyEvent = Simulator::Schedule(m_gapEnd - now, &EthernetNetDevice::TryTransmit, this);
        }
        return;
    }
    if (m_pendingPause)
    {
        Ptr<Packet> frame = m_pendingPause;
        m_pendingPause = nullptr;
        ++m_pauseSent;
        m_pauseTxTrace(m_pendingPauseQuanta);
        StartTransmission(frame);
        return;
    }
    if (IsPaused() || m_queue->IsEmpty())
    {
        return;
    }
    StartData(m_queue->Dequeue());
}

void
EthernetNetDevice::StartData(Ptr<Packet> frame)
{
    ++m_dataFramesSent;
    if (m_switch)
    {
        m_switch->FrameDeparted(m_switchPort); // its egress buffer is free again
    }
    StartTransmission(frame);
}

void
EthernetNetDevice::StartTransmission(Ptr<Packet> frame)
{
    NS_LOG_FUNCTION(this << frame);
    m_phyTxBeginTrace(frame);
    m_promiscSnifferTrace(frame);
    Time txTime = TxTime(m_bps, ethernet::FrameWireBytes(frame->GetSize()));
    Time now = Simulator::Now();
    m_txEnd = now + txTime;
    m_gapEnd = m_txEnd + TxTime(m_bps, ethernet::INTERFRAME_GAP_BITS / 8);
    m_channel->TransmitStart(frame, this, txTime);
    // No event marks the end of a frame or of its IFG unless something needs it: the
    // state is derived from m_txEnd and m_gapEnd (GetTxState), and the transmitter is
    // woken at m_gapEnd only if a frame is waiting then (TryTransmit).
    if (!m_phyTxEndTrace.IsEmpty())
    {
        m_currentFrame = frame;
        Simulator::Schedule(txTime, &EthernetNetDevice::TransmitComplete, this);
    }
    if (m_pendingPause || !m_queue->IsEmpty())
    {
        m_readyEvent = Simulator::Schedule(m_gapEnd - now, &EthernetNetDevice::TryTransmit, this);
    }
}

void
EthernetNetDevice::TransmitComplete()
{
    m_phyTxEndTrace(m_currentFrame);
    m_currentFrame = nullptr;
}

// ---------------------------------------------------------------- PAUSE

bool
EthernetNetDevice::IsPaused() const
{
    return m_pauseEnd > Simulator::Now();
}

void
EthernetNetDevice::HandlePause(uint16_t quanta)
{
    ++m_pauseReceived;
    m_pauseRxTrace(quanta);
    if (!m_flowControl)
    {
        return; // receive flow control off: MAC Control frames are discarded
    }
    if (m_pauseTimerStart == PAUSE_AFTER_FRAME && GetTxState() == TRANSMITTING)
    {
        // The timer starts when the frame in flight ends; the newest PAUSE wins.
        if (m_deferredQuanta < 0)
        {
            Simulator::Schedule(m_txEnd - Simulator::Now(), &EthernetNetDevice::ApplyDeferredPause, this);
        }
        m_deferredQuanta = quanta;
        return;
    }
    ApplyPause(quanta);
}

void
EthernetNetDevice::ApplyDeferredPause()
{
    uint16_t quanta = static_cast<uint16_t>(m_deferredQuanta);
    m_deferredQuanta = -1;
    ApplyPause(quanta);
}

void
EthernetNetDevice::ApplyPause(uint16_t quanta)
{
    // A new PAUSE replaces the running timer (Annex 31B.3.7); 0 releases at once.
    ClosePauseInterval();
    m_pauseEvent.Cancel();
    Time now = Simulator::Now();
    if (quanta == 0)
    {
        m_pauseEnd = now;
        TryTransmit();
        return;
    }
    // quanta * 512 bit times at this link's rate, computed in one step (exact at 10G too)
    Time hold = m_bps.CalculateBytesTxTime(uint32_t(quanta) * (ethernet::PAUSE_QUANTUM_BITS / 8));
    m_pauseStart = now;
    m_pauseEnd = now + hold;
    m_pauseEvent = Simulator::Schedule(hold, &EthernetNetDevice::PauseExpired, this);
}

void
EthernetNetDevice::PauseExpired()
{
    ClosePauseInterval();
    TryTransmit();
}

void
EthernetNetDevice::ClosePauseInterval()
{
    Time now = Simulator::Now();
    if (m_pauseEnd > m_pauseStart)
    {
        Time end = std::min(m_pauseEnd, now);
        if (end > m_pauseStart)
        {
            m_pausedTotal += end - m_pauseStart;
        }
        m_pauseStart = end;
        if (m_pauseEnd > now)
        {
            m_pauseEnd = now;
        }
    }
}

Time
EthernetNetDevice::GetPausedTime() const
{
    Time now = Simulator::Now();
    Time open = (m_pauseEnd > m_pauseStart) ? std::min(m_pauseEnd, now) - m_pauseStart : Seconds(0);
    return m_pausedTotal + (open.IsStrictlyPositive() ? open : Seconds(0));
}

uint64_t
EthernetNetDevice::GetPauseFramesSent() const
{
    return m_pauseSent;
}

uint64_t
EthernetNetDevice::GetDataFramesSent() const
{
    return m_dataFramesSent;
}

uint64_t
EthernetNetDevice::GetPauseFramesReceived() const
{
    return m_pauseReceived;
}

EthernetNetDevice::TxState
EthernetNetDevice::GetTxState() const
{
    // No event marks these instants: derive the state from the times.
    Time now = Simulator::Now();
    if (now < m_txEnd)
    {
        return TRANSMITTING;
    }
    return now < m_gapEnd ? GAP : READY;
}

bool
EthernetNetDevice::IsIdle() const
{
    return GetTxState() == READY && m_queue->IsEmpty() && !m_pendingPause;
}

bool
EthernetNetDevice::HasRoomFor(uint32_t bytes) const
{
    QueueSize max = m_queue->GetMaxSize();
    if (max.GetUnit() == QueueSizeUnit::BYTES)
    {
        return m_queue->GetNBytes() + bytes <= max.GetValue();
    }
    return m_queue->GetNPackets() < max.GetValue();
}

// ---------------------------------------------------------------- receive

void
EthernetNetDevice::Receive(Ptr<Packet> frame)
{
    NS_LOG_FUNCTION(this << frame);
    m_phyRxEndTrace(frame);
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame))
    {
        m_phyRxDropTrace(frame); // a bad FCS: the MAC discards it (rx_crc_errors)
        return;
    }
    m_promiscSnifferTrace(frame);
    // The MAC header is read as bytes (cheaper than deserialising an EthernetHeader).
    uint8_t mac[ethernet::MAC_HEADER_BYTES];
    frame->CopyData(mac, ethernet::MAC_HEADER_BYTES);
    const uint16_t protocol = (mac[12] << 8) | mac[13];
    Mac48Address dst;
    Mac48Address src;
    dst.CopyFrom(mac);
    src.CopyFrom(mac + 6);
    if (protocol == ethernet::ETHERTYPE_MAC_CONTROL)
    {
        if (m_switch)
        {
            frame = frame->Copy(); // the channel does not copy frames for a switch port
        }
        frame->RemoveAtStart(ethernet::MAC_HEADER_BYTES);
        MacControlHeader control;
        frame->RemoveHeader(control);
        if (control.IsPause())
        {
            HandlePause(control.GetPauseTime());
        }
        return; // MAC Control frames end in the MAC; bridges never forward them
    }
    if (m_switch)
    {
        // A switch port relays the frame as it is.
        m_macRxTrace(frame);
        m_switch->ReceiveFrame(m_switchPort, frame, src, dst);
        return;
    }
    frame->RemoveAtStart(ethernet::MAC_HEADER_BYTES);

    PacketType type;
    if (dst.IsBroadcast())
    {
        type = PACKET_BROADCAST;
    }
    else if (dst.IsGroup())
    {
        type = PACKET_MULTICAST;
    }
    else if (dst == m_address)
    {
        type = PACKET_HOST;
    }
    else
    {
        type = PACKET_OTHERHOST;
    }
    if (m_rxPath && type != PACKET_OTHERHOST)
    {
        m_rxPath->Receive(frame, protocol, src, dst, type);
        return;
    }
    DeliverUp(frame, protocol, src, dst, type);
}

void
EthernetNetDevice::DeliverUp(Ptr<Packet> packet,
                             uint16_t protocol,
                             Mac48Address source,
                             Mac48Address destination,
                             PacketType type)
{
    m_macRxTrace(packet);
    HandUp(packet, protocol, source, destination, type);
}

void
EthernetNetDevice::SetRxPath(Ptr<EthernetRxPath> path)
{
    m_rxPath = path;
    if (m_rxPath)
    {
        m_rxPath->Attach(this);
    }
}

Ptr<EthernetRxPath>
EthernetNetDevice::GetRxPath() const
{
    return m_rxPath;
}

// ---------------------------------------------------------------- NetDevice

Ptr<Channel>
EthernetNetDevice::GetChannel() const
{
    return m_channel;
}

bool
EthernetNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

bool
EthernetNetDevice::IsBridge() const
{
    return false;
}

bool
EthernetNetDevice::NeedsArp() const
{
    return true;
}

} // namespace ns3
