// SPDX-License-Identifier: GPL-2.0-only
#include "host-cpu.h"
#include "host-reader.h"
#include "host-socket.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostReader");
NS_OBJECT_ENSURE_REGISTERED(HostReader);

TypeId
HostReader::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostReader")
            .SetParent<Object>()
            .SetGroupName("Lanloss")
            .AddConstructor<HostReader>()
            .AddAttribute("ReadCost",
                          "CPU time (s) per datagram read: recvmsg (system call, dequeue, "
                          "what the application does per call).",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&HostReader::m_readCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ReadByteCost",
                          "CPU time (s) per payload byte read: the copy to user space (a "
                          "double: a fraction of a nanosecond per byte is typical).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&HostReader::m_readByteCost),
                          MakeDoubleChecker<double>(0.0, 1e-3))
            .AddAttribute("WorkCost",
                          "The application's own CPU time (s) per datagram, after the read "
                          "(lanloss-recv --work-ns; option recv_work).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostReader::m_workCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("WakeupCost",
                          "CPU time (s) a reader spends being woken when the socket's lock, "
                          "which another reader held, is handed to it (a context switch); "
                          "with WakeFromSleep also when a datagram wakes it.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostReader::m_wakeupCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("CallCost",
                          "CPU time (s) of a receive call beyond its datagrams' reads "
                          "(recvmmsg's exit and entry, the application's work per call), "
                          "paid when a call that took datagrams returns, before the next "
                          "call looks at the socket; a call takes the datagrams waiting, "
                          "at most CallBatch. 0: a call per datagram, no cost.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostReader::m_callCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("CallBatch",
                          "Most datagrams one receive call takes (lanloss-recv --batch).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&HostReader::m_callBatch),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("WakeFromSleep",
                          "A reader asleep in recvmsg also pays WakeupCost when a datagram "
                          "wakes it, before it reads (its context switch), whether or not it "
                          "shares the socket. With the socket's QueueSpinlock it always does.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HostReader::m_wakeFromSleep),
                          MakeBooleanChecker())
            .AddAttribute("Core",
                          "Core the process is pinned to (< HostCpu Cores).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HostReader::m_core),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("StallPeriod",
                          "Time (s) between the starts of two stalls; 0 = no stalls.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostReader::m_stallPeriod),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("StallLength",
                          "Length (s) of each stall (the process reads nothing, uses no CPU).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostReader::m_stallLength),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("StallStart",
                          "Simulation time (s) of the first stall (when StallPeriod > 0).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostReader::m_stallStart),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("CollectEvery",
                          "Bytes of payload read between two collections of a "
                          "garbage-collected reader (its copies' allocation); 0 = none.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HostReader::m_collectEvery),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("CollectPause",
                          "Length (s) of a collection's pause (the reader reads nothing, "
                          "uses no CPU).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HostReader::m_collectPause),
                          MakeTimeChecker(Seconds(0)));
    return tid;
}

HostReader::HostReader()
    : m_readCost(MicroSeconds(5)),
      m_readByteCost(0.0),
      m_workCost(Seconds(0)),
      m_wakeupCost(Seconds(0)),
      m_callCost(Seconds(0)),
      m_callBatch(64),
      m_callTaken(0),
      m_callFull(false),
      m_core(0),
      m_group(HostCpu::NONE),
      m_socket(nullptr),
      m_thread(0),
      m_reading(false),
      m_lockWait(false),
      m_collectEvery(0),
      m_collectPause(Seconds(0)),
      m_allocated(0),
      m_collectDue(false),
      m_stalled(0),
      m_wokenTry(false),
      m_taken(false),
      m_wakeFromSleep(false),
      m_reads(0),
      m_calls(0),
      m_wakeups(0),
      m_stalls(0),
      m_collections(0)
{
}

HostReader::~HostReader() = default;

void
HostReader::DoDispose()
{
    m_stallEvent.Cancel();
    m_stallEndEvent.Cancel();
    m_collectEndEvent.Cancel();
    m_cpu = nullptr;
    m_socket = nullptr;
    m_current = HostDatagram();
    Object::DoDispose();
}

void
HostReader::Start(Ptr<HostCpu> cpu, HostSocket* socket, uint32_t nodeId)
{
    NS_ABORT_MSG_IF(m_cpu, "HostReader: started twice");
    NS_ABORT_MSG_UNLESS(m_core < cpu->GetNCores(),
                        "HostReader: Core " << m_core << " but the host has " << cpu->GetNCores()
                                            << " cores");
    NS_ABORT_MSG_IF(m_stallPeriod.IsStrictlyPositive() && m_stallLength >= m_stallPeriod,
                    "HostReader: StallLength must be shorter than StallPeriod");
    m_cpu = cpu;
    m_socket = socket;
    m_thread = cpu->CreateThread(m_core, "reader:" + std::to_string(socket->GetPort()));
    if (m_group != HostCpu::NONE)
    {
        cpu->SetThreadGroup(m_thread, m_group);
    }
    m_readDone = MakeCallback(&HostReader::ReadDone, this);
    m_workDone = MakeCallback(&HostReader::WorkDone, this);
    m_readLocked = MakeCallback(&HostReader::ReadLocked, this);
    m_queueUnlocked = MakeCallback(&HostReader::QueueUnlocked, this);
    m_woken = MakeCallback(&HostReader::Woken, this);
    m_wokenToRead = MakeCallback(&HostReader::WokenToRead, this);
    m_ownSocket = MakeCallback(&HostReader::OwnSocket, this);
    m_ownerDone = MakeCallback(&HostReader::OwnerDone, this);
    m_callReturned = MakeCallback(&HostReader::CallReturned, this);
    if (m_stallPeriod.IsStrictlyPositive() && m_stallLength.IsStrictlyPositive())
    {
        Time at = m_stallStart - Simulator::Now();
        // In the node's context: what a stall ends (a read, a DeliverUp) belongs to the node.
        Simulator::ScheduleWithContext(nodeId,
                                       at.IsStrictlyNegative() ? Seconds(0) : at,
                                       &HostReader::StallBegin,
                                       this);
    }
    TryRead();
}

bool
HostReader::IsWaiting() const
{
    return m_socket && !m_reading && !m_stalled && !m_lockWait;
}

bool
HostReader::IsReading() const
{
    return m_reading;
}

void
HostReader::Wake()
{
    ++m_wakeups;
    if (!m_socket->IsQueueSpinlock() && !m_wakeFromSleep)
    {
        TryRead();
        return;
    }
    // Woken from its sleep: back on its core (a context switch) before it looks.
    if (!m_socket->IsQueueSpinlock())
    {
        m_reading = true; // running, no longer waiting: the next datagram wakes no one
        m_cpuTime += m_wakeupCost;
        m_cpu->Submit(m_thread, m_wakeupCost, HostCpu::APP_WORK, m_wokenToRead);
        return;
    }
    m_reading = true;
    m_cpuTime += m_wakeupCost;
    m_cpu->Submit(m_thread, m_wakeupCost, HostCpu::APP_WORK, m_woken);
}

void
HostReader::Woken()
{
    if (m_stalled)
    {
        m_reading = false; // a stall began meanwhile: it reads when it ends
        return;
    }
    m_wokenTry = true;
    LockQueue();
}

void
HostReader::WokenToRead()
{
    m_reading = false;
    if (m_stalled)
    {
        return; // a stall began meanwhile: it reads when it ends
    }
    TryRead(); // takes the socket's lock, or sleeps on it, or finds the queue empty
}

void
HostReader::LockQueue()
{
    // __skb_try_recv_datagram: spin_lock_irqsave, take the head (if any), unlock
    const Time locked = m_socket->LockQueue(m_core);
    m_taken = !m_socket->IsEmpty();
    if (m_taken)
    {
        m_current = m_socket->Dequeue();
    }
    m_cpuTime += locked;
    m_cpu->Submit(m_thread, locked, HostCpu::APP_WORK, m_queueUnlocked, true);
}

void
HostReader::QueueUnlocked()
{
    if (!m_taken)
    {
        if (m_wokenTry)
        {
            m_socket->CountFutileWakeup();
        }
        m_wokenTry = false;
        m_reading = false;
        CallReturns(); // then sleeps, unless a datagram came meanwhile
        return;
    }
    m_wokenTry = false;
    // the owner section (if any) is part of the read's cost: the copy is the rest
    const Time copy = std::max(CopyTime() - m_socket->GetOwnerCost(), Seconds(0));
    m_cpuTime += copy;
    m_cpu->Submit(m_thread, copy, HostCpu::APP_WORK, m_readDone);
}

void
HostReader::TryRead()
{
    if (m_reading || m_lockWait || m_stalled || !m_socket || m_socket->IsEmpty())
    {
        return; // blocked in recvmsg until the socket wakes us (or hands us its lock)
    }
    if (m_socket->IsQueueSpinlock())
    {
        m_reading = true;
        LockQueue();
        return;
    }
    if (!m_socket->AcquireRead(this))
    {
        m_lockWait = true; // asleep on the socket's lock
        return;
    }
    m_reading = true;
    ReadLocked();
}

void
HostReader::LockHandedOver()
{
    m_lockWait = false;
    m_reading = true;
    // Woken up (a context switch) before it can go on; the lock is its own meanwhile:
    // to read (recvmsg lock) or to free what it has copied (the owner lock).
    m_cpuTime += m_wakeupCost;
    m_cpu->Submit(m_thread,
                  m_wakeupCost,
                  HostCpu::APP_WORK,
                  m_socket->IsQueueSpinlock() ? m_ownSocket : m_readLocked);
}

void
HostReader::ReadLocked()
{
    if (m_stalled || m_socket->IsEmpty())
    {
        // Nothing left (another reader took it) or a stall began: give the lock back.
        m_reading = false;
        m_socket->ReleaseRead(this);
        if (m_stalled)
        {
            EndCall();
            return;
        }
        CallReturns();
        return;
    }
    m_current = m_socket->Dequeue();
    const Time copy = CopyTime();
    m_cpuTime += copy;
    m_cpu->Submit(m_thread, copy, HostCpu::APP_WORK, m_readDone);
}

Time
HostReader::CopyTime()
{
    if (m_callTaken == 0)
    {
        ++m_calls; // a receive call returns with this datagram, at least
    }
    if (++m_callTaken >= m_callBatch)
    {
        m_callFull = true; // the vector is full: the call returns with this one
    }
    return m_readCost + Seconds(m_readByteCost * m_current.payloadBytes);
}

void
HostReader::EndCall()
{
    m_callTaken = 0;
    m_callFull = false;
}

void
HostReader::CallReturns()
{
    // recvmmsg looked at the queue last when it took its last datagram (MSG_WAITFORONE:
    // the try after it found nothing); what it costs beyond its reads (the copy of the
    // lengths back, the system call's exit, the application's clock reads and loop, the
    // next call's entry) comes after that look, so a datagram that arrives meanwhile is
    // taken by the next call without a sleep.
    const bool tookSome = m_callTaken > 0;
    EndCall();
    if (tookSome && m_callCost.IsStrictlyPositive())
    {
        m_reading = true; // on the CPU: a datagram arriving now wakes no one
        m_cpuTime += m_callCost;
        m_cpu->Submit(m_thread, m_callCost, HostCpu::APP_WORK, m_callReturned);
        return;
    }
    TryRead();
}

void
HostReader::CallReturned()
{
    m_reading = false;
    if (m_stalled)
    {
        return; // a stall began meanwhile: it reads when it ends
    }
    TryRead();
}

void
HostReader::ReadDone()
{
    if (m_socket->GetOwnerCost().IsStrictlyPositive())
    {
        // udp_recvmsg's out_free (2.6.25-2.6.32): lock_sock, sleeping while it is owned
        if (!m_socket->AcquireRead(this))
        {
            m_lockWait = true;
            return;
        }
        OwnSocket();
        return;
    }
    FreeDatagram();
}

void
HostReader::OwnSocket()
{
    // skb_free_datagram with bottom halves on: the softirq may pre-empt it
    const Time cost = m_socket->GetOwnerCost();
    m_cpuTime += cost;
    m_cpu->Submit(m_thread, cost, HostCpu::APP_WORK, m_ownerDone);
}

void
HostReader::OwnerDone()
{
    ++m_reads;
    HostDatagram d = std::move(m_current);
    m_current = HostDatagram();
    m_socket->Consume(d);                  // sock_rfree
    m_socket->ReleaseOwner(this, m_core); // release_sock
    m_collectDue = Allocated(d.payloadBytes);
    AfterRead();
}

void
HostReader::FreeDatagram()
{
    // recvmsg returns: the copy is done, the socket's charge released (skb_consume_udp)
    ++m_reads;
    HostDatagram d = std::move(m_current);
    m_current = HostDatagram();
    if (!m_socket->IsQueueSpinlock())
    {
        m_socket->ReleaseRead(this);
    }
    m_socket->Consume(d);
    m_collectDue = Allocated(d.payloadBytes);
    AfterRead();
}

void
HostReader::AfterRead()
{
    if (m_workCost.IsStrictlyPositive())
    {
        m_cpuTime += m_workCost;
        m_cpu->Submit(m_thread, m_workCost, HostCpu::APP_WORK, m_workDone);
        return;
    }
    WorkDone();
}

void
HostReader::WorkDone()
{
    m_reading = false;
    if (m_collectDue)
    {
        // the young generation is full: the program stops for the collection
        m_collectDue = false;
        ++m_collections;
        ++m_stalled;
        EndCall(); // stopped elsewhere: the call has returned
        m_collectEndEvent =
            Simulator::Schedule(m_collectPause, &HostReader::CollectionEnd, this);
        return;
    }
    if (m_socket && (m_callFull || m_socket->IsEmpty()))
    {
        CallReturns(); // MSG_WAITFORONE: the call returns once nothing waits
        return;
    }
    TryRead();
}

void
HostReader::StallBegin()
{
    if (!m_socket)
    {
        return; // disposed (the first stall is scheduled without an EventId to cancel)
    }
    ++m_stalls;
    ++m_stalled;
    EndCall(); // blocked elsewhere: the call has returned
    if (m_lockWait && !m_socket->IsQueueSpinlock())
    {
        m_lockWait = false;
        m_socket->CancelLockWait(this);
    }
    m_stallEndEvent = Simulator::Schedule(m_stallLength, &HostReader::StallEnd, this);
    m_stallEvent = Simulator::Schedule(m_stallPeriod, &HostReader::StallBegin, this);
}

void
HostReader::StallEnd()
{
    --m_stalled;
    TryRead();
}

bool
HostReader::Allocated(uint32_t bytes)
{
    if (m_collectEvery == 0 || !m_collectPause.IsStrictlyPositive())
    {
        return false;
    }
    m_allocated += bytes;
    if (m_allocated < m_collectEvery)
    {
        return false;
    }
    m_allocated -= m_collectEvery;
    return true;
}

void
HostReader::CollectionEnd()
{
    --m_stalled;
    TryRead();
}

void
HostReader::SetCpuGroup(uint32_t group)
{
    NS_ABORT_MSG_IF(m_cpu, "HostReader: SetCpuGroup after Start");
    m_group = group;
}

uint32_t
HostReader::GetCore() const
{
    return m_core;
}

uint64_t
HostReader::GetReads() const
{
    return m_reads;
}

uint64_t
HostReader::GetCalls() const
{
    return m_calls;
}

uint64_t
HostReader::GetWakeups() const
{
    return m_wakeups;
}

uint64_t
HostReader::GetStalls() const
{
    return m_stalls;
}

uint64_t
HostReader::GetCollections() const
{
    return m_collections;
}

Time
HostReader::GetCpuTime() const
{
    return m_cpuTime;
}

} // namespace ns3
