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
    : m_context{UNKNOWN_CONTEXT, UNKNOWN_CONTEXT},
      m_nDevices(0),
      m_inFlight(0)
{
}

void
EthernetChannel::Attach(Ptr<EthernetNetDevice> device)
{
    NS_ASSERT_MSG(m_nDevices < 2, "an EthernetChannel connects exactly two devices");
    m_devices[m_nDevices++] = device;
}

/**
 * A frame's arrival at the far end: one allocation holding the channel, the end and the
 * frame (ns-3's MakeEvent would add a second one, for the std::function it binds them in).
 */
class EthernetChannel::FrameArrival : public EventImpl
{
  public:
    FrameArrival(EthernetChannel* channel, Ptr<EthernetNetDevice> dst, Ptr<const Packet> frame)
        : m_channel(channel),
          m_dst(dst),
          m_frame(frame)
    {
    }

  protected:
    void Notify() override
    {
        m_channel->Deliver(m_dst, m_frame);
    }

  private:
    EthernetChannel* m_channel;
    Ptr<EthernetNetDevice> m_dst;
    Ptr<const Packet> m_frame;
};

void
EthernetChannel::TransmitStart(Ptr<const Packet> frame, Ptr<EthernetNetDevice> src, Time txTime)
{
    NS_ASSERT_MSG(m_nDevices == 2, "transmit on a link with one end unattached");
    const std::size_t to = (m_devices[0] == src) ? 1 : 0;
    if (m_context[to] == UNKNOWN_CONTEXT)
    {
        m_context[to] = m_devices[to]->GetNode()->GetId(); // a device never changes node
    }
    ++m_inFlight;
    Simulator::ScheduleWithContext(m_context[to],
                                   txTime + m_delay,
                                   new FrameArrival(this, m_devices[to], frame));
}

void
EthernetChannel::Deliver(Ptr<EthernetNetDevice> dst, Ptr<const Packet> frame)
{
    --m_inFlight;
    // A host's receive path strips headers from what it gets, so it gets its own copy; a
    // switch relays frames unchanged (it copies only to flood), so it gets this one.
    dst->Receive(dst->IsSwitchPort() ? ConstCast<Packet>(frame) : frame->Copy());
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
