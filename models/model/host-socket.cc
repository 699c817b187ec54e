// SPDX-License-Identifier: GPL-2.0-only
#include "host-cpu.h"
#include "host-reader.h"
#include "host-socket.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
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
            .AddAttribute("QueueSpinlock",
                          "Readers take sk_receive_queue.lock (a spinlock, interrupts off) "
                          "around the dequeue only, as Linux; off: one recvmsg at a time "
                          "holds a sleeping lock over the whole call.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HostSocket::m_queueSpinlock),
                          MakeBooleanChecker())
            .AddAttribute("LineTransfer",
                          "QueueSpinlock: time (s) to move the lock's cache line from the "
                          "core that held it last (a line modified in another core's cache).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostSocket::m_lineTransfer),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("LockHold",
                          "QueueSpinlock: time (s) the lock is held once its line is here "
                          "(the dequeue or enqueue: a few pointer writes and the unlock).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostSocket::m_lockHold),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("WakeAll",
                          "QueueSpinlock: a datagram wakes every sleeping reader (threads "
                          "polling one descriptor without EPOLLEXCLUSIVE), not one.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HostSocket::m_wakeAll),
                          MakeBooleanChecker())
            .AddAttribute("OwnerCost",
                          "QueueSpinlock: CPU time (s) of skb_free_datagram under lock_sock "
                          "after each copy (Linux 2.6.25-2.6.32), a part of the reader's "
                          "ReadCost; 0 = no owner section.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostSocket::m_ownerCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ForwardDeficit",
                          "Linux 4.13 and later (udp_rmem_release): a read datagram's charge "
                          "is released when it is dequeued, but only once the charges not yet "
                          "released reach a quarter of sk_rcvbuf or the reader's queue (the "
                          "datagrams taken from the receive queue at once) is empty. Off: "
                          "released after its copy (Linux 2.6's skb_free_datagram).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HostSocket::m_forwardDeficit),
                          MakeBooleanChecker())
            .AddTraceSource("SocketDrop",
                            "A datagram was dropped because the receive buffer was full "
                            "(Udp RcvbufErrors); the packet is its first frame (IPv4 header "
                            "on, tags kept).",
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
      m_queueSpinlock(false),
      m_wakeAll(false),
      m_backlogged(0),
      m_lockCore(UINT32_MAX),
      m_wakeups(0),
      m_futileWakeups(0),
      m_lineTransfers(0),
      m_forwardDeficit(false),
      m_deficit(0),
      m_readerQueue(0),
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
    m_backlog.clear();
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
HostSocket::Enqueue(HostDatagram datagram, uint32_t core)
{
    NS_LOG_FUNCTION(this << datagram.truesize);
    if (m_queueSpinlock && m_ownerCost.IsStrictlyPositive() && m_lockHolder)
    {
        // udp_queue_rcv_skb: sock_owned_by_user, so sk_add_backlog; release_sock queues it
        ++m_backlogged;
        m_backlog.push_back(std::move(datagram));
        return true;
    }
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
    if (m_queueSpinlock)
    {
        TakeQueueLock(core); // skb_queue_tail
    }
    m_queue.push_back(std::move(datagram));
    m_peakQueue = std::max<uint32_t>(m_peakQueue, m_queue.size());
    ++m_enqueued;
    // sk_data_ready: an exclusive wake-up, one waiting reader; they take turns. With
    // WakeAll every waiting reader is woken.
    const bool all = m_queueSpinlock && m_wakeAll;
    for (std::size_t k = 0; k < m_readers.size(); ++k)
    {
        HostReader* r = PeekPointer(m_readers[(m_nextReader + k) % m_readers.size()]);
        if (r->IsWaiting())
        {
            if (!all)
            {
                m_nextReader = (m_nextReader + k + 1) % m_readers.size();
            }
            m_wakeups += m_queueSpinlock ? 1 : 0;
            r->Wake();
            if (!all)
            {
                break;
            }
        }
    }
    return true;
}

Time
HostSocket::TakeQueueLock(uint32_t core)
{
    const Time now = Simulator::Now();
    const Time grant = std::max(now, m_lockFreeAt);
    Time hold = m_lockHold;
    if (m_lockCore != UINT32_MAX && m_lockCore != core)
    {
        hold += m_lineTransfer;
        ++m_lineTransfers;
    }
    m_lockCore = core;
    m_lockFreeAt = grant + hold;
    return grant - now;
}

bool
HostSocket::IsQueueSpinlock() const
{
    return m_queueSpinlock;
}

Time
HostSocket::LockQueue(uint32_t core)
{
    NS_ASSERT(m_queueSpinlock);
    const Time spin = TakeQueueLock(core);
    m_spinTime += spin;
    return m_lockFreeAt - Simulator::Now();
}

void
HostSocket::CountFutileWakeup()
{
    ++m_futileWakeups;
}

Time
HostSocket::GetOwnerCost() const
{
    return m_queueSpinlock ? m_ownerCost : Seconds(0);
}

void
HostSocket::ReleaseOwner(HostReader* reader, uint32_t core)
{
    NS_ASSERT(m_lockHolder == reader);
    // __release_sock: the parked datagrams are queued, then the owner lock is handed on
    m_lockHolder = nullptr;
    while (!m_backlog.empty())
    {
        HostDatagram d = std::move(m_backlog.front());
        m_backlog.pop_front();
        Enqueue(std::move(d), core);
    }
    m_lockHolder = reader;
    ReleaseRead(reader);
}

uint64_t
HostSocket::GetBacklogged() const
{
    return m_backlogged;
}

uint64_t
HostSocket::GetWakeups() const
{
    return m_wakeups;
}

uint64_t
HostSocket::GetFutileWakeups() const
{
    return m_futileWakeups;
}

uint64_t
HostSocket::GetLineTransfers() const
{
    return m_lineTransfers;
}

Time
HostSocket::GetSpinTime() const
{
    return m_spinTime;
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
    if (m_forwardDeficit)
    {
        // __skb_recv_udp: an empty reader queue takes the whole receive queue at once
        if (m_readerQueue == 0)
        {
            m_readerQueue = m_queue.size() + 1;
        }
        --m_readerQueue;
        // udp_skb_destructor -> udp_rmem_release(partial): hold the charge back while
        // it is under a quarter of sk_rcvbuf and the reader's queue holds datagrams
        m_deficit += d.truesize;
        if (m_deficit >= GetRcvbuf() / 4 || m_readerQueue == 0)
        {
            NS_ASSERT(m_rmemAlloc >= m_deficit);
            m_rmemAlloc -= m_deficit;
            m_deficit = 0;
            m_readerQueue = m_queue.size(); // and the receive queue joins the reader's
        }
    }
    return d;
}

void
HostSocket::Consume(const HostDatagram& datagram)
{
    if (!m_forwardDeficit) // released at its dequeue
    {
        NS_ASSERT(m_rmemAlloc >= datagram.truesize);
        m_rmemAlloc -= datagram.truesize;
    }
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
    return m_queue.size() + m_backlog.size();
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
