// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A process that reads datagrams from a HostSocket, on the host's CPU.
 */
#ifndef LANLOSS_HOST_READER_H
#define LANLOSS_HOST_READER_H

#include "host-datagram.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

class HostCpu;
class HostSocket;

/**
 * @ingroup lanloss
 * A receiving process: a blocking recvmsg loop on a HostSocket, as a task
 * thread pinned to Core of the host's HostCpu. Each datagram costs ReadCost
 * plus ReadByteCost per payload byte (system call, copy to user space) inside
 * recvmsg, then WorkCost (what the application does with it) after it, at
 * task priority, so interrupts and softirqs on the same core pre-empt it.
 *
 * Optional stalls: stall k (k = 0, 1, ...) starts at StallStart + k *
 * StallPeriod and lasts StallLength; during a stall the process reads nothing
 * and uses no CPU (it is blocked elsewhere: disk, display, a lock, GC). A read
 * in progress when a stall starts is finished first. Stalls are how the
 * socket buffer overflows while the CPU is not saturated (seed 000: bursty
 * losses at the socket after ITR had removed the interrupt losses); with
 * stalls of T_off the buffer overflows once rate * T_off > capacity.
 *
 * Optional collections (a garbage-collected program's): each datagram read
 * allocates its payload's bytes; once CollectEvery bytes have been allocated
 * since the last collection, the program stops for CollectPause (a
 * stop-the-world young collection) when that datagram's work is done, and
 * reads nothing meanwhile. A collection's pause stops the reader as a stall
 * does; a stall that begins during it still ends at its own time.
 *
 * Several readers may share one socket (threads reading one descriptor, each
 * with its own thread and CPU time): a datagram wakes one waiting reader, and
 * recvmsg holds the socket's lock (HostSocket::AcquireRead), so one reader at
 * a time copies; a reader that finds the lock taken sleeps until it is handed
 * over and then spends WakeupCost (being woken, the context switch) before it
 * reads. Readers that share a socket therefore help only where the work after
 * recvmsg dominates (seed 004's Model 3: two threads on one descriptor read
 * less than one).
 *
 * With the socket's QueueSpinlock (Linux's lock) a read is instead: the
 * spinlock around the dequeue (HostSocket::LockQueue: spin, the line's
 * transfer, the hold; interrupts off, so the softirq cannot pre-empt it), then
 * the copy (ReadCost + ReadByteCost per byte, pre-emptible) outside the lock.
 * A reader that finds the queue empty sleeps; woken, it pays WakeupCost (the
 * context switch) before it takes the lock, and may find the queue empty
 * again (a futile wakeup: another reader took the datagram). With the socket's
 * OwnerCost, the copy is followed by lock_sock, skb_free_datagram and
 * release_sock (Linux 2.6.25-2.6.32): a reader that finds the socket owned
 * sleeps until it is handed over and pays WakeupCost (LockHandedOver).
 *
 * A read is one of a receive call's (lanloss-recv's recvmmsg with
 * MSG_WAITFORONE): a call takes datagrams while the queue holds one, at most
 * CallBatch, and ends when it finds the queue empty (the read's work is taken
 * as the kernel's, inside the call); its first read also pays CallCost (the
 * system call's entry and exit, the reader's clock reads around it), so a
 * reader that finds several waiting spends less per datagram than one woken
 * for each.
 *
 * With WakeFromSleep a reader woken from its sleep in recvmsg pays WakeupCost
 * before it looks, whether or not it shares the socket: the context switch a
 * real kernel makes for every reader a datagram wakes (a reader that finds the
 * queue non-empty after a read does not sleep, and pays nothing).
 */
class HostReader : public Object
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A reader not yet started (no thread), no stalls. */
    HostReader();
    ~HostReader() override;

    /**
     * Start reading @p socket on @p cpu (called by HostSocket): a task thread on Core
     * (in the SetCpuGroup group, if any), the stalls scheduled, a first read attempted.
     * @param cpu the host's CPU
     * @param socket the socket read (it owns this reader)
     * @param nodeId the context of the reader's own events (stalls), which may be
     *        scheduled before the simulation runs
     */
    void Start(Ptr<HostCpu> cpu, HostSocket* socket, uint32_t nodeId);
    /** @return true while blocked in recvmsg on an empty socket (not reading, not stalled,
     *          not waiting for the socket's lock) */
    bool IsWaiting() const;
    /** @return true in the middle of a recvmsg (a datagram taken from the socket, not yet
     *          delivered), its work after it included */
    bool IsReading() const;
    /** Data arrived: a waiting reader starts reading. */
    void Wake();
    /** The socket's lock, which this reader waited for, is now its own (HostSocket). */
    void LockHandedOver();
    /**
     * Run the reader's thread in HostCpu bandwidth group @p group (a cgroup CPU
     * quota, option recv_cpu); before Start.
     * @param group a group id from HostCpu::CreateBandwidthGroup
     */
    void SetCpuGroup(uint32_t group);

    /** @return the core the reader is pinned to (attribute Core) */
    uint32_t GetCore() const;
    /** @return datagrams read (copy finished) */
    uint64_t GetReads() const;
    /** @return receive calls that returned datagrams (CallCost: a call takes up to
     *          CallBatch of those waiting; the testbed's counterpart: lanloss-recv's calls) */
    uint64_t GetCalls() const;
    /** @return times a datagram woke this reader from its sleep in recvmsg (the
     * testbed's counterpart: the reader's voluntary context switches) */
    uint64_t GetWakeups() const;
    /** @return stalls begun */
    uint64_t GetStalls() const;
    /** @return collections begun (CollectEvery) */
    uint64_t GetCollections() const;
    /** @return CPU time of the jobs this reader has run or is running (wake-ups, copies,
     *          work) */
    Time GetCpuTime() const;

  protected:
    /** Cancel the stall events and release the CPU, the socket and the datagram held. */
    void DoDispose() override;

  private:
    void TryRead();
    /** With the socket's lock: take a datagram and copy it (or give the lock back). */
    void ReadLocked();
    void ReadDone();
    /** The datagram is copied out: release its charge, hand it on (no owner section). */
    void FreeDatagram();
    /** After the read: the application's work, then the next read. */
    void AfterRead();
    /** Owner section (socket OwnerCost): skb_free_datagram under lock_sock. */
    void OwnSocket();
    /** release_sock: the charge released, the backlog queued, the lock handed on. */
    void OwnerDone();
    void WorkDone();
    /** QueueSpinlock: take the queue's lock (and a datagram, if one is queued). */
    void LockQueue();
    /** QueueSpinlock: the lock is released; copy the datagram taken, if any. */
    void QueueUnlocked();
    /** QueueSpinlock: a woken reader is back on its core. */
    void Woken();
    /** WakeFromSleep, no QueueSpinlock: a woken reader is back on its core; it reads. */
    void WokenToRead();
    void StallBegin();
    void StallEnd();
    /** Counts @p bytes allocated; true once a collection is due (CollectEvery reached). */
    bool Allocated(uint32_t bytes);
    void CollectionEnd();
    /** The copy's CPU time for the datagram just taken (it counts the call it opens). */
    Time CopyTime();
    /** The receive call is over without its return being paid (a stall began). */
    void EndCall();
    /**
     * The receive call returns (it found the queue empty, or it took CallBatch): with
     * datagrams and CallCost, the return and the next call's entry run before the reader
     * looks at the socket again (CallReturned); otherwise it looks now.
     */
    void CallReturns();
    /** CallCost is paid: the next call looks at the socket. */
    void CallReturned();

    Time m_readCost;
    double m_readByteCost; //!< seconds per payload byte (below 1 ns: a double)
    Time m_workCost;
    Time m_wakeupCost;
    Time m_callCost;
    uint32_t m_callBatch;
    uint32_t m_callTaken; //!< datagrams the current receive call has taken (0: no call)
    bool m_callFull;      //!< the current call has taken CallBatch: it returns after this read
    uint32_t m_core;
    uint32_t m_group;
    Time m_stallPeriod;
    Time m_stallLength;
    Time m_stallStart;
    uint64_t m_collectEvery; //!< bytes allocated between collections (0: none)
    Time m_collectPause;
    uint64_t m_allocated;    //!< bytes allocated since the last collection
    bool m_collectDue;       //!< the last datagram read filled the young generation

    Ptr<HostCpu> m_cpu;
    HostSocket* m_socket; //!< owns this reader
    uint32_t m_thread;
    bool m_reading;  //!< from taking the lock (or datagram) to the end of its work
    bool m_lockWait; //!< asleep on the socket's lock
    uint32_t m_stalled; //!< stops in force (stalls, a collection): reads nothing while > 0
    HostDatagram m_current;
    Callback<void> m_readDone;
    Callback<void> m_workDone;
    Callback<void> m_readLocked;
    Callback<void> m_queueUnlocked;
    Callback<void> m_woken;
    Callback<void> m_wokenToRead;
    Callback<void> m_ownSocket;
    Callback<void> m_ownerDone;
    Callback<void> m_callReturned;
    bool m_wokenTry; //!< QueueSpinlock: this lock is a woken reader's first look
    bool m_taken;    //!< QueueSpinlock: the lock's holder took a datagram
    bool m_wakeFromSleep; //!< WakeFromSleep: a woken sleeper pays WakeupCost
    EventId m_stallEvent;
    EventId m_stallEndEvent;
    EventId m_collectEndEvent;

    uint64_t m_reads;
    uint64_t m_calls;
    uint64_t m_wakeups;
    uint64_t m_stalls;
    uint64_t m_collections;
    Time m_cpuTime;
};

} // namespace ns3

#endif /* LANLOSS_HOST_READER_H */
