// SPDX-License-Identifier: GPL-2.0-only
#include "host-tcp-reader.h"

#include "host-cpu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

namespace
{

/** TcpSocketBase::SendEmptyPacket named through a derived class that makes it public: a
 *  pointer to the base's own member, so calling it on a TcpSocketBase is well-defined. */
struct WindowUpdate : public TcpSocketBase
{
    using TcpSocketBase::SendEmptyPacket;
};

} // namespace

NS_LOG_COMPONENT_DEFINE("HostTcpReader");
NS_OBJECT_ENSURE_REGISTERED(HostTcpReader);

TypeId
HostTcpReader::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostTcpReader")
            .SetParent<Application>()
            .SetGroupName("Lanloss")
            .AddConstructor<HostTcpReader>()
            .AddAttribute("Local",
                          "The listening address: an InetSocketAddress.",
                          AddressValue(),
                          MakeAddressAccessor(&HostTcpReader::m_local),
                          MakeAddressChecker())
            .AddAttribute("ReadCost",
                          "CPU time (s) per recv() call that returns data.",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&HostTcpReader::m_readCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ReadByteCost",
                          "CPU time (s) per byte read: the copy to user space.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&HostTcpReader::m_readByteCost),
                          MakeDoubleChecker<double>(0.0, 1e-3))
            .AddAttribute("ReadSize",
                          "The buffer of each recv() call, bytes: a call takes what is "
                          "there, up to this.",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&HostTcpReader::m_readSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DirectCopy",
                          "Whether a segment arriving during recv() is copied straight into "
                          "the call's buffer (Linux's prequeue, 2.4 to 4.13), so its ACK "
                          "advertises the window after the copy.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HostTcpReader::m_directCopy),
                          MakeBooleanChecker())
            .AddAttribute("Core",
                          "Core the process is pinned to (< HostCpu Cores).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HostTcpReader::m_core),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CollectEvery",
                          "Bytes read between two collections of a garbage-collected "
                          "reader (its copies' allocation); 0 = none.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HostTcpReader::m_collectEvery),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("CollectPause",
                          "Length (s) of a collection's pause (the reader reads nothing).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostTcpReader::m_collectPause),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("Rx",
                            "The application read bytes (one recv() call).",
                            MakeTraceSourceAccessor(&HostTcpReader::m_rxTrace),
                            "ns3::Packet::AddressTracedCallback");
    return tid;
}

HostTcpReader::HostTcpReader()
    : m_readCost(MicroSeconds(5)),
      m_readByteCost(0.0),
      m_readSize(65536),
      m_core(0),
      m_group(HostCpu::NONE),
      m_directCopy(false),
      m_collectEvery(0),
      m_collectPause(Seconds(0)),
      m_allocated(0),
      m_collecting(false),
      m_collections(0),
      m_thread(0),
      m_reading(false),
      m_pendingBytes(0),
      m_costedBytes(0),
      m_totalRx(0),
      m_reads(0)
{
}

HostTcpReader::~HostTcpReader() = default;

void
HostTcpReader::DoDispose()
{
    m_collectEndEvent.Cancel();
    m_cpu = nullptr;
    m_listener = nullptr;
    m_conn = nullptr;
    m_taken = nullptr;
    Application::DoDispose();
}

void
HostTcpReader::SetCpuGroup(uint32_t group)
{
    NS_ABORT_MSG_IF(m_cpu, "HostTcpReader: SetCpuGroup after the start");
    m_group = group;
}

uint64_t
HostTcpReader::GetTotalRx() const
{
    return m_totalRx;
}

uint64_t
HostTcpReader::GetReads() const
{
    return m_reads;
}

Time
HostTcpReader::GetCpuTime() const
{
    return m_cpuTime;
}

uint32_t
HostTcpReader::GetCore() const
{
    return m_core;
}

uint64_t
HostTcpReader::GetCollections() const
{
    return m_collections;
}

void
HostTcpReader::StartApplication()
{
    m_cpu = GetNode()->GetObject<HostCpu>();
    NS_ABORT_MSG_UNLESS(m_cpu, "HostTcpReader: the node has no HostCpu (install the host model)");
    NS_ABORT_MSG_UNLESS(m_core < m_cpu->GetNCores(),
                        "HostTcpReader: Core " << m_core << " but the host has "
                                               << m_cpu->GetNCores() << " cores");
    m_thread = m_cpu->CreateThread(m_core, "tcp-reader");
    if (m_group != HostCpu::NONE)
    {
        m_cpu->SetThreadGroup(m_thread, m_group);
    }
    m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_listener->Bind(m_local) != 0, "HostTcpReader: bind failed");
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeCallback(&HostTcpReader::Accept, this),
                                  MakeCallback(&HostTcpReader::Accepted, this));
}

void
HostTcpReader::StopApplication()
{
    if (m_listener)
    {
        m_listener->Close();
    }
}

bool
HostTcpReader::Accept(Ptr<Socket> listener, const Address& from)
{
    return !m_conn; // one connection
}

void
HostTcpReader::Accepted(Ptr<Socket> socket, const Address& from)
{
    m_conn = socket;
    m_peer = from;
    m_conn->SetRecvCallback(MakeCallback(&HostTcpReader::DataArrived, this));
    TryRead(false);
}

void
HostTcpReader::DataArrived(Ptr<Socket> socket)
{
    if (m_collecting)
    {
        return; // stopped: the bytes wait in the socket
    }
    if (m_reading && m_directCopy)
    {
        TakeArrived();
        return;
    }
    TryRead(true);
}

void
HostTcpReader::TryRead(bool arriving)
{
    if (m_reading || m_collecting || !m_conn)
    {
        return;
    }
    const uint32_t available = m_conn->GetRxAvailable();
    if (available == 0)
    {
        return; // blocked in recv() until data arrives
    }
    // The call takes what is there now. Without DirectCopy the bytes leave the socket
    // (opening the window) only when the copy is done; with it, at once.
    m_pendingBytes = std::min(available, m_readSize);
    m_costedBytes = m_pendingBytes;
    m_reading = true;
    if (m_directCopy)
    {
        m_taken = TakeFromSocket(m_pendingBytes, !arriving);
    }
    const Time cost = m_readCost + Seconds(m_readByteCost * m_pendingBytes);
    m_cpuTime += cost;
    m_cpu->Submit(m_thread, cost, HostCpu::APP_WORK, MakeCallback(&HostTcpReader::ReadDone, this));
}

void
HostTcpReader::TakeArrived()
{
    const uint32_t room = m_readSize - m_pendingBytes;
    const uint32_t bytes = std::min(m_conn->GetRxAvailable(), room);
    if (bytes == 0)
    {
        return; // the call's buffer is full: the bytes wait for the next call
    }
    // Inside the segment's arrival: its own ACK follows and carries the window.
    m_taken->AddAtEnd(TakeFromSocket(bytes, false));
    m_pendingBytes += bytes;
}

Ptr<Packet>
HostTcpReader::TakeFromSocket(uint32_t bytes, bool mayUpdate)
{
    // Linux tells the sender when a read opens a window that was (nearly) shut
    // (tcp_cleanup_rbuf); ns-3's Recv does not, and the sender would wait for its persist
    // timer: an ACK with the new window after a read that frees it.
    UintegerValue rcvBuf;
    UintegerValue mss;
    m_conn->GetAttribute("RcvBufSize", rcvBuf);
    m_conn->GetAttribute("SegmentSize", mss);
    const uint32_t freeBefore = rcvBuf.Get() - std::min<uint32_t>(rcvBuf.Get(),
                                                                   m_conn->GetRxAvailable());
    Ptr<Packet> data = m_conn->Recv(bytes, 0);
    NS_ASSERT(data && data->GetSize() == bytes);
    if (mayUpdate && freeBefore < 2 * mss.Get())
    {
        Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(m_conn);
        if (tcp)
        {
            void (TcpSocketBase::*update)(uint8_t) = &WindowUpdate::SendEmptyPacket;
            (PeekPointer(tcp)->*update)(TcpHeader::ACK);
        }
    }
    return data;
}

void
HostTcpReader::ReadDone()
{
    if (m_pendingBytes > m_costedBytes)
    {
        // DirectCopy: bytes taken while the call ran are copied before it returns.
        const Time cost = Seconds(m_readByteCost * (m_pendingBytes - m_costedBytes));
        m_costedBytes = m_pendingBytes;
        if (cost.IsStrictlyPositive())
        {
            m_cpuTime += cost;
            m_cpu->Submit(m_thread,
                          cost,
                          HostCpu::APP_WORK,
                          MakeCallback(&HostTcpReader::ReadDone, this));
            return;
        }
    }
    Ptr<Packet> data = m_directCopy ? m_taken : TakeFromSocket(m_pendingBytes, true);
    m_taken = nullptr;
    m_reading = false;
    ++m_reads;
    m_totalRx += data->GetSize();
    m_rxTrace(data, m_peer);
    if (m_collectEvery > 0 && m_collectPause.IsStrictlyPositive())
    {
        m_allocated += data->GetSize();
        if (m_allocated >= m_collectEvery)
        {
            // the young generation is full: the program stops for the collection
            m_allocated -= m_collectEvery;
            m_collecting = true;
            ++m_collections;
            m_collectEndEvent =
                Simulator::Schedule(m_collectPause, &HostTcpReader::CollectionEnd, this);
            return;
        }
    }
    TryRead(false);
}

void
HostTcpReader::CollectionEnd()
{
    m_collecting = false;
    TryRead(false);
}

} // namespace ns3
