// SPDX-License-Identifier: GPL-2.0-only
#include "message-echo.h"

#include "datagram-id.h"
#include "host-cpu.h"
#include "lanloss-linux-rx.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/socket.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MessageEcho");
NS_OBJECT_ENSURE_REGISTERED(MessageEcho);

TypeId
MessageEcho::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MessageEcho")
            .SetParent<Application>()
            .SetGroupName("Lanloss")
            .AddConstructor<MessageEcho>()
            .AddAttribute("Remote",
                          "Where the echoes go: the sender's timing port (InetSocketAddress).",
                          AddressValue(),
                          MakeAddressAccessor(&MessageEcho::m_remote),
                          MakeAddressChecker())
            .AddAttribute("Cost",
                          "CPU time per echo: the thread's send() of one echo datagram.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&MessageEcho::m_cost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Core",
                          "Core the thread runs on (< HostCpu Cores).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MessageEcho::m_core),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("QueueSize",
                          "Messages the queue between reader and thread holds.",
                          UintegerValue(10000),
                          MakeUintegerAccessor(&MessageEcho::m_queueSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MessageSize",
                          "Bytes per message of a stream (TCP); 0: each read is one "
                          "message (a UDP datagram, named as IdentifyDatagram names it).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MessageEcho::m_messageSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("FlowId",
                          "The flow whose datagrams are echoed (MessageSize 0: a reader's "
                          "datagrams of other flows are not this echo's).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&MessageEcho::m_flowId),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EchoBytes",
                          "Payload bytes of an echo (at least 8: the message's number).",
                          UintegerValue(8),
                          MakeUintegerAccessor(&MessageEcho::m_echoBytes),
                          MakeUintegerChecker<uint32_t>(8, LANLOSS_UDP_MAX_PAYLOAD));
    return tid;
}

MessageEcho::MessageEcho()
    : m_core(0),
      m_queueSize(10000),
      m_messageSize(0),
      m_echoBytes(8),
      m_flowId(0),
      m_thread(0),
      m_busy(false),
      m_streamBytes(0),
      m_completed(0),
      m_echoed(0),
      m_queueDrops(0)
{
}

MessageEcho::~MessageEcho() = default;

void
MessageEcho::DoDispose()
{
    m_cpu = nullptr;
    m_socket = nullptr;
    Application::DoDispose();
}

uint64_t
MessageEcho::GetEchoed() const
{
    return m_echoed;
}

uint64_t
MessageEcho::GetQueueDrops() const
{
    return m_queueDrops;
}

bool
MessageEcho::IsIdle() const
{
    return !m_busy && m_queue.empty();
}

void
MessageEcho::StartApplication()
{
    m_cpu = GetNode()->GetObject<HostCpu>();
    NS_ABORT_MSG_UNLESS(m_cpu, "MessageEcho: the node has no HostCpu (install the host model)");
    NS_ABORT_MSG_UNLESS(m_core < m_cpu->GetNCores(),
                        "MessageEcho: Core " << m_core << " but the host has "
                                             << m_cpu->GetNCores() << " cores");
    m_thread = m_cpu->CreateThread(m_core, "echo");
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_socket->Bind() != 0, "MessageEcho: bind failed");
    NS_ABORT_MSG_IF(m_socket->Connect(m_remote) != 0, "MessageEcho: connect failed");
}

void
MessageEcho::StopApplication()
{
    // The thread echoes what it was given until its queue is empty; the socket stays open.
}

void
MessageEcho::Read(Ptr<const Packet> data, const Address& from)
{
    if (m_messageSize == 0)
    {
        DatagramId id;
        if (IdentifyDatagram(data, PacketStart::PAYLOAD, id) && id.flow == m_flowId)
        {
            Enqueue(id.seq);
        }
        return;
    }
    m_streamBytes += data->GetSize();
    while ((m_completed + 1) * m_messageSize <= m_streamBytes)
    {
        Enqueue(m_completed++);
    }
}

void
MessageEcho::Enqueue(uint64_t seq)
{
    if (m_queue.size() >= m_queueSize)
    {
        ++m_queueDrops;
        return;
    }
    m_queue.push_back(seq);
    Next();
}

void
MessageEcho::Next()
{
    if (m_busy || m_queue.empty() || !m_cpu)
    {
        return;
    }
    m_busy = true;
    m_cpu->Submit(m_thread, m_cost, HostCpu::APP_WORK, MakeCallback(&MessageEcho::Echo, this));
}

void
MessageEcho::Echo()
{
    const uint64_t seq = m_queue.front();
    m_queue.pop_front();
    std::vector<uint8_t> payload(m_echoBytes, 0);
    for (int i = 0; i < 8; ++i)
    {
        payload[i] = uint8_t(seq >> (8 * i));
    }
    if (m_socket->Send(Create<Packet>(payload.data(), payload.size())) >= 0)
    {
        ++m_echoed;
    }
    m_busy = false;
    Next();
}

} // namespace ns3
