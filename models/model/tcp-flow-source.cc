// SPDX-License-Identifier: GPL-2.0-only
#include "tcp-flow-source.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpFlowSource");
NS_OBJECT_ENSURE_REGISTERED(TcpFlowSource);

TypeId
TcpFlowSource::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpFlowSource")
            .SetParent<Application>()
            .SetGroupName("Lanloss")
            .AddConstructor<TcpFlowSource>()
            .AddAttribute("Remote",
                          "The receiver: an InetSocketAddress.",
                          AddressValue(),
                          MakeAddressAccessor(&TcpFlowSource::m_remote),
                          MakeAddressChecker())
            .AddAttribute("MessageSize",
                          "Bytes per message (the vocabulary's payload).",
                          UintegerValue(1472),
                          MakeUintegerAccessor(&TcpFlowSource::m_messageSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DataRate",
                          "Offered message bits per second; ignored with MaxRate.",
                          DataRateValue(DataRate("1Mbps")),
                          MakeDataRateAccessor(&TcpFlowSource::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("MaxRate",
                          "Write as fast as the send buffer accepts (bulk transfer).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpFlowSource::m_maxRate),
                          MakeBooleanChecker())
            .AddAttribute("NoDelay",
                          "TCP_NODELAY: send a segment as soon as data is written (no Nagle).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpFlowSource::m_noDelay),
                          MakeBooleanChecker())
            .AddAttribute("SendCost",
                          "The sending host's CPU time per send() call.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&TcpFlowSource::m_sendCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("SendByteCost",
                          "The sending host's CPU time per byte written, seconds (the copy).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&TcpFlowSource::m_sendByteCost),
                          MakeDoubleChecker<double>(0.0, 1e-3))
            .AddAttribute("SendPacketCost",
                          "The sending host's CPU time per segment, seconds (transmission, "
                          "driver, and the ACK for it), charged per byte written as this / "
                          "the socket's SegmentSize.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&TcpFlowSource::m_sendPacketCost),
                          MakeDoubleChecker<double>(0.0, 1.0));
    return tid;
}

TcpFlowSource::TcpFlowSource()
    : m_messageSize(1472),
      m_maxRate(true),
      m_noDelay(false),
      m_sendByteCost(0.0),
      m_sendPacketCost(0.0),
      m_running(false),
      m_connected(false),
      m_failed(false),
      m_waiting(false),
      m_anchorSeq(0),
      m_sent(0),
      m_pending(0),
      m_bytes(0)
{
}

TcpFlowSource::~TcpFlowSource() = default;

void
TcpFlowSource::DoDispose()
{
    m_sendEvent.Cancel();
    m_socket = nullptr;
    Application::DoDispose();
}

uint64_t
TcpFlowSource::GetSent() const
{
    return m_sent;
}

uint64_t
TcpFlowSource::GetBytes() const
{
    return m_bytes;
}

Time
TcpFlowSource::GetBlockedTime() const
{
    return m_waiting ? m_blocked + (Simulator::Now() - m_waitStart) : m_blocked;
}

Time
TcpFlowSource::GetSendCpuTime() const
{
    return m_cpuTime;
}

bool
TcpFlowSource::IsConnected() const
{
    return m_connected;
}

bool
TcpFlowSource::HasFailed() const
{
    return m_failed;
}

void
TcpFlowSource::StartApplication()
{
    m_running = true;
    m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    m_socket->SetAttribute("TcpNoDelay", BooleanValue(m_noDelay));
    NS_ABORT_MSG_IF(m_socket->Bind() != 0, "TcpFlowSource: bind failed");
    m_socket->SetConnectCallback(MakeCallback(&TcpFlowSource::Connected, this),
                                 MakeCallback(&TcpFlowSource::ConnectFailed, this));
    m_socket->SetSendCallback(MakeCallback(&TcpFlowSource::SpaceAvailable, this));
    m_socket->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(),
                                MakeCallback(&TcpFlowSource::ErrorClose, this));
    m_socket->Connect(m_remote);
}

void
TcpFlowSource::StopApplication()
{
    m_running = false;
    m_sendEvent.Cancel();
    if (m_waiting)
    {
        m_blocked += Simulator::Now() - m_waitStart;
        m_waiting = false;
    }
    if (m_socket)
    {
        m_socket->Close(); // what the socket accepted is still sent, then FIN
    }
}

void
TcpFlowSource::Connected(Ptr<Socket> socket)
{
    m_connected = true;
    m_anchor = Simulator::Now();
    m_anchorSeq = 0;
    SendDue();
}

void
TcpFlowSource::ConnectFailed(Ptr<Socket> socket)
{
    ErrorClose(socket);
}

void
TcpFlowSource::ErrorClose(Ptr<Socket> socket)
{
    m_failed = true;
    m_running = false;
    m_sendEvent.Cancel();
}

void
TcpFlowSource::SpaceAvailable(Ptr<Socket> socket, uint32_t available)
{
    if (!m_running || !m_waiting || available == 0)
    {
        return;
    }
    m_blocked += Simulator::Now() - m_waitStart;
    m_waiting = false;
    if (!m_maxRate && m_pending == 0)
    {
        // A blocking write returned late: the schedule goes on from now (no catching up).
        m_anchor = Simulator::Now();
        m_anchorSeq = m_sent;
    }
    SendDue();
}

Time
TcpFlowSource::Due() const
{
    // Integer nanoseconds from the anchor, so long runs do not drift.
    const double bits = 8.0 * m_messageSize * double(m_sent - m_anchorSeq);
    return m_anchor + NanoSeconds(int64_t(bits * 1e9 / double(m_rate.GetBitRate())));
}

bool
TcpFlowSource::WriteOne()
{
    // Like a blocking send() on Linux: what fits goes in now, the rest when space frees;
    // the message counts once its last byte is in (a message may exceed the buffer).
    if (m_pending == 0)
    {
        m_pending = m_messageSize; // the call for message m_sent begins (it may block)
        m_stamps.Record(m_sent, Simulator::Now());
    }
    const uint32_t n = std::min(m_socket->GetTxAvailable(), m_pending);
    if (n == 0)
    {
        return false;
    }
    int accepted = m_socket->Send(Create<Packet>(n));
    NS_ABORT_MSG_IF(accepted != int(n), "TcpFlowSource: Send accepted " << accepted << " bytes");
    m_pending -= n;
    m_bytes += n;
    ChargeCpu(n);
    if (m_pending > 0)
    {
        return false;
    }
    ++m_sent;
    return true;
}

void
TcpFlowSource::ChargeCpu(uint32_t bytes)
{
    if (m_sendCost.IsZero() && m_sendByteCost == 0 && m_sendPacketCost == 0)
    {
        return;
    }
    UintegerValue mss;
    m_socket->GetAttribute("SegmentSize", mss);
    const double perByte = m_sendByteCost + m_sendPacketCost / double(mss.Get());
    const Time cost = m_sendCost + Seconds(perByte * bytes);
    m_cpuTime += cost;
    m_cpuFree = std::max(m_cpuFree, Simulator::Now()) + cost;
}

void
TcpFlowSource::KeepStamps()
{
    m_stamps.Keep();
}

Time
TcpFlowSource::GetStamp(uint64_t seq) const
{
    return m_stamps.Get(seq);
}

void
TcpFlowSource::SendDue()
{
    if (!m_running)
    {
        return;
    }
    while (m_maxRate || Due() <= Simulator::Now())
    {
        if (m_cpuFree > Simulator::Now())
        {
            // The last send() call still has the CPU: the next one comes when it is done.
            m_sendEvent.Cancel();
            m_sendEvent =
                Simulator::Schedule(m_cpuFree - Simulator::Now(), &TcpFlowSource::SendDue, this);
            return;
        }
        if (!WriteOne())
        {
            m_waiting = true;
            m_waitStart = Simulator::Now();
            return; // SpaceAvailable resumes
        }
    }
    m_sendEvent = Simulator::Schedule(Due() - Simulator::Now(), &TcpFlowSource::SendDue, this);
}

} // namespace ns3
