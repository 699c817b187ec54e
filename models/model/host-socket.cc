// SPDX-License-Identifier: GPL-2.0-only
#include "host-cpu.h"
#include "host-reader.h"
#include "host-socket.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostSocket");
NS_OBJECT_ENSURE_REGISTERED(HostSocket);

TypeId
HostSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostSocket")
            .SetParent<Object>()
            .SetGroupName("Lanloss")
            .AddConstructor<HostSocket>()
            .AddAttribute("Port",
                          "UDP port the socket is bound to (any local address).",
                          UintegerValue(5201),
                          MakeUintegerAccessor(&HostSocket::m_port),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("RcvBuf",
                          "SO_RCVBUF value in bytes as passed to setsockopt (the kernel doubles "
                          "it); 0 = not set, sk_rcvbuf = RmemDefault.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HostSocket::m_rcvBuf),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RmemDefault",
                          "net.core.rmem_default in bytes: sk_rcvbuf without setsockopt "
                          "(256 * SKB_TRUESIZE(256) on x86-64).",
                          UintegerValue(LANLOSS_RMEM_DEFAULT),
                          MakeUintegerAccessor(&HostSocket::m_rmemDefault),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RmemMax",
                          "net.core.rmem_max in bytes: SO_RCVBUF is clamped to it before "
                          "doubling (unless Force).",
                          UintegerValue(LANLOSS_RMEM_DEFAULT),
                          MakeUintegerAccessor(&HostSocket::m_rmemMax),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Force",
                          "RcvBuf is set with SO_RCVBUFFORCE (no RmemMax clamp).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HostSocket::m_force),
                          MakeBooleanChecker())
            .AddAttribute("ReusePort",
                          "SO_REUSEPORT: the socket may share its port with others that set "
                          "it; HostRxKernel spreads the port's datagrams over the group.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HostSocket::m_reusePort),
                          MakeBooleanChecker())
            .AddTraceSource("SocketDrop",
                            "A datagram was dropped because the receive buffer was full "
                            "(Udp RcvbufErrors); the packet is its first frame (IPv4 header "
                            "on, FlowSeqTag kept).",
                            MakeTraceSourceAccessor(&HostSocket::m_dropTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

HostSocket::HostSocket()
    : m_port(5201),
      m_rcvBuf(0),
      m_rmemDefault(LANLOSS_RMEM_DEFAULT),
      m_rmemMax(LANLOSS_RMEM_DEFAULT),
      m_force(false),
      m_reusePort(false),
      m_nodeId(0),
      m_nextReader(0),
      m_lockHolder(nullptr),
      m_lockHandoffs(0),
      m_rmemAlloc(0),
      m_peakRmem(0),
      m_peakQueue(0),
      m_enqueued(0),
      m_drops(0),
      m_read(0)
{
}

HostSocket::~HostSocket() = default;

void
HostSocket::DoDispose()
{
    for (Ptr<HostReader>& r : m_readers)
    {
        r->Dispose();
    }
    m_readers.clear();
    m_lockHolder = nullptr;
    m_lockWaiters.clear();
    m_cpu = nullptr;
    m_queue.clear();
    m_deliver = MakeNullCallback<void, const HostDatagram&>();
    Object::DoDispose();
}

uint16_t
HostSocket::GetPort() const
{
    return m_port;
}

bool
HostSocket::IsReusePort() const
{
    return m_reusePort;
}

uint32_t
HostSocket::GetRcvbuf() const
{
    if (m_rcvBuf == 0)
    {
        return m_rmemDefault;
    }
    // sock_setsockopt(SO_RCVBUF): min(val, rmem_max); __sock_set_rcvbuf: max(2 * val,
    // SOCK_MIN_RCVBUF)
    uint64_t v = m_force ? m_rcvBuf : std::min(m_rcvBuf, m_rmemMax);
    v = std::min<uint64_t>(v, INT32_MAX / 2);
    return std::max<uint32_t>(uint32_t(2 * v), SOCK_MIN_RCVBUF);
}

uint32_t
HostSocket::Capacity(uint32_t rcvbuf, uint32_t truesize)
{
    return truesize == 0 ? UINT32_MAX : rcvbuf / truesize + 1;
}

void
HostSocket::Attach(Ptr<HostCpu> cpu, Callback<void, const HostDatagram&> deliver, uint32_t nodeId)
{
    NS_ABORT_MSG_IF(m_cpu, "HostSocket: attached to a host twice");
    m_cpu = cpu;
    m_deliver = deliver;
    m_nodeId = nodeId;
    for (Ptr<HostReader>& r : m_readers)
    {
        r->Start(m_cpu, this, m_nodeId);
    }
}

void
HostSocket::AddReader(Ptr<HostReader> reader)
{
    m_readers.push_back(reader);
    if (m_cpu)
    {
        reader->Start(m_cpu, this, m_nodeId);
    }
}

std::vector<Ptr<HostReader>>
HostSocket::GetReaders() const
{
    return m_readers;
}

bool
HostSocket::Enqueue(HostDatagram datagram)
{
    NS_LOG_FUNCTION(this << datagram.truesize);
    // __udp_enqueue_schedule_skb: the test is made before charging, so the last
    // datagram admitted may take sk_rmem_alloc up to sk_rcvbuf + truesize.
    if (m_rmemAlloc > GetRcvbuf())
    {
        ++m_drops;
        m_dropTrace(datagram.frames.front().packet);
        return false;
    }
    m_rmemAlloc += datagram.truesize;
    m_peakRmem = std::max(m_peakRmem, m_rmemAlloc);
    m_queue.push_back(std::move(datagram));
    m_peakQueue = std::max<uint32_t>(m_peakQueue, m_queue.size());
    ++m_enqueued;
    // sk_data_ready: an exclusive wake-up, one waiting reader; they take turns.
    for (std::size_t k = 0; k < m_readers.size(); ++k)
    {
        HostReader* r = PeekPointer(m_readers[(m_nextReader + k) % m_readers.size()]);
        if (r->IsWaiting())
        {
            m_nextReader = (m_nextReader + k + 1) % m_readers.size();
            r->Wake();
            break;
        }
    }
    return true;
}

bool
HostSocket::IsEmpty() const
{
    return m_queue.empty();
}

HostDatagram
HostSocket::Dequeue()
{
    NS_ASSERT(!m_queue.empty());
    HostDatagram d = std::move(m_queue.front());
    m_queue.pop_front();
    return d;
}

void
HostSocket::Consume(const HostDatagram& datagram)
{
    NS_ASSERT(m_rmemAlloc >= datagram.truesize);
    m_rmemAlloc -= datagram.truesize;
    ++m_read;
    if (!m_deliver.IsNull())
    {
        m_deliver(datagram);
    }
}

bool
HostSocket::AcquireRead(HostReader* reader)
{
    if (!m_lockHolder || m_lockHolder == reader)
    {
        m_lockHolder = reader;
        return true;
    }
    if (std::find(m_lockWaiters.begin(), m_lockWaiters.end(), reader) == m_lockWaiters.end())
    {
        m_lockWaiters.push_back(reader);
    }
    return false;
}

void
HostSocket::ReleaseRead(HostReader* reader)
{
    NS_ASSERT(m_lockHolder == reader);
    m_lockHolder = nullptr;
    if (!m_lockWaiters.empty())
    {
        HostReader* next = m_lockWaiters.front();
        m_lockWaiters.pop_front();
        m_lockHolder = next;
        ++m_lockHandoffs;
        next->LockHandedOver();
    }
}

void
HostSocket::CancelLockWait(HostReader* reader)
{
    m_lockWaiters.erase(std::remove(m_lockWaiters.begin(), m_lockWaiters.end(), reader),
                        m_lockWaiters.end());
}

uint64_t
HostSocket::GetLockHandoffs() const
{
    return m_lockHandoffs;
}

uint64_t
HostSocket::GetEnqueued() const
{
    return m_enqueued;
}

uint64_t
HostSocket::GetDrops() const
{
    return m_drops;
}

uint64_t
HostSocket::GetRead() const
{
    return m_read;
}

uint32_t
HostSocket::GetQueueLength() const
{
    return m_queue.size();
}

uint32_t
HostSocket::GetRmemAlloc() const
{
    return m_rmemAlloc;
}

uint32_t
HostSocket::GetPeakRmemAlloc() const
{
    return m_peakRmem;
}

uint32_t
HostSocket::GetPeakQueueLength() const
{
    return m_peakQueue;
}

} // namespace ns3
