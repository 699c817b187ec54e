// SPDX-License-Identifier: GPL-2.0-only
#include "ethernet-switch-net-device.h"

#include "ethernet-channel.h"
#include "ethernet-net-device.h"
#include "ethernet-wire.h"
#include "lanloss-ns3-compat.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdint>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EthernetSwitchNetDevice");
NS_OBJECT_ENSURE_REGISTERED(EthernetSwitchNetDevice);

TypeId
EthernetSwitchNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EthernetSwitchNetDevice")
            .SetParent<Mac48NetDevice>()
            .SetGroupName("Lanloss")
            .AddConstructor<EthernetSwitchNetDevice>()
            .AddAttribute("EgressBufferBytes",
                          "Egress buffer of every port in bytes (frames header..FCS, padded).",
                          UintegerValue(128 * 1024),
                          MakeUintegerAccessor(&EthernetSwitchNetDevice::m_egressBuffer),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("SharedPoolBytes",
                          "Buffer shared by all egress ports in bytes; 0 = per-port limits only.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EthernetSwitchNetDevice::m_sharedPool),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PauseEnabled",
                          "Send IEEE 802.3x PAUSE out of ingress ports that fill up.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&EthernetSwitchNetDevice::m_pauseEnabled),
                          MakeBooleanChecker())
            .AddAttribute("PauseStyle",
                          "Xon: XOFF then explicit XON; Timed: refreshed timed PAUSE, no XON.",
                          EnumValue(PAUSE_XON),
                          lanloss_compat::MakeEnumAccessor<PauseStyle>(
                              &EthernetSwitchNetDevice::m_pauseStyle),
                          MakeEnumChecker(PAUSE_XON, "Xon", PAUSE_TIMED, "Timed"))
            .AddAttribute("PauseQuanta",
                          "pause_time of an XOFF, in quanta of 512 bit times.",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&EthernetSwitchNetDevice::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("XoffThreshold",
                          "Ingress bytes at which PAUSE is sent; 0 = EgressBufferBytes - headroom.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EthernetSwitchNetDevice::m_xoffThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("XonThreshold",
                          "Ingress bytes at or below which the peer is released; 0 = XOFF/2.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EthernetSwitchNetDevice::m_xonThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AgeingTime",
                          "How long a learned MAC address stays in the table.",
                          TimeValue(Seconds(300)),
                          MakeTimeAccessor(&EthernetSwitchNetDevice::m_ageing),
                          MakeTimeChecker())
            .AddTraceSource("EgressDrop",
                            "A frame was dropped: egress buffer or shared pool full "
                            "(the frame with MAC header and padding, without FCS; egress port index).",
                            MakeTraceSourceAccessor(&EthernetSwitchNetDevice::m_egressDropTrace),
                            "ns3::EthernetSwitchNetDevice::DropTracedCallback")
            .AddTraceSource("IngressDrop",
                            "A frame was dropped: ingress headroom exhausted "
                            "(the frame with MAC header and padding, without FCS; ingress port index).",
                            MakeTraceSourceAccessor(&EthernetSwitchNetDevice::m_ingressDropTrace),
                            "ns3::EthernetSwitchNetDevice::DropTracedCallback")
            .AddTraceSource("IngressCopyDrop",
                            "IngressDrop with the egress port the copy was for (packet, ingress "
                            "port, egress port): a flooded frame is admitted per copy, so this "
                            "says which branch of the flood lost it.",
                            MakeTraceSourceAccessor(
                                &EthernetSwitchNetDevice::m_ingressCopyDropTrace),
                            "ns3::EthernetSwitchNetDevice::CopyDropTracedCallback")
            .AddTraceSource("PauseSent",
                            "The switch sent PAUSE out of a port (port index, pause_time).",
                            MakeTraceSourceAccessor(&EthernetSwitchNetDevice::m_pauseSentTrace),
                            "ns3::EthernetSwitchNetDevice::PauseTracedCallback");
    return tid;
}

EthernetSwitchNetDevice::EthernetSwitchNetDevice()
    : m_unknownFloods(0),
      m_egressBuffer(128 * 1024),
      m_sharedPool(0),
      m_poolBytes(0),
      m_pauseEnabled(false),
      m_pauseStyle(PAUSE_XON),
      m_pauseQuanta(0xFFFF),
      m_xoffThreshold(0),
      m_xonThreshold(0),
      m_ageing(Seconds(300))
{
}

EthernetSwitchNetDevice::~EthernetSwitchNetDevice() = default;

void
EthernetSwitchNetDevice::DoDispose()
{
    for (auto& port : m_ports)
    {
        port.refresh.Cancel();
        port.device = nullptr;
    }
    m_ports.clear();
    Mac48NetDevice::DoDispose();
}

void
EthernetSwitchNetDevice::DoInitialize()
{
    for (auto& port : m_ports)
    {
        port.device->SetFlowControl(m_pauseEnabled); // attributes may change after AddPort
        ComputeThresholds(port);
    }
    Mac48NetDevice::DoInitialize();
}

uint32_t
EthernetSwitchNetDevice::BufferBytes(uint32_t macPayload)
{
    return std::max(macPayload + ethernet::MAC_HEADER_BYTES, ethernet::MIN_FRAME_NO_FCS) +
           ethernet::FCS_BYTES;
}

void
EthernetSwitchNetDevice::AddPort(Ptr<EthernetNetDevice> device)
{
    NS_ASSERT_MSG(m_node, "add the switch to its node before adding ports");
    NS_ASSERT_MSG(device->GetNode() == m_node, "a port must be on the switch's node");
    uint32_t index = m_ports.size();
    Port port;
    port.device = device;
    // The switch does its own admission; the port's queue only orders frames.
    device->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, 0xFFFFFFFF));
    device->SetFlowControl(m_pauseEnabled);
    m_ports.push_back(port);
    ComputeThresholds(m_ports.back());
    // Frames come straight from the port, not through the node's protocol handlers.
    device->SetSwitchPort(this, index);
}

uint32_t
EthernetSwitchNetDevice::PauseHeadroom(uint32_t mtu, DataRate rate, Time delay)
{
    const uint32_t maxFrame = ethernet::FrameSlotBytes(mtu + ethernet::MAC_HEADER_BYTES);
    const uint32_t pauseFrame = ethernet::FrameSlotBytes(ethernet::MIN_FRAME_NO_FCS);
    const double cableBytes = std::ceil(delay.GetSeconds() * rate.GetBitRate() / 8);
    // arriving frame + frame our PAUSE waits behind + frame the peer finishes
    // + the PAUSE frame + data on the cable during the round trip (saturated at
    // UINT32_MAX: no egress buffer is above it)
    const double bytes = 3.0 * maxFrame + pauseFrame + 2 * cableBytes;
    return bytes >= UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(bytes);
}

void
EthernetSwitchNetDevice::ComputeThresholds(Port& port)
{
    Ptr<EthernetNetDevice> dev = port.device;
    Time delay = Seconds(0);
    if (auto ch = DynamicCast<EthernetChannel>(dev->GetChannel()))
    {
        delay = ch->GetDelay();
    }
    port.headroom = PauseHeadroom(dev->GetMtu(), dev->GetDataRate(), delay);
    if (m_xoffThreshold > 0)
    {
        port.xoff = m_xoffThreshold;
    }
    else
    {
        NS_ABORT_MSG_IF(m_pauseEnabled && m_egressBuffer <= port.headroom,
                        "switch egress buffer " << m_egressBuffer
                                                << " B is smaller than the PAUSE headroom "
                                                << port.headroom << " B");
        port.xoff = m_egressBuffer > port.headroom ? m_egressBuffer - port.headroom : 0;
    }
    port.xon = m_xonThreshold > 0 ? std::min(m_xonThreshold, port.xoff) : port.xoff / 2;
}

// ---------------------------------------------------------------- forwarding

void
EthernetSwitchNetDevice::SetStationLocator(StationLocator locator)
{
    m_locator = locator;
}

uint32_t
EthernetSwitchNetDevice::GetNLearned() const
{
    return m_learned.size();
}

uint64_t
EthernetSwitchNetDevice::GetUnknownUnicastFloods() const
{
    return m_unknownFloods;
}

uint32_t
EthernetSwitchNetDevice::LookupPort(Mac48Address dst)
{
    auto it = m_learned.find(dst);
    if (it != m_learned.end())
    {
        return it->second.expires < Simulator::Now() ? NO_PORT : it->second.port;
    }
    // An entry learned at t = 0 would have aged out by now: unknown, as it would be.
    if (!m_locator.IsNull() && Simulator::Now() <= m_ageing)
    {
        uint32_t port = m_locator(dst);
        if (port != NO_PORT)
        {
            m_learned[dst] = Learned{port, m_ageing};
            return port;
        }
    }
    return NO_PORT;
}

void
EthernetSwitchNetDevice::ReceiveFrame(uint32_t in,
                                      Ptr<Packet> frame,
                                      Mac48Address src,
                                      Mac48Address dst)
{
    m_learned[src] = Learned{in, Simulator::Now() + m_ageing};
    Distribute(in, frame, dst);
}

void
EthernetSwitchNetDevice::Distribute(uint32_t in, Ptr<Packet> frame, Mac48Address dst)
{
    uint32_t out = dst.IsGroup() ? NO_PORT : LookupPort(dst);
    if (out != NO_PORT)
    {
        if (out != in) // a frame for the port it came from is filtered (802.1D)
        {
            Forward(in, out, frame);
        }
        return;
    }
    if (!dst.IsGroup())
    {
        ++m_unknownFloods;
    }
    // Flood: every port but the ingress gets its own copy; the last one takes the frame.
    uint32_t last = NO_PORT;
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        if (p != in)
        {
            if (last != NO_PORT)
            {
                Forward(in, last, frame->Copy());
            }
            last = p;
        }
    }
    if (last != NO_PORT)
    {
        Forward(in, last, frame);
    }
}

void
EthernetSwitchNetDevice::Forward(uint32_t in, uint32_t out, Ptr<Packet> frame)
{
    const uint32_t bytes = frame->GetSize() + ethernet::FCS_BYTES; // header..FCS, padded
    const bool chargeIngress = m_pauseEnabled && in != NO_PORT;
    if (chargeIngress)
    {
        Port& ingress = m_ports[in];
        if (ingress.ingressBytes + bytes > ingress.xoff + ingress.headroom)
        {
            ++ingress.ingressDrops;
            m_ingressDropTrace(frame, in);
            m_ingressCopyDropTrace(frame, in, out);
            return;
        }
    }
    Port& egress = m_ports[out];
    if (egress.egressBytes + bytes > m_egressBuffer ||
        (m_sharedPool > 0 && m_poolBytes + bytes > m_sharedPool))
    {
        ++egress.egressDrops;
        m_egressDropTrace(frame, out);
        return;
    }
    egress.egressBytes += bytes;
    m_poolBytes += bytes;
    egress.queued.emplace_back(bytes, chargeIngress ? in : NO_PORT);
    if (chargeIngress)
    {
        m_ports[in].ingressBytes += bytes;
    }
    bool sent = egress.device->EnqueueFrame(frame);
    NS_ASSERT_MSG(sent, "switch port queue refused a frame the switch admitted");
    if (chargeIngress)
    {
        CheckXoff(in);
    }
}

void
EthernetSwitchNetDevice::FrameDeparted(uint32_t out)
{
    Port& egress = m_ports[out];
    NS_ASSERT(!egress.queued.empty());
    auto [bytes, in] = egress.queued.front();
    egress.queued.pop_front();
    egress.egressBytes -= bytes;
    m_poolBytes -= bytes;
    if (in != NO_PORT)
    {
        m_ports[in].ingressBytes -= bytes;
        CheckXon(in);
    }
}

// ---------------------------------------------------------------- flow control

void
EthernetSwitchNetDevice::CheckXoff(uint32_t in)
{
    Port& port = m_ports[in];
    if (port.holdingPeer || port.ingressBytes < port.xoff)
    {
        return;
    }
    port.holdingPeer = true;
    SendXoff(in);
}

void
EthernetSwitchNetDevice::SendXoff(uint32_t in)
{
    Port& port = m_ports[in];
    port.device->SendPause(m_pauseQuanta);
    m_pauseSentTrace(in, m_pauseQuanta);
    if (m_pauseStyle == PAUSE_TIMED)
    {
        // timed style: re-sent every half pause time while the peer is held
        Time half = port.device->GetDataRate().CalculateBytesTxTime(
            uint32_t(m_pauseQuanta) * (ethernet::PAUSE_QUANTUM_BITS / 8) / 2);
        port.refresh = Simulator::Schedule(half, &EthernetSwitchNetDevice::RefreshPause, this, in);
    }
}

void
EthernetSwitchNetDevice::CheckXon(uint32_t in)
{
    Port& port = m_ports[in];
    if (!port.holdingPeer || port.ingressBytes > port.xon)
    {
        return;
    }
    port.holdingPeer = false;
    if (m_pauseStyle == PAUSE_XON)
    {
        port.device->SendPause(0);
        m_pauseSentTrace(in, 0);
    }
    else
    {
        port.refresh.Cancel(); // the peer resumes when its timer runs out
    }
}

void
EthernetSwitchNetDevice::RefreshPause(uint32_t in)
{
    if (m_ports[in].holdingPeer)
    {
        SendXoff(in);
    }
}

// ---------------------------------------------------------------- accessors

uint32_t
EthernetSwitchNetDevice::GetNPorts() const
{
    return m_ports.size();
}

Ptr<EthernetNetDevice>
EthernetSwitchNetDevice::GetPort(uint32_t index) const
{
    return m_ports.at(index).device;
}

const EthernetSwitchNetDevice::PortState&
EthernetSwitchNetDevice::GetPortState(uint32_t port) const
{
    return m_ports.at(port);
}

uint32_t
EthernetSwitchNetDevice::GetPoolBytes() const
{
    return m_poolBytes;
}

// ---------------------------------------------------------------- NetDevice

Ptr<Channel>
EthernetSwitchNetDevice::GetChannel() const
{
    return nullptr;
}

bool
EthernetSwitchNetDevice::IsLinkUp() const
{
    return true;
}

bool
EthernetSwitchNetDevice::IsBridge() const
{
    return true;
}

bool
EthernetSwitchNetDevice::SendFrame(Ptr<Packet> packet,
                                   Mac48Address source,
                                   Mac48Address dest,
                                   uint16_t protocolNumber)
{
    // Frames the switch itself originates (management traffic) use the same
    // egress admission but are charged to no ingress port.
    EthernetNetDevice::AddMacHeader(packet, source, dest, protocolNumber);
    Distribute(NO_PORT, packet, dest);
    return true;
}

bool
EthernetSwitchNetDevice::NeedsArp() const
{
    return false;
}

} // namespace ns3
