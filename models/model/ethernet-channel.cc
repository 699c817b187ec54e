// SPDX-License-Identifier: GPL-2.0-only
#include "ethernet-channel.h"

#include "ethernet-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EthernetChannel");
NS_OBJECT_ENSURE_REGISTERED(EthernetChannel);

TypeId
EthernetChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EthernetChannel")
            .SetParent<Channel>()
            .SetGroupName("Lanloss")
            .AddConstructor<EthernetChannel>()
            .AddAttribute("Delay",
                          "Propagation delay of the cable (one way).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&EthernetChannel::m_delay),
                          MakeTimeChecker(Seconds(0)));
    return tid;
}

EthernetChannel::EthernetChannel()
    : m_nDevices(0),
      m_inFlight(0)
{
}

void
EthernetChannel::Attach(Ptr<EthernetNetDevice> device)
{
    NS_ASSERT_MSG(m_nDevices < 2, "an EthernetChannel connects exactly two devices");
    m_devices[m_nDevices++] = device;
}

void
EthernetChannel::TransmitStart(Ptr<const Packet> frame, Ptr<EthernetNetDevice> src, Time txTime)
{
    Ptr<EthernetNetDevice> dst = GetPeer(src);
    NS_ASSERT_MSG(dst, "transmit on a link with one end unattached");
    ++m_inFlight;
    // A host's receive path strips headers from what it gets, so it gets its own copy; a
    // switch relays frames unchanged (it copies only to flood), so it gets this one.
    Ptr<Packet> delivered = dst->IsSwitchPort() ? ConstCast<Packet>(frame) : frame->Copy();
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   txTime + m_delay,
                                   &EthernetChannel::Deliver,
                                   this,
                                   dst,
                                   delivered);
}

void
EthernetChannel::Deliver(Ptr<EthernetNetDevice> dst, Ptr<Packet> frame)
{
    --m_inFlight;
    dst->Receive(frame);
}

std::size_t
EthernetChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
EthernetChannel::GetDevice(std::size_t i) const
{
    return GetEthernetDevice(i);
}

Ptr<EthernetNetDevice>
EthernetChannel::GetEthernetDevice(std::size_t i) const
{
    NS_ASSERT(i < m_nDevices);
    return m_devices[i];
}

Ptr<EthernetNetDevice>
EthernetChannel::GetPeer(Ptr<const EthernetNetDevice> device) const
{
    if (m_nDevices < 2)
    {
        return nullptr;
    }
    return (m_devices[0] == device) ? m_devices[1] : m_devices[0];
}

Time
EthernetChannel::GetDelay() const
{
    return m_delay;
}

uint32_t
EthernetChannel::GetFramesInFlight() const
{
    return m_inFlight;
}

} // namespace ns3
