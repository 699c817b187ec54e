// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A UDP socket's receive queue charged by skb truesize, as in Linux.
 */
#ifndef LANLOSS_HOST_SOCKET_H
#define LANLOSS_HOST_SOCKET_H

#include "host-datagram.h"
#include "lanloss-linux-rx.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

class HostCpu;
class HostReader;

/**
 * @ingroup lanloss
 * The receive queue of one UDP socket bound to Port on the receiving host,
 * with Linux's memory accounting, which ns-3's UdpSocketImpl does not have (it
 * counts payload bytes). A HostRxKernel hands it every complete datagram for
 * Port; HostReaders take them out, one recvmsg at a time, on the host's CPU;
 * when a reader has copied a datagram out, the socket hands its frames to
 * ns-3's IPv4 (EthernetNetDevice::DeliverUp), so an ns-3 socket bound to Port
 * (a UdpFlowSink with its huge RcvBufSize) receives it at the moment the
 * application has read it.
 *
 * Charging (net/ipv4/udp.c, __udp_enqueue_schedule_skb): a datagram is
 * dropped if sk_rmem_alloc > sk_rcvbuf *before* it is charged; otherwise its
 * truesize is added. So the queue holds floor(sk_rcvbuf / truesize) + 1
 * datagrams of one truesize, whatever their payload (Capacity). sk_rcvbuf is
 * twice the setsockopt(SO_RCVBUF) value, clamped to RmemMax first unless
 * Force (SO_RCVBUFFORCE), and at least SOCK_MIN_RCVBUF; without
 * setsockopt (RcvBuf = 0) it is RmemDefault, not doubled. The charge is
 * released when the reader has copied the datagram (skb_consume_udp), not
 * when it starts reading it. A full socket buffer drops (Udp RcvbufErrors);
 * it never causes PAUSE.
 *
 * Readers (HostReader) that share the socket copy one at a time: recvmsg holds
 * the socket's lock (AcquireRead / ReleaseRead), and a reader that finds it
 * taken sleeps until it is handed the lock.
 *
 * QueueSpinlock (off by default) replaces that lock by the one Linux takes:
 * sk_receive_queue.lock, a spinlock held with interrupts off only around the
 * dequeue (__skb_try_recv_datagram) and the softirq's skb_queue_tail. Each
 * taker spins until it is free, pays LineTransfer when the lock's cache line
 * was last held by another core, then holds it for LockHold (LockQueue); the
 * copy to user space runs outside it. A datagram wakes one sleeping reader, or
 * every one with WakeAll (threads polling one descriptor without
 * EPOLLEXCLUSIVE); a woken reader pays its WakeupCost and takes the lock, and
 * one that finds the queue empty (another took the datagram) made a futile
 * wakeup. The enqueue's spin and transfer delay the readers but are not charged
 * to the softirq (its CPU per frame is the kernel's StackCost).
 *
 * OwnerCost > 0 adds what Linux 2.6.25 to 2.6.32 do after the copy: lock_sock,
 * skb_free_datagram, release_sock (udp_recvmsg's out_free). lock_sock is the
 * socket's owner lock: a reader that finds it owned sleeps until release_sock
 * hands it over (then pays WakeupCost: AcquireRead / ReleaseRead); the owner
 * runs OwnerCost with bottom halves on, so the softirq may pre-empt it; while
 * the socket is owned the softirq parks arriving datagrams in the socket's
 * backlog (udp_queue_rcv_skb: sk_add_backlog, unbounded before 2.6.34), and
 * release_sock queues them (receive-buffer check, charge, wake-ups) on the
 * owner's core. The charge of the datagram read is released at the end of the
 * owner section (sock_rfree). ReusePort (SO_REUSEPORT): sockets
 * of one port that all set it form a group in HostRxKernel, which spreads the
 * port's datagrams over them.
 */
class HostSocket : public Object
{
  public:
    static constexpr uint32_t SOCK_MIN_RCVBUF = LANLOSS_SOCK_MIN_RCVBUF; //!< lanloss-linux-rx.h

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** An empty queue, not attached, no readers. */
    HostSocket();
    ~HostSocket() override;

    /** @return the UDP port the socket is bound to (attribute Port) */
    uint16_t GetPort() const;
    /** @return whether the socket may share its port (SO_REUSEPORT) */
    bool IsReusePort() const;
    /** @return the effective sk_rcvbuf in bytes: RmemDefault without RcvBuf, else
     *          max(2 x RcvBuf (clamped to RmemMax unless Force), SOCK_MIN_RCVBUF) */
    uint32_t GetRcvbuf() const;
    /**
     * Datagrams of one truesize a queue accepts: floor(rcvbuf / truesize) + 1, since the
     * test against sk_rcvbuf is made before charging.
     * @param rcvbuf sk_rcvbuf in bytes
     * @param truesize each datagram's truesize in bytes
     * @return the number of datagrams
     */
    static uint32_t Capacity(uint32_t rcvbuf, uint32_t truesize);

    /**
     * Called by HostRxKernel::AddSocket: the host's CPU, where a datagram goes
     * once read, and the node's id (the context of the readers' events).
     * Readers added before start reading now.
     * @param cpu the host's CPU
     * @param deliver called with each datagram once a reader has copied it out
     * @param nodeId the node's id
     */
    void Attach(Ptr<HostCpu> cpu, Callback<void, const HostDatagram&> deliver, uint32_t nodeId);
    /**
     * A reading process; it starts reading once the socket is attached to a host (at
     * once if it already is).
     * @param reader the reader
     */
    void AddReader(Ptr<HostReader> reader);
    /** @return the socket's readers, in the order added */
    std::vector<Ptr<HostReader>> GetReaders() const;

    /**
     * Queue a datagram, or drop it (SocketDrop) if the buffer is over sk_rcvbuf; with
     * OwnerCost, park it in the backlog while a reader owns the socket.
     * @param datagram the complete datagram, its truesize set
     * @param core the core whose softirq queues it (QueueSpinlock: the lock's taker)
     * @return false if it was dropped
     */
    bool Enqueue(HostDatagram datagram, uint32_t core = 0);
    /** @return whether no datagram is queued */
    bool IsEmpty() const;
    /**
     * Take the oldest datagram (the queue must not be empty); it stays charged until
     * Consume, or with ForwardDeficit as Linux 6.1's UDP releases it.
     * @return the datagram
     */
    HostDatagram Dequeue();
    /**
     * A reader has copied @p datagram out: release its charge, hand it to the stack.
     * @param datagram the datagram Dequeue returned
     */
    void Consume(const HostDatagram& datagram);

    /**
     * The socket's lock for one recvmsg.
     * @param reader the reader that wants to read
     * @return true if @p reader holds it now; false if another does (@p reader then
     *         waits, and HostReader::LockHandedOver tells it when it is its own)
     */
    bool AcquireRead(HostReader* reader);
    /**
     * @p reader (the holder) is done: the lock goes to the longest waiting reader.
     * @param reader the holder
     */
    void ReleaseRead(HostReader* reader);
    /**
     * @p reader no longer waits for the lock (it stalls).
     * @param reader a waiting reader
     */
    void CancelLockWait(HostReader* reader);
    /** @return times the lock was handed from one reader to a waiting one */
    uint64_t GetLockHandoffs() const;

    /** @return whether QueueSpinlock is on (the lock around the dequeue only) */
    bool IsQueueSpinlock() const;
    /**
     * QueueSpinlock: a reader on @p core takes sk_receive_queue.lock now.
     * @param core the reader's core (a different core than the last holder's pays
     *        LineTransfer)
     * @return the CPU time it spends with interrupts off: spinning until the lock is
     *         free, the line's transfer from another core, the hold
     */
    Time LockQueue(uint32_t core);
    /** QueueSpinlock: a woken reader found the queue empty. */
    void CountFutileWakeup();
    /** @return QueueSpinlock: the CPU time of the owner section after a copy (0: none) */
    Time GetOwnerCost() const;
    /**
     * QueueSpinlock with OwnerCost: release_sock by @p reader on @p core: the datagrams
     * parked meanwhile are queued, then the owner lock goes to the longest waiting reader.
     * @param reader the owner
     * @param core the owner's core (where the parked datagrams are queued)
     */
    void ReleaseOwner(HostReader* reader, uint32_t core);
    /** @return datagrams the softirq parked in the socket's backlog while it was owned */
    uint64_t GetBacklogged() const;
    /** @return readers woken by arriving datagrams (QueueSpinlock) */
    uint64_t GetWakeups() const;
    /** @return of those, wakeups that found the queue empty (QueueSpinlock) */
    uint64_t GetFutileWakeups() const;
    /** @return times the lock's cache line moved between cores (QueueSpinlock) */
    uint64_t GetLineTransfers() const;
    /** @return CPU time readers spent spinning on the lock (QueueSpinlock) */
    Time GetSpinTime() const;

    /** @return datagrams queued so far */
    uint64_t GetEnqueued() const;
    /** @return datagrams dropped because the buffer was full (Udp RcvbufErrors) */
    uint64_t GetDrops() const;
    /** @return datagrams read by the application */
    uint64_t GetRead() const;
    /** @return datagrams waiting in the queue now (and in the backlog, with OwnerCost) */
    uint32_t GetQueueLength() const;
    /** @return sk_rmem_alloc now (bytes of truesize charged, read-in-progress included) */
    uint32_t GetRmemAlloc() const;
    /** @return the largest sk_rmem_alloc seen, in bytes */
    uint32_t GetPeakRmemAlloc() const;
    /** @return the most datagrams queued at once */
    uint32_t GetPeakQueueLength() const;

  protected:
    /** Dispose of the readers; drop the queue and the backlog; release the CPU. */
    void DoDispose() override;

  private:
    uint16_t m_port;
    uint32_t m_rcvBuf;
    uint32_t m_rmemDefault;
    uint32_t m_rmemMax;
    bool m_force;
    bool m_reusePort;

    std::deque<HostDatagram> m_queue;
    Ptr<HostCpu> m_cpu;
    uint32_t m_nodeId;
    std::vector<Ptr<HostReader>> m_readers;
    uint32_t m_nextReader; //!< where the next wake-up search starts (readers take turns)
    HostReader* m_lockHolder;               //!< the reader inside recvmsg, or null
    std::deque<HostReader*> m_lockWaiters;  //!< readers asleep on the lock, oldest first
    uint64_t m_lockHandoffs;
    Callback<void, const HostDatagram&> m_deliver;

    /** Take sk_receive_queue.lock on @p core: the lock's line moves, the hold begins at
     *  the later of now and its release. @return the taker's spin */
    Time TakeQueueLock(uint32_t core);

    bool m_queueSpinlock;
    Time m_lineTransfer;
    Time m_lockHold;
    bool m_wakeAll;
    Time m_ownerCost;
    std::deque<HostDatagram> m_backlog; //!< parked while a reader owns the socket
    uint64_t m_backlogged;
    Time m_lockFreeAt;   //!< when the spinlock's current holder releases it
    uint32_t m_lockCore; //!< core that held it last (UINT32_MAX: none yet)
    uint64_t m_wakeups;
    uint64_t m_futileWakeups;
    uint64_t m_lineTransfers;
    Time m_spinTime;

    bool m_forwardDeficit;   //!< ForwardDeficit
    uint64_t m_deficit;      //!< ForwardDeficit: charges of read datagrams not yet released
    std::size_t m_readerQueue; //!< ForwardDeficit: the oldest queued that the reader took
    uint64_t m_rmemAlloc;
    uint64_t m_peakRmem;
    uint32_t m_peakQueue;
    uint64_t m_enqueued;
    uint64_t m_drops;
    uint64_t m_read;

    TracedCallback<Ptr<const Packet>> m_dropTrace;
};

} // namespace ns3

#endif /* LANLOSS_HOST_SOCKET_H */
