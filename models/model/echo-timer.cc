// SPDX-License-Identifier: GPL-2.0-only
#include "echo-timer.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/udp-socket-factory.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EchoTimer");
NS_OBJECT_ENSURE_REGISTERED(EchoTimer);

TypeId
EchoTimer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EchoTimer")
            .SetParent<Application>()
            .SetGroupName("Lanloss")
            .AddConstructor<EchoTimer>()
            .AddAttribute("Local",
                          "The timing port: an InetSocketAddress.",
                          AddressValue(),
                          MakeAddressAccessor(&EchoTimer::m_local),
                          MakeAddressChecker())
            .AddAttribute("ReceiveCost",
                          "CPU time of the thread per echo (its receive() call).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&EchoTimer::m_receiveCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("WindowStart",
                          "Messages stamped from this time on are timed.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&EchoTimer::m_windowStart),
                          MakeTimeChecker())
            .AddAttribute("WindowEnd",
                          "Messages stamped before this time are timed.",
                          TimeValue(Seconds(1e9)),
                          MakeTimeAccessor(&EchoTimer::m_windowEnd),
                          MakeTimeChecker());
    return tid;
}

EchoTimer::EchoTimer()
    : m_received(0),
      m_inCall(0),
      m_timed(0)
{
}

EchoTimer::~EchoTimer() = default;

void
EchoTimer::DoDispose()
{
    m_socket = nullptr;
    m_stamp = MakeNullCallback<Time, uint64_t>();
    Application::DoDispose();
}

void
EchoTimer::SetStampSource(Callback<Time, uint64_t> stamp)
{
    m_stamp = stamp;
}

uint64_t
EchoTimer::GetTimed() const
{
    return m_timed;
}

uint64_t
EchoTimer::GetReceived() const
{
    return m_received;
}

Time
EchoTimer::GetMeanRoundTrip() const
{
    return m_timed ? m_sum / int64_t(m_timed) : Time(0);
}

bool
EchoTimer::IsIdle() const
{
    return m_inCall == 0;
}

void
EchoTimer::StartApplication()
{
    NS_ABORT_MSG_IF(m_stamp.IsNull(), "EchoTimer: no stamp source (SetStampSource)");
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_socket->Bind(m_local) != 0, "EchoTimer: bind failed");
    m_socket->SetRecvCallback(MakeCallback(&EchoTimer::HandleRead, this));
}

void
EchoTimer::StopApplication()
{
    // Echoes of messages sent before the stop still come back: the socket stays open.
}

void
EchoTimer::HandleRead(Ptr<Socket> socket)
{
    while (Ptr<Packet> packet = socket->Recv())
    {
        if (packet->GetSize() < 8)
        {
            continue;
        }
        uint8_t bytes[8];
        packet->CopyData(bytes, 8);
        uint64_t seq = 0;
        for (int i = 0; i < 8; ++i)
        {
            seq |= uint64_t(bytes[i]) << (8 * i);
        }
        ++m_received;
        ++m_inCall;
        // One receive() call after the other: this echo's call returns once the thread is
        // free and its cost has passed.
        const Time now = Simulator::Now();
        m_freeAt = std::max(m_freeAt, now) + m_receiveCost;
        Simulator::Schedule(m_freeAt - now, &EchoTimer::TimeEcho, this, seq);
    }
}

void
EchoTimer::TimeEcho(uint64_t seq)
{
    --m_inCall;
    const Time stamp = m_stamp(seq);
    if (stamp.IsNegative() || stamp < m_windowStart || stamp >= m_windowEnd)
    {
        return;
    }
    ++m_timed;
    m_sum += Simulator::Now() - stamp;
}

} // namespace ns3
